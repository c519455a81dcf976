/* bench.h: what the benchmark programs share (plain C, no MPI or SHMEM, so
 * the same header serves every implementation): the command line and the
 * timing rule.
 *
 * Command line:  prog [-s SIZES] [-t SECONDS] [-b BATCHES] [-o NAMES]
 *   -s  message sizes, a comma list (8,1K,64K,4M); default: the program's
 *   -t  seconds per size, all batches together (default 0.2)
 *   -b  batches per size (default 5): the figure printed is their median
 *   -o  which tests (comma list of names; default all)
 * The older positional forms  prog [max_bytes [seconds [names]]]  and
 * prog NAMES|all [options]  still work.
 *
 * Timing rule (bench_time): the iteration count is calibrated until one
 * batch lasts SECONDS/BATCHES (the calibration runs warm up), then BATCHES
 * batches run and the median time per iteration is returned, so that a
 * batch slowed by another process does not move the figure.
 *
 * Output: "#@ key" starts a series (smbench reads the key), "# ..." lines
 * are for people, and each data line is "row value" (row: a size in bytes
 * or a word such as put_fence_allocate). */
#ifndef BENCH_H
#define BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_SIZES 64

struct bench_opts {
    long sizes[BENCH_MAX_SIZES];
    int nsizes;
    double budget;      /* seconds per size */
    int batches;
    const char *only;   /* comma list of test names, NULL: all */
};

/* Parses "8,1K,64K,4M" into o->sizes; 0 on success. */
static inline int bench_parse_sizes(struct bench_opts *o, const char *s)
{
    o->nsizes = 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0) return -1;
        if (*end == 'k' || *end == 'K') v <<= 10, end++;
        else if (*end == 'm' || *end == 'M') v <<= 20, end++;
        if ((*end && *end != ',') || o->nsizes == BENCH_MAX_SIZES) return -1;
        o->sizes[o->nsizes++] = v;
        s = *end ? end + 1 : end;
    }
    return o->nsizes ? 0 : -1;
}

/* The default sizes: first, first*step, ... up to max (first 0 is followed by 1). */
static inline void bench_default_sizes(struct bench_opts *o, long first, long step, long max)
{
    o->nsizes = 0;
    for (long v = first; v <= max && o->nsizes < BENCH_MAX_SIZES; v = v ? v * step : 1)
        o->sizes[o->nsizes++] = v;
}

/* Fills o from argv; on a bad argument prints why (if loud) and returns -1. */
static inline int bench_args(struct bench_opts *o, int argc, char **argv, const char *prog,
                      long first, long step, long max, int loud)
{
    o->budget = 0.2, o->batches = 5, o->only = NULL;
    bench_default_sizes(o, first, step, max);
    int i = 1;
    if (argc > 1 && argv[1][0] >= '0' && argv[1][0] <= '9') {   /* the positional form */
        bench_default_sizes(o, first, step, atol(argv[1]));
        if (argc > 2) o->budget = atof(argv[2]);
        if (argc > 3) o->only = argv[3];
        i = argc > 4 ? 4 : argc;
    } else if (argc > 1 && argv[1][0] != '-') {   /* a test name first, as osu_shmem took */
        o->only = strcmp(argv[1], "all") ? argv[1] : NULL;
        i = 2;
    }
    for (; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = v && a[0] == '-' && a[1] && !a[2];
        if (ok && a[1] == 's') ok = !bench_parse_sizes(o, v);
        else if (ok && a[1] == 't') ok = (o->budget = atof(v)) > 0;
        else if (ok && a[1] == 'b') ok = (o->batches = atoi(v)) >= 1 && o->batches <= 99;
        else if (ok && a[1] == 'o') o->only = v;
        else ok = 0;
        if (!ok) {
            if (loud)
                fprintf(stderr, "%s: bad argument '%s%s%s'\nusage: %s [-s SIZES] [-t SECONDS] [-b BATCHES] [-o NAMES]\n",
                        prog, a, v ? " " : "", v ? v : "", prog);
            return -1;
        }
    }
    if (o->budget <= 0 || o->nsizes == 0) {
        if (loud) fprintf(stderr, "%s: no sizes or a time per size <= 0\n", prog);
        return -1;
    }
    return 0;
}

/* Whether test name is wanted: a whole-word match in the -o list. */
static inline int bench_want(const struct bench_opts *o, const char *name)
{
    if (!o->only) return 1;
    size_t l = strlen(name);
    for (const char *p = o->only; (p = strstr(p, name)); p += l)
        if ((p == o->only || p[-1] == ',') && (!p[l] || p[l] == ','))
            return 1;
    return 0;
}

static inline long bench_max_size(const struct bench_opts *o)
{
    long m = 0;
    for (int i = 0; i < o->nsizes; i++) m = o->sizes[i] > m ? o->sizes[i] : m;
    return m;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* run(iters, ctx) returns the seconds iters iterations took, the same value
 * on every rank (the program agrees on it: slowest rank, or rank 0's). */
typedef double (*bench_run_fn)(long iters, void *ctx);

/* Seconds per iteration: the median of the batches (see the file comment). */
static inline double bench_time(bench_run_fn run, void *ctx, const struct bench_opts *o)
{
    double target = o->budget / o->batches, t[99];
    long iters = 1;
    for (;;) {
        double s = run(iters, ctx);
        if (s >= target || iters >= (1L << 26)) break;
        iters = s > target / 100 ? (long)((double)iters * target / s * 1.05) + 1 : iters * 10;
    }
    for (int b = 0; b < o->batches; b++)
        t[b] = run(iters, ctx) / (double)iters;
    qsort(t, (size_t)o->batches, sizeof t[0], bench_cmp_double);
    return o->batches % 2 ? t[o->batches / 2] : (t[o->batches / 2 - 1] + t[o->batches / 2]) / 2;
}

/* A computation that cannot be optimised away and touches no memory but a
 * few registers: units of a dependent floating-point chain. */
static double bench_sink;
static inline void bench_compute(long units)
{
    double x = bench_sink + 1.0;
    for (long i = 0; i < units; i++)
        for (int k = 0; k < 64; k++) x = x * 0.999999 + 1e-7;
    bench_sink = x;
}

/* The overlap test (mpptest's, seed 002's): the operation alone, a
 * computation alone calibrated to last as long, both at once. run reads
 * *what (1 operation, 2 computation, 3 both) and *units from its ctx;
 * per_unit is the computation's seconds per unit. Returns both / max(alone):
 * 1.0 is full overlap, 2 none. */
struct bench_overlap { double alone, compute, both; };
static inline double bench_overlap(bench_run_fn run, void *ctx, int *what, long *units, double per_unit,
                                   const struct bench_opts *o, struct bench_overlap *r)
{
    *what = 1;
    r->alone = bench_time(run, ctx, o);
    *units = (long)(r->alone / per_unit) + 1, *what = 2;
    r->compute = bench_time(run, ctx, o);
    for (int k = 0; k < 3 && (r->compute > 1.2 * r->alone || r->compute < 0.8 * r->alone); k++) {
        *units = (long)((double)*units * r->alone / r->compute) + 1;   /* per_unit was off: scale to match */
        r->compute = bench_time(run, ctx, o);
    }
    *what = 3;
    r->both = bench_time(run, ctx, o);
    return r->both / (r->alone > r->compute ? r->alone : r->compute);
}

/* seed 003's strided patch for s bytes: rows (a power of 2, at most
 * max_rows, with rows * rows * 8 <= s) of s / rows bytes */
static inline void bench_patch(long s, int max_rows, int *rows, int *cols)
{
    *rows = 1;
    while ((long)*rows * 2 * *rows * 2 * 8 <= s && *rows * 2 <= max_rows) *rows *= 2;
    *cols = (int)(s / *rows);
}

#endif
