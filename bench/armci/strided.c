/* strided.c: seed 003's ARMCI get bandwidth, multi-strided and contiguous:
 * process 0 gets a 2-D patch of process 1's array with ARMCI_GetS (one
 * stride level) into a packed buffer and, beside it, the same bytes with
 * one ARMCI_Get. As in the seed, consecutive gets read different areas of
 * the remote array, so that a repeat does not read from the cache; the
 * others wait in the barrier. The last patch read is checked. The same
 * pattern with MPI_Get of a subarray datatype is bench/mpi/onesided.c's
 * "strided" test (the baseline: Open MPI and MPICH have no ARMCI). Standard
 * ARMCI (armci.h, message.h) only: the same source builds with any ARMCI
 * (ARMCI-MPI: link with -larmci and MPI).
 *   smrun -n 2 bench_armci_strided [-s SIZES] [-t SECONDS] [-b BATCHES]   (bench.h; sizes: patch bytes)
 *   smrun -n 2 bench_armci_strided MAX_BYTES                               (sizes 8 to MAX_BYTES) */
#include <armci.h>
#include <message.h>
#include <time.h>

#include "../bench.h"

enum { ROWS = 512, LD = 32 << 10 };   /* the array: ROWS rows of LD bytes, as in rma.c */
static int me;
static void **rem;
static char *loc;

struct patch { int rows, cols, strided; };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* where the a-th get of a patch starts in process 1's array */
static char *area(const struct patch *p, long a)
{
    int per_row = LD / p->cols, per_col = ROWS / p->rows;
    a %= (long)per_row * per_col;
    return (char *)rem[1] + (a / per_row) * p->rows * (long)LD + (a % per_row) * p->cols;
}

static double run(long iters, void *ctx)
{
    const struct patch *p = ctx;
    int src_stride[1] = {LD}, dst_stride[1] = {p->cols}, count[2] = {p->cols, p->rows};
    double t = 0;
    ARMCI_Barrier();
    if (me == 0) {
        double t0 = now();
        for (long i = 0; i < iters; i++) {
            if (p->strided) ARMCI_GetS(area(p, i), src_stride, loc, dst_stride, count, 1, 1);
            else ARMCI_Get(area(p, i), loc, p->rows * p->cols, 1);
        }
        t = now() - t0;
    }
    armci_msg_dgop(&t, 1, "max");   /* every process agrees on process 0's time */
    return t;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    ARMCI_Init_args(&argc, &argv);
    me = armci_msg_me();
    if (bench_args(&o, argc, argv, "bench_armci_strided", 8, 8, 4L << 20, me == 0)) armci_msg_abort(2);
    if (armci_msg_nproc() < 2) {
        if (me == 0) fprintf(stderr, "bench_armci_strided: needs 2 processes or more\n");
        armci_msg_abort(2);
    }
    rem = malloc(sizeof(void *) * (size_t)armci_msg_nproc());
    if (!rem || ARMCI_Malloc(rem, (armci_size_t)ROWS * LD)) ARMCI_Error("bench_armci_strided: ARMCI_Malloc failed", 1);
    loc = ARMCI_Malloc_local((armci_size_t)ROWS * LD);
    for (long i = 0; i < (long)ROWS * LD; i++) ((unsigned char *)rem[me])[i] = (unsigned char)(i % 251);
    ARMCI_Barrier();
    for (int strided = 1; strided >= 0; strided--) {
        if (me == 0)
            printf(strided ? "#@ strided_get\n# ARMCI_GetS of a 2-D patch (1 stride level): patch bytes, MB/s\n"
                           : "#@ contig_get\n# ARMCI_Get of the same bytes: bytes, MB/s\n");
        for (int i = 0; i < o.nsizes; i++) {
            struct patch p = {0, 0, strided};
            bench_patch(o.sizes[i], ROWS, &p.rows, &p.cols);
            if (p.cols < 1 || p.cols > LD) continue;
            double t = bench_time(run, &p, &o);
            if (me == 0) printf("%-10ld %12.2f\n", o.sizes[i], (double)p.rows * p.cols / t / 1e6);
            fflush(stdout);
            if (me == 0 && strided) {   /* the data: patch 1 again, row by row */
                int src_stride[1] = {LD}, dst_stride[1] = {p.cols}, count[2] = {p.cols, p.rows};
                long base = area(&p, 1) - (char *)rem[1];
                ARMCI_GetS(area(&p, 1), src_stride, loc, dst_stride, count, 1, 1);
                for (long r = 0; r < p.rows; r++)
                    for (long c = 0; c < p.cols; c += 1 + p.cols / 7)
                        if ((unsigned char)loc[r * p.cols + c] != (unsigned char)((base + r * LD + c) % 251))
                            ARMCI_Error("bench_armci_strided: ARMCI_GetS moved the wrong data", 3);
            }
        }
    }
    ARMCI_Barrier();
    ARMCI_Free_local(loc);
    ARMCI_Free(rem[me]);
    free(rem);
    ARMCI_Finalize();
    return 0;
}
