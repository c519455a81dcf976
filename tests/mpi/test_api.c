/* What programs written for Open MPI or MPICH commonly rely on beyond the
 * basics: status fields, MPI_UNDEFINED colours and counts, in-place and
 * user-op reductions (also on types with holes), MPI_Reduce_local and
 * Reduce_scatter, MPI_Comm_idup/dup_with_info, MPI_Alloc_mem, info objects,
 * address arithmetic, datatype envelopes and contents, basic element counts,
 * group ranges, MPI_ERR_IN_STATUS, the MPI-1 attribute names, every
 * persistent send mode, and types and communicators freed while requests
 * still use them. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* MPI_SOURCE, MPI_TAG and MPI_ERROR of a wildcard receive; MPI_Get_count
 * gives MPI_UNDEFINED when the bytes are not whole elements. */
static void status_fields(void)
{
    int to = (me + 1) % n, from = (me + n - 1) % n;
    char six[6] = "abcde";
    int buf[4];
    MPI_Status st;
    st.MPI_ERROR = -1;
    OK(MPI_Sendrecv(six, 6, MPI_CHAR, to, 30 + me, buf, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                    MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 30 + from, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    CHECK(st.MPI_ERROR == MPI_SUCCESS, "status error %d", st.MPI_ERROR);
    int c;
    OK(MPI_Get_count(&st, MPI_INT, &c));
    CHECK(c == MPI_UNDEFINED, "6 bytes as MPI_INT: count %d", c);
    OK(MPI_Get_count(&st, MPI_CHAR, &c));
    CHECK(c == 6 && !memcmp(buf, "abcde", 6), "6 bytes as MPI_CHAR: count %d", c);
    OK(MPI_Get_count(&st, MPI_SHORT, &c));
    CHECK(c == 3, "6 bytes as MPI_SHORT: count %d", c);
}

/* MPI_UNDEFINED as colour (or split type): MPI_COMM_NULL, the others split. */
static void split_undefined(void)
{
    MPI_Comm c;
    OK(MPI_Comm_split(MPI_COMM_WORLD, me % 3 == 1 ? MPI_UNDEFINED : me % 3, me, &c));
    if (me % 3 == 1) CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED colour gave a communicator");
    else {
        CHECK(c != MPI_COMM_NULL, "no communicator for colour %d", me % 3);
        int s, r, want = 0;
        for (int i = 0; i < n; i++) want += i % 3 == me % 3;
        OK(MPI_Comm_size(c, &s));
        OK(MPI_Comm_rank(c, &r));
        CHECK(s == want && r == me / 3, "colour %d: size %d rank %d", me % 3, s, r);
        int sum;
        OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
        OK(MPI_Comm_free(&c));
    }
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, me == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c));
    CHECK((c == MPI_COMM_NULL) == (me == 0), "split_type MPI_UNDEFINED");
    if (c != MPI_COMM_NULL) {
        int s;
        OK(MPI_Comm_size(c, &s));
        CHECK(s == n - 1, "split_type size %d", s);
        OK(MPI_Comm_free(&c));
    }
}

/* inout = in * 10 + inout: not commutative, the result spells the ranks in order. */
static void digits(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] = ((int *)in)[i] * 10 + ((int *)inout)[i];
}

static void reductions(void)
{
    int root = n - 1;
    /* in place at the root */
    long v[2] = { me, 2 * me };
    if (me == root) OK(MPI_Reduce(MPI_IN_PLACE, v, 2, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD));
    else OK(MPI_Reduce(v, NULL, 2, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD));
    if (me == root) CHECK(v[0] == (long)n * (n - 1) / 2 && v[1] == 2 * v[0], "reduce in place %ld %ld", v[0], v[1]);
    /* a user operation that does not commute, to a root that is not 0 */
    MPI_Op op;
    int commute = -1;
    OK(MPI_Op_create(digits, 0, &op));
    OK(MPI_Op_commutative(op, &commute));
    CHECK(commute == 0, "user op commutative %d", commute);
    OK(MPI_Op_commutative(MPI_SUM, &commute));
    CHECK(commute == 1, "MPI_SUM commutative %d", commute);
    int d = me % 10, r = -1, want = 0;
    for (int i = 0; i < n; i++) want = want * 10 + i % 10;
    OK(MPI_Reduce(&d, &r, 1, MPI_INT, op, root, MPI_COMM_WORLD));
    if (me == root) CHECK(r == want, "user-op reduce %d, expected %d", r, want);
    /* MPI_Reduce_local: inoutbuf = inbuf op inoutbuf */
    int a[3] = { 1, 2, 3 }, b[3] = { 4, 5, 6 };
    OK(MPI_Reduce_local(a, b, 3, MPI_INT, op));
    CHECK(b[0] == 14 && b[1] == 25 && b[2] == 36, "reduce_local user %d %d %d", b[0], b[1], b[2]);
    OK(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_MAX));
    CHECK(b[0] == 14 && b[2] == 36, "reduce_local max");
    OK(MPI_Op_free(&op));
    MPI_Datatype every2;                  /* a derived type: every other int */
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &every2));
    OK(MPI_Type_commit(&every2));
    int x[3] = { 5, -1, 7 }, y[3] = { 1, 99, 2 };
    OK(MPI_Reduce_local(x, y, 1, every2, MPI_PROD));
    CHECK(y[0] == 5 && y[1] == 99 && y[2] == 14, "reduce_local on a vector %d %d %d", y[0], y[1], y[2]);
    OK(MPI_Type_free(&every2));
}

/* A user operation on a struct type with holes: a "min with index" on
 * { int v; int pad; int idx; } where pad is not in the type. The holes of
 * recvbuf keep their bytes. */
struct vi { int v, pad, idx; };
static void minidx(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    struct vi *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        if (a[i].v < b[i].v || (a[i].v == b[i].v && a[i].idx < b[i].idx)) b[i].v = a[i].v, b[i].idx = a[i].idx;
}
static void user_op_with_holes(void)
{
    int bl[2] = { 1, 1 };
    MPI_Aint disp[2] = { offsetof(struct vi, v), offsetof(struct vi, idx) };
    MPI_Datatype types[2] = { MPI_INT, MPI_INT }, t;
    OK(MPI_Type_create_struct(2, bl, disp, types, &t));
    OK(MPI_Type_commit(&t));
    MPI_Op op;
    OK(MPI_Op_create(minidx, 1, &op));
    struct vi mine[2] = { { (me * 5) % 3, -100, me }, { -me, -100, me } }, res[2];
    for (int i = 0; i < 2; i++) res[i] = (struct vi){ 77, 88, 99 };
    OK(MPI_Allreduce(mine, res, 2, t, op, MPI_COMM_WORLD));
    CHECK(res[0].v == 0 && res[0].idx == 0 && res[0].pad == 88, "allreduce minidx %d %d pad %d", res[0].v, res[0].idx,
          res[0].pad);
    CHECK(res[1].v == -(n - 1) && res[1].idx == n - 1 && res[1].pad == 88, "allreduce minidx [1] %d %d", res[1].v,
          res[1].idx);
    for (int i = 0; i < 2; i++) res[i] = (struct vi){ 77, 88, 99 };
    OK(MPI_Reduce(mine, res, 2, t, op, 0, MPI_COMM_WORLD));
    if (me == 0) CHECK(res[1].idx == n - 1 && res[1].pad == 88, "reduce minidx");
    OK(MPI_Scan(mine, res, 2, t, op, MPI_COMM_WORLD));
    CHECK(res[1].v == -me && res[1].idx == me && res[1].pad == 88, "scan minidx %d %d", res[1].v, res[1].idx);
    struct vi loc = { 1, 5, 2 }, acc = { 1, 6, 1 };
    OK(MPI_Reduce_local(&loc, &acc, 1, t, op));
    CHECK(acc.v == 1 && acc.idx == 1 && acc.pad == 6, "reduce_local minidx");
    OK(MPI_Op_free(&op));
    OK(MPI_Type_free(&t));
}

static void idup_and_memory(void)
{
    MPI_Comm c;
    MPI_Request rq;
    OK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(rq == MPI_REQUEST_NULL, "idup request not freed");
    int cmp;
    OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "idup compare %d", cmp);
    /* a large message between MPI_Alloc_mem buffers, on the new communicator */
    enum { N = 1 << 18 };
    int *s, *r;
    OK(MPI_Alloc_mem(N * sizeof(int), MPI_INFO_NULL, &s));
    OK(MPI_Alloc_mem(N * sizeof(int), MPI_INFO_NULL, &r));
    for (int i = 0; i < N; i++) s[i] = me * N + i;
    int to = (me + 1) % n, from = (me + n - 1) % n;
    OK(MPI_Sendrecv(s, N, MPI_INT, to, 0, r, N, MPI_INT, from, 0, c, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++) CHECK(r[i] == from * N + i, "alloc_mem data [%d] = %d", i, r[i]);
    OK(MPI_Free_mem(s));
    OK(MPI_Free_mem(r));
    OK(MPI_Comm_free(&c));
    /* address arithmetic */
    double arr[10];
    MPI_Aint a0, a7;
    OK(MPI_Get_address(&arr[0], &a0));
    OK(MPI_Get_address(&arr[7], &a7));
    CHECK(MPI_Aint_diff(a7, a0) == 7 * (MPI_Aint)sizeof(double), "aint_diff");
    CHECK(MPI_Aint_add(a0, 7 * sizeof(double)) == a7, "aint_add");
}

/* Rebuild a type from its envelope and contents: the same typemap. */
static MPI_Datatype rebuild(MPI_Datatype t, int want_combiner)
{
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(comb == want_combiner, "combiner %d, expected %d", comb, want_combiner);
    int ints[64];
    MPI_Aint addrs[16];
    MPI_Datatype types[16], nt = MPI_DATATYPE_NULL;
    CHECK(ni <= 64 && na <= 16 && nd <= 16, "envelope %d %d %d", ni, na, nd);
    OK(MPI_Type_get_contents(t, 64, 16, 16, ints, addrs, types));
    switch (comb) {
    case MPI_COMBINER_CONTIGUOUS: OK(MPI_Type_contiguous(ints[0], types[0], &nt)); break;
    case MPI_COMBINER_VECTOR: OK(MPI_Type_vector(ints[0], ints[1], ints[2], types[0], &nt)); break;
    case MPI_COMBINER_HVECTOR: OK(MPI_Type_create_hvector(ints[0], ints[1], addrs[0], types[0], &nt)); break;
    case MPI_COMBINER_INDEXED: OK(MPI_Type_indexed(ints[0], ints + 1, ints + 1 + ints[0], types[0], &nt)); break;
    case MPI_COMBINER_HINDEXED: OK(MPI_Type_create_hindexed(ints[0], ints + 1, addrs, types[0], &nt)); break;
    case MPI_COMBINER_INDEXED_BLOCK:
        OK(MPI_Type_create_indexed_block(ints[0], ints[1], ints + 2, types[0], &nt)); break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        OK(MPI_Type_create_hindexed_block(ints[0], ints[1], addrs, types[0], &nt)); break;
    case MPI_COMBINER_STRUCT: OK(MPI_Type_create_struct(ints[0], ints + 1, addrs, types, &nt)); break;
    case MPI_COMBINER_SUBARRAY: {
        int d = ints[0];
        OK(MPI_Type_create_subarray(d, ints + 1, ints + 1 + d, ints + 1 + 2 * d, ints[1 + 3 * d], types[0], &nt));
        break;
    }
    case MPI_COMBINER_RESIZED: OK(MPI_Type_create_resized(types[0], addrs[0], addrs[1], &nt)); break;
    case MPI_COMBINER_DUP: OK(MPI_Type_dup(types[0], &nt)); break;
    default: CHECK(0, "combiner %d", comb);
    }
    /* derived types handed out by MPI_Type_get_contents are the caller's to free */
    for (int i = 0; i < nd; i++) {
        int ci, ca, cd, cc;
        OK(MPI_Type_get_envelope(types[i], &ci, &ca, &cd, &cc));
        if (cc != MPI_COMBINER_NAMED) OK(MPI_Type_free(&types[i]));
    }
    OK(MPI_Type_commit(&nt));
    return nt;
}

/* t and u lay out the same bytes: pack both from one buffer and compare. */
static void same_typemap(MPI_Datatype t, MPI_Datatype u, const char *what)
{
    static unsigned char src[4096], p1[4096], p2[4096];
    for (int i = 0; i < (int)sizeof src; i++) src[i] = (unsigned char)(i * 7 + 3);
    int s1, s2, pos1 = 0, pos2 = 0;
    MPI_Aint lb1, e1, lb2, e2;
    OK(MPI_Type_size(t, &s1));
    OK(MPI_Type_size(u, &s2));
    OK(MPI_Type_get_extent(t, &lb1, &e1));
    OK(MPI_Type_get_extent(u, &lb2, &e2));
    CHECK(s1 == s2 && lb1 == lb2 && e1 == e2, "%s: size %d/%d extent %ld/%ld", what, s1, s2, (long)e1, (long)e2);
    OK(MPI_Pack(src + 256, 2, t, p1, sizeof p1, &pos1, MPI_COMM_WORLD));
    OK(MPI_Pack(src + 256, 2, u, p2, sizeof p2, &pos2, MPI_COMM_WORLD));
    CHECK(pos1 == pos2 && !memcmp(p1, p2, (size_t)pos1), "%s: rebuilt typemap differs", what);
}

static void envelopes(void)
{
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(MPI_DOUBLE, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "named envelope");
    int bl[3] = { 2, 1, 3 }, dis[3] = { 5, 0, 9 }, sizes[2] = { 5, 7 }, subs[2] = { 3, 4 }, starts[2] = { 1, 2 };
    MPI_Aint hd[3] = { 40, 0, 17 }, sd[2] = { 0, 8 };
    MPI_Datatype vec, st[2] = { MPI_CHAR, MPI_DOUBLE }, made[11];
    int combs[11] = { MPI_COMBINER_CONTIGUOUS, MPI_COMBINER_VECTOR, MPI_COMBINER_HVECTOR, MPI_COMBINER_INDEXED,
                      MPI_COMBINER_HINDEXED, MPI_COMBINER_INDEXED_BLOCK, MPI_COMBINER_HINDEXED_BLOCK,
                      MPI_COMBINER_STRUCT, MPI_COMBINER_SUBARRAY, MPI_COMBINER_RESIZED, MPI_COMBINER_DUP };
    OK(MPI_Type_vector(3, 2, 4, MPI_SHORT, &vec));
    OK(MPI_Type_contiguous(3, vec, &made[0]));           /* contents hand back a derived type */
    OK(MPI_Type_vector(4, 2, 3, MPI_INT, &made[1]));
    OK(MPI_Type_create_hvector(3, 2, 24, MPI_FLOAT, &made[2]));
    OK(MPI_Type_indexed(3, bl, dis, MPI_INT, &made[3]));
    OK(MPI_Type_create_hindexed(3, bl, hd, MPI_CHAR, &made[4]));
    OK(MPI_Type_create_indexed_block(3, 2, dis, MPI_SHORT, &made[5]));
    OK(MPI_Type_create_hindexed_block(3, 2, hd, MPI_CHAR, &made[6]));
    OK(MPI_Type_create_struct(2, bl, sd, st, &made[7]));
    OK(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_CHAR, &made[8]));
    OK(MPI_Type_create_resized(vec, -4, 100, &made[9]));
    OK(MPI_Type_dup(vec, &made[10]));
    OK(MPI_Type_free(&vec));              /* the types made from it keep what they need */
    for (int i = 0; i < 11; i++) {
        char what[32];
        snprintf(what, sizeof what, "combiner %d", combs[i]);
        OK(MPI_Type_commit(&made[i]));
        MPI_Datatype again = rebuild(made[i], combs[i]);
        same_typemap(made[i], again, what);
        OK(MPI_Type_free(&again));
        OK(MPI_Type_free(&made[i]));
    }
    /* hindexed_block moves the right bytes: 3 blocks of 2 chars at 40, 0, 17 */
    OK(MPI_Type_create_hindexed_block(3, 2, hd, MPI_CHAR, &vec));
    OK(MPI_Type_commit(&vec));
    char src[64], got[6];
    for (int i = 0; i < 64; i++) src[i] = (char)i;
    OK(MPI_Sendrecv(src, 1, vec, me, 3, got, 6, MPI_CHAR, me, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got[0] == 40 && got[1] == 41 && got[2] == 0 && got[3] == 1 && got[4] == 17 && got[5] == 18,
          "hindexed_block bytes %d %d %d %d %d %d", got[0], got[1], got[2], got[3], got[4], got[5]);
    OK(MPI_Type_free(&vec));
}

/* MPI_Group_range_incl: ranges that step down, and ranges that are empty
 * because the stride points away from last. */
static void group_ranges(void)
{
    MPI_Group w, g;
    int s, r;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    int down[2][3] = { { n - 1, 0, -2 }, { n > 1 ? 1 : 0, 0, 5 } };   /* the second: empty when n > 1 */
    OK(MPI_Group_range_incl(w, n > 1 ? 2 : 1, down, &g));
    OK(MPI_Group_size(g, &s));
    CHECK(s == (n + 1) / 2, "range_incl size %d", s);
    OK(MPI_Group_rank(g, &r));
    CHECK(r == ((n - 1 - me) % 2 ? MPI_UNDEFINED : (n - 1 - me) / 2), "range_incl rank %d", r);
    OK(MPI_Group_free(&g));
    int none[1][3] = { { 0, n - 1 > 0 ? n - 1 : 0, -1 } };             /* 0 down to n-1: empty when n > 1 */
    OK(MPI_Group_range_incl(w, 1, none, &g));
    OK(MPI_Group_size(g, &s));
    CHECK(s == (n > 1 ? 0 : 1), "empty range_incl size %d", s);
    OK(MPI_Group_free(&g));
    OK(MPI_Group_free(&w));
}

/* MPI lets a program free a datatype or communicator that pending or
 * persistent requests still use; the operations go on as if it had not. */
static void freed_while_in_use(void)
{
    int to = (me + 1) % n, from = (me + n - 1) % n;
    MPI_Datatype cols;
    OK(MPI_Type_vector(4, 1, 3, MPI_INT, &cols));
    OK(MPI_Type_commit(&cols));
    int sbuf[12], rbuf[12];
    MPI_Request rq[2];
    OK(MPI_Send_init(sbuf, 1, cols, to, 40, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Recv_init(rbuf, 1, cols, from, 40, MPI_COMM_WORLD, &rq[1]));
    OK(MPI_Type_free(&cols));
    /* a new type of another shape, likely in the freed one's memory */
    MPI_Datatype other;
    OK(MPI_Type_vector(2, 2, 5, MPI_INT, &other));
    OK(MPI_Type_commit(&other));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 12; i++) sbuf[i] = me * 100 + round * 20 + i, rbuf[i] = -1;
        OK(MPI_Startall(2, rq));
        OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 12; i++)
            CHECK(rbuf[i] == (i % 3 ? -1 : from * 100 + round * 20 + i), "round %d: rbuf[%d] = %d", round, i, rbuf[i]);
    }
    OK(MPI_Request_free(&rq[0]));
    OK(MPI_Request_free(&rq[1]));
    OK(MPI_Type_free(&other));
    /* a receive pending on a freed communicator completes, and its error
     * goes to that communicator's handler (here: return) */
    MPI_Comm c, fresh;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int small = 0, big[4] = { 1, 2, 3, 4 };
    MPI_Request r;
    OK(MPI_Irecv(&small, 1, MPI_INT, from, 41, c, &r));
    OK(MPI_Send(big, 4, MPI_INT, to, 41, c));
    OK(MPI_Comm_free(&c));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &fresh));   /* MPI_ERRORS_ARE_FATAL, likely in c's memory */
    MPI_Status st;
    int rc = MPI_Wait(&r, &st);
    CHECK(rc == MPI_ERR_TRUNCATE && st.MPI_ERROR == MPI_ERR_TRUNCATE, "receive on a freed communicator: rc %d", rc);
    OK(MPI_Comm_free(&fresh));
}

/* MPI_Get_elements counts basic elements, also in a partly received
 * element of a struct whose members differ in size. */
static void elements(void)
{
    struct cd { char c; double d; int i; } x[2] = { { 'a', 1.5, 7 }, { 'b', 2.5, 8 } };
    int bl[3] = { 1, 1, 1 };
    MPI_Aint disp[3] = { offsetof(struct cd, c), offsetof(struct cd, d), offsetof(struct cd, i) };
    MPI_Datatype types[3] = { MPI_CHAR, MPI_DOUBLE, MPI_INT }, t, r;
    OK(MPI_Type_create_struct(3, bl, disp, types, &t));
    OK(MPI_Type_create_resized(t, 0, sizeof(struct cd), &r));
    OK(MPI_Type_free(&t));
    OK(MPI_Type_commit(&r));
    struct cd y[2];
    MPI_Status st;
    int c;
    MPI_Count cx;
    /* whole elements: 2 of 13 bytes */
    OK(MPI_Sendrecv(x, 2, r, me, 5, y, 2, r, me, 5, MPI_COMM_WORLD, &st));
    OK(MPI_Get_count(&st, r, &c));
    CHECK(c == 2 && y[1].d == 2.5 && y[1].i == 8, "struct count %d", c);
    OK(MPI_Get_elements(&st, r, &c));
    CHECK(c == 6, "struct elements %d", c);
    OK(MPI_Get_elements_x(&st, r, &cx));
    CHECK(cx == 6, "struct elements_x %lld", (long long)cx);
    /* one element and its char and double (1 + 8 bytes) */
    char raw[26];
    int pos = 0;
    OK(MPI_Pack(x, 2, r, raw, sizeof raw, &pos, MPI_COMM_WORLD));
    OK(MPI_Sendrecv(raw, 13 + 9, MPI_BYTE, me, 6, y, 2, r, me, 6, MPI_COMM_WORLD, &st));
    OK(MPI_Get_count(&st, r, &c));
    CHECK(c == MPI_UNDEFINED, "partial struct count %d", c);
    OK(MPI_Get_elements(&st, r, &c));
    CHECK(c == 5 && y[1].c == 'b' && y[1].d == 2.5, "partial struct elements %d", c);
    /* and ending inside the double: no whole number of basic elements */
    OK(MPI_Sendrecv(raw, 13 + 5, MPI_BYTE, me, 7, y, 2, r, me, 7, MPI_COMM_WORLD, &st));
    OK(MPI_Get_elements(&st, r, &c));
    CHECK(c == MPI_UNDEFINED, "elements ending inside a double %d", c);
    MPI_Count sx, lbx, ex;
    OK(MPI_Type_size_x(r, &sx));
    OK(MPI_Type_get_extent_x(r, &lbx, &ex));
    CHECK(sx == 13 && lbx == 0 && ex == (MPI_Count)sizeof(struct cd), "size_x %lld extent_x %lld", (long long)sx,
          (long long)ex);
    OK(MPI_Type_get_true_extent_x(r, &lbx, &ex));
    CHECK(lbx == 0 && ex == (MPI_Count)(offsetof(struct cd, i) + sizeof(int)), "true_extent_x %lld", (long long)ex);
    OK(MPI_Type_free(&r));
}

/* A truncated receive among several: MPI_ERR_IN_STATUS, and each status
 * says which failed (the others MPI_SUCCESS). */
static void in_status(void)
{
    int to = (me + 1) % n, from = (me + n - 1) % n;
    MPI_Comm c;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int a = 0, b = 0, two[2] = { 1, 2 };
    for (int call = 0; call < 3; call++) {
        MPI_Request r[2];
        MPI_Status st[2];
        st[0].MPI_ERROR = st[1].MPI_ERROR = -1;
        OK(MPI_Irecv(&a, 1, MPI_INT, from, 1, c, &r[0]));
        OK(MPI_Irecv(&b, 1, MPI_INT, from, 2, c, &r[1]));
        OK(MPI_Send(two, 1, MPI_INT, to, 1, c));
        OK(MPI_Send(two, 2, MPI_INT, to, 2, c));          /* one int too many */
        int rc = -1, flag = 0, outc = 0, idx[2];
        if (call == 0) rc = MPI_Waitall(2, r, st);
        else if (call == 1) while (!flag) rc = MPI_Testall(2, r, &flag, st);
        else {
            OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));      /* only the truncated one is left */
            st[0].MPI_ERROR = MPI_SUCCESS;
            while (!outc) rc = MPI_Waitsome(2, r, &outc, idx, st + 1);
            CHECK(outc == 1 && idx[0] == 1, "waitsome %d %d", outc, idx[0]);
        }
        CHECK(rc == MPI_ERR_IN_STATUS, "call %d returned %d", call, rc);
        CHECK(st[0].MPI_ERROR == MPI_SUCCESS && st[1].MPI_ERROR == MPI_ERR_TRUNCATE, "call %d: statuses %d %d", call,
              st[0].MPI_ERROR, st[1].MPI_ERROR);
        CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, "call %d: requests not freed", call);
    }
    OK(MPI_Comm_free(&c));
}

/* MPI_Reduce_scatter with unequal blocks: rank i gets i + 1 sums. */
static void reduce_scatter(void)
{
    int *counts = malloc(sizeof(int) * (size_t)n), total = 0;
    for (int i = 0; i < n; i++) counts[i] = i + 1, total += i + 1;
    int *in = malloc(sizeof(int) * (size_t)total), *out = malloc(sizeof(int) * (size_t)total);
    for (int k = 0; k < total; k++) in[k] = me + k;
    for (int k = 0; k < total; k++) out[k] = -1;
    OK(MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int first = me * (me + 1) / 2;                        /* where my block starts */
    for (int k = 0; k <= me; k++)
        CHECK(out[k] == n * (n - 1) / 2 + n * (first + k), "reduce_scatter [%d] = %d", k, out[k]);
    CHECK(me + 1 == total || out[me + 1] == -1, "reduce_scatter wrote past its block");
    memcpy(out, in, sizeof(int) * (size_t)total);
    OK(MPI_Reduce_scatter(MPI_IN_PLACE, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k <= me; k++)
        CHECK(out[k] == n * (n - 1) / 2 + n * (first + k), "reduce_scatter in place [%d] = %d", k, out[k]);
    /* the block form in place: 2 sums each */
    int *whole = malloc(sizeof(int) * 2 * (size_t)n);
    for (int k = 0; k < 2 * n; k++) whole[k] = me + k;
    OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, whole, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k < 2; k++)
        CHECK(whole[k] == n * (n - 1) / 2 + n * (2 * me + k), "reduce_scatter_block in place [%d] = %d", k, whole[k]);
    free(whole);
    free(counts), free(in), free(out);
}

/* The MPI-1 attribute names old programs use. */
static int deletes;
static int count_delete(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)val, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}
static void old_attributes(void)
{
    int *ub, flag, key;
    OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    CHECK(flag && *ub >= 32767, "MPI_Attr_get(MPI_TAG_UB)");
    static int val = 42;
    OK(MPI_Keyval_create(MPI_DUP_FN, count_delete, &key, NULL));
    MPI_Comm c, d;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Attr_put(c, key, &val));
    OK(MPI_Comm_dup(c, &d));
    int *got;
    OK(MPI_Attr_get(d, key, &got, &flag));
    CHECK(flag && got == &val, "MPI_DUP_FN copied %d", flag);
    OK(MPI_Attr_delete(d, key));
    OK(MPI_Attr_get(d, key, &got, &flag));
    CHECK(!flag && deletes == 1, "MPI_Attr_delete: flag %d, %d deletes", flag, deletes);
    OK(MPI_Comm_free(&d));
    OK(MPI_Comm_free(&c));
    CHECK(deletes == 2, "free deletes: %d", deletes);
    OK(MPI_Keyval_free(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "keyval_free");
}

/* The point-to-point calls the other tests leave out: MPI_Improbe/Imrecv
 * (also on MPI_PROC_NULL), MPI_Sendrecv_replace on a derived type, MPI_Start
 * and MPI_Test on Ssend_init/Rsend_init/Bsend_init requests, MPI_Pack_size. */
static void more_p2p(void)
{
    int to = (me + 1) % n, from = (me + n - 1) % n, flag = 0, v = -1, inter = -1;
    OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &inter));
    CHECK(inter == 0, "test_inter %d", inter);
    MPI_Message m;
    MPI_Status st;
    MPI_Request r;
    OK(MPI_Send(&me, 1, MPI_INT, to, 50, MPI_COMM_WORLD));
    while (!flag) OK(MPI_Improbe(from, 50, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 50 && m != MPI_MESSAGE_NULL, "improbe");
    OK(MPI_Imrecv(&v, 1, MPI_INT, &m, &r));
    CHECK(m == MPI_MESSAGE_NULL, "imrecv leaves the message handle");
    OK(MPI_Wait(&r, &st));
    CHECK(v == from && st.MPI_SOURCE == from, "imrecv got %d from %d", v, st.MPI_SOURCE);
    OK(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(flag && m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "improbe on MPI_PROC_NULL");
    OK(MPI_Imrecv(&v, 1, MPI_INT, &m, &r));
    OK(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "imrecv on MPI_MESSAGE_NO_PROC");
    /* Sendrecv_replace on every other int */
    MPI_Datatype ev;
    OK(MPI_Type_vector(3, 1, 2, MPI_INT, &ev));
    OK(MPI_Type_commit(&ev));
    int buf[5] = { me, -1, me + 1, -1, me + 2 };
    OK(MPI_Sendrecv_replace(buf, 1, ev, to, 51, from, 51, MPI_COMM_WORLD, &st));
    CHECK(buf[0] == from && buf[1] == -1 && buf[2] == from + 1 && buf[4] == from + 2, "sendrecv_replace");
    int ps;
    OK(MPI_Pack_size(4, ev, MPI_COMM_WORLD, &ps));
    CHECK(ps >= 4 * 3 * (int)sizeof(int), "pack_size %d", ps);
    OK(MPI_Type_free(&ev));
    /* persistent synchronous, ready and buffered sends, started one by one */
    int x = -1, s = 0, size = 4 * (int)(sizeof(int) + MPI_BSEND_OVERHEAD);
    void *att = malloc((size_t)size), *back;
    OK(MPI_Buffer_attach(att, size));
    MPI_Request rr, sr[3];
    OK(MPI_Recv_init(&x, 1, MPI_INT, from, 52, MPI_COMM_WORLD, &rr));
    OK(MPI_Ssend_init(&s, 1, MPI_INT, to, 52, MPI_COMM_WORLD, &sr[0]));
    OK(MPI_Rsend_init(&s, 1, MPI_INT, to, 52, MPI_COMM_WORLD, &sr[1]));
    OK(MPI_Bsend_init(&s, 1, MPI_INT, to, 52, MPI_COMM_WORLD, &sr[2]));
    for (int round = 0; round < 6; round++) {
        OK(MPI_Start(&rr));
        OK(MPI_Barrier(MPI_COMM_WORLD));            /* every receive is posted: ready mode is legal */
        s = me * 10 + round;
        OK(MPI_Start(&sr[round % 3]));
        for (flag = 0; !flag;) OK(MPI_Test(&rr, &flag, &st));
        CHECK(x == from * 10 + round && st.MPI_SOURCE == from, "round %d got %d", round, x);
        OK(MPI_Wait(&sr[round % 3], MPI_STATUS_IGNORE));
        CHECK(sr[round % 3] != MPI_REQUEST_NULL, "a persistent request went away");
    }
    for (int i = 0; i < 3; i++) OK(MPI_Request_free(&sr[i]));
    OK(MPI_Request_free(&rr));
    OK(MPI_Buffer_detach(&back, &size));
    free(att);
    /* MPI_Group_range_excl: drop every other rank from the top */
    MPI_Group w, g;
    int range[1][3] = { { n - 1, 0, -2 } }, gs, gr;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    OK(MPI_Group_range_excl(w, 1, range, &g));
    OK(MPI_Group_size(g, &gs));
    OK(MPI_Group_rank(g, &gr));
    CHECK(gs == n / 2 && gr == ((n - 1 - me) % 2 ? me / 2 : MPI_UNDEFINED), "range_excl size %d rank %d", gs, gr);
    OK(MPI_Group_free(&g));
    OK(MPI_Group_free(&w));
}

/* Info objects: set, get (cut to valuelen), order of keys, delete, dup,
 * and passing one to the calls that take hints. */
static void infos(void)
{
    MPI_Info in, d;
    char key[MPI_MAX_INFO_KEY + 1], val[8];
    int flag, len, nk;
    OK(MPI_Info_create(&in));
    OK(MPI_Info_set(in, "zeta", "1"));
    OK(MPI_Info_set(in, "alpha", "a long value"));
    OK(MPI_Info_set(in, "zeta", "22"));                 /* replaced, keeps its place */
    OK(MPI_Info_get_nkeys(in, &nk));
    OK(MPI_Info_get_nthkey(in, 0, key));
    CHECK(nk == 2 && !strcmp(key, "zeta"), "nkeys %d, first key '%s'", nk, key);
    OK(MPI_Info_get(in, "zeta", sizeof val - 1, val, &flag));
    CHECK(flag && !strcmp(val, "22"), "get zeta '%s'", val);
    OK(MPI_Info_get_valuelen(in, "alpha", &len, &flag));
    CHECK(flag && len == 12, "valuelen %d", len);
    OK(MPI_Info_get(in, "alpha", 4, val, &flag));
    CHECK(flag && !strcmp(val, "a lo"), "get cut to valuelen: '%s'", val);
    OK(MPI_Info_get(in, "nope", sizeof val - 1, val, &flag));
    CHECK(!flag, "get of a missing key");
    OK(MPI_Info_dup(in, &d));
    OK(MPI_Info_delete(in, "zeta"));
    OK(MPI_Info_get_nkeys(in, &nk));
    CHECK(nk == 1, "after delete %d keys", nk);
    OK(MPI_Info_get(d, "zeta", sizeof val - 1, val, &flag));
    CHECK(flag && !strcmp(val, "22"), "dup is a copy");
    MPI_Comm c, c2;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, in, &c));
    OK(MPI_Comm_dup_with_info(c, d, &c2));
    int cmp;
    OK(MPI_Comm_compare(c, c2, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "dup_with_info compare %d", cmp);
    OK(MPI_Comm_free(&c2));
    void *mem;
    OK(MPI_Alloc_mem(64, d, &mem));
    OK(MPI_Free_mem(mem));
    OK(MPI_Comm_free(&c));
    OK(MPI_Info_free(&in));
    OK(MPI_Info_free(&d));
    CHECK(in == MPI_INFO_NULL, "info_free");
    OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nk));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    status_fields();
    split_undefined();
    reductions();
    idup_and_memory();
    envelopes();
    group_ranges();
    freed_while_in_use();
    elements();
    in_status();
    reduce_scatter();
    old_attributes();
    more_p2p();
    user_op_with_holes();
    infos();
    OK(MPI_Finalize());
    if (me == 0) printf("test_api: %d ranks ok\n", n);
    return 0;
}
