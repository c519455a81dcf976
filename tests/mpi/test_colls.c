/* Every MPI-3.1 collective and its nonblocking form against a serial
 * reference computed here: barrier, bcast, gather(v), scatter(v),
 * allgather(v), alltoall(v, w), reduce, allreduce, reduce_scatter(_block),
 * scan, exscan; with MPI_IN_PLACE wherever the standard allows it; with
 * datatypes of two ints that are contiguous, have holes (a vector), or
 * holes and a negative lower bound (a resized struct), sent as one and
 * received as another (the receive buffers' holes keep their bytes); sizes
 * from nothing to past every algorithm's crossover; roots in turn; on
 * MPI_COMM_WORLD, a reversed one, and the even and odd ranks' halves used
 * at the same time. Usage: test_colls [blocking|nonblocking|all|die|die_move|die_mid]; die, die_move, die_mid:
 * rank 1 is killed while the others loop on small reductions (die), small
 * data movers (die_move) or 4 KiB collectives and a 64 KiB exscan (die_mid). */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "mcheck.h"

static int wme, wn;

/* --- Datatypes: two ints per element, at off[0] and off[1] from the element's origin --- */
struct ty { MPI_Datatype t; int ext, lb, off[2]; const char *name; };
static struct ty T[3];
enum { CONTIG, VEC, NEG };

static void make_types(void)
{
    MPI_Datatype v, s;
    OK(MPI_Type_contiguous(2, MPI_INT, &T[CONTIG].t));
    T[CONTIG] = (struct ty){ T[CONTIG].t, 8, 0, { 0, 4 }, "contiguous" };
    OK(MPI_Type_vector(2, 1, 3, MPI_INT, &v));           /* ints at 0 and 12, extent 16 */
    T[VEC] = (struct ty){ v, 16, 0, { 0, 12 }, "vector" };
    int bl[2] = { 1, 1 };
    MPI_Aint d[2] = { -8, 8 };
    MPI_Datatype ts[2] = { MPI_INT, MPI_INT };
    OK(MPI_Type_create_struct(2, bl, d, ts, &s));
    OK(MPI_Type_create_resized(s, -12, 28, &T[NEG].t));   /* lb -12: holes before, between, after */
    OK(MPI_Type_free(&s));
    T[NEG] = (struct ty){ T[NEG].t, 28, -12, { -8, 8 }, "negative lb" };
    for (int i = 0; i < 3; i++) OK(MPI_Type_commit(&T[i].t));
}

/* A buffer of n elements of ty: filled with 0xA5 (holes must keep it). */
#define MARGIN 64
struct buf { char *raw, *base; size_t bytes; const struct ty *ty; long n; };
static struct buf mk(long n, const struct ty *ty)
{
    struct buf b = { NULL, NULL, (size_t)(n > 0 ? n : 0) * (size_t)ty->ext + 2 * MARGIN, ty, n };
    b.raw = malloc(b.bytes);
    CHECK(b.raw, "malloc %zu", b.bytes);
    memset(b.raw, 0xA5, b.bytes);
    b.base = b.raw + MARGIN;
    return b;
}
static int *at(const struct buf *b, long e, int j) { return (int *)(b->base + e * b->ty->ext + b->ty->off[j]); }
static void put(struct buf *b, long e, int j, int v) { memcpy(at(b, e, j), &v, sizeof v); }
static int get(const struct buf *b, long e, int j) { int v; memcpy(&v, at(b, e, j), sizeof v); return v; }
/* Every byte that is not an element's data still 0xA5 */
static void holes_kept(const struct buf *b, const char *what)
{
    char *data = calloc(b->bytes, 1);
    for (long e = 0; e < b->n; e++)
        for (int j = 0; j < 2; j++) memset(data + ((char *)at(b, e, j) - b->raw), 1, sizeof(int));
    for (size_t i = 0; i < b->bytes; i++)
        CHECK(data[i] || (unsigned char)b->raw[i] == 0xA5, "%s (%s): byte %zd of the buffer's holes overwritten", what,
              b->ty->name, (ptrdiff_t)i - MARGIN);
    free(data);
}
static void drop(struct buf *b) { free(b->raw); }

/* The value member r contributes at element i, int j, in round k (per block
 * `blk` for the collectives with blocks). */
static int val(int r, long i, int j, int k, int blk) { return (r * 1009 + (int)i * 7 + j * 3 + k * 31 + blk * 101) % 100003; }

/* --- One collective -------------------------------------------------------------- */
struct ctx {
    MPI_Comm c;
    int me, n, k, root;
    bool nb;
    MPI_Request pending[8];
    int npending;
};

/* Run the call: the blocking form, or the nonblocking one and a wait. */
static void done(struct ctx *x, MPI_Request *r)
{
    if (!x->nb) return;
    /* the wait is sometimes a test loop, sometimes a Waitall */
    if (x->k % 3 == 0) {
        int flag = 0;
        while (!flag) OK(MPI_Test(r, &flag, MPI_STATUS_IGNORE));
    } else {
        OK(MPI_Waitall(1, r, MPI_STATUSES_IGNORE));
    }
    CHECK(*r == MPI_REQUEST_NULL, "request freed");
}
#define CALL(x, blocking, nonblocking) do { MPI_Request r_ = MPI_REQUEST_NULL; \
    if ((x)->nb) OK(nonblocking); else OK(blocking); done(x, &r_); } while (0)

static void bcast(struct ctx *x, long cnt, int ty)
{
    struct buf b = mk(cnt, &T[ty]);
    if (x->me == x->root)
        for (long e = 0; e < cnt; e++) for (int j = 0; j < 2; j++) put(&b, e, j, val(x->root, e, j, x->k, 0));
    CALL(x, MPI_Bcast(b.base, (int)cnt, T[ty].t, x->root, x->c), MPI_Ibcast(b.base, (int)cnt, T[ty].t, x->root, x->c, &r_));
    for (long e = 0; e < cnt; e++)
        for (int j = 0; j < 2; j++)
            CHECK(get(&b, e, j) == val(x->root, e, j, x->k, 0), "bcast %ld of %s from %d: [%ld][%d] %d", cnt,
                  T[ty].name, x->root, e, j, get(&b, e, j));
    holes_kept(&b, "bcast");
    drop(&b);
}

/* v: member i has cnt + i % 3 elements, placed in reverse order with a gap. */
static int vcount(long cnt, int i) { return (int)cnt + i % 3; }
static void vlayout(const struct ctx *x, long cnt, int *counts, int *displs, long *total)
{
    long at = 0;
    for (int i = x->n - 1; i >= 0; i--) {
        counts[i] = vcount(cnt, i), displs[i] = (int)at;
        at += counts[i] + 1;
    }
    *total = at;
}

static void gather(struct ctx *x, long cnt, int sty, int rty, bool v, bool inpl)
{
    int n = x->n, counts[64], displs[64];
    long total = cnt * n;
    if (v) vlayout(x, cnt, counts, displs, &total);
    long mine = v ? vcount(cnt, x->me) : cnt;
    bool root = x->me == x->root;
    struct buf s = mk(mine, &T[sty]), r = mk(root ? total : 0, &T[rty]);
    for (long e = 0; e < mine; e++) for (int j = 0; j < 2; j++) put(&s, e, j, val(x->me, e, j, x->k, 0));
    bool in = inpl && root;
    if (in)   /* the root's block is in place */
        for (long e = 0; e < mine; e++)
            for (int j = 0; j < 2; j++) put(&r, (v ? displs[x->me] : x->me * cnt) + e, j, val(x->me, e, j, x->k, 0));
    const void *sb = in ? MPI_IN_PLACE : s.base;
    if (v)
        CALL(x, MPI_Gatherv(sb, (int)mine, T[sty].t, r.base, counts, displs, T[rty].t, x->root, x->c),
             MPI_Igatherv(sb, (int)mine, T[sty].t, r.base, counts, displs, T[rty].t, x->root, x->c, &r_));
    else
        CALL(x, MPI_Gather(sb, (int)cnt, T[sty].t, r.base, (int)cnt, T[rty].t, x->root, x->c),
             MPI_Igather(sb, (int)cnt, T[sty].t, r.base, (int)cnt, T[rty].t, x->root, x->c, &r_));
    if (root) {
        for (int i = 0; i < n; i++)
            for (long e = 0; e < (v ? counts[i] : cnt); e++)
                for (int j = 0; j < 2; j++) {
                    long p = (v ? displs[i] : i * cnt) + e;
                    CHECK(get(&r, p, j) == val(i, e, j, x->k, 0), "gather%s %ld %s->%s root %d: block %d [%ld]", v ? "v" : "",
                          cnt, T[sty].name, T[rty].name, x->root, i, e);
                }
        holes_kept(&r, "gather");
    }
    drop(&s), drop(&r);
}

static void scatter(struct ctx *x, long cnt, int sty, int rty, bool v, bool inpl)
{
    int n = x->n, counts[64], displs[64];
    long total = cnt * n;
    if (v) vlayout(x, cnt, counts, displs, &total);
    long mine = v ? vcount(cnt, x->me) : cnt;
    bool root = x->me == x->root, in = inpl && root;
    struct buf s = mk(root ? total : 0, &T[sty]), r = mk(mine, &T[rty]);
    if (root)
        for (int i = 0; i < n; i++)
            for (long e = 0; e < (v ? counts[i] : cnt); e++)
                for (int j = 0; j < 2; j++) put(&s, (v ? displs[i] : i * cnt) + e, j, val(i, e, j, x->k, 0));
    void *rb = in ? MPI_IN_PLACE : r.base;
    if (v)
        CALL(x, MPI_Scatterv(s.base, counts, displs, T[sty].t, rb, (int)mine, T[rty].t, x->root, x->c),
             MPI_Iscatterv(s.base, counts, displs, T[sty].t, rb, (int)mine, T[rty].t, x->root, x->c, &r_));
    else
        CALL(x, MPI_Scatter(s.base, (int)cnt, T[sty].t, rb, (int)cnt, T[rty].t, x->root, x->c),
             MPI_Iscatter(s.base, (int)cnt, T[sty].t, rb, (int)cnt, T[rty].t, x->root, x->c, &r_));
    if (!in) {
        for (long e = 0; e < mine; e++)
            for (int j = 0; j < 2; j++)
                CHECK(get(&r, e, j) == val(x->me, e, j, x->k, 0), "scatter%s %ld %s->%s root %d: [%ld]", v ? "v" : "", cnt,
                      T[sty].name, T[rty].name, x->root, e);
        holes_kept(&r, "scatter");
    }
    drop(&s), drop(&r);
}

static void allgather(struct ctx *x, long cnt, int sty, int rty, bool v, bool inpl)
{
    int n = x->n, counts[64], displs[64];
    long total = cnt * n;
    if (v) vlayout(x, cnt, counts, displs, &total);
    long mine = v ? vcount(cnt, x->me) : cnt;
    struct buf s = mk(mine, &T[sty]), r = mk(total, &T[rty]);
    for (long e = 0; e < mine; e++) for (int j = 0; j < 2; j++) put(&s, e, j, val(x->me, e, j, x->k, 0));
    if (inpl)
        for (long e = 0; e < mine; e++)
            for (int j = 0; j < 2; j++) put(&r, (v ? displs[x->me] : x->me * cnt) + e, j, val(x->me, e, j, x->k, 0));
    const void *sb = inpl ? MPI_IN_PLACE : s.base;
    if (v)
        CALL(x, MPI_Allgatherv(sb, (int)mine, T[sty].t, r.base, counts, displs, T[rty].t, x->c),
             MPI_Iallgatherv(sb, (int)mine, T[sty].t, r.base, counts, displs, T[rty].t, x->c, &r_));
    else
        CALL(x, MPI_Allgather(sb, (int)cnt, T[sty].t, r.base, (int)cnt, T[rty].t, x->c),
             MPI_Iallgather(sb, (int)cnt, T[sty].t, r.base, (int)cnt, T[rty].t, x->c, &r_));
    for (int i = 0; i < n; i++)
        for (long e = 0; e < (v ? counts[i] : cnt); e++)
            for (int j = 0; j < 2; j++)
                CHECK(get(&r, (v ? displs[i] : i * cnt) + e, j) == val(i, e, j, x->k, 0), "allgather%s %ld %s->%s%s: block %d [%ld]",
                      v ? "v" : "", cnt, T[sty].name, T[rty].name, inpl ? " in place" : "", i, e);
    holes_kept(&r, "allgather");
    drop(&s), drop(&r);
}

/* mode 0: alltoall, 1: alltoallv, 2: alltoallw (each block its own type) */
static void alltoall(struct ctx *x, long cnt, int sty, int rty, int mode, bool inpl)
{
    int n = x->n, sc[64], sd[64], rc[64], rd[64], sdb[64], rdb[64];
    MPI_Datatype sts[64], rts[64];
    const struct ty *sT[64], *rT[64];
    long stot = 0, rtot = 0;
    /* block to member i: cnt + (me + i) % 3 elements (v, w), in reverse order with gaps */
    for (int i = n - 1; i >= 0; i--) {
        sc[i] = mode ? (int)cnt + (x->me + i) % 3 : (int)cnt, rc[i] = mode ? (int)cnt + (i + x->me) % 3 : (int)cnt;
        sd[i] = (int)stot, rd[i] = (int)rtot;
        stot += sc[i] + (mode ? 1 : 0), rtot += rc[i] + (mode ? 1 : 0);
        sT[i] = &T[mode == 2 ? (sty + i) % 3 : sty], rT[i] = &T[mode == 2 ? (rty + i) % 3 : rty];
        sts[i] = sT[i]->t, rts[i] = rT[i]->t;
    }
    if (!mode) for (int i = 0; i < n; i++) sd[i] = (int)(i * cnt), rd[i] = (int)(i * cnt);
    if (inpl) for (int i = 0; i < n; i++) sT[i] = rT[i];
    /* alltoallw: the blocks of one buffer have different types: lay them out in bytes */
    long sbytes = 0, rbytes = 0;
    for (int i = n - 1; i >= 0; i--) {
        sdb[i] = (int)sbytes, rdb[i] = (int)rbytes;
        sbytes += (long)sc[i] * 28 + 28, rbytes += (long)rc[i] * 28 + 28;
    }
    struct ty bytes = { MPI_BYTE, 1, 0, { 0, 0 }, "bytes" };
    struct buf s = mk(mode == 2 ? sbytes : stot, mode == 2 ? &bytes : &T[sty]);
    struct buf r = mk(mode == 2 ? rbytes : rtot, mode == 2 ? &bytes : &T[rty]);
    /* element e of block i of a buffer */
    #define BLK(b, types, dw, d, i, e) (mode == 2 ? (struct buf){ (b).raw, (b).base + (dw)[i], (b).bytes, (types)[i], 0 } \
                                                 : (struct buf){ (b).raw, (b).base + (long)(d)[i] * (b).ty->ext, (b).bytes, (b).ty, 0 })
    struct buf *fill = inpl ? &r : &s;
    for (int i = 0; i < n; i++) {
        struct buf k = inpl ? BLK(r, rT, rdb, rd, i, 0) : BLK(s, sT, sdb, sd, i, 0);
        for (long e = 0; e < (inpl ? rc[i] : sc[i]); e++)
            for (int j = 0; j < 2; j++) put(&k, e, j, val(x->me, e, j, x->k, i));
    }
    (void)fill;
    const void *sb = inpl ? MPI_IN_PLACE : s.base;
    if (mode == 0)
        CALL(x, MPI_Alltoall(sb, (int)cnt, T[sty].t, r.base, (int)cnt, T[rty].t, x->c),
             MPI_Ialltoall(sb, (int)cnt, T[sty].t, r.base, (int)cnt, T[rty].t, x->c, &r_));
    else if (mode == 1)
        CALL(x, MPI_Alltoallv(sb, sc, sd, T[sty].t, r.base, rc, rd, T[rty].t, x->c),
             MPI_Ialltoallv(sb, sc, sd, T[sty].t, r.base, rc, rd, T[rty].t, x->c, &r_));
    else
        CALL(x, MPI_Alltoallw(sb, sc, sdb, sts, r.base, rc, rdb, rts, x->c),
             MPI_Ialltoallw(sb, sc, sdb, sts, r.base, rc, rdb, rts, x->c, &r_));
    for (int i = 0; i < n; i++) {
        struct buf k = BLK(r, rT, rdb, rd, i, 0);
        for (long e = 0; e < rc[i]; e++)
            for (int j = 0; j < 2; j++)
                CHECK(get(&k, e, j) == val(i, e, j, x->k, x->me), "alltoall%s %ld %s->%s%s: block %d [%ld] %d want %d",
                      mode == 1 ? "v" : mode == 2 ? "w" : "", cnt, T[sty].name, T[rty].name, inpl ? " in place" : "", i, e,
                      get(&k, e, j), val(i, e, j, x->k, x->me));
    }
    if (mode != 2) holes_kept(&r, "alltoall");
    #undef BLK
    drop(&s), drop(&r);
}

/* Reductions: MPI_SUM on the ints. kind: 0 reduce, 1 allreduce, 2 scan,
 * 3 exscan, 4 reduce_scatter_block, 5 reduce_scatter. */
static void reduction(struct ctx *x, long cnt, int ty, int kind, bool inpl)
{
    int n = x->n, me = x->me, counts[64];
    static const char *const names[] = { "reduce", "allreduce", "scan", "exscan", "reduce_scatter_block", "reduce_scatter" };
    long total = cnt, mine = cnt, first = 0;
    if (kind == 4) total = cnt * n, first = me * cnt;
    if (kind == 5) {
        total = 0;
        for (int i = 0; i < n; i++) counts[i] = vcount(cnt, i), first = i == me ? total : first, total += counts[i];
        mine = counts[me];
    }
    bool root = kind != 0 || me == x->root, in = inpl && root;
    struct buf s = mk(total, &T[ty]), r = mk(kind >= 4 ? (in ? total : mine) : total, &T[ty]);
    struct buf *src = in ? &r : &s;
    for (long e = 0; e < total; e++) for (int j = 0; j < 2; j++) put(src, e, j, val(me, e, j, x->k, 0));
    const void *sb = in ? MPI_IN_PLACE : s.base;
    MPI_Datatype t = T[ty].t;
    switch (kind) {
    case 0: CALL(x, MPI_Reduce(sb, r.base, (int)cnt, t, MPI_SUM, x->root, x->c),
                 MPI_Ireduce(sb, r.base, (int)cnt, t, MPI_SUM, x->root, x->c, &r_)); break;
    case 1: CALL(x, MPI_Allreduce(sb, r.base, (int)cnt, t, MPI_SUM, x->c),
                 MPI_Iallreduce(sb, r.base, (int)cnt, t, MPI_SUM, x->c, &r_)); break;
    case 2: CALL(x, MPI_Scan(sb, r.base, (int)cnt, t, MPI_SUM, x->c),
                 MPI_Iscan(sb, r.base, (int)cnt, t, MPI_SUM, x->c, &r_)); break;
    case 3: CALL(x, MPI_Exscan(sb, r.base, (int)cnt, t, MPI_SUM, x->c),
                 MPI_Iexscan(sb, r.base, (int)cnt, t, MPI_SUM, x->c, &r_)); break;
    case 4: CALL(x, MPI_Reduce_scatter_block(sb, r.base, (int)cnt, t, MPI_SUM, x->c),
                 MPI_Ireduce_scatter_block(sb, r.base, (int)cnt, t, MPI_SUM, x->c, &r_)); break;
    default: CALL(x, MPI_Reduce_scatter(sb, r.base, counts, t, MPI_SUM, x->c),
                  MPI_Ireduce_scatter(sb, r.base, counts, t, MPI_SUM, x->c, &r_)); break;
    }
    if (root && !(kind == 3 && me == 0)) {
        int upto = kind == 2 ? me : kind == 3 ? me - 1 : n - 1;
        for (long e = 0; e < mine; e++)
            for (int j = 0; j < 2; j++) {
                long want = 0;
                for (int i = 0; i <= upto; i++) want += val(i, first + e, j, x->k, 0);
                CHECK(get(&r, e, j) == (int)want, "%s %ld of %s%s root %d: [%ld][%d] %d want %ld", names[kind], cnt,
                      T[ty].name, in ? " in place" : "", x->root, e, j, get(&r, e, j), want);
            }
    }
    if (root && !in) holes_kept(&r, names[kind]);
    drop(&s), drop(&r);
}

/* --- Rounds --------------------------------------------------------------------------- */
static void round_of(MPI_Comm c, bool nb, long cnt, int k)
{
    struct ctx x = { .c = c, .nb = nb, .k = k };
    MPI_Comm_rank(c, &x.me), MPI_Comm_size(c, &x.n);
    x.root = k % x.n;
    int a = k % 3, b = (k + 1 + (k / 3) % 2) % 3;       /* send and receive types differ, in turn */
    bool inpl = k % 2;
    CALL(&x, MPI_Barrier(c), MPI_Ibarrier(c, &r_));
    bcast(&x, cnt, a);
    gather(&x, cnt, a, b, false, inpl);
    gather(&x, cnt, b, a, true, !inpl);
    scatter(&x, cnt, a, b, false, inpl);
    scatter(&x, cnt, b, a, true, !inpl);
    allgather(&x, cnt, a, b, false, inpl);
    allgather(&x, cnt, b, a, true, !inpl);
    alltoall(&x, cnt, a, b, 0, inpl);
    alltoall(&x, cnt, a, b, 1, !inpl);
    alltoall(&x, cnt, a, b, 2, inpl);
    for (int kind = 0; kind < 6; kind++) reduction(&x, cnt, a, kind, (kind + k) % 2);
}

static void run(bool nb)
{
    static const long sizes[] = { 0, 1, 5, 40, 600, 1200, 9000 };
    MPI_Comm rev, half;
    OK(MPI_Comm_split(MPI_COMM_WORLD, 0, wn - wme, &rev));
    OK(MPI_Comm_split(MPI_COMM_WORLD, wme % 2, wme, &half));
    int k = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++, k++) {
        if (wn > 4 && sizes[s] > 1200 && nb) continue;     /* keep 8 ranks on 2 cores quick */
        round_of(MPI_COMM_WORLD, nb, sizes[s], k);
        round_of(rev, nb, sizes[s], k + 1);
        round_of(half, nb, sizes[s], k + 2);   /* the two halves at the same time */
    }
    OK(MPI_Comm_free(&rev));
    OK(MPI_Comm_free(&half));
}

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "all";
    OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &wme);
    MPI_Comm_size(MPI_COMM_WORLD, &wn);
    if (!strcmp(part, "die_move")) {
        /* small data movers (the engine's lean path), roots in turn, until
         * rank 1 is killed between two calls: the others wait in one for
         * its record (a reader for its root's, a root or allgather for its
         * block), and smrun must end the job */
        int x[2] = { wme, 1 }, y[2 * 64];
        for (int i = 0;; i++) {
            if (wme == 1 && i == 300) raise(SIGKILL);
            OK(MPI_Bcast(x, 2, MPI_INT, i % wn, MPI_COMM_WORLD));
            OK(MPI_Gather(x, 1, MPI_INT, y, 1, MPI_INT, (i + 1) % wn, MPI_COMM_WORLD));
            OK(MPI_Scatter(y, 1, MPI_INT, x, 1, MPI_INT, (i + 1) % wn, MPI_COMM_WORLD));
            OK(MPI_Allgather(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD));
            OK(MPI_Alltoall(y, 1, MPI_INT, y + 64, 1, MPI_INT, MPI_COMM_WORLD));
        }
    }
    if (!strcmp(part, "die_mid")) {
        /* 4 KiB data movers and reductions and a 64 KiB exscan, until rank
         * 1 is killed between two calls: 2 ranks publish sources in place
         * and wait for their reader (coll_carrier), a two ranks' exscan
         * waits for member 1's copy (reduce.c direct), 8 ranks on 2 cores
         * slice the reductions (serial_max); smrun must end the job */
        enum { K = 1024, BIG = 16384 };          /* 4 KiB and 64 KiB of floats */
        CHECK(K * wn <= BIG, "at most 16 ranks");
        float *x = calloc(BIG, sizeof *x), *y = calloc(BIG, sizeof *y), *z = calloc(BIG, sizeof *z);
        CHECK(x && y && z, "no memory");
        for (int i = 0;; i++) {
            if (wme == 1 && i == 300) raise(SIGKILL);
            OK(MPI_Bcast(x, K, MPI_FLOAT, i % wn, MPI_COMM_WORLD));
            OK(MPI_Allgather(x, K, MPI_FLOAT, y, K, MPI_FLOAT, MPI_COMM_WORLD));
            OK(MPI_Alltoall(y, K, MPI_FLOAT, z, K, MPI_FLOAT, MPI_COMM_WORLD));
            OK(MPI_Allreduce(x, y, K, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
            OK(MPI_Reduce(x, y, K, MPI_FLOAT, MPI_MAX, i % wn, MPI_COMM_WORLD));
            OK(MPI_Scan(x, y, K, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
            OK(MPI_Exscan(x, z, BIG, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
        }
    }
    if (!strcmp(part, "die")) {
        /* small reductions (the engine's lean path) until rank 1 is
         * killed between two calls: the others wait in one for its record,
         * and smrun must end the job */
        float x[2] = { 1, 2 }, y[2];
        for (int i = 0;; i++) {
            if (wme == 1 && i == 300) raise(SIGKILL);
            OK(MPI_Allreduce(x, y, 2, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
            OK(MPI_Scan(x, y, 2, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
            OK(MPI_Exscan(x, y, 2, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD));
            OK(MPI_Reduce(x, y, 2, MPI_FLOAT, MPI_MIN, i % wn, MPI_COMM_WORLD));
        }
    }
    CHECK(wn <= 64, "at most 64 ranks");
    make_types();
    if (strcmp(part, "nonblocking")) run(false);
    if (strcmp(part, "blocking")) run(true);
    for (int i = 0; i < 3; i++) OK(MPI_Type_free(&T[i].t));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (wme == 0) printf("test_colls %s: %d ranks ok\n", part, wn);
    OK(MPI_Finalize());
    return 0;
}
