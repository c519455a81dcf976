/* Neighbourhood collectives, blocking and nonblocking, on a 2-D periodic
 * grid, a non-periodic one (MPI_PROC_NULL at its edges), grids with
 * periodic dimensions of 1 and 2 ranks (both neighbours one rank), a
 * symmetric graph with loops and repeated edges, and an irregular
 * distributed graph made both ways: every result against a reference
 * computed here from the topology's lists, whole receive buffers compared
 * (holes and blocks of MPI_PROC_NULL must stay untouched), with
 * non-contiguous datatypes and per-neighbour counts and types for the v and
 * w forms; nonblocking ones several at a time, completed by Waitall,
 * Testany and Wait in any order mixed with point-to-point on the same
 * communicator. */
#include <stdbool.h>
#include <string.h>

#include "mcheck.h"

#define MAXN 64             /* neighbours */
#define SLOT 32             /* ints per block slot in the buffers */
static int me, n;

/* A topology as the test sees it: its lists, and for each receive block j
 * which of the source's send blocks lands there (pair[j]; -1: none). */
struct topo {
    MPI_Comm c;
    const char *name;
    bool cart;
    int size;
    int nin, nout, in[MAXN], out[MAXN], pair[MAXN];
};

static void lists(struct topo *t)
{
    int kind;
    OK(MPI_Topo_test(t->c, &kind));
    OK(MPI_Comm_size(t->c, &t->size));
    t->cart = kind == MPI_CART;
    if (kind == MPI_CART) {
        int nd;
        OK(MPI_Cartdim_get(t->c, &nd));
        t->nin = t->nout = 2 * nd;
        for (int d = 0; d < nd; d++) OK(MPI_Cart_shift(t->c, d, 1, &t->in[2 * d], &t->in[2 * d + 1]));
        memcpy(t->out, t->in, sizeof t->in);
    } else if (kind == MPI_GRAPH) {
        OK(MPI_Graph_neighbors_count(t->c, me, &t->nin));
        OK(MPI_Graph_neighbors(t->c, me, MAXN, t->in));
        t->nout = t->nin;
        memcpy(t->out, t->in, sizeof t->in);
    } else {
        int w;
        CHECK(kind == MPI_DIST_GRAPH, "kind %d", kind);
        OK(MPI_Dist_graph_neighbors_count(t->c, &t->nin, &t->nout, &w));
        OK(MPI_Dist_graph_neighbors(t->c, MAXN, t->in, MPI_UNWEIGHTED, MAXN, t->out, MPI_UNWEIGHTED));
    }
    CHECK(t->nin <= MAXN && t->nout <= MAXN, "degrees");
    /* every rank's out-list */
    int deg[64], disp[64], all[64 * MAXN];
    OK(MPI_Allgather(&t->nout, 1, MPI_INT, deg, 1, MPI_INT, t->c));
    for (int r = 0; r < t->size; r++) disp[r] = r ? disp[r - 1] + deg[r - 1] : 0;
    OK(MPI_Allgatherv(t->out, t->nout, MPI_INT, all, deg, disp, MPI_INT, t->c));
    for (int j = 0; j < t->nin; j++) {
        int s = t->in[j];
        t->pair[j] = -1;
        if (s == MPI_PROC_NULL) continue;
        if (t->cart) {                       /* the block sent the other way (MPI 4.0 errata) */
            t->pair[j] = j ^ 1;
            CHECK(all[disp[s] + (j ^ 1)] == me, "%s: grid lists disagree", t->name);
            continue;
        }
        int k = 0;                           /* blocks between two ranks pair in list order */
        for (int i = 0; i < j; i++) k += t->in[i] == s;
        for (int i = 0; i < deg[s] && t->pair[j] < 0; i++)
            if (all[disp[s] + i] == me && k-- == 0) t->pair[j] = i;
        CHECK(t->pair[j] >= 0, "%s: rank %d does not send to %d as often as %d receives from it", t->name, s, me, me);
    }
}

/* --- Layouts -----------------------------------------------------------------------
 * Data are ints; a block's element e sits at base + e (MPI_INT) or base + 2e
 * (T_STRIDE: an int with the extent of two; T_VEC: three ints two apart). */
enum { T_INT, T_STRIDE, T_VEC };
static MPI_Datatype types[3];
static int ext_ints[3] = { 1, 2, 5 };

static int val(int r, int block, int e) { return r * 100000 + block * 100 + e + 1; }
static int pos(int type, int base, int e) { return base + (type == T_INT ? e : 2 * e); }
static int cnt(int r, int block) { return 1 + (r * 7 + block * 3) % 5; }   /* v and w forms */

/* One side of a collective: block j's type, count (in ints) and base. */
struct side { int type[MAXN], count[MAXN], base[MAXN]; int buf[MAXN * SLOT + 8]; };

/* Write my send blocks; compute what the receive buffer must hold. */
static void fill(const struct topo *t, struct side *s, int nblocks, bool allgather)
{
    memset(s->buf, 0xff, sizeof s->buf);   /* -1 everywhere else */
    for (int j = 0; j < nblocks; j++)
        for (int e = 0; e < s->count[j]; e++) s->buf[pos(s->type[j], s->base[j], e)] = val(me, allgather ? 0 : j, e);
    (void)t;
}
static void expect(const struct topo *t, const struct side *r, int *exp, bool allgather)
{
    memset(exp, 0xff, sizeof r->buf);
    for (int j = 0; j < t->nin; j++) {
        if (t->pair[j] < 0) continue;
        for (int e = 0; e < r->count[j]; e++)
            exp[pos(r->type[j], r->base[j], e)] = val(t->in[j], allgather ? 0 : t->pair[j], e);
    }
}
static void verify(const struct topo *t, const struct side *r, bool allgather, const char *what)
{
    static int exp[MAXN * SLOT + 8];
    expect(t, r, exp, allgather);
    for (int i = 0; i < MAXN * SLOT + 8; i++)
        CHECK(r->buf[i] == exp[i], "%s on %s: int %d is %d, expected %d", what, t->name, i, r->buf[i], exp[i]);
}

/* --- The collectives, each as a case that starts (blocking: completes)
 * and is verified later. */
enum op { ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, ALLTOALLW, ALLTOALLW_BOTTOM, NOPS };
static const char *op_name[NOPS] = { "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw",
                                     "alltoallw(MPI_BOTTOM)" };
struct run {
    enum op op;
    int variant;                /* which types the sides use */
    int st, rt;                 /* the plain and v forms' types */
    struct side s, r;
    char what[96];
};

/* Lay out both sides: the plain forms' blocks one after the other; the v
 * and w forms' in reverse order with gaps, their counts per neighbour and
 * the w form's types too. */
static void layout(const struct topo *t, struct run *x)
{
    bool ag = x->op == ALLGATHER || x->op == ALLGATHERV, plain = x->op == ALLGATHER || x->op == ALLTOALL;
    bool w = x->op >= ALLTOALLW;
    int ns = ag ? 1 : t->nout;
    x->st = plain ? (x->variant ? T_VEC : T_INT) : (x->variant ? T_STRIDE : T_INT);
    x->rt = x->variant ? T_INT : T_STRIDE;
    for (int j = 0; j < ns; j++) {
        x->s.type[j] = w ? (j + me + x->variant) % 2 : x->st;
        x->s.count[j] = plain ? 3 : cnt(me, j);
        x->s.base[j] = plain ? j * (x->st == T_VEC ? 5 : 3) : (ns - 1 - j) * SLOT + 2;
    }
    for (int j = 0; j < t->nin; j++) {
        int s = t->in[j];
        x->r.type[j] = w ? (j + x->variant + 1) % 2 : x->rt;
        x->r.count[j] = plain ? 3 : s == MPI_PROC_NULL ? 1 : cnt(s, ag ? 0 : t->pair[j]);
        x->r.base[j] = plain ? j * 3 * ext_ints[x->rt] : (t->nin - 1 - j) * SLOT + 2;
    }
}

/* Count and displacement arguments (in extents, or bytes) from a side. */
static void args(const struct side *s, int nb, int *counts, int *displs, MPI_Aint *bdispls, MPI_Datatype *ts,
                 MPI_Aint origin)
{
    for (int j = 0; j < nb; j++) {
        counts[j] = s->type[j] == T_VEC ? 1 : s->count[j];
        displs[j] = s->base[j] / ext_ints[s->type[j]];
        bdispls[j] = origin + (MPI_Aint)sizeof(int) * s->base[j];
        ts[j] = types[s->type[j]];
    }
}

static void start(const struct topo *t, struct run *x, MPI_Request *req)
{
    int sc[MAXN], sd[MAXN], rc[MAXN], rd[MAXN];
    MPI_Aint sb[MAXN], rb[MAXN];
    MPI_Datatype stt[MAXN], rtt[MAXN];
    bool bottom = x->op == ALLTOALLW_BOTTOM, ag = x->op == ALLGATHER || x->op == ALLGATHERV;
    snprintf(x->what, sizeof x->what, "%s%s (variant %d)", req ? "I" : "", op_name[x->op], x->variant);
    layout(t, x);
    fill(t, &x->s, ag ? 1 : t->nout, ag);
    memset(x->r.buf, 0xff, sizeof x->r.buf);
    MPI_Aint so = 0, ro = 0;
    if (bottom) {
        OK(MPI_Get_address(x->s.buf, &so));
        OK(MPI_Get_address(x->r.buf, &ro));
    }
    args(&x->s, ag ? 1 : t->nout, sc, sd, sb, stt, so);
    args(&x->r, t->nin, rc, rd, rb, rtt, ro);
    void *s = bottom ? MPI_BOTTOM : x->s.buf, *r = bottom ? MPI_BOTTOM : x->r.buf;
    MPI_Datatype s0 = types[x->st], r0 = types[x->rt];
    int scount = x->st == T_VEC ? 1 : 3;
    switch (x->op) {
    case ALLGATHER:
        if (req) OK(MPI_Ineighbor_allgather(s, scount, s0, r, 3, r0, t->c, req));
        else OK(MPI_Neighbor_allgather(s, scount, s0, r, 3, r0, t->c));
        break;
    case ALLGATHERV:
        if (req) OK(MPI_Ineighbor_allgatherv((char *)s + 2 * sizeof(int), sc[0], s0, r, rc, rd, r0, t->c, req));
        else OK(MPI_Neighbor_allgatherv((char *)s + 2 * sizeof(int), sc[0], s0, r, rc, rd, r0, t->c));
        break;
    case ALLTOALL:
        if (req) OK(MPI_Ineighbor_alltoall(s, scount, s0, r, 3, r0, t->c, req));
        else OK(MPI_Neighbor_alltoall(s, scount, s0, r, 3, r0, t->c));
        break;
    case ALLTOALLV:
        if (req) OK(MPI_Ineighbor_alltoallv(s, sc, sd, s0, r, rc, rd, r0, t->c, req));
        else OK(MPI_Neighbor_alltoallv(s, sc, sd, s0, r, rc, rd, r0, t->c));
        break;
    default:
        if (req) OK(MPI_Ineighbor_alltoallw(s, sc, sb, stt, r, rc, rb, rtt, t->c, req));
        else OK(MPI_Neighbor_alltoallw(s, sc, sb, stt, r, rc, rb, rtt, t->c));
    }
}

static void check(const struct topo *t, const struct run *x)
{
    verify(t, &x->r, x->op == ALLGATHER || x->op == ALLGATHERV, x->what);
    /* the send buffer is left as it was */
    struct side again = x->s;
    bool ag = x->op == ALLGATHER || x->op == ALLGATHERV;
    fill(t, &again, ag ? 1 : t->nout, ag);
    CHECK(!memcmp(again.buf, x->s.buf, sizeof again.buf), "%s on %s changed the send buffer", x->what, t->name);
}

static struct run runs[2 * NOPS];

static void all_ops(const struct topo *t)
{
    /* each blocking, then each nonblocking alone */
    for (int op = 0; op < NOPS; op++)
        for (int variant = 0; variant < 2; variant++) {
            struct run *x = &runs[0];
            x->op = op, x->variant = variant;
            start(t, x, NULL);
            check(t, x);
            MPI_Request q;
            start(t, x, &q);
            OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
            CHECK(q == MPI_REQUEST_NULL, "Wait frees the request");
            check(t, x);
        }
    /* all at once, with point-to-point on the same communicator (a
     * receive from any source with any tag must get only the user's
     * message), completed by Waitall */
    MPI_Request q[2 * NOPS + 2];
    int ring_in = -1, ring_out = me, nq = 0;
    OK(MPI_Irecv(&ring_in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, t->c, &q[nq++]));
    for (int i = 0; i < 2 * NOPS; i++) {
        runs[i].op = i % NOPS, runs[i].variant = i / NOPS;
        start(t, &runs[i], &q[nq++]);
    }
    OK(MPI_Isend(&ring_out, 1, MPI_INT, (me + 1) % t->size, 5, t->c, &q[nq++]));
    MPI_Status sts[2 * NOPS + 2];
    OK(MPI_Waitall(nq, q, sts));
    CHECK(ring_in == (me + t->size - 1) % t->size && sts[0].MPI_TAG == 5, "%s: the user's message (%d, tag %d)",
          t->name, ring_in, sts[0].MPI_TAG);
    for (int i = 0; i < 2 * NOPS; i++) check(t, &runs[i]);
    /* all at once again, completed one by one by Testany, with a blocking
     * one done in between */
    for (int i = 0; i < 2 * NOPS; i++) start(t, &runs[i], &q[i]);
    struct run blocking = { .op = ALLTOALLW, .variant = 1 };
    start(t, &blocking, NULL);
    check(t, &blocking);
    for (int left = 2 * NOPS; left;) {
        int idx, flag;
        OK(MPI_Testany(2 * NOPS, q, &idx, &flag, MPI_STATUS_IGNORE));
        if (!flag) continue;
        CHECK(idx != MPI_UNDEFINED, "Testany");
        check(t, &runs[idx]);
        left--;
    }
    /* and in reverse order by Wait, with Test and Request_get_status before */
    for (int i = 0; i < 2 * NOPS; i++) start(t, &runs[i], &q[i]);
    int flag;
    OK(MPI_Request_get_status(q[0], &flag, MPI_STATUS_IGNORE));
    OK(MPI_Test(&q[1], &flag, MPI_STATUS_IGNORE));
    if (flag) check(t, &runs[1]);
    for (int i = 2 * NOPS - 1; i >= 0; i--) {
        OK(MPI_Wait(&q[i], MPI_STATUS_IGNORE));
        check(t, &runs[i]);
    }
}

/* --- The topologies ------------------------------------------------------------------- */

static void on(MPI_Comm c, const char *name)
{
    if (c == MPI_COMM_NULL) return;
    static struct topo t;
    t.c = c, t.name = name;
    lists(&t);
    all_ops(&t);
    MPI_Comm d;                          /* a duplicate does the same */
    OK(MPI_Comm_dup(c, &d));
    t.c = d;
    all_ops(&t);
    OK(MPI_Comm_free(&d));
}

static void grids(void)
{
    int dims[3] = { 0, 0, 0 }, per[3] = { 1, 1, 1 };
    MPI_Comm c;
    OK(MPI_Dims_create(n, 2, dims));
    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &c));
    on(c, "a 2-D periodic grid");
    OK(MPI_Comm_free(&c));
    per[0] = per[1] = 0;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &c));
    on(c, "a 2-D grid");
    OK(MPI_Comm_free(&c));
    int ring = n;                        /* 1 or 2 ranks: both neighbours are one */
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &ring, per + 2, 0, &c));
    on(c, "a ring");
    OK(MPI_Comm_free(&c));
    int d3[3] = { n % 2 ? n : n / 2, n % 2 ? 1 : 2, 1 }, p3[3] = { 0, 1, 1 };
    OK(MPI_Cart_create(MPI_COMM_WORLD, 3, d3, p3, 0, &c));
    on(c, "a 3-D grid with periodic dimensions of 1 and 2");
    OK(MPI_Comm_free(&c));
    if (n > 2) {                         /* a grid smaller than the job */
        int part = n - 1;
        OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &part, per + 2, 0, &c));
        if (c != MPI_COMM_NULL) {
            on(c, "a ring of all but one");
            OK(MPI_Comm_free(&c));
        }
    }
}

static void graphs(void)
{
    /* symmetric (MPI_Graph_create's neighbour collectives need it): edges
     * i - i+1, i - i*i, a loop at odd i and i - i+1 again at i % 3 == 0 */
    int adj[64][MAXN], deg[64] = { 0 };
    for (int i = 0; i < n; i++) {
        int pairs[3][2] = { { i, (i + 1) % n }, { i, i * i % n }, { i, (i + 1) % n } };
        for (int k = 0; k < 3; k++) {
            if (k == 2 && i % 3) continue;
            int a = pairs[k][0], b = pairs[k][1];
            adj[a][deg[a]++] = b;
            if (a != b) adj[b][deg[b]++] = a;
        }
        if (i % 2) adj[i][deg[i]++] = i;
    }
    int index[64], edges[64 * MAXN], e = 0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < deg[i]; k++) edges[e++] = adj[i][k];
        index[i] = e;
    }
    MPI_Comm c;
    OK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &c));
    on(c, "a graph");
    OK(MPI_Comm_free(&c));
    /* a directed multigraph: rank r sends to r+1, r+3, 2r (twice when r is
     * even) and itself when r % 3 == 1 */
    int src[64 * 6], dst[64 * 6], ne = 0;
    for (int r = 0; r < n; r++) {
        int to[5] = { (r + 1) % n, (r + 3) % n, 2 * r % n, 2 * r % n, r }, k = 0;
        for (int i = 0; i < 5; i++) {
            if ((i == 3 && r % 2) || (i == 4 && r % 3 != 1)) continue;
            src[ne] = r, dst[ne++] = to[i], k++;
        }
    }
    int in[MAXN], out[MAXN], w_in[MAXN], w_out[MAXN], nin = 0, nout = 0;
    for (int i = 0; i < ne; i++) {
        if (dst[i] == me) w_in[nin] = i, in[nin++] = src[i];
        if (src[i] == me) w_out[nout] = i, out[nout++] = dst[i];
    }
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, w_in, nout, out, w_out, MPI_INFO_NULL, 0, &c));
    on(c, "a distributed graph (adjacent)");
    OK(MPI_Comm_free(&c));
    int srcs[1] = { me }, degs[1] = { nout };   /* each rank gives its out-edges, the reverse of its in-edges */
    int rev[MAXN];
    for (int i = 0; i < nout; i++) rev[i] = out[nout - 1 - i];
    OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, srcs, degs, rev, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    on(c, "a distributed graph");
    OK(MPI_Comm_free(&c));
    /* nobody talks to anybody */
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                      0, &c));
    on(c, "an empty graph");
    OK(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    CHECK(n <= 64, "at most 64 ranks");
    types[T_INT] = MPI_INT;
    OK(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &types[T_STRIDE]));
    OK(MPI_Type_commit(&types[T_STRIDE]));
    OK(MPI_Type_vector(3, 1, 2, MPI_INT, &types[T_VEC]));
    OK(MPI_Type_commit(&types[T_VEC]));
    grids();
    graphs();
    OK(MPI_Type_free(&types[T_STRIDE]));
    OK(MPI_Type_free(&types[T_VEC]));
    OK(MPI_Finalize());
    if (me == 0) printf("test_neighbor: ok\n");
    return 0;
}
