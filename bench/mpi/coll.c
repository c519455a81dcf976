/* IMB-style collectives on MPI_COMM_WORLD: Barrier, Bcast, Reduce, Allreduce
 * (MPI_FLOAT, MPI_SUM), Allgather and Alltoall; time per call, the slowest
 * rank's average, for message sizes in bytes per rank (per pair for Alltoall).
 * Standard MPI only, so the same source builds with any MPI's mpicc.
 *   coll [max_bytes [seconds_per_size [ops]]]   ops: comma list, default all */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { BARRIER, BCAST, REDUCE, ALLREDUCE, ALLGATHER, ALLTOALL, NOPS };
static const char *const names[NOPS] = {"Barrier", "Bcast", "Reduce", "Allreduce", "Allgather", "Alltoall"};

static char *sb, *rb;

/* One timed loop of iters calls; every rank returns the slowest rank's time,
 * so all agree on the next iteration count. The root rotates as IMB does. */
static double run(enum op op, int len, long iters, int n)
{
    int cnt = len / (int)sizeof(float);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        int root = (int)(i % n);
        switch (op) {
        case BARRIER:   MPI_Barrier(MPI_COMM_WORLD); break;
        case BCAST:     MPI_Bcast(sb, len, MPI_BYTE, root, MPI_COMM_WORLD); break;
        case REDUCE:    MPI_Reduce(sb, rb, cnt, MPI_FLOAT, MPI_SUM, root, MPI_COMM_WORLD); break;
        case ALLREDUCE: MPI_Allreduce(sb, rb, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); break;
        case ALLGATHER: MPI_Allgather(sb, len, MPI_BYTE, rb, len, MPI_BYTE, MPI_COMM_WORLD); break;
        case ALLTOALL:  MPI_Alltoall(sb, len, MPI_BYTE, rb, len, MPI_BYTE, MPI_COMM_WORLD); break;
        default: break;
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
    const char *want = argc > 3 ? argv[3] : NULL;
    if (max < 4 || max > (1L << 30) / n || budget <= 0) {
        if (me == 0) fprintf(stderr, "coll: bad arguments: max_bytes %ld (4 to %ld), seconds %g (> 0)\n",
                             max, (1L << 30) / n, budget);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t big = (size_t)max * (size_t)n;
    sb = malloc(big);
    rb = malloc(big);
    if (!sb || !rb) {
        fprintf(stderr, "coll: rank %d: cannot allocate 2 x %zu bytes\n", me, big);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < big / sizeof(float); i++) ((float *)sb)[i] = 1.0f;
    memset(rb, 0, big);
    for (int op = 0; op < NOPS; op++) {
        if (want) {   /* a whole-word match in the comma list */
            size_t l = strlen(names[op]);
            const char *p = want;
            while ((p = strstr(p, names[op])) && ((p != want && p[-1] != ',') || (p[l] && p[l] != ',')))
                p += l;
            if (!p) continue;
        }
        if (me == 0) printf("# %s, %d ranks\n# %-9s %12s\n", names[op], n, "bytes", "t_us");
        for (long len = op == BARRIER ? 0 : 4; len <= max; len *= 4) {
            long iters = 4;
            double t;
            while ((t = run((enum op)op, (int)len, iters, n)) < budget && iters < (1L << 24))
                iters = t > 0 ? (long)((double)iters * budget / t * 1.1) + 1 : iters * 10;
            if (me == 0) printf("  %-9ld %12.3f\n", len, t / (double)iters * 1e6);
            if (op == BARRIER) break;
        }
    }
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
