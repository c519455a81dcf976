/* A PE waiting for another node sleeps and is woken by UCX (net.c's
 * watcher of the worker's event fd), instead of polling UCX: in
 * shmem_wait_until for a put from the other node, and in shmem_barrier_all
 * while a PE of the other node does atomics on its memory (which its own
 * worker carries out over TCP). The last PE keeps PE 0 waiting about a
 * second each time; SMARTMAP_STATS then shows PE 0's UCX progress calls
 * (a polling wait makes hundreds of thousands a second, a sleeping one a
 * few) and the wakes the watcher gave it. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int flag;
static long counter;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), last = n - 1;   /* (on different nodes: the test's shape) */
    shmem_barrier_all();
    /* 1: PE 0 in shmem_wait_until, the put late */
    if (me == last) {
        sleep(1);
        shmem_int_atomic_set(&flag, 1, 0);
    }
    if (me == 0) shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);
    shmem_barrier_all();
    /* 2: PE 0 asleep in a barrier carries out the other node's atomics */
    if (me == last) {
        sleep(1);
        for (int i = 0; i < 200; i++) shmem_long_atomic_fetch_add(&counter, 1, 0);
    }
    shmem_barrier_all();
    long c = shmem_long_atomic_fetch(&counter, 0);
    if (c != 200) {
        printf("PE %d: counter %ld, not 200\n", me, c);
        abort();
    }
    if (me == 0) printf("PE 0: woken\n");
    shmem_finalize();
    return 0;
}
