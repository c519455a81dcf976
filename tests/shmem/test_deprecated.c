/* test_deprecated.c: the deprecated names of setup, atomics, waits and the heap
 * (the deprecated collectives: test_coll.c). */
#include "shmem_test.h"

/* --- deprecated forms ---------------------------------------------------------------------------------------- */
static void t_deprecated(void)
{
    CHECK(_my_pe() == me && _num_pes() == npes, "_my_pe/_num_pes");
    /* deprecated atomics and waits, under contention */
    static long dl;
    static int di;
    static long long dll;
    dl = 0, di = 0, dll = 0;
    shmem_barrier_all();
    for (int i = 0; i < ITER; i++) {
        shmem_long_finc(&dl, 0), shmem_long_fadd(&dl, 2, 0), shmem_long_inc(&dl, 0), shmem_long_add(&dl, 3, 0);
        shmem_int_inc(&di, 0);
        long long o;
        do o = shmem_longlong_fetch(&dll, 0); while (shmem_longlong_cswap(&dll, o, o + 1, 0) != o);
    }
    shmem_barrier_all();
    CHECK(shmem_long_fetch(&dl, 0) == 7L * ITER * npes && shmem_int_fetch(&di, 0) == ITER * npes &&
          shmem_longlong_fetch(&dll, 0) == (long long)ITER * npes, "deprecated atomics");
    shmem_barrier_all();
    if (me == 0) shmem_long_set(&dl, 0, 0);
    shmem_barrier_all();
    shmem_int_p(&di, 0, 0);   /* PE 0's di: every PE writes 0 ... */
    shmem_barrier_all();
    if (me == 1 % npes) shmem_int_swap(&di, 5, 0);   /* ... then one PE wakes PE 0 */
    if (me == 0) shmem_int_wait(&di, 0);
    CHECK(me != 0 || di == 5, "shmem_int_wait %d", di);
    static unsigned int uw;
    static long lw2;
    uw = 0, lw2 = 0;
    shmem_barrier_all();
    shmem_uint_p(&uw, 9, (me + 1) % npes);
    shmem_long_p(&lw2, 4, (me + 1) % npes);
    shmem_uint_wait(&uw, 0);
    (shmem_wait_until)(&lw2, SHMEM_CMP_EQ, 4);
    CHECK(uw == 9 && lw2 == 4, "deprecated waits");
    shmem_clear_cache_inv(), shmem_udcflush();
    void *h = shmalloc(100);
    CHECK(h != NULL, "shmalloc");
    shfree(h);
    shmem_barrier_all();
}

int main(void)
{
    start_pes(0);
    me = shmem_my_pe(), npes = shmem_n_pes();
    t_deprecated();
    shmem_finalize();
    return 0;
}
