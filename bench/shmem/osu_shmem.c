/* osu_shmem.c: OpenSHMEM micro-benchmarks in the style of the OSU OpenSHMEM
 * suite, between PE 0 and PE 1 (standard OpenSHMEM only). Tests (-o):
 *   put, get   putmem + quiet, getmem: latency per size
 *   pingpong   8-byte put + quiet answered by a put, waiting with wait_until
 *   bw         a window of 64 putmem_nbi, then quiet: MB/s per size
 *   rate       a window of 64 8-byte putmem_nbi, then quiet: M puts/s
 *   atomic     long fetch_add, compare_swap, add + quiet: latency; add and
 *              fetch_add_nbi in windows of 64, then quiet: M operations/s
 * bench/shmem/mpi_rma_put.c measures the same with MPI one-sided calls.
 *   smrun -n 2 osu_shmem [-s SIZES] [-t SECONDS] [-b BATCHES] [-o put,get,...]  (bench.h) */
#include <shmem.h>
#include <time.h>

#include "../bench.h"

#define WINDOW 64
static int me, npes;
static char *src, *dst;
static long ping, pong, tgt, fetched[WINDOW];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* every PE returns PE 0's elapsed time since t0 (the slowest PE's, which is PE 0's here) */
static double agree(double t0)
{
    static double tin, tout;
    tin = now() - t0;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &tout, &tin, 1);
    return tout;
}

struct test { int kind; size_t len; };
enum { PUT, GET, PINGPONG, BW, RATE, FADD, CSWAP, ADD, ADD_RATE, FADD_RATE };

static double run(long iters, void *ctx)
{
    const struct test *t = ctx;
    static long v;
    shmem_barrier_all();
    double t0 = now();
    if (t->kind == PINGPONG) {
        for (long i = 0; i < iters && me < 2; i++) {
            v++;
            if (me == 0) {
                shmem_long_p(&ping, v, 1);
                shmem_quiet();
                shmem_long_wait_until(&pong, SHMEM_CMP_EQ, v);
            } else {
                shmem_long_wait_until(&ping, SHMEM_CMP_EQ, v);
                shmem_long_p(&pong, v, 0);
                shmem_quiet();
            }
        }
    } else if (me == 0) {
        for (long i = 0; i < iters; i++) {
            switch (t->kind) {
            case PUT: shmem_putmem(dst, src, t->len, 1), shmem_quiet(); break;
            case GET: shmem_getmem(dst, src, t->len, 1); break;
            case BW:
                for (int w = 0; w < WINDOW; w++) shmem_putmem_nbi(dst, src, t->len, 1);
                shmem_quiet();
                break;
            case RATE:
                for (int w = 0; w < WINDOW; w++) shmem_putmem_nbi(dst + 8 * w, src, 8, 1);
                shmem_quiet();
                break;
            case FADD: fetched[0] += shmem_long_atomic_fetch_add(&tgt, 1, 1); break;
            case CSWAP: fetched[0] += shmem_long_atomic_compare_swap(&tgt, i, i + 1, 1); break;
            case ADD: shmem_long_atomic_add(&tgt, 1, 1), shmem_quiet(); break;
            case ADD_RATE:
                for (int w = 0; w < WINDOW; w++) shmem_long_atomic_add(&tgt, 1, 1);
                shmem_quiet();
                break;
            case FADD_RATE:
                for (int w = 0; w < WINDOW; w++) shmem_long_atomic_fetch_add_nbi(&fetched[w], &tgt, 1, 1);
                shmem_quiet();
                break;
            }
        }
    }
    return agree(t0);
}

static void series(const char *key, const char *what, int kind, const struct bench_opts *o)
{
    if (me == 0) printf("#@ %s\n# %s: bytes, %s\n", key, what, kind == BW ? "MB/s" : "us");
    for (int i = 0; i < o->nsizes; i++) {
        struct test t = {kind, (size_t)o->sizes[i]};
        if (t.len < 1) continue;
        double s = bench_time(run, &t, o);
        if (me == 0) printf("%-10zu %12.4f\n", t.len, kind == BW ? (double)t.len * WINDOW / s / 1e6 : s * 1e6);
    }
}

static double one(int kind, const struct bench_opts *o)
{
    struct test t = {kind, 8};
    return bench_time(run, &t, o);
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    shmem_init();
    me = shmem_my_pe(), npes = shmem_n_pes();
    if (bench_args(&o, argc, argv, "osu_shmem", 8, 8, 4 << 20, me == 0)) shmem_global_exit(2);
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "osu_shmem: needs at least 2 PEs\n");
        shmem_global_exit(2);
    }
    size_t max = (size_t)bench_max_size(&o);
    src = shmem_malloc(max < 8 * WINDOW ? 8 * WINDOW : max);
    dst = shmem_malloc(max < 8 * WINDOW ? 8 * WINDOW : max);
    if (!src || !dst) {
        fprintf(stderr, "osu_shmem: PE %d: cannot allocate 2 x %zu symmetric bytes\n", me, max);
        shmem_global_exit(1);
    }
    memset(src, 1, max < 8 * WINDOW ? 8 * WINDOW : max);
    if (bench_want(&o, "put")) series("put_lat", "putmem + quiet latency", PUT, &o);
    if (bench_want(&o, "get")) series("get_lat", "getmem latency", GET, &o);
    if (bench_want(&o, "pingpong")) {
        double t = one(PINGPONG, &o) / 2;
        if (me == 0) printf("#@ put_pingpong\n# 8-byte put + quiet answered by a put (wait_until): half round trip, us\n"
                            "8 %12.4f\n", t * 1e6);
    }
    if (bench_want(&o, "bw")) series("put_bw", "windows of 64 putmem_nbi, then quiet", BW, &o);
    if (bench_want(&o, "rate")) {
        double t = one(RATE, &o);
        if (me == 0) printf("#@ put_rate\n# 8-byte putmem_nbi in windows of 64, then quiet: M puts/s\n8 %12.3f\n",
                            WINDOW / t / 1e6);
    }
    if (bench_want(&o, "atomic")) {
        double fa = one(FADD, &o), cs = one(CSWAP, &o), ad = one(ADD, &o);
        double ar = one(ADD_RATE, &o), fr = one(FADD_RATE, &o);
        if (me == 0)
            printf("#@ amo_lat\n# long atomics on PE 1: us per operation (add: + quiet)\n"
                   "fetch_add %12.4f\ncompare_swap %12.4f\nadd %12.4f\n"
                   "#@ amo_rate\n# long atomics in windows of 64, then quiet: M operations/s\n"
                   "add %12.3f\nfetch_add %12.3f\n",
                   fa * 1e6, cs * 1e6, ad * 1e6, WINDOW / ar / 1e6, WINDOW / fr / 1e6);
    }
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
