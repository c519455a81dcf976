/* test_setup.c: setup and queries: PE numbers, accessibility, shmem_ptr, version,
 * thread levels. */
#include "shmem_test.h"

static int thread_level = SHMEM_THREAD_MULTIPLE;
static long gcounter;

/* --- setup ------------------------------------------------------------------------ */
static void t_setup(void)
{
    CHECK(me == sm_rank() && npes == sm_size(), "my_pe %d n_pes %d", me, npes);
    CHECK(shmem_pe_accessible(npes - 1) && !shmem_pe_accessible(npes) && !shmem_pe_accessible(-1), "pe_accessible");
    long *h = shmem_malloc(sizeof(long));
    for (int pe = 0; pe < npes; pe++) {
        /* a PE on another node (jobs across nodes): not load/store accessible */
        bool near = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0;
        CHECK(shmem_ptr(&gcounter, pe) == (near ? sm_remote(pe, &gcounter) : NULL), "shmem_ptr(global, %d)", pe);
        CHECK(near ? shmem_ptr(h, pe) != NULL && shmem_ptr(h, pe) == sm_remote(pe, h) : shmem_ptr(h, pe) == NULL,
              "shmem_ptr(heap, %d)", pe);
        CHECK(shmem_addr_accessible(h, pe) && shmem_addr_accessible(&gcounter, pe), "addr_accessible %d", pe);
    }
    CHECK(shmem_ptr(h, npes) == NULL, "shmem_ptr beyond the last PE");
    int local = 0;   /* a stack variable of the main thread: exposed too (extension) */
    (void)local;
    int maj, min;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_version(&maj, &min);
    shmem_info_get_name(name);
    CHECK(maj == 1 && min == 5 && strlen(name) > 0, "version %d.%d name '%s'", maj, min, name);
    int prov;
    shmem_query_thread(&prov);
    CHECK(prov == thread_level, "thread level %d, not %d", prov, thread_level);
    /* ptr: direct stores reach the peer */
    long *r = shmem_ptr(h, (me + 1) % npes);
    if (r) *r = 1000 + me;
    else shmem_long_p(h, 1000 + me, (me + 1) % npes);   /* on another node */
    shmem_barrier_all();
    CHECK(*h == 1000 + (me + npes - 1) % npes, "value %ld through shmem_ptr", *h);
    shmem_free(h);
}

int main(void)
{
    int prov = -1;   /* the level asked for is the level reported */
    CHECK(shmem_init_thread(SHMEM_THREAD_FUNNELED, &prov) == 0 && prov == SHMEM_THREAD_FUNNELED, "provided %d", prov);
    thread_level = SHMEM_THREAD_FUNNELED;
    me = shmem_my_pe(), npes = shmem_n_pes();
    t_setup();
    shmem_finalize();
    return 0;
}
