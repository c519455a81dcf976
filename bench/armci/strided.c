/* strided.c: seed 003's ARMCI get bandwidth, contiguous and multi-strided:
 * process 0 gets from process 1 a square n x n section of doubles (one
 * stride level, from an array with twice the rows' length) and, beside it,
 * the same bytes in one contiguous ARMCI_Get, for n = 1 .. 1024 (8 B to
 * 8 MiB). As in the seed, consecutive gets read different areas of the
 * remote memory (cycling over 4 copies) so that a repeat does not read
 * from the cache; the other processes wait in the barrier. Each size is
 * timed in several runs and the median quoted (the spread beside it).
 * Standard ARMCI (armci.h) only, so the same source builds against any
 * ARMCI (ARMCI-MPI: link with -larmci and MPI).
 *
 * Usage: smrun -n 2 bench_armci_strided [max_bytes] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <armci.h>

#define COPIES 4
#define RUNS 5

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    ARMCI_Init_args(&argc, &argv);
    int me = armci_msg_me(), np = armci_msg_nproc();
    long max = argc > 1 ? atol(argv[1]) : 8L << 20;
    if (np < 2) {
        if (me == 0) fprintf(stderr, "bench_armci_strided: needs 2 processes or more\n");
        ARMCI_Finalize();
        return 1;
    }
    int nmax = 1;
    while ((long)(nmax * 2) * (nmax * 2) * 8 <= max) nmax *= 2;
    /* Remote: COPIES arrays of nmax rows of 2*nmax doubles; local: one packed section. */
    size_t ld = 2 * (size_t)nmax, copy = ld * (size_t)nmax * sizeof(double);
    void **rem = malloc(sizeof *rem * (size_t)np);
    if (ARMCI_Malloc(rem, (armci_size_t)(COPIES * copy))) ARMCI_Error("ARMCI_Malloc failed", 1);
    for (size_t i = 0; i < COPIES * copy / sizeof(double); i++) ((double *)rem[me])[i] = (double)i;
    double *loc = ARMCI_Malloc_local((armci_size_t)copy);
    ARMCI_Barrier();
    if (me == 0)
        printf("# ARMCI get bandwidth (seed 003): process 0 gets from process 1 an n x n section of doubles\n"
               "# (GetS, 1 stride level, rows 2n apart) and the same bytes contiguously (Get); median of %d runs\n"
               "# %-10s %6s %12s %12s %10s %12s %12s %10s\n", RUNS, "bytes", "n", "GetS us", "GetS MB/s", "spread",
               "Get us", "Get MB/s", "spread");
    for (int n = 1; n <= nmax; n *= 2) {
        size_t bytes = (size_t)n * n * sizeof(double);
        int iters = bytes <= 8192 ? 20000 : bytes <= (1 << 20) ? 500 : 40;
        int stride[1] = { (int)(ld * sizeof(double)) }, lstride[1] = { n * (int)sizeof(double) };
        int count[2] = { n * (int)sizeof(double), n };
        double ts[RUNS], tc[RUNS];
        for (int r = 0; r < RUNS; r++) {
            ARMCI_Barrier();
            if (me != 0) continue;
            double t0 = now();
            for (int i = 0; i < iters; i++)
                ARMCI_GetS((char *)rem[1] + (size_t)(i % COPIES) * copy, stride, loc, lstride, count, 1, 1);
            ts[r] = (now() - t0) / iters;
            t0 = now();
            for (int i = 0; i < iters; i++) ARMCI_Get((char *)rem[1] + (size_t)(i % COPIES) * copy, loc, (int)bytes, 1);
            tc[r] = (now() - t0) / iters;
        }
        if (me == 0) {
            /* The last get's section holds rows 0..n-1, columns 0..n-1 of the last copy read. */
            size_t c = (size_t)((iters - 1) % COPIES) * copy / sizeof(double);
            ARMCI_GetS((char *)rem[1] + c * sizeof(double), stride, loc, lstride, count, 1, 1);
            for (int i = 0; i < n; i++)
                if (loc[(size_t)i * n + n - 1] != (double)(c + i * ld + n - 1)) ARMCI_Error("GetS moved the wrong data", 2);
            qsort(ts, RUNS, sizeof ts[0], cmpd), qsort(tc, RUNS, sizeof tc[0], cmpd);
            double ms = ts[RUNS / 2], mc = tc[RUNS / 2];
            printf("%-12zu %6d %12.3f %12.1f %9.0f%% %12.3f %12.1f %9.0f%%\n", bytes, n, ms * 1e6, bytes / ms / 1e6,
                   100 * (ts[RUNS - 1] - ts[0]) / ms, mc * 1e6, bytes / mc / 1e6, 100 * (tc[RUNS - 1] - tc[0]) / mc);
            fflush(stdout);
        }
    }
    ARMCI_Barrier();
    ARMCI_Free_local(loc);
    ARMCI_Free(rem[me]);
    free(rem);
    ARMCI_Finalize();
    return 0;
}
