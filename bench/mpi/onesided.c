/* onesided.c: MPI one-sided communication, after seed 002 (Worringen et al.'s MPI-2
 * evaluation) and seed 003's strided get, in standard MPI-3 only, so the
 * same source runs under smartmap, Open MPI and MPICH. Tests (-o):
 *   pingpong  ranks 0 and 1: one MPI_Put or MPI_Get per epoch, under fence
 *             and post-start-complete-wait as a ping-pong (half round trip),
 *             under lock/unlock (exclusive) as a stream from rank 0; on
 *             MPI_Win_allocate memory and on malloc'd memory (MPI_Win_create);
 *             8 B latency also on MPI_Alloc_mem memory and for Send/Recv;
 *             bandwidth per size
 *   flush     8-byte MPI_Put / MPI_Get + MPI_Win_flush under lock_all
 *   multi     64 KiB moved by k puts in one lock/unlock epoch, k = 1..1024
 *   overlap   passive target: rank 0 puts 1 MiB per lock/unlock epoch
 *             while rank 1 computes without calling MPI; transfer alone,
 *             computation alone (as long), both: both / max(alone) is 1.0
 *             with real overlap, about 2 when the target must enter MPI
 *   epoch     every rank: empty fence, PSCW, lock/unlock, lock_all epochs
 *             beside MPI_Barrier
 *   strided   rank 0 gets a 2-D patch of rank 1's array with MPI_Get of a
 *             subarray datatype + MPI_Win_flush (seed 003's strided get), and
 *             the same bytes contiguously
 *   onesided [-s SIZES] [-t SECONDS] [-b BATCHES] [-o pingpong,flush,...]  (bench.h) */
#include <mpi.h>

#include "../bench.h"

enum mem { ALLOCATE, ALLOCMEM, MALLOC };
static const char *const mem_name[] = {"allocate", "allocmem", "malloc"};
enum sync { FENCE, PSCW, LOCK };
static const char *const sync_name[] = {"fence", "pscw", "lock"};

static int me, n;
static MPI_Comm pair;      /* ranks 0 and 1 */
static MPI_Group peer_g;   /* the other rank of the pair */
static char *buf;          /* origin buffer (malloc) */

struct win { MPI_Win w; char *base; enum mem kind; };

static void win_make(struct win *w, enum mem kind, size_t bytes, MPI_Comm comm)
{
    w->kind = kind;
    if (kind == ALLOCATE) {
        MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, comm, &w->base, &w->w);
    } else {
        if (kind == ALLOCMEM) MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &w->base);
        else w->base = malloc(bytes);
        if (!w->base) MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Win_create(w->base, (MPI_Aint)bytes, 1, MPI_INFO_NULL, comm, &w->w);
    }
    memset(w->base, 0, bytes);
}

static void win_free(struct win *w)
{
    MPI_Win_free(&w->w);
    if (w->kind == ALLOCMEM) MPI_Free_mem(w->base);
    else if (w->kind == MALLOC) free(w->base);
}

/* the slowest of the pair's times (rank 0 and rank 1 agree) */
static double agree(double t0, MPI_Comm comm)
{
    double t = MPI_Wtime() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    return tmax;
}

struct xfer { struct win *w; int get, len; enum sync sync; long units; int what; };

static void op(const struct xfer *x, int target)
{
    if (x->get) MPI_Get(buf, x->len, MPI_BYTE, target, 0, x->len, MPI_BYTE, x->w->w);
    else MPI_Put(buf, x->len, MPI_BYTE, target, 0, x->len, MPI_BYTE, x->w->w);
}

/* seed 002's ping-pong: an epoch each way per iteration (lock: rank 0 alone) */
static double run_pingpong(long iters, void *ctx)
{
    const struct xfer *x = ctx;
    MPI_Win w = x->w->w;
    int peer = 1 - me;
    MPI_Barrier(pair);
    if (x->sync == FENCE) MPI_Win_fence(0, w);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        switch (x->sync) {
        case FENCE:
            if (me == 0) op(x, peer);
            MPI_Win_fence(0, w);
            if (me == 1) op(x, peer);
            MPI_Win_fence(0, w);
            break;
        case PSCW:
            if (me == 0) {
                MPI_Win_start(peer_g, 0, w), op(x, peer), MPI_Win_complete(w);
                MPI_Win_post(peer_g, 0, w), MPI_Win_wait(w);
            } else {
                MPI_Win_post(peer_g, 0, w), MPI_Win_wait(w);
                MPI_Win_start(peer_g, 0, w), op(x, peer), MPI_Win_complete(w);
            }
            break;
        case LOCK:
            if (me == 0) MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, w), op(x, peer), MPI_Win_unlock(peer, w);
            break;
        }
    }
    return agree(t0, pair);
}

static double run_sendrecv(long iters, void *ctx)
{
    (void)ctx;
    MPI_Barrier(pair);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (me == 0) {
            MPI_Send(buf, 8, MPI_BYTE, 1, 0, pair);
            MPI_Recv(buf, 8, MPI_BYTE, 1, 0, pair, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, 8, MPI_BYTE, 0, 0, pair, MPI_STATUS_IGNORE);
            MPI_Send(buf, 8, MPI_BYTE, 0, 0, pair);
        }
    }
    return agree(t0, pair);
}

/* rank 0: op + flush, in a lock_all epoch opened by the caller */
static double run_flush(long iters, void *ctx)
{
    const struct xfer *x = ctx;
    MPI_Barrier(pair);
    double t0 = MPI_Wtime();
    if (me == 0)
        for (long i = 0; i < iters; i++) op(x, 1), MPI_Win_flush(1, x->w->w);
    return agree(t0, pair);
}

/* rank 0: 64 KiB in x->units puts of len bytes, one exclusive epoch */
static double run_multi(long iters, void *ctx)
{
    const struct xfer *x = ctx;
    MPI_Barrier(pair);
    double t0 = MPI_Wtime();
    if (me == 0)
        for (long i = 0; i < iters; i++) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, x->w->w);
            for (long k = 0; k < x->units; k++)
                MPI_Put(buf + k * x->len, x->len, MPI_BYTE, 1, k * x->len, x->len, MPI_BYTE, x->w->w);
            MPI_Win_unlock(1, x->w->w);
        }
    return agree(t0, pair);
}

/* what: 1 rank 0 transfers, 2 rank 1 computes (no MPI call), 3 both */
static double run_overlap(long iters, void *ctx)
{
    const struct xfer *x = ctx;
    MPI_Barrier(pair);
    double t0 = MPI_Wtime();
    if (me == 0 && (x->what & 1))
        for (long i = 0; i < iters; i++)
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, x->w->w), op(x, 1), MPI_Win_unlock(1, x->w->w);
    if (me == 1 && (x->what & 2))
        for (long i = 0; i < iters; i++) bench_compute(x->units);
    return agree(t0, pair);
}

struct epoch { MPI_Win w; MPI_Group others; int kind; };
static const char *const epoch_name[] = {"barrier", "fence", "pscw", "lock_unlock", "lock_all"};

static double run_epoch(long iters, void *ctx)
{
    const struct epoch *e = ctx;
    int next = (me + 1) % n;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        switch (e->kind) {
        case 0: MPI_Barrier(MPI_COMM_WORLD); break;
        case 1: MPI_Win_fence(0, e->w); break;
        case 2:
            MPI_Win_post(e->others, 0, e->w), MPI_Win_start(e->others, 0, e->w);
            MPI_Win_complete(e->w), MPI_Win_wait(e->w);
            break;
        case 3: MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, e->w), MPI_Win_unlock(next, e->w); break;
        case 4: MPI_Win_lock_all(0, e->w), MPI_Win_unlock_all(e->w); break;
        }
    }
    return agree(t0, MPI_COMM_WORLD);
}

/* seed 003's strided get: a 2-D patch of rows x cols bytes out of an array
 * of ROWS x LD bytes; consecutive gets read different parts of the array */
enum { ROWS = 512, LD = 32 << 10 };
struct patch { MPI_Win w; MPI_Datatype t; int rows, cols, strided; };

static double run_strided(long iters, void *ctx)
{
    const struct patch *p = ctx;
    int per_row = LD / p->cols, per_col = ROWS / p->rows;
    MPI_Barrier(pair);
    double t0 = MPI_Wtime();
    if (me == 0)
        for (long i = 0; i < iters; i++) {
            long a = i % ((long)per_row * per_col);
            MPI_Aint disp = (MPI_Aint)(a / per_row) * p->rows * LD + (MPI_Aint)(a % per_row) * p->cols;
            if (p->strided) MPI_Get(buf, p->rows * p->cols, MPI_BYTE, 1, disp, 1, p->t, p->w);
            else MPI_Get(buf, p->rows * p->cols, MPI_BYTE, 1, disp, p->rows * p->cols, MPI_BYTE, p->w);
            MPI_Win_flush(1, p->w);
        }
    return agree(t0, pair);
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (bench_args(&o, argc, argv, "onesided", 8, 8, 4L << 20, me == 0)) MPI_Abort(MPI_COMM_WORLD, 2);
    if (n < 2) {
        if (me == 0) fprintf(stderr, "onesided: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long max = bench_max_size(&o);
    if (max > (4L << 20)) {
        if (me == 0) fprintf(stderr, "onesided: sizes up to 4 MiB (got %ld)\n", max);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_split(MPI_COMM_WORLD, me < 2 ? 0 : MPI_UNDEFINED, me, &pair);
    size_t wbytes = (size_t)(ROWS + 1) * LD;   /* the largest use: strided (one row of slack) */
    buf = malloc(wbytes);
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 1, wbytes);
    if (me < 2) {
        MPI_Group g;
        int other = 1 - me;
        MPI_Comm_group(pair, &g);
        MPI_Group_incl(g, 1, &other, &peer_g);
        MPI_Group_free(&g);
    }
    if (bench_want(&o, "pingpong") && me < 2) {
        double lat[3][2][3], sr;
        for (int m = 0; m < 3; m++) {
            struct win w;
            win_make(&w, (enum mem)m, (size_t)max > 8 ? (size_t)max : 8, pair);
            for (int get = 0; get < 2; get++)
                for (int s = 0; s < 3; s++) {
                    struct xfer x = {&w, get, 8, (enum sync)s, 0, 0};
                    double t = bench_time(run_pingpong, &x, &o);
                    lat[m][get][s] = s == LOCK ? t : t / 2;
                    if (m == ALLOCMEM) continue;
                    if (me == 0)
                        printf("#@ rma_bw_%s_%s_%s\n# MPI_%s under %s on %s memory: bytes, MB/s (%s)\n",
                               get ? "get" : "put", sync_name[s], mem_name[m], get ? "Get" : "Put", sync_name[s],
                               mem_name[m], s == LOCK ? "stream of epochs" : "ping-pong, half round trip");
                    for (int i = 0; i < o.nsizes; i++) {
                        if (o.sizes[i] < 1) continue;
                        x.len = (int)o.sizes[i];
                        t = bench_time(run_pingpong, &x, &o) / (s == LOCK ? 1 : 2);
                        if (me == 0) printf("%-10d %12.2f\n", x.len, x.len / t / 1e6);
                    }
                    fflush(stdout);
                }
            win_free(&w);
        }
        sr = bench_time(run_sendrecv, NULL, &o) / 2;
        if (me == 0) {
            printf("#@ rma_lat\n# 8-byte transfer, one epoch each (seed 002's Table 2): us\n");
            printf("sendrecv %12.4f\n", sr * 1e6);
            for (int get = 0; get < 2; get++)
                for (int s = 0; s < 3; s++)
                    for (int m = 0; m < 3; m++)
                        printf("%s_%s_%s %12.4f\n", get ? "get" : "put", sync_name[s], mem_name[m], lat[m][get][s] * 1e6);
        }
    }
    if (bench_want(&o, "flush") && me < 2) {
        if (me == 0) printf("#@ rma_flush\n# 8-byte MPI_Put or MPI_Get + MPI_Win_flush under lock_all: us per operation\n");
        for (int get = 0; get < 2; get++)
            for (int m = 0; m < 3; m++) {
                struct win w;
                win_make(&w, (enum mem)m, 64, pair);
                MPI_Win_lock_all(0, w.w);
                struct xfer x = {&w, get, 8, LOCK, 0, 0};
                double t = bench_time(run_flush, &x, &o);
                MPI_Win_unlock_all(w.w);
                win_free(&w);
                if (me == 0) printf("%s_%s %12.4f\n", get ? "get" : "put", mem_name[m], t * 1e6);
            }
    }
    if (bench_want(&o, "multi") && me < 2) {
        struct win w;
        win_make(&w, ALLOCATE, 64 << 10, pair);
        if (me == 0) printf("#@ rma_multi\n# 64 KiB moved by k MPI_Put in one lock/unlock epoch: puts, us per epoch\n");
        for (int k = 1; k <= 1024; k *= 4) {
            struct xfer x = {&w, 0, (64 << 10) / k, LOCK, k, 0};
            double t = bench_time(run_multi, &x, &o);
            if (me == 0) printf("%-10d %12.3f\n", k, t * 1e6);
        }
        win_free(&w);
    }
    if (bench_want(&o, "overlap") && me < 2) {
        double ratio[3] = {0};
        if (me == 0) printf("#@ rma_overlap\n# passive-target overlap, 1 MiB put per lock/unlock epoch: us per epoch\n");
        struct xfer x = {NULL, 0, 1 << 20, LOCK, 1000, 2};
        double per_unit = bench_time(run_overlap, &x, &o) / (double)x.units;
        for (int i = 0; i < 2; i++) {
            enum mem m = i ? MALLOC : ALLOCATE;
            struct win w;
            win_make(&w, m, 1 << 20, pair);
            struct bench_overlap r;
            x.w = &w;
            ratio[m] = bench_overlap(run_overlap, &x, &x.what, &x.units, per_unit, &o, &r);
            if (me == 0)
                printf("%s_transfer %12.3f\n%s_compute %12.3f\n%s_both %12.3f\n", mem_name[m], r.alone * 1e6,
                       mem_name[m], r.compute * 1e6, mem_name[m], r.both * 1e6);
            win_free(&w);
        }
        if (me == 0)
            printf("#@ rma_overlap_ratio\n# both / max(transfer, compute)\nallocate %12.4f\nmalloc %12.4f\n",
                   ratio[ALLOCATE], ratio[MALLOC]);
    }
    if (bench_want(&o, "epoch")) {
        struct epoch e;
        struct win w;
        MPI_Group g;
        win_make(&w, ALLOCATE, 64, MPI_COMM_WORLD);
        MPI_Comm_group(MPI_COMM_WORLD, &g);
        MPI_Group_excl(g, 1, &me, &e.others);
        MPI_Group_free(&g);
        e.w = w.w;
        if (me == 0) printf("#@ rma_epoch\n# empty epochs on %d ranks beside MPI_Barrier: us\n", n);
        for (e.kind = 0; e.kind < 5; e.kind++) {
            double t = bench_time(run_epoch, &e, &o);
            if (me == 0) printf("%s %12.4f\n", epoch_name[e.kind], t * 1e6);
        }
        MPI_Group_free(&e.others);
        win_free(&w);
    }
    if (bench_want(&o, "strided") && me < 2) {
        struct win w;
        win_make(&w, ALLOCATE, wbytes, pair);
        MPI_Win_lock_all(0, w.w);
        for (int strided = 1; strided >= 0; strided--) {
            if (me == 0)
                printf(strided ? "#@ strided_get\n# MPI_Get of a 2-D subarray + MPI_Win_flush: patch bytes, MB/s\n"
                               : "#@ contig_get\n# MPI_Get of the same bytes, contiguous, + MPI_Win_flush: bytes, MB/s\n");
            for (int i = 0; i < o.nsizes; i++) {
                long s = o.sizes[i];
                struct patch p = {w.w, MPI_DATATYPE_NULL, 1, 0, strided};
                bench_patch(s, ROWS, &p.rows, &p.cols);
                if (p.cols < 1 || p.cols > LD) continue;
                int sizes[2] = {p.rows, LD}, sub[2] = {p.rows, p.cols}, start[2] = {0, 0};
                MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_BYTE, &p.t);
                MPI_Type_commit(&p.t);
                double t = bench_time(run_strided, &p, &o);
                MPI_Type_free(&p.t);
                if (me == 0) printf("%-10ld %12.2f\n", s, (double)p.rows * p.cols / t / 1e6);
            }
        }
        MPI_Win_unlock_all(w.w);
        win_free(&w);
    }
    if (me < 2) MPI_Group_free(&peer_g), MPI_Comm_free(&pair);
    free(buf);
    MPI_Finalize();
    return 0;
}
