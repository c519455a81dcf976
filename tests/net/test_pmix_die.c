/* A rank killed while its peers wait for it (or, with "exit", one that
 * returns from main without MPI_Finalize; with "nbc", killed while the
 * others wait in a nonblocking allreduce that goes by nodes; with "sliced",
 * in a 1 MiB allreduce that nodes of equal size run in slices, each member
 * carrying its own slice between nodes): the launcher ends the job (no
 * hang), with a non-zero exit. With "launcher FILE", no rank dies: each
 * appends its pid to FILE and waits for a message nobody sends, until
 * launcher_dies.sh kills the launcher (the ranks must then end themselves). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (argc > 2 && strcmp(argv[1], "launcher") == 0) {
        FILE *f = fopen(argv[2], "a");
        if (!f) return 2;
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
        MPI_Recv(&x, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank %d: received a message nobody sent\n", rank);
        return 1;
    }
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
    } else if (argc > 1 && strcmp(argv[1], "sliced") == 0) {
        enum { N = 1 << 17 }; /* 1 MiB of doubles: past the sliced path's 512 KiB */
        double *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
        for (int i = 0; i < N; i++) in[i] = rank;
        MPI_Allreduce(in, out, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        free(in);
        free(out);
    } else {
        MPI_Recv(&x, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    printf("rank %d: received from a dead rank\n", rank);
    MPI_Finalize();
    return 0;
}
