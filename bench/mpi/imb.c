/* IMB-style Sendrecv and Exchange on all ranks of MPI_COMM_WORLD (a periodic
 * chain): bandwidth counted as IMB does (Sendrecv 2 x size, Exchange
 * 4 x size per iteration), from the slowest rank's time. Standard MPI only.
 *   imb [-s SIZES] [-t SECONDS] [-b BATCHES]   (bench.h) */
#include <mpi.h>

#include "../bench.h"

static char *sb, *rb;
static int left, right;

struct step { int exchange, len; };

static double run(long iters, void *ctx)
{
    const struct step *s = ctx;
    MPI_Request r[4];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (!s->exchange) {
            MPI_Sendrecv(sb, s->len, MPI_BYTE, right, 0, rb, s->len, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        } else {
            MPI_Irecv(rb, s->len, MPI_BYTE, left, 0, MPI_COMM_WORLD, &r[0]);
            MPI_Irecv(rb + s->len, s->len, MPI_BYTE, right, 0, MPI_COMM_WORLD, &r[1]);
            MPI_Isend(sb, s->len, MPI_BYTE, left, 0, MPI_COMM_WORLD, &r[2]);
            MPI_Isend(sb, s->len, MPI_BYTE, right, 0, MPI_COMM_WORLD, &r[3]);
            MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        }
    }
    double t = MPI_Wtime() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    int me, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (bench_args(&o, argc, argv, "imb", 0, 4, 4L << 20, me == 0)) MPI_Abort(MPI_COMM_WORLD, 2);
    long max = bench_max_size(&o);
    sb = malloc((size_t)max + 1), rb = malloc(2 * (size_t)max + 1);
    if (!sb || !rb) MPI_Abort(MPI_COMM_WORLD, 1);
    memset(sb, 1, (size_t)max + 1);
    left = (me + n - 1) % n, right = (me + 1) % n;
    for (int ex = 0; ex < 2; ex++) {
        if (me == 0)
            printf("#@ %s\n# IMB %s, %d ranks: bytes, MB/s\n", ex ? "exchange" : "sendrecv", ex ? "Exchange" : "Sendrecv", n);
        for (int i = 0; i < o.nsizes; i++) {
            struct step s = {ex, (int)o.sizes[i]};
            if (!s.len) continue;
            double per = bench_time(run, &s, &o);
            if (me == 0) printf("%-10d %12.2f\n", s.len, (ex ? 4.0 : 2.0) * s.len / per / 1e6);
        }
    }
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
