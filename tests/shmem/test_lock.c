/* test_lock.c: locks: mutual exclusion with plain get/put in the critical section. */
#include "shmem_test.h"

static long gcounter, glock;

/* --- locks: mutual exclusion with plain get/put in the critical section ------------------------------- */
static void t_lock(void)
{
    if (me == 0) gcounter = 0;
    shmem_barrier_all();
    for (int i = 0; i < ITER; i++) {
        if (i % 3 == 0) {
            while (shmem_test_lock(&glock)) { }
        } else {
            shmem_set_lock(&glock);
        }
        long v = shmem_long_g(&gcounter, 0);
        shmem_long_p(&gcounter, v + 1, 0);
        shmem_clear_lock(&glock);
    }
    shmem_barrier_all();
    CHECK(shmem_long_g(&gcounter, 0) == (long)ITER * npes, "locked count %ld", shmem_long_g(&gcounter, 0));
    shmem_barrier_all();
}

int main(void)
{
    test_start();
    t_lock();
    shmem_finalize();
    return 0;
}
