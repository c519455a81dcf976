/* strided.c: seed 003's strided get bandwidth with ARMCI (ARMCI-MPI's
 * armci.h API, inside an MPI program): rank 0 gets a 2-D patch of rank 1's
 * array with ARMCI_GetS (one stride level) into a contiguous buffer;
 * consecutive gets read different parts of the array, as in the paper.
 * The same pattern with MPI_Get of a subarray datatype is bench/mpi/rma.c's
 * "strided" test (the baseline: Open MPI and MPICH have no ARMCI).
 *   strided [-s SIZES] [-t SECONDS] [-b BATCHES]   (bench.h; sizes: patch bytes) */
#include <armci.h>
#include <mpi.h>

#include "../bench.h"

enum { ROWS = 512, LD = 32 << 10 };   /* the array: ROWS rows of LD bytes, as in rma.c */
static int me;
static void **bases;
static char *buf;

struct patch { int rows, cols; };

static double run(long iters, void *ctx)
{
    const struct patch *p = ctx;
    int per_row = LD / p->cols, per_col = ROWS / p->rows;
    int src_stride[1] = {LD}, dst_stride[1] = {p->cols}, count[2] = {p->cols, p->rows};
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (me == 0)
        for (long i = 0; i < iters; i++) {
            long a = i % ((long)per_row * per_col);
            char *from = (char *)bases[1] + (a / per_row) * p->rows * (long)LD + (a % per_row) * p->cols;
            ARMCI_GetS(from, src_stride, buf, dst_stride, count, 1, 1);
        }
    double t = MPI_Wtime() - t0;
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    int n;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (bench_args(&o, argc, argv, "strided", 8, 8, 4L << 20, me == 0)) MPI_Abort(MPI_COMM_WORLD, 2);
    if (n < 2) {
        if (me == 0) fprintf(stderr, "strided: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bases = malloc(sizeof(void *) * (size_t)n);
    buf = malloc((size_t)ROWS * LD);
    if (!bases || !buf || ARMCI_Malloc(bases, (armci_size_t)ROWS * LD)) {
        fprintf(stderr, "strided: rank %d: cannot allocate the arrays\n", me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(bases[me], 1, (size_t)ROWS * LD);
    ARMCI_Barrier();
    if (me == 0) printf("#@ strided_get\n# ARMCI_GetS of a 2-D patch: patch bytes, MB/s\n");
    for (int i = 0; i < o.nsizes; i++) {
        long s = o.sizes[i];
        struct patch p;
        bench_patch(s, ROWS, &p.rows, &p.cols);
        if (s < 1 || p.cols > LD) continue;
        double t = bench_time(run, &p, &o);
        if (me == 0) printf("%-10ld %12.2f\n", s, (double)p.rows * p.cols / t / 1e6);
    }
    ARMCI_Barrier();
    ARMCI_Free(bases[me]);
    free(bases);
    free(buf);
    ARMCI_Finalize();
    MPI_Finalize();
    return 0;
}
