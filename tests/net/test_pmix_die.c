/* A rank killed while its peers wait for it (or, with "exit", one that
 * returns from main without MPI_Finalize; with "nbc", killed while the
 * others wait in a nonblocking allreduce that goes by nodes): the launcher
 * ends the job (no hang), with a non-zero exit. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        if (argc > 1 && strcmp(argv[1], "exit") == 0) return 0;
        raise(SIGKILL);
    }
    if (argc > 1 && strcmp(argv[1], "nbc") == 0) {
        /* (the barrier above, the world's first blocking collective, split it by nodes) */
        int one = 1;
        MPI_Request r;
        MPI_Iallreduce(&one, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&x, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    printf("rank %d: received from a dead rank\n", rank);
    MPI_Finalize();
    return 0;
}
