/* The tool information interface (MPI 3.1 §14.3): its entry points, over a
 * library that has no control or performance variables, no categories and
 * no enumerations. Every count is 0 and every index, name or handle
 * invalid, which is a correct implementation; the sessions are real
 * objects (a tool creates one before it asks for any handle). MPI_T keeps
 * its own state (a nesting count), independent of MPI_Init/Finalize, and
 * returns its error codes without calling error handlers (§14.3.9). */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "sm_core.h"
#include "smpi.h"

#define SMPI_MAGIC_TSESSION 0x54534553u

struct smpi_t_session {
    uint32_t magic;
    struct smpi_t_session *next;
};

/* The nesting count and the open sessions; one lock, since any thread may
 * call any of these at any time (they are never on a fast path). */
static pthread_mutex_t t_lock = PTHREAD_MUTEX_INITIALIZER;
static int t_inits;
static struct smpi_t_session *t_sessions;

static int initialised(void)
{
    return __atomic_load_n(&t_inits, __ATOMIC_ACQUIRE) > 0;
}
#define CHECK_T() do { if (!initialised()) return MPI_T_ERR_NOT_INITIALIZED; } while (0)

int PMPI_T_init_thread(int required, int *provided)
{
    if (!provided || required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&t_lock);
    __atomic_store_n(&t_inits, t_inits + 1, __ATOMIC_RELEASE);    /* read unlocked by initialised() */
    pthread_mutex_unlock(&t_lock);
    *provided = required;                /* every level: the calls below take t_lock */
    return MPI_SUCCESS;
}
#pragma weak MPI_T_init_thread = PMPI_T_init_thread

/* The last finalize frees the sessions a tool left: their handles are
 * invalid once MPI_T is no longer initialised. */
int PMPI_T_finalize(void)
{
    pthread_mutex_lock(&t_lock);
    int rc = t_inits > 0 ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED;
    if (!rc) __atomic_store_n(&t_inits, t_inits - 1, __ATOMIC_RELEASE);
    if (!rc && !t_inits) {
        while (t_sessions) {
            struct smpi_t_session *s = t_sessions;
            t_sessions = s->next;
            s->magic = 0;
            free(s);
        }
    }
    pthread_mutex_unlock(&t_lock);
    return rc;
}
#pragma weak MPI_T_finalize = PMPI_T_finalize

/* --- Enumerations: none exist, so no handle names one -------------------- */
int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    (void)enumtype, (void)num, (void)name, (void)name_len;
    CHECK_T();
    return MPI_T_ERR_INVALID_HANDLE;
}
#pragma weak MPI_T_enum_get_info = PMPI_T_enum_get_info

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    (void)enumtype, (void)index, (void)value, (void)name, (void)name_len;
    CHECK_T();
    return MPI_T_ERR_INVALID_HANDLE;
}
#pragma weak MPI_T_enum_get_item = PMPI_T_enum_get_item

/* A count query: 0 of them. */
static int none(int *num)
{
    CHECK_T();
    if (!num) return MPI_T_ERR_INVALID;
    *num = 0;
    return MPI_SUCCESS;
}

/* --- Control variables -------------------------------------------------- */
int PMPI_T_cvar_get_num(int *num_cvar) { return none(num_cvar); }
#pragma weak MPI_T_cvar_get_num = PMPI_T_cvar_get_num

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                         MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope)
{
    (void)cvar_index, (void)name, (void)name_len, (void)verbosity, (void)datatype, (void)enumtype, (void)desc,
        (void)desc_len, (void)bind, (void)scope;
    CHECK_T();
    return MPI_T_ERR_INVALID_INDEX;
}
#pragma weak MPI_T_cvar_get_info = PMPI_T_cvar_get_info

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    CHECK_T();
    if (!name || !cvar_index) return MPI_T_ERR_INVALID;
    return MPI_T_ERR_INVALID_NAME;
}
#pragma weak MPI_T_cvar_get_index = PMPI_T_cvar_get_index

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count)
{
    (void)cvar_index, (void)obj_handle, (void)handle, (void)count;
    CHECK_T();
    return MPI_T_ERR_INVALID_INDEX;
}
#pragma weak MPI_T_cvar_handle_alloc = PMPI_T_cvar_handle_alloc

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    (void)handle;
    CHECK_T();
    return MPI_T_ERR_INVALID_HANDLE;     /* none was ever allocated */
}
#pragma weak MPI_T_cvar_handle_free = PMPI_T_cvar_handle_free

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    (void)handle, (void)buf;
    CHECK_T();
    return MPI_T_ERR_INVALID_HANDLE;
}
#pragma weak MPI_T_cvar_read = PMPI_T_cvar_read

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    (void)handle, (void)buf;
    CHECK_T();
    return MPI_T_ERR_INVALID_HANDLE;
}
#pragma weak MPI_T_cvar_write = PMPI_T_cvar_write

/* --- Performance variables and their sessions --------------------------- */
int PMPI_T_pvar_get_num(int *num_pvar) { return none(num_pvar); }
#pragma weak MPI_T_pvar_get_num = PMPI_T_pvar_get_num

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                         int *readonly, int *continuous, int *atomic)
{
    (void)pvar_index, (void)name, (void)name_len, (void)verbosity, (void)var_class, (void)datatype,
        (void)enumtype, (void)desc, (void)desc_len, (void)bind, (void)readonly, (void)continuous, (void)atomic;
    CHECK_T();
    return MPI_T_ERR_INVALID_INDEX;
}
#pragma weak MPI_T_pvar_get_info = PMPI_T_pvar_get_info

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    (void)var_class;
    CHECK_T();
    if (!name || !pvar_index) return MPI_T_ERR_INVALID;
    return MPI_T_ERR_INVALID_NAME;
}
#pragma weak MPI_T_pvar_get_index = PMPI_T_pvar_get_index

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    CHECK_T();
    if (!session) return MPI_T_ERR_INVALID;
    struct smpi_t_session *s = malloc(sizeof *s);
    if (!s) return MPI_T_ERR_MEMORY;
    pthread_mutex_lock(&t_lock);
    int rc = t_inits > 0 ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED;   /* a finalize in between */
    if (!rc) *s = (struct smpi_t_session){ SMPI_MAGIC_TSESSION, t_sessions }, t_sessions = s;
    pthread_mutex_unlock(&t_lock);
    if (rc) free(s);
    else *session = s;
    return rc;
}
#pragma weak MPI_T_pvar_session_create = PMPI_T_pvar_session_create

/* Is s an open session? Under t_lock: the list, not the handle's memory
 * (which a free may have returned), says. Returns its link, or NULL. */
static struct smpi_t_session **session_find(MPI_T_pvar_session s)
{
    for (struct smpi_t_session **p = &t_sessions; *p; p = &(*p)->next)
        if (*p == s) return p;
    return NULL;
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    CHECK_T();
    if (!session) return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&t_lock);
    struct smpi_t_session **p = session_find(*session), *s = p ? *p : NULL;
    if (s) *p = s->next;
    pthread_mutex_unlock(&t_lock);
    if (!s) return MPI_T_ERR_INVALID_SESSION;
    s->magic = 0;
    free(s);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_session_free = PMPI_T_pvar_session_free

static int session_check(MPI_T_pvar_session s)
{
    CHECK_T();
    pthread_mutex_lock(&t_lock);
    bool ok = session_find(s) != NULL;
    pthread_mutex_unlock(&t_lock);
    return ok ? MPI_SUCCESS : MPI_T_ERR_INVALID_SESSION;
}

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    (void)pvar_index, (void)obj_handle, (void)handle, (void)count;
    int rc = session_check(session);
    return rc ? rc : MPI_T_ERR_INVALID_INDEX;
}
#pragma weak MPI_T_pvar_handle_alloc = PMPI_T_pvar_handle_alloc

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    (void)handle;
    int rc = session_check(session);
    return rc ? rc : MPI_T_ERR_INVALID_HANDLE;
}
#pragma weak MPI_T_pvar_handle_free = PMPI_T_pvar_handle_free

/* Start, stop and reset take MPI_T_PVAR_ALL_HANDLES for every handle of
 * the session: there are none, so that is done at once. */
static int all_or_invalid(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    int rc = session_check(session);
    return rc ? rc : handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return all_or_invalid(session, handle);
}
#pragma weak MPI_T_pvar_start = PMPI_T_pvar_start

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return all_or_invalid(session, handle);
}
#pragma weak MPI_T_pvar_stop = PMPI_T_pvar_stop

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return all_or_invalid(session, handle);
}
#pragma weak MPI_T_pvar_reset = PMPI_T_pvar_reset

/* Reading or writing needs one variable's handle (never ALL_HANDLES). */
static int one_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    (void)handle;
    int rc = session_check(session);
    return rc ? rc : MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    (void)buf;
    return one_handle(session, handle);
}
#pragma weak MPI_T_pvar_read = PMPI_T_pvar_read

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    (void)buf;
    return one_handle(session, handle);
}
#pragma weak MPI_T_pvar_write = PMPI_T_pvar_write

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    (void)buf;
    return one_handle(session, handle);
}
#pragma weak MPI_T_pvar_readreset = PMPI_T_pvar_readreset

/* --- Categories ----------------------------------------------------------- */
int PMPI_T_category_get_num(int *num_cat) { return none(num_cat); }
#pragma weak MPI_T_category_get_num = PMPI_T_category_get_num

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars,
                             int *num_pvars, int *num_categories)
{
    (void)cat_index, (void)name, (void)name_len, (void)desc, (void)desc_len, (void)num_cvars, (void)num_pvars,
        (void)num_categories;
    CHECK_T();
    return MPI_T_ERR_INVALID_INDEX;
}
#pragma weak MPI_T_category_get_info = PMPI_T_category_get_info

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    CHECK_T();
    if (!name || !cat_index) return MPI_T_ERR_INVALID;
    return MPI_T_ERR_INVALID_NAME;
}
#pragma weak MPI_T_category_get_index = PMPI_T_category_get_index

static int no_category(int cat_index, int len, int indices[])
{
    (void)cat_index, (void)len, (void)indices;
    CHECK_T();
    return MPI_T_ERR_INVALID_INDEX;
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) { return no_category(cat_index, len, indices); }
#pragma weak MPI_T_category_get_cvars = PMPI_T_category_get_cvars
int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) { return no_category(cat_index, len, indices); }
#pragma weak MPI_T_category_get_pvars = PMPI_T_category_get_pvars
int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return no_category(cat_index, len, indices);
}
#pragma weak MPI_T_category_get_categories = PMPI_T_category_get_categories

/* The categories never change: the stamp stays 0. */
int PMPI_T_category_changed(int *stamp) { return none(stamp); }
#pragma weak MPI_T_category_changed = PMPI_T_category_changed
