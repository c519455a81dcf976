/* A PE killed while the others read and write its memory from another
 * node (UCX gets, puts and atomics to it): the launcher ends the job with a
 * non-zero exit, and nobody hangs or reports success. */
#include <shmem.h>
#include <signal.h>
#include <stdio.h>

static long cell[64];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), victim = n - 1;
    long buf[64] = {0};
    shmem_barrier_all();
    if (me == victim) raise(SIGKILL);
    for (long i = 0;; i++) {   /* until the launcher ends the job */
        shmem_long_put(cell, buf, 64, victim);
        shmem_long_get(buf, cell, 64, victim);
        shmem_long_atomic_add(&cell[0], 1, victim);
        shmem_quiet();
        /* a PE on the victim's node reaches its memory directly, which
         * cannot fail: it runs until the launcher ends the job */
        if (i == 1000000 && !shmem_ptr(cell, victim)) break;
    }
    printf("PE %d: survived its peer's death\n", me);
    shmem_finalize();
    return 0;
}
