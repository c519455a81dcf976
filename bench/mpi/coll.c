/* IMB-style blocking collectives on MPI_COMM_WORLD, every one MPI-3.1 has
 * (Alltoallw aside): time per call, the slowest rank's, for sizes in bytes
 * (per rank's block where the collective has blocks; reductions on
 * MPI_FLOAT with MPI_SUM, the whole vector). Roots rotate as IMB's do.
 * With 2 ranks, the raw flag ping-pong of flag.h before and after the
 * collectives (coll_flag, coll_flag_end): which placement of a VM's vCPUs
 * the run was in, and whether it changed during the run.
 * Standard MPI only, so the same source builds with any MPI's mpicc.
 *   coll [-s SIZES] [-t SECONDS] [-b BATCHES] [-o Bcast,Reduce,...]  (bench.h) */
#include <mpi.h>

#include "../bench.h"
#include "flag.h"

enum op { BARRIER, BCAST, REDUCE, ALLREDUCE, REDUCE_SCATTER_BLOCK, REDUCE_SCATTER, SCAN, EXSCAN, GATHER, GATHERV,
          SCATTER, SCATTERV, ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, NOPS };
static const char *const names[NOPS] = {"Barrier", "Bcast", "Reduce", "Allreduce", "Reduce_scatter_block",
                                        "Reduce_scatter", "Scan", "Exscan", "Gather", "Gatherv", "Scatter",
                                        "Scatterv", "Allgather", "Allgatherv", "Alltoall", "Alltoallv"};

static char *sb, *rb;
static int *counts, *displs, me, n;

struct call { enum op op; int len; };

/* iters calls; every rank returns the slowest rank's time */
static double run(long iters, void *ctx)
{
    const struct call *c = ctx;
    int len = c->len, cnt = len / (int)sizeof(float);
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Barrier(w);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        int root = (int)(i % n);
        switch (c->op) {
        case BARRIER: MPI_Barrier(w); break;
        case BCAST: MPI_Bcast(sb, len, MPI_BYTE, root, w); break;
        case REDUCE: MPI_Reduce(sb, rb, cnt, MPI_FLOAT, MPI_SUM, root, w); break;
        case ALLREDUCE: MPI_Allreduce(sb, rb, cnt, MPI_FLOAT, MPI_SUM, w); break;
        case REDUCE_SCATTER_BLOCK: MPI_Reduce_scatter_block(sb, rb, cnt, MPI_FLOAT, MPI_SUM, w); break;
        case REDUCE_SCATTER: MPI_Reduce_scatter(sb, rb, counts, MPI_FLOAT, MPI_SUM, w); break;
        case SCAN: MPI_Scan(sb, rb, cnt, MPI_FLOAT, MPI_SUM, w); break;
        case EXSCAN: MPI_Exscan(sb, rb, cnt, MPI_FLOAT, MPI_SUM, w); break;
        case GATHER: MPI_Gather(sb, len, MPI_BYTE, rb, len, MPI_BYTE, root, w); break;
        case GATHERV: MPI_Gatherv(sb, len, MPI_BYTE, rb, counts, displs, MPI_BYTE, root, w); break;
        case SCATTER: MPI_Scatter(sb, len, MPI_BYTE, rb, len, MPI_BYTE, root, w); break;
        case SCATTERV: MPI_Scatterv(sb, counts, displs, MPI_BYTE, rb, len, MPI_BYTE, root, w); break;
        case ALLGATHER: MPI_Allgather(sb, len, MPI_BYTE, rb, len, MPI_BYTE, w); break;
        case ALLGATHERV: MPI_Allgatherv(sb, len, MPI_BYTE, rb, counts, displs, MPI_BYTE, w); break;
        case ALLTOALL: MPI_Alltoall(sb, len, MPI_BYTE, rb, len, MPI_BYTE, w); break;
        case ALLTOALLV: MPI_Alltoallv(sb, counts, displs, MPI_BYTE, rb, counts, displs, MPI_BYTE, w); break;
        default: break;
        }
    }
    double t = MPI_Wtime() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, w);
    return tmax;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (bench_args(&o, argc, argv, "coll", 4, 4, 4L << 20, me == 0))
        MPI_Abort(MPI_COMM_WORLD, 2);
    long max = bench_max_size(&o);
    if (max > (1L << 30) / n) {
        if (me == 0) fprintf(stderr, "coll: size %ld too large for %d ranks (at most %ld)\n", max, n, (1L << 30) / n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t big = (size_t)(max < 4 ? 4 : max) * (size_t)n;
    sb = malloc(big);
    rb = malloc(big);
    counts = malloc(sizeof(int) * (size_t)n);
    displs = malloc(sizeof(int) * (size_t)n);
    if (!sb || !rb || !counts || !displs) {
        fprintf(stderr, "coll: rank %d: cannot allocate 2 x %zu bytes\n", me, big);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < big / sizeof(float); i++) ((float *)sb)[i] = 1.0f;
    memset(rb, 0, big);
    /* 2 ranks only, as pingpong.c's flags; the window is freed meanwhile
     * (a window might add work to an MPI's progress) */
    bool flags = n == 2 && flag_setup();
    if (flags) {
        double t = flag_time(&o);
        flag_free();
        if (me == 0)
            printf("#@ coll_flag\n# raw flag ping-pong (flag.h), before the collectives: half round trip (us)\n"
                   "0 %12.4f\n", t * 1e6);
    }
    for (int op = 0; op < NOPS; op++) {
        if (!bench_want(&o, names[op])) continue;
        int red = op == REDUCE || op == ALLREDUCE || op == SCAN || op == EXSCAN || op == REDUCE_SCATTER ||
                  op == REDUCE_SCATTER_BLOCK;
        if (me == 0) {
            char key[64];
            int l = snprintf(key, sizeof key, "coll_%s", names[op]);
            for (int i = 0; i < l; i++) key[i] = (char)(key[i] >= 'A' && key[i] <= 'Z' ? key[i] + 32 : key[i]);
            printf("#@ %s\n# MPI_%s, %d ranks: bytes%s, time per call (us), median of %d batches\n", key, names[op],
                   n, red ? " (MPI_FLOAT, MPI_SUM)" : "", o.batches);
        }
        for (int s = 0; s < (op == BARRIER ? 1 : o.nsizes); s++) {
            struct call c = {(enum op)op, op == BARRIER ? 0 : (int)o.sizes[s]};
            if (red && c.len < (int)sizeof(float)) continue;
            for (int r = 0; r < n; r++)
                counts[r] = red ? c.len / (int)sizeof(float) : c.len, displs[r] = r * c.len;
            double t = bench_time(run, &c, &o);
            if (me == 0) printf("%-10d %12.4f\n", c.len, t * 1e6);
            fflush(stdout);
        }
    }
    if (flags && flag_setup()) {
        double t = flag_time(&o);
        if (me == 0) printf("#@ coll_flag_end\n# the same, after the collectives\n0 %12.4f\n", t * 1e6);
        flag_free();
    }
    free(sb);
    free(rb);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
