/* Ranks outnumbering cores: ranks 0 and 1 ping-pong while the others wait
 * in a barrier (asleep). A waiting rank whose yields come straight back has
 * its core to itself and keeps polling for a while rather than sleeping
 * (core/wait.c yield_idle): SMARTMAP_STATS counts those yields, and the
 * test wants some on rank 0 or 1; the messages' contents are checked. */
#include "mcheck.h"

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (me < 2 && np > 1) {
        int peer = 1 - me;
        for (int i = 0; i < 20000; i++) {
            int v = i, got = -1;
            if (me == 0) {
                MPI_Send(&v, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(&got, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&got, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&got, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
            }
            CHECK(got == i, "round %d: got %d", i, got);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
