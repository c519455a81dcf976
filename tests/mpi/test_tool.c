/* The tool information interface (MPI 3.1 §14.3): before MPI_T_init_thread
 * every call gives MPI_T_ERR_NOT_INITIALIZED; init and finalize nest, before
 * MPI_Init and after MPI_Finalize too; no variables and no categories (0
 * of each, every index and name invalid); sessions are real; threads
 * initialising and finalising at once keep the count. */
#include <pthread.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* (not mcheck.h's: it asks MPI_COMM_WORLD for the rank, which needs MPI_Init) */
#define CHECK(cond, ...) do { if (!(cond)) { \
    fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(1); } } while (0)
#define EXPECT(call, code) do { int rc_ = (call); \
    CHECK(rc_ == (code), "%s returned %d, expected %s (%d)", #call, rc_, #code, code); } while (0)
#define OK(call) EXPECT(call, MPI_SUCCESS)

/* Every routine that needs MPI_T initialised says it is not. */
static void not_initialised(void)
{
    int num, idx, cnt, v;
    char name[64];
    MPI_T_pvar_session se = MPI_T_PVAR_SESSION_NULL;
    MPI_T_cvar_handle ch = MPI_T_CVAR_HANDLE_NULL;
    MPI_T_pvar_handle ph = MPI_T_PVAR_HANDLE_NULL;
    EXPECT(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_cvar_get_num(&num), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_get_num(&num), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_category_get_num(&num), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_category_changed(&num), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_cvar_get_info(0, name, &num, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_cvar_get_index("x", &idx), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_cvar_handle_alloc(0, NULL, &ch, &cnt), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_cvar_handle_free(&ch), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_cvar_read(ch, &v), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_cvar_write(ch, &v), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_get_info(0, name, &num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_get_index("x", MPI_T_PVAR_CLASS_COUNTER, &idx), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_session_create(&se), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_session_free(&se), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_handle_alloc(se, 0, NULL, &ph, &cnt), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_handle_free(se, &ph), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_start(se, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_stop(se, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_reset(se, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_read(se, ph, &v), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_write(se, ph, &v), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_readreset(se, ph, &v), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_category_get_info(0, name, &num, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_category_get_index("x", &idx), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_category_get_cvars(0, 1, &idx), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_category_get_pvars(0, 1, &idx), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_category_get_categories(0, 1, &idx), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &num, name, &cnt), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_enum_get_item(MPI_T_ENUM_NULL, 0, &v, name, &cnt), MPI_T_ERR_NOT_INITIALIZED);
}

/* Initialised: nothing to find, and sessions that work. */
static void empty(void)
{
    int num = -1, idx, cnt, v, len = 64;
    char name[64];
    OK(MPI_T_cvar_get_num(&num));
    CHECK(num == 0, "%d control variables", num);
    num = -1;
    OK(MPI_T_pvar_get_num(&num));
    CHECK(num == 0, "%d performance variables", num);
    num = -1;
    OK(MPI_T_category_get_num(&num));
    CHECK(num == 0, "%d categories", num);
    num = -1;
    OK(MPI_T_category_changed(&num));
    CHECK(num == 0, "category stamp %d", num);
    EXPECT(MPI_T_cvar_get_num(NULL), MPI_T_ERR_INVALID);
    int verb, bind, scope;
    MPI_Datatype dt;
    MPI_T_enum en;
    for (int i = -1; i <= 1; i++) {
        EXPECT(MPI_T_cvar_get_info(i, name, &len, &verb, &dt, &en, NULL, NULL, &bind, &scope),
               MPI_T_ERR_INVALID_INDEX);
        EXPECT(MPI_T_pvar_get_info(i, name, &len, &verb, &v, &dt, &en, NULL, NULL, &bind, &v, &v, &v),
               MPI_T_ERR_INVALID_INDEX);
        EXPECT(MPI_T_category_get_info(i, name, &len, NULL, NULL, &v, &v, &v), MPI_T_ERR_INVALID_INDEX);
        EXPECT(MPI_T_category_get_cvars(i, 1, &idx), MPI_T_ERR_INVALID_INDEX);
        EXPECT(MPI_T_category_get_pvars(i, 1, &idx), MPI_T_ERR_INVALID_INDEX);
        EXPECT(MPI_T_category_get_categories(i, 1, &idx), MPI_T_ERR_INVALID_INDEX);
    }
    EXPECT(MPI_T_cvar_get_index("smartmap_anything", &idx), MPI_T_ERR_INVALID_NAME);
    EXPECT(MPI_T_pvar_get_index("smartmap_anything", MPI_T_PVAR_CLASS_TIMER, &idx), MPI_T_ERR_INVALID_NAME);
    EXPECT(MPI_T_category_get_index("smartmap_anything", &idx), MPI_T_ERR_INVALID_NAME);
    MPI_T_cvar_handle ch = MPI_T_CVAR_HANDLE_NULL;
    EXPECT(MPI_T_cvar_handle_alloc(0, NULL, &ch, &cnt), MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_cvar_handle_free(&ch), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_cvar_read(ch, &v), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_cvar_write(ch, &v), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &num, name, &len), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_enum_get_item(MPI_T_ENUM_NULL, 0, &v, name, &len), MPI_T_ERR_INVALID_HANDLE);

    MPI_T_pvar_session se, se2;
    MPI_T_pvar_handle ph = MPI_T_PVAR_HANDLE_NULL;
    OK(MPI_T_pvar_session_create(&se));
    OK(MPI_T_pvar_session_create(&se2));
    CHECK(se != MPI_T_PVAR_SESSION_NULL && se2 != se, "two sessions, distinct");
    EXPECT(MPI_T_pvar_handle_alloc(se, 0, NULL, &ph, &cnt), MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_pvar_handle_free(se, &ph), MPI_T_ERR_INVALID_HANDLE);
    OK(MPI_T_pvar_start(se, MPI_T_PVAR_ALL_HANDLES));      /* all of none */
    OK(MPI_T_pvar_stop(se, MPI_T_PVAR_ALL_HANDLES));
    OK(MPI_T_pvar_reset(se, MPI_T_PVAR_ALL_HANDLES));
    EXPECT(MPI_T_pvar_start(se, ph), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_pvar_read(se, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_pvar_write(se, ph, &v), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_pvar_readreset(se, ph, &v), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_pvar_start(MPI_T_PVAR_SESSION_NULL, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_INVALID_SESSION);
    EXPECT(MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, 0, NULL, &ph, &cnt), MPI_T_ERR_INVALID_SESSION);
    OK(MPI_T_pvar_session_free(&se));
    CHECK(se == MPI_T_PVAR_SESSION_NULL, "a freed session is MPI_T_PVAR_SESSION_NULL");
    EXPECT(MPI_T_pvar_session_free(&se), MPI_T_ERR_INVALID_SESSION);
    OK(MPI_T_pvar_session_free(&se2));
}

static void *hammer(void *arg)
{
    (void)arg;
    for (int k = 0; k < 2000; k++) {
        int p, num = -1;
        MPI_T_pvar_session se;
        OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &p));
        OK(MPI_T_pvar_get_num(&num));
        CHECK(num == 0, "%d", num);
        OK(MPI_T_pvar_session_create(&se));
        OK(MPI_T_pvar_start(se, MPI_T_PVAR_ALL_HANDLES));
        OK(MPI_T_pvar_session_free(&se));
        OK(MPI_T_finalize());
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int p = -1, me, n;
    not_initialised();
    EXPECT(MPI_T_init_thread(MPI_THREAD_MULTIPLE + 1, &p), MPI_T_ERR_INVALID);
    EXPECT(MPI_T_init_thread(MPI_THREAD_SINGLE, NULL), MPI_T_ERR_INVALID);
    not_initialised();
    /* before MPI_Init, twice (nested) */
    OK(MPI_T_init_thread(MPI_THREAD_FUNNELED, &p));
    CHECK(p == MPI_THREAD_FUNNELED, "provided %d", p);
    OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &p));
    CHECK(p == MPI_THREAD_MULTIPLE, "provided %d", p);
    empty();
    MPI_T_pvar_session left;
    OK(MPI_T_pvar_session_create(&left));    /* left open: the last MPI_T_finalize frees it */

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    empty();
    /* the codes are error classes with their own text */
    int cls;
    char s[MPI_MAX_ERROR_STRING];
    OK(MPI_Error_class(MPI_T_ERR_INVALID_INDEX, &cls));
    CHECK(cls == MPI_T_ERR_INVALID_INDEX, "class %d", cls);
    OK(MPI_Error_string(MPI_T_ERR_NOT_INITIALIZED, s, &cls));
    CHECK(strstr(s, "MPI_T_ERR_NOT_INITIALIZED"), "string '%s'", s);
    CHECK(MPI_T_ERR_INVALID < MPI_ERR_LASTCODE && MPI_T_ERR_MEMORY > MPI_SUCCESS, "codes in range");

    /* threads initialising, using and finalising at once, the count held by main */
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, hammer, NULL);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    OK(MPI_T_finalize());
    empty();                                 /* still one init open */
    OK(MPI_T_finalize());
    not_initialised();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();

    /* after MPI_Finalize: again, and the session left open is gone */
    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &p));
    CHECK(p == MPI_THREAD_SINGLE, "provided %d", p);
    EXPECT(MPI_T_pvar_start(left, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_INVALID_SESSION);
    empty();
    OK(MPI_T_finalize());
    not_initialised();
    if (me == 0) printf("test_tool: ok (%d ranks)\n", n);
    return 0;
}
