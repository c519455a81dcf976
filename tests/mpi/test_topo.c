/* Process topologies: every constructor and query against a reference
 * computed here (MPI_Dims_create against an exhaustive search; grids from
 * row-major coordinates; graphs from the lists given), the ranks a
 * topology leaves out, MPI_Comm_dup keeping a topology and split/create
 * not, and the maps. Bad input is test_topo_errors.c's. */
#include <stdbool.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* --- MPI_Dims_create --------------------------------------------------------------- */

/* The reference: among all non-increasing k-tuples of divisors with
 * product m, the lexicographically smallest (the largest entry as small as
 * possible, then the next...), by enumerating them all. */
static int ndiv, divs[1600];
static void best_rec(long long m, int k, int cap, int *cur, int depth, int *best, int *found)
{
    if (depth == k) {
        if (m != 1) return;
        int better = !*found;
        for (int i = 0; i < k && !better; i++)
            if (cur[i] != best[i]) {
                better = cur[i] < best[i];
                break;
            }
        if (better) memcpy(best, cur, sizeof(int) * (size_t)k), *found = 1;
        return;
    }
    for (int i = 0; i < ndiv && divs[i] <= cap; i++) {
        if (m % divs[i]) continue;
        cur[depth] = divs[i];
        best_rec(m / divs[i], k, divs[i], cur, depth + 1, best, found);
    }
}

static void check_dims(int nnodes, int ndims, const int *preset)
{
    int dims[8], ref[8], cur[8], best[8], found = 0, k = 0;
    long long fixed = 1;
    for (int i = 0; i < ndims; i++) {
        dims[i] = ref[i] = preset[i];
        if (preset[i]) fixed *= preset[i];
        else k++;
    }
    int rc = MPI_Dims_create(nnodes, ndims, dims);
    if (nnodes % fixed || (!k && fixed != nnodes)) {
        CHECK(rc == MPI_ERR_DIMS, "Dims_create(%d, %d) of impossible presets returned %d", nnodes, ndims, rc);
        return;
    }
    CHECK(rc == MPI_SUCCESS, "Dims_create(%d, %d) returned %d", nnodes, ndims, rc);
    int m = (int)(nnodes / fixed);
    ndiv = 0;
    for (int f = 1; f <= m / f; f++)      /* the divisors of m, ascending */
        if (m % f == 0) divs[ndiv++] = f;
    for (int i = ndiv - 1; i >= 0; i--)
        if (m / divs[i] != divs[i]) divs[ndiv++] = m / divs[i];
    best_rec(m, k, m, cur, 0, best, &found);
    CHECK(found || !k, "reference for %d", nnodes);
    for (int i = 0, j = 0; i < ndims; i++)
        if (!ref[i]) ref[i] = best[j++];
    for (int i = 0; i < ndims; i++)
        CHECK(dims[i] == ref[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", nnodes, ndims, i, dims[i], ref[i]);
}

static void dims_create(void)
{
    /* MPI 3.1's examples (§7.5.2) */
    int d[3] = { 0, 0, 0 };
    OK(MPI_Dims_create(6, 2, d));
    CHECK(d[0] == 3 && d[1] == 2, "(6, 2) -> %d %d", d[0], d[1]);
    d[0] = d[1] = 0;
    OK(MPI_Dims_create(7, 2, d));
    CHECK(d[0] == 7 && d[1] == 1, "(7, 2) -> %d %d", d[0], d[1]);
    d[0] = 0, d[1] = 3, d[2] = 0;
    OK(MPI_Dims_create(6, 3, d));
    CHECK(d[0] == 2 && d[1] == 3 && d[2] == 1, "(6, 3) with 0 3 0 -> %d %d %d", d[0], d[1], d[2]);
    d[0] = 0, d[1] = 3, d[2] = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Dims_create(7, 3, d) == MPI_ERR_DIMS, "(7, 3) with 0 3 0 is erroneous");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    OK(MPI_Dims_create(1, 0, d));       /* no dimensions: a grid of one */
    unsigned long long seed = 7;
    for (int nn = 1; nn <= 130; nn++)
        for (int nd = 1; nd <= 4; nd++) {
            int pre[8] = { 0 };
            check_dims(nn, nd, pre);
            for (int t = 0; t < 3; t++) {   /* some entries preset */
                for (int i = 0; i < nd; i++) pre[i] = rnd(&seed) % 3 ? 0 : 1 + rnd(&seed) % 4;
                MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
                check_dims(nn, nd, pre);
                MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
            }
        }
    int big[] = { 1024, 4096, 65536, 1 << 20, 2147483647, 2147483646, 1000000007, 720720, 2095133040 };
    for (unsigned i = 0; i < sizeof big / sizeof *big; i++)
        for (int nd = 1; nd <= 6; nd++) {
            int pre[8] = { 0 };
            if (big[i] > (1 << 20) && nd > 4) continue;   /* the reference is exhaustive */
            check_dims(big[i], nd, pre);
        }
    int dd[5] = { 0, 0, 0, 0, 0 };
    OK(MPI_Dims_create(2147483647, 5, dd));            /* a large prime: the search must stay quick */
    CHECK(dd[0] == 2147483647 && dd[4] == 1, "prime");
}

/* --- Cartesian grids ------------------------------------------------------------------- */

static int rank_of(int ndims, const int *dims, const int *coords)
{
    int r = 0;
    for (int i = 0; i < ndims; i++) r = r * dims[i] + coords[i];
    return r;
}

static void check_cart(MPI_Comm cart, int ndims, const int *dims, const int *periods)
{
    int size, rank, st, nd, gd[8], gp[8], gc[8], coords[8];
    OK(MPI_Comm_size(cart, &size));
    OK(MPI_Comm_rank(cart, &rank));
    CHECK(rank == me, "a grid keeps ranks: %d, was %d", rank, me);
    OK(MPI_Topo_test(cart, &st));
    CHECK(st == MPI_CART, "Topo_test %d", st);
    OK(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == ndims, "Cartdim_get %d", nd);
    OK(MPI_Cart_get(cart, ndims, gd, gp, gc));
    for (int i = 0; i < ndims; i++)
        CHECK(gd[i] == dims[i] && gp[i] == (periods[i] != 0), "Cart_get dims[%d] %d periods %d", i, gd[i], gp[i]);
    CHECK(rank_of(ndims, dims, gc) == rank, "Cart_get coords make rank %d", rank);
    for (int r = 0; r < size; r++) {        /* coords and rank, both ways */
        OK(MPI_Cart_coords(cart, r, ndims, coords));
        int x = r;
        for (int i = ndims - 1; i >= 0; i--) {
            CHECK(coords[i] == x % dims[i], "Cart_coords(%d)[%d] = %d", r, i, coords[i]);
            x /= dims[i];
        }
        int back;
        OK(MPI_Cart_rank(cart, coords, &back));
        CHECK(back == r, "Cart_rank(Cart_coords(%d)) = %d", r, back);
        for (int i = 0; i < ndims; i++)     /* periodic coordinates wrap */
            if (periods[i]) {
                int c2[8];
                memcpy(c2, coords, sizeof c2);
                c2[i] += 3 * dims[i];
                OK(MPI_Cart_rank(cart, c2, &back));
                CHECK(back == r, "wrapped up");
                c2[i] = coords[i] - 2 * dims[i];
                OK(MPI_Cart_rank(cart, c2, &back));
                CHECK(back == r, "wrapped down");
            }
    }
    for (int d = 0; d < ndims; d++)
        for (int disp = -2 * dims[d] - 1; disp <= 2 * dims[d] + 1; disp++) {
            int src, dst, exp[2];
            OK(MPI_Cart_shift(cart, d, disp, &src, &dst));
            for (int k = 0; k < 2; k++) {
                int c2[8];
                memcpy(c2, gc, sizeof c2);
                c2[d] += k ? disp : -disp;
                if (c2[d] < 0 || c2[d] >= dims[d]) {
                    if (!periods[d]) { exp[k] = MPI_PROC_NULL; continue; }
                    c2[d] = ((c2[d] % dims[d]) + dims[d]) % dims[d];
                }
                exp[k] = rank_of(ndims, dims, c2);
            }
            CHECK(src == exp[0] && dst == exp[1], "Cart_shift(%d, %d) = %d %d, expected %d %d", d, disp, src, dst,
                  exp[0], exp[1]);
        }
    /* the grid communicates: every rank's sum */
    int sum;
    OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, cart));
    CHECK(sum == size * (size - 1) / 2, "allreduce on the grid");
}

/* Each remain_dims mask of a grid: the sub-grids' members, dims and coords. */
static void check_sub(MPI_Comm cart, int ndims, const int *dims, const int *periods)
{
    int gc[8];
    OK(MPI_Cart_coords(cart, me, ndims, gc));
    for (int mask = 0; mask < 1 << ndims; mask++) {
        int remain[8], kept = 0, kdims[8], kcoords[8], kper[8], expsize = 1;
        for (int i = 0; i < ndims; i++) {
            remain[i] = mask >> i & 1;
            if (!remain[i]) continue;
            kdims[kept] = dims[i], kper[kept] = periods[i] != 0, kcoords[kept++] = gc[i], expsize *= dims[i];
        }
        MPI_Comm sub;
        OK(MPI_Cart_sub(cart, remain, &sub));
        int size, rank, nd, st;
        OK(MPI_Comm_size(sub, &size));
        OK(MPI_Comm_rank(sub, &rank));
        OK(MPI_Topo_test(sub, &st));
        OK(MPI_Cartdim_get(sub, &nd));
        CHECK(st == MPI_CART && nd == kept && size == expsize, "Cart_sub mask %x: topo %d ndims %d size %d", mask, st,
              nd, size);
        CHECK(rank == rank_of(kept, kdims, kcoords), "Cart_sub mask %x: rank %d", mask, rank);
        int sd[8], sp[8], sc[8];
        OK(MPI_Cart_get(sub, 8, sd, sp, sc));
        for (int i = 0; i < kept; i++)
            CHECK(sd[i] == kdims[i] && sp[i] == kper[i] && sc[i] == kcoords[i], "Cart_sub dims/periods/coords");
        /* members: the ranks agreeing with me on every dropped coordinate, in order */
        int members[64], k = 0, total = 1;
        for (int i = 0; i < ndims; i++) total *= dims[i];
        for (int r = 0; r < total; r++) {
            int rc[8], x = r, same = 1;
            for (int i = ndims - 1; i >= 0; i--) rc[i] = x % dims[i], x /= dims[i];
            for (int i = 0; i < ndims; i++) if (!remain[i] && rc[i] != gc[i]) same = 0;
            if (same) members[k++] = r;
        }
        int got[64];
        OK(MPI_Allgather(&me, 1, MPI_INT, got, 1, MPI_INT, sub));
        CHECK(k == size, "members %d, size %d", k, size);
        for (int i = 0; i < size; i++) CHECK(got[i] == members[i], "Cart_sub mask %x: member %d is %d, expected %d",
                                             mask, i, got[i], members[i]);
        OK(MPI_Comm_free(&sub));
    }
}

static void carts(void)
{
    /* grids of every shape Dims_create gives, periodic or not, and ones
     * smaller than the job (the others get MPI_COMM_NULL) */
    for (int ndims = 1; ndims <= 4; ndims++)
        for (int part = 0; part < 2; part++) {
            int nodes = part ? (n + 1) / 2 : n, dims[8] = { 0 }, periods[8];
            OK(MPI_Dims_create(nodes, ndims, dims));
            for (int i = 0; i < ndims; i++) periods[i] = (i + part) % 2;
            MPI_Comm cart;
            OK(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, part, &cart));
            if (me >= nodes) {
                CHECK(cart == MPI_COMM_NULL, "rank %d is outside a grid of %d", me, nodes);
                continue;
            }
            check_cart(cart, ndims, dims, periods);
            check_sub(cart, ndims, dims, periods);
            /* MPI_Comm_dup keeps the topology; split and create do not */
            MPI_Comm d, s, c;
            MPI_Group g;
            int st;
            OK(MPI_Comm_dup(cart, &d));
            check_cart(d, ndims, dims, periods);
            OK(MPI_Comm_split(cart, 0, me, &s));
            OK(MPI_Topo_test(s, &st));
            CHECK(st == MPI_UNDEFINED, "split has no topology");
            OK(MPI_Comm_group(cart, &g));
            OK(MPI_Comm_create(cart, g, &c));
            OK(MPI_Topo_test(c, &st));
            CHECK(st == MPI_UNDEFINED, "create has no topology");
            OK(MPI_Group_free(&g));
            OK(MPI_Comm_free(&cart));        /* the dup's topology outlives the original */
            check_cart(d, ndims, dims, periods);
            OK(MPI_Comm_free(&d));
            OK(MPI_Comm_free(&s));
            OK(MPI_Comm_free(&c));
        }
    /* 0 dimensions: rank 0 alone in a 0-dimensional grid */
    MPI_Comm z;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &z));
    if (me) CHECK(z == MPI_COMM_NULL, "0-dimensional grid is rank 0's");
    else {
        int size, nd, r;
        OK(MPI_Comm_size(z, &size));
        OK(MPI_Cartdim_get(z, &nd));
        OK(MPI_Cart_rank(z, NULL, &r));
        CHECK(size == 1 && nd == 0 && r == 0, "0-dimensional: size %d ndims %d rank %d", size, nd, r);
        OK(MPI_Comm_free(&z));
    }
    /* MPI_Cart_map: the identity where it fits */
    int dims[2] = { n, 1 }, per[2] = { 0, 0 }, nr;
    OK(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, per, &nr));
    CHECK(nr == me, "Cart_map %d", nr);
    dims[0] = 1;
    OK(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, per, &nr));
    CHECK(nr == (me ? MPI_UNDEFINED : 0), "Cart_map of a 1x1 grid: %d", nr);
    int st;
    OK(MPI_Topo_test(MPI_COMM_WORLD, &st));
    CHECK(st == MPI_UNDEFINED, "MPI_COMM_WORLD has no topology");
}

/* --- Graphs ------------------------------------------------------------------------------ */

/* An irregular graph of nodes nodes: node i's neighbours are i+1, i*i % nodes
 * (repeated edges and loops on purpose), and i itself when i is odd. */
static int make_graph(int nodes, int *index, int *edges)
{
    int e = 0;
    for (int i = 0; i < nodes; i++) {
        edges[e++] = (i + 1) % nodes;
        edges[e++] = i * i % nodes;
        if (i % 2) edges[e++] = i;
        index[i] = e;
    }
    return e;
}

static void graphs(void)
{
    int index[64], edges[192];
    for (int part = 0; part < 3; part++) {
        int nodes = part == 0 ? n : part == 1 ? (n + 1) / 2 : 0, nedges = nodes ? make_graph(nodes, index, edges) : 0;
        MPI_Comm g;
        OK(MPI_Graph_create(MPI_COMM_WORLD, nodes, index, edges, 1, &g));
        int nr;
        OK(MPI_Graph_map(MPI_COMM_WORLD, nodes, index, edges, &nr));
        CHECK(nr == (me < nodes ? me : MPI_UNDEFINED), "Graph_map %d", nr);
        if (me >= nodes) {
            CHECK(g == MPI_COMM_NULL, "rank %d is outside a graph of %d nodes", me, nodes);
            continue;
        }
        for (int dup = 0; dup < 2; dup++) {
            MPI_Comm h = g;
            if (dup) OK(MPI_Comm_dup(g, &h));
            int st, nn, ne, gi[64], ge[192];
            OK(MPI_Topo_test(h, &st));
            OK(MPI_Graphdims_get(h, &nn, &ne));
            CHECK(st == MPI_GRAPH && nn == nodes && ne == nedges, "graph: topo %d nodes %d edges %d", st, nn, ne);
            OK(MPI_Graph_get(h, 64, 192, gi, ge));
            CHECK(!memcmp(gi, index, sizeof(int) * (size_t)nodes) && !memcmp(ge, edges, sizeof(int) * (size_t)nedges),
                  "Graph_get");
            OK(MPI_Graph_get(h, 1, 2, gi, ge));   /* shorter arrays: their first entries */
            CHECK(gi[0] == index[0] && ge[0] == edges[0] && ge[1] == edges[1], "Graph_get, short");
            for (int r = 0; r < nodes; r++) {
                int cnt, nb[8], first = r ? index[r - 1] : 0;
                OK(MPI_Graph_neighbors_count(h, r, &cnt));
                CHECK(cnt == index[r] - first, "Graph_neighbors_count(%d) = %d", r, cnt);
                OK(MPI_Graph_neighbors(h, r, 8, nb));
                CHECK(!memcmp(nb, edges + first, sizeof(int) * (size_t)cnt), "Graph_neighbors(%d)", r);
            }
            if (dup) OK(MPI_Comm_free(&h));
        }
        int sum;                         /* the graph communicates */
        OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, g));
        CHECK(sum == nodes * (nodes - 1) / 2, "allreduce on the graph");
        OK(MPI_Comm_free(&g));
    }
}

/* --- Distributed graphs --------------------------------------------------------------------- */

/* A multigraph every rank can compute: edge e goes from src[e] to dst[e]. */
#define MAXE 256
static int ne, esrc[MAXE], edst[MAXE], ew[MAXE];
static void make_edges(unsigned long long seed)
{
    ne = 0;
    for (int r = 0; r < n; r++) {
        int k = (int)(rnd(&seed) % 5);      /* 0-4 out-edges, loops and repeats allowed */
        for (int i = 0; i < k && ne < MAXE; i++, ne++) {
            esrc[ne] = r, edst[ne] = (int)(rnd(&seed) % (unsigned)n), ew[ne] = (int)(rnd(&seed) % 100);
            if (i == 1) edst[ne] = edst[ne - 1];
        }
    }
}

static void check_dist(MPI_Comm g, bool weighted, const int *ein, int nin, const int *eout, int nout)
{
    int st, indeg, outdeg, w, s[MAXE], sw[MAXE], d[MAXE], dw[MAXE];
    OK(MPI_Topo_test(g, &st));
    OK(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w));
    CHECK(st == MPI_DIST_GRAPH && indeg == nin && outdeg == nout && w == weighted,
          "dist graph: topo %d in %d (expected %d) out %d (%d) weighted %d", st, indeg, nin, outdeg, nout, w);
    OK(MPI_Dist_graph_neighbors(g, MAXE, s, weighted ? sw : MPI_UNWEIGHTED, MAXE, d, weighted ? dw : MPI_UNWEIGHTED));
    for (int i = 0; i < nin; i++)
        CHECK(s[i] == esrc[ein[i]] && (!weighted || sw[i] == ew[ein[i]]), "source %d: %d weight %d", i, s[i], sw[i]);
    for (int i = 0; i < nout; i++)
        CHECK(d[i] == edst[eout[i]] && (!weighted || dw[i] == ew[eout[i]]), "destination %d: %d", i, d[i]);
}

static void dist_graphs(void)
{
    for (int round = 0; round < 4; round++) {
        bool weighted = round % 2;
        make_edges(100 + (unsigned)round);
        /* adjacent: each rank its own edges, in the edge list's order */
        int ein[MAXE], eout[MAXE], nin = 0, nout = 0, s[MAXE], sw[MAXE], d[MAXE], dw[MAXE];
        for (int e = 0; e < ne; e++) {
            if (edst[e] == me) ein[nin] = e, s[nin] = esrc[e], sw[nin++] = ew[e];
            if (esrc[e] == me) eout[nout] = e, d[nout] = edst[e], dw[nout++] = ew[e];
        }
        MPI_Info info;
        OK(MPI_Info_create(&info));
        OK(MPI_Info_set(info, "some_hint", "ignored"));
        MPI_Comm g;
        const int *inw = weighted ? (nin ? sw : MPI_WEIGHTS_EMPTY) : MPI_UNWEIGHTED;
        const int *outw = weighted ? (nout ? dw : MPI_WEIGHTS_EMPTY) : MPI_UNWEIGHTED;
        OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, s, inw, nout, d, outw, info, round > 1, &g));
        check_dist(g, weighted, ein, nin, eout, nout);
        MPI_Comm h;
        OK(MPI_Comm_dup(g, &h));
        check_dist(h, weighted, ein, nin, eout, nout);
        OK(MPI_Comm_free(&h));
        OK(MPI_Comm_free(&g));
        /* general: rank r gives the edges e with e % n == r; each rank's
         * lists come in the order of the ranks that gave them, each in its
         * own order */
        int srcs[MAXE], degs[MAXE], dsts[MAXE], wts[MAXE], k = 0, m = 0;
        for (int e = me; e < ne; e += n) {
            if (k && srcs[k - 1] == esrc[e] && round % 2) degs[k - 1]++;   /* a source with several edges */
            else srcs[k] = esrc[e], degs[k++] = 1;
            dsts[m] = edst[e], wts[m++] = ew[e];
        }
        const int *ws = weighted ? (m ? wts : MPI_WEIGHTS_EMPTY) : MPI_UNWEIGHTED;
        OK(MPI_Dist_graph_create(MPI_COMM_WORLD, k, srcs, degs, dsts, ws, MPI_INFO_NULL, 0, &g));
        nin = nout = 0;
        for (int giver = 0; giver < n; giver++)
            for (int e = giver; e < ne; e += n) {
                if (edst[e] == me) ein[nin++] = e;
                if (esrc[e] == me) eout[nout++] = e;
            }
        check_dist(g, weighted, ein, nin, eout, nout);
        int sum;
        OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, g));
        CHECK(sum == n * (n - 1) / 2, "allreduce on the distributed graph");
        OK(MPI_Comm_free(&g));
        OK(MPI_Info_free(&info));
    }
    /* nothing at all, weighted (MPI_WEIGHTS_EMPTY) and not */
    MPI_Comm g;
    int in, out, w;
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL, MPI_WEIGHTS_EMPTY,
                                      MPI_INFO_NULL, 0, &g));
    OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
    CHECK(in == 0 && out == 0 && w, "empty weighted: %d %d %d", in, out, w);
    OK(MPI_Comm_free(&g));
    OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
    CHECK(in == 0 && out == 0 && !w, "empty unweighted: %d %d %d", in, out, w);
    OK(MPI_Comm_free(&g));
    /* ends that disagree (as mpi4py's suite gives them): each rank lists
     * its right neighbour as a source and twice itself as a destination,
     * which nobody lists back; the graph is taken as given, as MPICH and
     * Open MPI take it (MPI 3.1 asks the library to check nothing) */
    int src1 = (me + 1) % n, dst2[2] = { me, me }, s1, d2[2];
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src1, MPI_UNWEIGHTED, 2, dst2, MPI_UNWEIGHTED,
                                      MPI_INFO_NULL, 0, &g));
    OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
    CHECK(in == 1 && out == 2 && !w, "disagreeing ends: %d %d %d", in, out, w);
    OK(MPI_Dist_graph_neighbors(g, 1, &s1, MPI_UNWEIGHTED, 2, d2, MPI_UNWEIGHTED));
    CHECK(s1 == src1 && d2[0] == me && d2[1] == me, "disagreeing ends: %d %d %d", s1, d2[0], d2[1]);
    OK(MPI_Comm_free(&g));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    CHECK(n <= 64, "at most 64 ranks");
    if (me == 0) dims_create();          /* local: one rank's CPU will do */
    carts();
    graphs();
    dist_graphs();
    OK(MPI_Finalize());
    if (me == 0) printf("test_topo: ok\n");
    return 0;
}
