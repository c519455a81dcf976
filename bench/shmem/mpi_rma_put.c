/* mpi_rma_put.c: the MPI users' alternative to osu_shmem's tests, in
 * standard MPI-3 for any MPI library, passive target (MPI_Win_lock_all on a
 * MPI_Win_allocate window), rank 0 to rank 1, each completed with
 * MPI_Win_flush as osu_put_latency does. The same keys as osu_shmem:
 *   put, get   MPI_Put / MPI_Get + flush: latency per size
 *   pingpong   8-byte put + flush answered by a put, polling the local
 *              window with MPI_Win_sync (+ MPI_Iprobe for progress)
 *   bw, rate   windows of 64 MPI_Put, then flush
 *   atomic     MPI_Fetch_and_op (SUM), MPI_Compare_and_swap, MPI_Accumulate
 *              (SUM) + flush on a long; Accumulate and Fetch_and_op in
 *              windows of 64, then flush
 *   mpi_rma_put [-s SIZES] [-t SECONDS] [-b BATCHES] [-o put,get,...]  (bench.h) */
#include <mpi.h>

#include "../bench.h"

#define WINDOW 64
static int me;
static char *base, *buf;
static size_t flag_at;   /* the ping-pong flag's offset in the window */
static MPI_Win win;
static long one_l = 1, fetched[WINDOW];

enum { PUT, GET, PINGPONG, BW, RATE, FADD, CSWAP, ADD, ADD_RATE, FADD_RATE };
struct test { int kind, len; };

/* Wait for a flag in the local window; MPI_Iprobe drives progress in
 * libraries without an asynchronous progress thread (MPICH ch3). */
static void wait_flag(volatile long *flag, long v)
{
    int f;
    while (*flag != v) {
        MPI_Win_sync(win);
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
    }
}

static double run(long iters, void *ctx)
{
    const struct test *t = ctx;
    static long v;
    long cmp = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (t->kind == PINGPONG) {
        volatile long *flag = (volatile long *)(base + flag_at);
        for (long i = 0; i < iters && me < 2; i++) {
            v++;
            if (me == 0) {
                MPI_Put(&v, 1, MPI_LONG, 1, (MPI_Aint)flag_at, 1, MPI_LONG, win);
                MPI_Win_flush(1, win);
                wait_flag(flag, v);
            } else {
                wait_flag(flag, v);
                MPI_Put(&v, 1, MPI_LONG, 0, (MPI_Aint)flag_at, 1, MPI_LONG, win);
                MPI_Win_flush(0, win);
            }
        }
    } else if (me == 0) {
        for (long i = 0; i < iters; i++) {
            switch (t->kind) {
            case PUT: MPI_Put(buf, t->len, MPI_BYTE, 1, 0, t->len, MPI_BYTE, win); break;
            case GET: MPI_Get(buf, t->len, MPI_BYTE, 1, 0, t->len, MPI_BYTE, win); break;
            case BW:
                for (int w = 0; w < WINDOW; w++) MPI_Put(buf, t->len, MPI_BYTE, 1, 0, t->len, MPI_BYTE, win);
                break;
            case RATE:
                for (int w = 0; w < WINDOW; w++) MPI_Put(buf, 8, MPI_BYTE, 1, 8 * w, 8, MPI_BYTE, win);
                break;
            case FADD: MPI_Fetch_and_op(&one_l, &fetched[0], MPI_LONG, 1, 0, MPI_SUM, win); break;
            case CSWAP:
                cmp = i;
                MPI_Compare_and_swap(&i, &cmp, &fetched[0], MPI_LONG, 1, 0, win);
                break;
            case ADD: MPI_Accumulate(&one_l, 1, MPI_LONG, 1, 0, 1, MPI_LONG, MPI_SUM, win); break;
            case ADD_RATE:
                for (int w = 0; w < WINDOW; w++) MPI_Accumulate(&one_l, 1, MPI_LONG, 1, 0, 1, MPI_LONG, MPI_SUM, win);
                break;
            case FADD_RATE:
                for (int w = 0; w < WINDOW; w++) MPI_Fetch_and_op(&one_l, &fetched[w], MPI_LONG, 1, 0, MPI_SUM, win);
                break;
            }
            MPI_Win_flush(1, win);
        }
    }
    double dt = MPI_Wtime() - t0;
    MPI_Bcast(&dt, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return dt;
}

static void series(const char *key, const char *what, int kind, const struct bench_opts *o)
{
    if (me == 0) printf("#@ %s\n# %s: bytes, %s\n", key, what, kind == BW ? "MB/s" : "us");
    for (int i = 0; i < o->nsizes; i++) {
        struct test t = {kind, (int)o->sizes[i]};
        if (t.len < 1) continue;
        double s = bench_time(run, &t, o);
        if (me == 0) printf("%-10d %12.4f\n", t.len, kind == BW ? (double)t.len * WINDOW / s / 1e6 : s * 1e6);
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
    int n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (bench_args(&o, argc, argv, "mpi_rma_put", 8, 8, 4 << 20, me == 0)) MPI_Abort(MPI_COMM_WORLD, 2);
    if (n < 2) {
        if (me == 0) fprintf(stderr, "mpi_rma_put: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t max = (size_t)bench_max_size(&o);
    if (max < 8 * WINDOW) max = 8 * WINDOW;
    flag_at = (max + 63) & ~(size_t)63;
    MPI_Win_allocate((MPI_Aint)(flag_at + 64), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Alloc_mem((MPI_Aint)max, MPI_INFO_NULL, &buf);
    memset(buf, 1, max);
    memset(base, 0, flag_at + 64);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    if (bench_want(&o, "put")) series("put_lat", "MPI_Put + MPI_Win_flush latency", PUT, &o);
    if (bench_want(&o, "get")) series("get_lat", "MPI_Get + MPI_Win_flush latency", GET, &o);
    if (bench_want(&o, "pingpong")) {
        double t = one(PINGPONG, &o) / 2;
        if (me == 0) printf("#@ put_pingpong\n# 8-byte MPI_Put + flush answered by a put (MPI_Win_sync polling): "
                            "half round trip, us\n8 %12.4f\n", t * 1e6);
    }
    if (bench_want(&o, "bw")) series("put_bw", "windows of 64 MPI_Put, then MPI_Win_flush", BW, &o);
    if (bench_want(&o, "rate")) {
        double t = one(RATE, &o);
        if (me == 0) printf("#@ put_rate\n# 8-byte MPI_Put in windows of 64, then flush: M puts/s\n8 %12.3f\n",
                            WINDOW / t / 1e6);
    }
    if (bench_want(&o, "atomic")) {
        double fa = one(FADD, &o), cs = one(CSWAP, &o), ad = one(ADD, &o);
        double ar = one(ADD_RATE, &o), fr = one(FADD_RATE, &o);
        if (me == 0)
            printf("#@ amo_lat\n# MPI_Fetch_and_op, MPI_Compare_and_swap, MPI_Accumulate on a long + flush: us\n"
                   "fetch_add %12.4f\ncompare_swap %12.4f\nadd %12.4f\n"
                   "#@ amo_rate\n# MPI_Accumulate / MPI_Fetch_and_op in windows of 64, then flush: M operations/s\n"
                   "add %12.3f\nfetch_add %12.3f\n",
                   fa * 1e6, cs * 1e6, ad * 1e6, WINDOW / ar / 1e6, WINDOW / fr / 1e6);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Free_mem(buf);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
