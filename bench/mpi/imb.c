/* IMB-style Sendrecv and Exchange on all ranks of MPI_COMM_WORLD (a periodic
 * chain): time per iteration and bandwidth counted as IMB does (Sendrecv
 * 2 x size, Exchange 4 x size per iteration). Standard MPI only.
 *   imb [max_bytes [seconds_per_size]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double run(int exchange, char *sb, char *rb, int len, long iters, int left, int right)
{
    MPI_Request r[4];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (!exchange) {
            MPI_Sendrecv(sb, len, MPI_BYTE, right, 0, rb, len, MPI_BYTE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Irecv(rb, len, MPI_BYTE, left, 0, MPI_COMM_WORLD, &r[0]);
            MPI_Irecv(rb + len, len, MPI_BYTE, right, 0, MPI_COMM_WORLD, &r[1]);
            MPI_Isend(sb, len, MPI_BYTE, left, 0, MPI_COMM_WORLD, &r[2]);
            MPI_Isend(sb, len, MPI_BYTE, right, 0, MPI_COMM_WORLD, &r[3]);
            MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        }
    }
    double t = MPI_Wtime() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

int main(int argc, char **argv)
{
    int me, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long max = argc > 1 ? atol(argv[1]) : 4L << 20;
    double budget = argc > 2 ? atof(argv[2]) : 0.2;
    char *sb = malloc((size_t)max + 1), *rb = malloc(2 * (size_t)max + 1);
    memset(sb, 1, (size_t)max + 1);
    int left = (me + n - 1) % n, right = (me + 1) % n;
    for (int ex = 0; ex < 2; ex++) {
        if (me == 0) printf("# %s, %d ranks\n# %-9s %12s %12s\n", ex ? "Exchange" : "Sendrecv", n, "bytes", "t_us", "MB/s");
        for (long len = 0; len <= max; len = len ? len * 4 : 1) {
            long iters = 4;
            double t;
            while ((t = run(ex, sb, rb, (int)len, iters, left, right)) < budget && iters < (1L << 24))
                iters = t > 0 ? (long)((double)iters * budget / t * 1.1) + 1 : iters * 10;
            double per = t / (double)iters;
            if (me == 0) printf("  %-9ld %12.3f %12.1f\n", len, per * 1e6, (ex ? 4.0 : 2.0) * (double)len / per / 1e6);
        }
    }
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
