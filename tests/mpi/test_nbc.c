/* Nonblocking collectives as programs use them, and what the standard asks
 * of every collective beyond the data:
 *  overlap: several outstanding on one communicator (more than the engine
 *    has records for) and on others, completed in any order through
 *    Wait/Waitany/Testany/Waitsome/Waitall mixed with point-to-point
 *    requests; started in different orders on different communicators; a
 *    blocking collective while a peer waits for a nonblocking one; progress
 *    while blocked in point-to-point.
 *  order: a user operation that is associative but not commutative
 *    (composition of affine maps), on a datatype with a hole and a
 *    contiguous one, small and large, applied in rank order by reduce (every
 *    root), allreduce, scan, exscan, reduce_scatter_block, and several
 *    nonblocking ones at once; small scans and exscans that do not wait
 *    for the ranks after them.
 *  idup: MPI_Comm_idup of overlapping communicators outstanding together (in
 *    different orders on different ranks) with other collectives; the new
 *    communicators work and are distinct.
 *  arrays: the count and displacement arrays of the v collectives freed and
 *    overwritten as soon as the call returns (as mpi4py does with the
 *    temporaries it converts MPI_Count arrays into): the call kept its own.
 *  bad: an invalid root, an operation not defined on the type, sizes or
 *    operations or roots that differ between ranks: an error (at the call,
 *    or at the wait for the nonblocking form; for a rank that read nobody's
 *    part of it, such as a root that every rank thinks itself, at its next
 *    collective on the communicator, naming the earlier one), never a hang,
 *    and the communicator works after.
 * Usage: test_nbc overlap|order|idup|arrays|bad */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

static long sum_ranks(void) { return (long)n * (n - 1) / 2; }

/* --- overlap ----------------------------------------------------------------------- */
static void overlap(void)
{
    MPI_Comm dup;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    enum { K = 10, BIG = 30000 };
    /* K allreduces outstanding on one communicator, completed in reverse */
    long v[K], out[K];
    MPI_Request r[K + 8];
    for (int k = 0; k < K; k++) {
        v[k] = me + k;
        OK(MPI_Iallreduce(&v[k], &out[k], 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r[k]));
    }
    for (int k = K - 1; k >= 0; k--) {
        OK(MPI_Wait(&r[k], MPI_STATUS_IGNORE));
        CHECK(out[k] == sum_ranks() + (long)n * k, "iallreduce %d: %ld", k, out[k]);
    }
    /* a mix on two communicators and point-to-point, completed by Waitany */
    int *big = malloc(sizeof(int) * BIG), *bigout = malloc(sizeof(int) * BIG);
    int *all = malloc(sizeof(int) * (size_t)n * 3), *a2a = malloc(sizeof(int) * (size_t)n), *a2b = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < BIG; i++) big[i] = me + i;
    for (int i = 0; i < n; i++) a2a[i] = me * 100 + i;
    int bc = me == n - 1 ? 77 : 0, tok = me, got = -1, mine3[3] = { me, me + 1, me + 2 };
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    int nr = 0;
    OK(MPI_Irecv(&got, 1, MPI_INT, prev, 5, MPI_COMM_WORLD, &r[nr++]));
    OK(MPI_Iallreduce(big, bigout, BIG, MPI_INT, MPI_SUM, dup, &r[nr++]));
    OK(MPI_Ibcast(&bc, 1, MPI_INT, n - 1, MPI_COMM_WORLD, &r[nr++]));
    OK(MPI_Iallgather(mine3, 3, MPI_INT, all, 3, MPI_INT, dup, &r[nr++]));
    OK(MPI_Isend(&tok, 1, MPI_INT, next, 5, MPI_COMM_WORLD, &r[nr++]));
    OK(MPI_Ialltoall(a2a, 1, MPI_INT, a2b, 1, MPI_INT, MPI_COMM_WORLD, &r[nr++]));
    OK(MPI_Ibarrier(dup, &r[nr++]));
    for (int left = nr; left > 0; left--) {
        int idx;
        if (left % 2) OK(MPI_Waitany(nr, r, &idx, MPI_STATUS_IGNORE));
        else {
            int flag = 0;
            while (!flag) OK(MPI_Testany(nr, r, &idx, &flag, MPI_STATUS_IGNORE));
        }
        CHECK(idx != MPI_UNDEFINED && r[idx] == MPI_REQUEST_NULL, "completed request %d freed", idx);
    }
    CHECK(got == prev, "ring message %d", got);
    CHECK(bc == 77, "ibcast %d", bc);
    for (int i = 0; i < BIG; i += 997) CHECK(bigout[i] == (int)(sum_ranks() + (long)n * i), "big iallreduce [%d]", i);
    for (int i = 0; i < n; i++) {
        CHECK(all[3 * i] == i && all[3 * i + 2] == i + 2, "iallgather from %d", i);
        CHECK(a2b[i] == i * 100 + me, "ialltoall from %d", i);
    }
    /* different orders on different communicators (legal: the order is per communicator) */
    int x1 = me == 0 ? 11 : 0, x2 = me == 0 ? 22 : 0;
    if (me % 2) {
        OK(MPI_Ibcast(&x1, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]));
        OK(MPI_Ibcast(&x2, 1, MPI_INT, 0, dup, &r[1]));
    } else {
        OK(MPI_Ibcast(&x2, 1, MPI_INT, 0, dup, &r[1]));
        OK(MPI_Ibcast(&x1, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]));
    }
    int outc, idx[2];
    for (int done = 0; done < 2; done += outc) OK(MPI_Waitsome(2, r, &outc, idx, MPI_STATUSES_IGNORE));
    CHECK(x1 == 11 && x2 == 22, "ibcasts in other orders %d %d", x1, x2);
    /* a blocking collective on one communicator while a peer first waits
     * for a nonblocking one on another: it must progress meanwhile */
    OK(MPI_Iallreduce(big, bigout, BIG, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r[0]));
    if (me % 2) {
        OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        OK(MPI_Barrier(dup));
    } else {
        OK(MPI_Barrier(dup));
        OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    }
    CHECK(bigout[5] == n - 1 + 5, "iallreduce max %d", bigout[5]);
    /* progress while blocked in a receive: rank 0 waits for a message that
     * rank 1 sends only after its ibarrier has completed */
    if (n > 1) {
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &r[0]));
        if (me == 0) {
            OK(MPI_Recv(&got, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        } else {
            OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
            if (me == 1) OK(MPI_Send(&me, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
        }
    }
    /* freeing a communicator with a collective on it still pending completes it normally */
    MPI_Comm tmp;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &tmp));
    long t = me, ts;
    OK(MPI_Iallreduce(&t, &ts, 1, MPI_LONG, MPI_SUM, tmp, &r[0]));
    OK(MPI_Comm_free(&tmp));
    OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK(ts == sum_ranks(), "iallreduce on a freed communicator %ld", ts);
    free(big), free(bigout), free(all), free(a2a), free(a2b);
    OK(MPI_Comm_free(&dup));
}

/* --- order: affine maps x -> a x + b (mod 2^32), composed in rank order ------------ */
struct aff { uint32_t a, hole, b; };   /* the datatype leaves out the hole */
static void compose(void *in, void *inout, int *len, MPI_Datatype *t)
{
    /* inout = in op inout, with f op g = "f, then g": (g.a f.a, g.a f.b + g.b) */
    int contig;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*t, &lb, &ext);
    contig = ext == 8;
    for (int i = 0; i < *len; i++) {
        uint32_t *f = (uint32_t *)((char *)in + i * ext), *g = (uint32_t *)((char *)inout + i * ext);
        uint32_t fa = f[0], fb = f[contig ? 1 : 2], ga = g[0], gb = g[contig ? 1 : 2];
        g[0] = ga * fa;
        g[contig ? 1 : 2] = ga * fb + gb;
    }
}
static struct aff mapof(int r, int i, int k) { return (struct aff){ 2u * (uint32_t)(r + i + k) + 1, 0xdeadbeef, (uint32_t)(r * 7 + i + k) }; }
static struct aff then(struct aff f, struct aff g) { return (struct aff){ g.a * f.a, 0, g.a * f.b + g.b }; }

static void order_one(MPI_Datatype t, bool holes, int cnt, int k, MPI_Op op, bool nb)
{
    size_t sz = holes ? sizeof(struct aff) : 8;
    char *in = malloc(sz * (size_t)cnt * (size_t)n), *out = malloc(sz * (size_t)cnt * (size_t)n);
    #define EL(p, i) ((uint32_t *)((p) + (size_t)(i) * sz))
    for (int i = 0; i < cnt * n; i++) {
        struct aff f = mapof(me, i, k);
        EL(in, i)[0] = f.a, EL(in, i)[holes ? 2 : 1] = f.b;
        if (holes) EL(in, i)[1] = 0xdeadbeef;
        memset(out + (size_t)i * sz, 0x5a, sz);
    }
    /* reference: s0 then s1 then ... for members lo..hi */
    #define REF(i, lo, hi) ({ struct aff a_ = mapof(lo, i, k); for (int r_ = (lo) + 1; r_ <= (hi); r_++) a_ = then(a_, mapof(r_, i, k)); a_; })
    #define SAME(p, i, w, what) do { struct aff w_ = (w); \
        CHECK(EL(p, i)[0] == w_.a && EL(p, i)[holes ? 2 : 1] == w_.b, "%s %d (%s, %d elements): [%d] wrong", what, k, \
              holes ? "holes" : "contiguous", cnt, i); \
        if (holes) CHECK(EL(p, i)[1] == 0x5a5a5a5a, "%s: the hole was written", what); } while (0)
    MPI_Request r[3];
    int root = k % n;
    if (nb) {
        OK(MPI_Ireduce(in, out, cnt, t, op, root, MPI_COMM_WORLD, &r[0]));
        char *o2 = malloc(sz * (size_t)cnt), *o3 = malloc(sz * (size_t)cnt);
        memset(o2, 0x5a, sz * (size_t)cnt), memset(o3, 0x5a, sz * (size_t)cnt);
        OK(MPI_Iscan(in, o2, cnt, t, op, MPI_COMM_WORLD, &r[1]));
        OK(MPI_Iallreduce(in, o3, cnt, t, op, MPI_COMM_WORLD, &r[2]));
        OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < cnt; i++) {
            if (me == root) SAME(out, i, REF(i, 0, n - 1), "ireduce");
            SAME(o2, i, REF(i, 0, me), "iscan");
            SAME(o3, i, REF(i, 0, n - 1), "iallreduce");
        }
        free(o2), free(o3);
    } else {
        OK(MPI_Reduce(in, out, cnt, t, op, root, MPI_COMM_WORLD));
        if (me == root) for (int i = 0; i < cnt; i++) SAME(out, i, REF(i, 0, n - 1), "reduce");
        OK(MPI_Allreduce(in, out, cnt, t, op, MPI_COMM_WORLD));
        for (int i = 0; i < cnt; i++) SAME(out, i, REF(i, 0, n - 1), "allreduce");
        OK(MPI_Scan(in, out, cnt, t, op, MPI_COMM_WORLD));
        for (int i = 0; i < cnt; i++) SAME(out, i, REF(i, 0, me), "scan");
        OK(MPI_Exscan(in, out, cnt, t, op, MPI_COMM_WORLD));
        if (me) for (int i = 0; i < cnt; i++) SAME(out, i, REF(i, 0, me - 1), "exscan");
        OK(MPI_Reduce_scatter_block(in, out, cnt, t, op, MPI_COMM_WORLD));
        for (int i = 0; i < cnt; i++) SAME(out, i, REF(me * cnt + i, 0, n - 1), "reduce_scatter_block");
        /* in place at the root */
        memcpy(out, in, sz * (size_t)cnt);
        OK(MPI_Reduce(me == root ? MPI_IN_PLACE : in, out, cnt, t, op, root, MPI_COMM_WORLD));
        if (me == root) for (int i = 0; i < cnt; i++) { EL(out, i)[1] = holes ? 0x5a5a5a5a : EL(out, i)[1]; SAME(out, i, REF(i, 0, n - 1), "reduce in place"); }
    }
    free(in), free(out);
    #undef EL
    #undef REF
    #undef SAME
}

static void order(void)
{
    MPI_Datatype contig, sparse;
    OK(MPI_Type_contiguous(2, MPI_UINT32_T, &contig));
    int bl[2] = { 1, 1 };
    MPI_Aint d[2] = { 0, 8 };
    MPI_Datatype ts[2] = { MPI_UINT32_T, MPI_UINT32_T }, s0;
    OK(MPI_Type_create_struct(2, bl, d, ts, &s0));
    OK(MPI_Type_create_resized(s0, 0, sizeof(struct aff), &sparse));
    OK(MPI_Type_free(&s0));
    OK(MPI_Type_commit(&contig));
    OK(MPI_Type_commit(&sparse));
    MPI_Op op;
    OK(MPI_Op_create(compose, 0, &op));
    int commute = 1;
    OK(MPI_Op_commutative(op, &commute));
    CHECK(!commute, "the operation does not commute");
    int k = 0;
    for (int big = 0; big < 2; big++)
        for (int nb = 0; nb < 2; nb++, k++) {
            order_one(contig, false, big ? 3000 : 3, k, op, nb);
            order_one(sparse, true, big ? 2000 : 2, k + 1, op, nb);
        }
    OK(MPI_Op_free(&op));
    OK(MPI_Type_free(&contig));
    OK(MPI_Type_free(&sparse));
    /* A small scan and exscan are eager as a linear scan is: rank r's
     * completes before rank r + 1 calls its own (here it waits for rank r's
     * message first). MPI lets a scan synchronise, so a portable program
     * could not do this; smartmap's does not, for speed (member 0 used to
     * wait for member 1's record). */
    for (int ex = 0; ex < 2; ex++) {
        long one = me + 1, pre = -1;
        int token = 0;
        if (me > 0) OK(MPI_Recv(&token, 1, MPI_INT, me - 1, 40 + ex, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        OK((ex ? MPI_Exscan : MPI_Scan)(&one, &pre, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        if (me < n - 1) OK(MPI_Send(&token, 1, MPI_INT, me + 1, 40 + ex, MPI_COMM_WORLD));
        long want = (long)(ex ? me : me + 1) * (ex ? me + 1 : me + 2) / 2;
        CHECK((ex && me == 0) || pre == want, "%s: %ld, want %ld", ex ? "exscan" : "scan", pre, want);
    }
}

/* --- idup --------------------------------------------------------------------------- */
static void idup(void)
{
    MPI_Comm half, c[4];
    OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
    MPI_Request r[6];
    long v = me, s1 = 0;
    /* two idups of overlapping communicators, in different orders on different ranks */
    if (me % 2) {
        OK(MPI_Comm_idup(MPI_COMM_WORLD, &c[0], &r[0]));
        OK(MPI_Comm_idup(half, &c[1], &r[1]));
    } else {
        OK(MPI_Comm_idup(half, &c[1], &r[1]));
        OK(MPI_Comm_idup(MPI_COMM_WORLD, &c[0], &r[0]));
    }
    OK(MPI_Iallreduce(&v, &s1, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r[2]));
    OK(MPI_Comm_idup(MPI_COMM_WORLD, &c[2], &r[3]));
    OK(MPI_Comm_idup(half, &c[3], &r[4]));
    OK(MPI_Waitall(5, r, MPI_STATUSES_IGNORE));
    CHECK(s1 == sum_ranks(), "iallreduce among the idups: %ld", s1);
    int hn, res;
    MPI_Comm_size(half, &hn);
    for (int i = 0; i < 4; i++) {
        long s = 0;
        OK(MPI_Allreduce(&v, &s, 1, MPI_LONG, MPI_SUM, c[i]));
        int sz;
        MPI_Comm_size(c[i], &sz);
        CHECK(sz == (i % 2 ? hn : n), "idup %d has %d ranks", i, sz);
        OK(MPI_Comm_compare(c[i], i % 2 ? half : MPI_COMM_WORLD, &res));
        CHECK(res == MPI_CONGRUENT, "idup %d congruent", i);
    }
    /* distinct contexts: a message on one is not received on another */
    if (n > 1) {
        int a = 1, b = 2, x = 0, y = 0;
        if (me == 0) {
            OK(MPI_Send(&a, 1, MPI_INT, 1, 0, c[0]));
            OK(MPI_Send(&b, 1, MPI_INT, 1, 0, c[2]));
        } else if (me == 1) {
            OK(MPI_Recv(&y, 1, MPI_INT, 0, 0, c[2], MPI_STATUS_IGNORE));
            OK(MPI_Recv(&x, 1, MPI_INT, 0, 0, c[0], MPI_STATUS_IGNORE));
            CHECK(x == 1 && y == 2, "contexts mixed: %d %d", x, y);
        }
    }
    for (int i = 0; i < 4; i++) OK(MPI_Comm_free(&c[i]));
    /* many creations and frees: numbers and contexts come back */
    for (int i = 0; i < 100; i++) {
        MPI_Comm d;
        OK(MPI_Comm_idup(i % 2 ? half : MPI_COMM_WORLD, &d, &r[0]));
        OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        OK(MPI_Barrier(d));
        OK(MPI_Comm_free(&d));
    }
    /* a duplicate keeps the process topology, as MPI_Comm_dup's does */
    MPI_Comm cart, cd;
    int dims[1] = { n }, periods[1] = { 1 }, kind = MPI_UNDEFINED, left, right;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    OK(MPI_Comm_idup(cart, &cd, &r[0]));
    OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    OK(MPI_Topo_test(cd, &kind));
    CHECK(kind == MPI_CART, "idup of a Cartesian communicator: topology %d", kind);
    OK(MPI_Cart_shift(cd, 0, 1, &left, &right));
    CHECK(left == (me + n - 1) % n && right == (me + 1) % n, "idup's ring: %d %d", left, right);
    OK(MPI_Comm_free(&cd));
    OK(MPI_Comm_free(&cart));
    OK(MPI_Comm_free(&half));
}

/* --- bad ------------------------------------------------------------------------------ */
static int expect(int rc, int cls, const char *what)
{
    int c;
    MPI_Error_class(rc, &c);
    CHECK(c == cls, "%s: error class %d, expected %d", what, c, cls);
    return c;
}

static void bad(void)
{
    MPI_Comm c;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int buf[2048] = { 0 }, out[64];   /* the ibcast of differing sizes below sends 2000 */
    MPI_Request r;
    /* arguments each rank can check */
    expect(MPI_Bcast(buf, 1, MPI_INT, n, c), MPI_ERR_ROOT, "bcast root n");
    expect(MPI_Ibcast(buf, 1, MPI_INT, -1, c, &r), MPI_ERR_ROOT, "ibcast root -1");
    expect(MPI_Reduce(buf, out, 1, MPI_INT, MPI_SUM, n + 3, c), MPI_ERR_ROOT, "reduce root");
    double d = 1, dd;
    expect(MPI_Allreduce(&d, &dd, 1, MPI_DOUBLE, MPI_BAND, c), MPI_ERR_OP, "band on double");
    expect(MPI_Iallreduce(&d, &dd, 1, MPI_DOUBLE, MPI_LXOR, c, &r), MPI_ERR_OP, "ilxor on double");
    expect(MPI_Bcast(buf, -1, MPI_INT, 0, c), MPI_ERR_COUNT, "negative count");
    expect(MPI_Ibarrier(c, NULL), MPI_ERR_REQUEST, "ibarrier without a request");
    if (n > 1) expect(MPI_Reduce(MPI_IN_PLACE, out, 1, MPI_INT, MPI_SUM, (me + 1) % n, c), MPI_ERR_BUFFER, "in place away from the root");
    /* what only the collective can see; the communicator works after each */
    long one = 1, s;
    if (n > 1) {
        int rc = MPI_Bcast(buf, me == 1 ? 10 : 20, MPI_INT, 0, c);
        expect(rc, me == 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS, "bcast sizes");
        rc = MPI_Ibcast(buf, me == 1 ? 2000 : 1000, MPI_INT, 0, c, &r);
        OK(rc);
        expect(MPI_Wait(&r, MPI_STATUS_IGNORE), me == 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS, "ibcast sizes at the wait");
        /* every rank its own root: nobody reads anybody, each checks the
         * next rank's part later (a root does not wait for it): the error
         * is its next collective's on c, by whose end (a barrier's: it reads
         * the next rank's part of it) the check is done; the line names the
         * broadcast (mpi_nbc_fatal_roots) */
        OK(MPI_Bcast(buf, 4, MPI_INT, me, c));
        expect(MPI_Barrier(c), MPI_ERR_OTHER, "the barrier after a bcast with every rank its own root");
        /* roots disagree otherwise: rank 1 thinks it is the root, the others
         * 0; the others read rank 0's part (as they expect), the two roots
         * read nothing and see it at the barrier after */
        OK(MPI_Bcast(buf, 4, MPI_INT, me == 1 ? 1 : 0, c));
        rc = MPI_Barrier(c);
        CHECK(me > 1 ? rc == MPI_SUCCESS : rc != MPI_SUCCESS, "bcast roots 0 and 1, the barrier after: rank %d got %d", me, rc);
        /* a nonblocking scatter with every rank its own root: its wait
         * succeeds, the allreduce after it fails */
        OK(MPI_Iscatter(buf, 1, MPI_INT, out, 1, MPI_INT, me, c, &r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        expect(MPI_Allreduce(&one, &s, 1, MPI_LONG, MPI_SUM, c), MPI_ERR_OTHER, "the allreduce after an iscatter with every rank its own root");
        long ones[2] = { 1, 1 }, sums[2];
        expect(MPI_Allreduce(ones, sums, me == 0 ? 2 : 1, MPI_LONG, MPI_SUM, c), MPI_ERR_TRUNCATE, "allreduce counts");
        expect(MPI_Allreduce(&one, &s, 1, MPI_LONG, me == n - 1 ? MPI_MAX : MPI_SUM, c), MPI_ERR_OTHER, "allreduce ops");
        /* a scan whose member 1 disagrees: every member after member 0
         * fails (a small scan is a chain: member 2 sees member 1's, and
         * the members after it see member 2's failure), member 0 does not */
        rc = MPI_Scan(&one, &s, 1, MPI_LONG, me == 1 ? MPI_MAX : MPI_SUM, c);
        CHECK(me == 0 ? rc == MPI_SUCCESS : rc != MPI_SUCCESS, "scan ops: rank %d got %d", me, rc);
        OK(MPI_Allreduce(&one, &s, 1, MPI_LONG, MPI_SUM, c));
        CHECK(s == n, "allreduce after the failed scan: %ld", s);
        rc = MPI_Iallreduce(&one, &s, 1, me == n - 1 ? MPI_INT : MPI_LONG, MPI_SUM, c, &r);
        OK(rc);
        MPI_Status st;
        expect(MPI_Waitall(1, &r, &st), MPI_ERR_IN_STATUS, "iallreduce types at the waitall");
        expect(st.MPI_ERROR, MPI_ERR_OTHER, "its status");
        /* rank 1 sends more than the root expects: the root sees it (a small
         * block travels in rank 1's record, so rank 1 does not wait to see) */
        rc = MPI_Gather(buf, me == 1 ? 3 : 2, MPI_INT, out, 2, MPI_INT, 0, c);
        expect(rc, me == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS, "gather sizes");
        int sc[64], sd[64], rc2[64], rd[64];
        for (int i = 0; i < n; i++) sc[i] = rc2[i] = 1, sd[i] = rd[i] = i;
        if (me == 0) sc[1] = 0, sd[1] = 1;          /* rank 0 sends rank 1 nothing, rank 1 expects one */
        rc = MPI_Alltoallv(buf, sc, sd, MPI_INT, out, rc2, rd, MPI_INT, c);
        expect(rc, me == 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS, "alltoallv counts");
        /* every rank sends two per block and expects one: the same on all
         * ranks, so no peer sees a difference; each rank's own sizes do */
        expect(MPI_Alltoall(buf, 2, MPI_INT, out, 1, MPI_INT, c), MPI_ERR_TRUNCATE, "alltoall send 2 receive 1");
    }
    /* on an intercommunicator Iscan and Iexscan are refused, naming it */
    if (n > 1) {
        MPI_Comm half, ic;
        OK(MPI_Comm_split(c, me % 2, me, &half));
        OK(MPI_Intercomm_create(half, 0, c, me % 2 ? 0 : 1, 7, &ic));
        OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
        expect(MPI_Iscan(&one, &s, 1, MPI_LONG, MPI_SUM, ic, &r), MPI_ERR_COMM, "iscan on an intercommunicator");
        expect(MPI_Iexscan(&one, &s, 1, MPI_LONG, MPI_SUM, ic, &r), MPI_ERR_COMM, "iexscan on an intercommunicator");
        expect(MPI_Ibarrier(ic, NULL), MPI_ERR_REQUEST, "ibarrier on an intercommunicator without a request");
        /* the I- forms are the intercommunicator's (tests/mpi/test_inter.c) */
        OK(MPI_Ibarrier(ic, &r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        int rsz;
        OK(MPI_Comm_remote_size(ic, &rsz));
        OK(MPI_Iallreduce(&one, &s, 1, MPI_LONG, MPI_SUM, ic, &r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(s == rsz, "iallreduce on an intercommunicator: %ld, want %d", s, rsz);
        /* the blocking MPI_Alltoallw is the intercommunicator's own */
        int rn, sv[8], rv[8], cnt[8], dsp[8];
        MPI_Datatype ty[8];
        OK(MPI_Comm_remote_size(ic, &rn));
        for (int i = 0; i < rn && i < 8; i++)
            sv[i] = me * 100 + i, rv[i] = -1, cnt[i] = 1, dsp[i] = i * (int)sizeof(int), ty[i] = MPI_INT;
        if (rn <= 8) {
            OK(MPI_Alltoallw(sv, cnt, dsp, ty, rv, cnt, dsp, ty, ic));
            int lr;
            OK(MPI_Comm_rank(ic, &lr));
            for (int i = 0; i < rn; i++)   /* remote rank i is world rank 2i + (1 - me % 2) */
                CHECK(rv[i] == (2 * i + 1 - me % 2) * 100 + lr, "alltoallw on an intercommunicator: %d from %d", rv[i], i);
        }
        OK(MPI_Barrier(ic));
        OK(MPI_Comm_free(&ic));
        OK(MPI_Comm_free(&half));
    }
    OK(MPI_Allreduce(&one, &s, 1, MPI_LONG, MPI_SUM, c));
    CHECK(s == n, "after the errors: %ld", s);
    OK(MPI_Comm_free(&c));
}

/* Under MPI_ERRORS_ARE_FATAL: rank 1 gets the error (the others would
 * hang or get it too; the job ends with rank 1's line). Roots that every
 * rank thinks itself: at the next collective (the barrier), or at
 * MPI_Finalize when it was the last. */
static void fatal(const char *what)
{
    int buf[32] = { 0 };
    long one = 1, s;
    MPI_Request r;
    if (me != 1) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);   /* one line: rank 1's */
    if (!strcmp(what, "fatal_root")) {
        if (me == 1) MPI_Bcast(buf, 1, MPI_INT, n, MPI_COMM_WORLD);
    } else if (!strcmp(what, "fatal_size")) {
        MPI_Bcast(buf, me == 1 ? 10 : 20, MPI_INT, 0, MPI_COMM_WORLD);
    } else if (!strcmp(what, "fatal_roots")) {
        MPI_Bcast(buf, 4, MPI_INT, me, MPI_COMM_WORLD);   /* the barrier below says so */
    } else if (!strcmp(what, "fatal_roots_finalize")) {
        MPI_Bcast(buf, 4, MPI_INT, me, MPI_COMM_WORLD);   /* the last collective: MPI_Finalize says so */
        MPI_Finalize();
        exit(0);
    } else if (!strcmp(what, "fatal_op")) {
        MPI_Iallreduce(&one, &s, 1, MPI_LONG, me == n - 1 ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Arrays a caller throws away once the call returns: garbage from then on. */
static int *scratch_ints(int v)
{
    int *a = malloc(sizeof(int) * (size_t)n);
    CHECK(a, "malloc");
    for (int i = 0; i < n; i++) a[i] = v < 0 ? i * v * -1 : v;
    return a;
}
static void trash(int *a)
{
    memset(a, 0x7f, sizeof(int) * (size_t)n);
    free(a);
}

static void arrays(void)
{
    int cnt = 3, *sbuf = malloc(sizeof(int) * (size_t)(cnt * n)), *rbuf = malloc(sizeof(int) * (size_t)(cnt * n));
    CHECK(sbuf && rbuf, "malloc");
    for (int root = 0; root < n; root++) {
        MPI_Request q[3];
        for (int i = 0; i < cnt * n; i++) sbuf[i] = me * 1000 + i, rbuf[i] = -1;
        int *c1 = scratch_ints(cnt), *d1 = scratch_ints(-cnt);
        OK(MPI_Iallgatherv(sbuf, cnt, MPI_INT, rbuf, c1, d1, MPI_INT, MPI_COMM_WORLD, &q[0]));
        trash(c1), trash(d1);
        OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
        for (int r = 0; r < n; r++)
            for (int j = 0; j < cnt; j++)
                CHECK(rbuf[r * cnt + j] == r * 1000 + j, "Iallgatherv: block %d element %d is %d", r, j, rbuf[r * cnt + j]);
        int g[64], *c2 = scratch_ints(1), *d2 = scratch_ints(-1);
        for (int i = 0; i < n && i < 64; i++) g[i] = -1;
        OK(MPI_Igatherv(&me, 1, MPI_INT, g, c2, d2, MPI_INT, root, MPI_COMM_WORLD, &q[1]));
        trash(c2), trash(d2);
        int *sc = scratch_ints(cnt), *sd = scratch_ints(-cnt), *rc = scratch_ints(cnt), *rd = scratch_ints(-cnt);
        for (int i = 0; i < cnt * n; i++) rbuf[i] = -1;
        OK(MPI_Ialltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD, &q[2]));
        trash(sc), trash(sd), trash(rc), trash(rd);
        OK(MPI_Waitall(2, &q[1], MPI_STATUSES_IGNORE));
        if (me == root)
            for (int r = 0; r < n && r < 64; r++) CHECK(g[r] == r, "Igatherv root %d: element %d is %d", root, r, g[r]);
        for (int r = 0; r < n; r++)
            for (int j = 0; j < cnt; j++)
                CHECK(rbuf[r * cnt + j] == r * 1000 + me * cnt + j, "Ialltoallv: from %d element %d is %d", r, j,
                      rbuf[r * cnt + j]);
    }
    free(sbuf), free(rbuf);
}

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "";
    OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (!strcmp(part, "overlap")) overlap();
    else if (!strcmp(part, "order")) order();
    else if (!strcmp(part, "idup")) idup();
    else if (!strcmp(part, "arrays")) arrays();
    else if (!strcmp(part, "bad")) bad();
    else if (!strncmp(part, "fatal_", 6)) fatal(part);
    else CHECK(0, "usage: test_nbc overlap|order|idup|arrays|bad");
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) printf("test_nbc %s: %d ranks ok\n", part, n);
    OK(MPI_Finalize());
    return 0;
}
