/* Neighbourhood collectives on a 2-D periodic grid (MPI_Dims_create's
 * shape of MPI_COMM_WORLD, 4 neighbours each): Neighbor_allgather,
 * Neighbor_alltoall and Ineighbor_alltoall + Wait; time per call, the
 * slowest rank's average, for message sizes in bytes per neighbour.
 * Standard MPI only, so the same source builds with any MPI's mpicc.
 *   neighbor [max_bytes [seconds_per_size]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { ALLGATHER, ALLTOALL, IALLTOALL, NOPS };
static const char *const names[NOPS] = { "Neighbor_allgather", "Neighbor_alltoall", "Ineighbor_alltoall" };

static char *sb, *rb;

static double run(enum op op, int len, long iters, MPI_Comm grid)
{
    MPI_Request q;
    MPI_Barrier(grid);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        switch (op) {
        case ALLGATHER: MPI_Neighbor_allgather(sb, len, MPI_BYTE, rb, len, MPI_BYTE, grid); break;
        case ALLTOALL: MPI_Neighbor_alltoall(sb, len, MPI_BYTE, rb, len, MPI_BYTE, grid); break;
        default:
            MPI_Ineighbor_alltoall(sb, len, MPI_BYTE, rb, len, MPI_BYTE, grid, &q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
    }
    double t = MPI_Wtime() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, grid);
    return tmax;
}

int main(int argc, char **argv)
{
    int me, n, dims[2] = { 0, 0 }, periods[2] = { 1, 1 };
    MPI_Comm grid;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long max = argc > 1 ? atol(argv[1]) : 1L << 20;
    double budget = argc > 2 ? atof(argv[2]) : 0.2;
    if (max < 1 || max > (1L << 28) || budget <= 0) {
        if (me == 0) fprintf(stderr, "neighbor: bad arguments: max_bytes %ld (1 to %ld), seconds %g (> 0)\n", max,
                             1L << 28, budget);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Dims_create(n, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    sb = malloc(4 * (size_t)max);
    rb = malloc(4 * (size_t)max);
    if (!sb || !rb) {
        fprintf(stderr, "neighbor: rank %d: cannot allocate 2 x %ld bytes\n", me, 4 * max);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(sb, 1, 4 * (size_t)max);
    memset(rb, 0, 4 * (size_t)max);
    for (int op = 0; op < NOPS; op++) {
        if (me == 0) printf("# %s, %d ranks, %dx%d periodic grid\n# %-9s %12s\n", names[op], n, dims[0], dims[1],
                            "bytes", "t_us");
        for (long len = 8; len <= max; len *= 8) {
            long iters = 4;
            double t;
            while ((t = run((enum op)op, (int)len, iters, grid)) < budget && iters < (1L << 24))
                iters = t > 0 ? (long)((double)iters * budget / t * 1.1) + 1 : iters * 10;
            if (me == 0) printf("  %-9ld %12.3f\n", len, t / (double)iters * 1e6);
        }
    }
    MPI_Comm_free(&grid);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
