/* Process topologies (MPI 3.1 chapter 7): Cartesian grids, graphs and
 * distributed graphs attached to new communicators, their queries,
 * MPI_Dims_create and the map functions. Ranks are never reordered (every
 * rank shares one node's memory, so no placement beats another): a rank of
 * the new communicator is its rank in the old. The neighbour lists made
 * here are the ones the neighbourhood collectives (neighbor.c) use. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sm_core.h"
#include "smpi.h"

static const char *cname(const struct smpi_comm *c) { return c->name[0] ? c->name : "the communicator"; }

static const char *kind_name(int kind)
{
    return kind == MPI_CART ? "Cartesian" : kind == MPI_GRAPH ? "graph" : "distributed graph";
}

/* A topology of kind with room for nints integers after it, which take()
 * hands out in turn from *cur. */
static struct smpi_topo *topo_new(int kind, size_t nints, int **cur)
{
    struct smpi_topo *t = calloc(1, sizeof *t + sizeof(int) * nints);
    if (!t) return NULL;
    t->refs = 1, t->kind = kind;
    *cur = (int *)(t + 1);
    return t;
}
static int *take(int **cur, int n)
{
    int *p = *cur;
    *cur += n;
    return p;
}

/* The topology of comm, which must be of kind want. */
#define GET_TOPO(c, t, comm, want, R) \
    SMPI_CHECK_INIT(R); \
    SMPI_GET_COMM(c, comm, R); \
    const struct smpi_topo *t = c->topo; \
    if (!t || t->kind != (want)) return no_topo(c, want, R)

static __attribute__((noinline, cold)) int no_topo(struct smpi_comm *c, int kind, const char *R)
{
    if (!c->topo) return smpi_error(c, MPI_ERR_TOPOLOGY, R, "%s has no %s topology", cname(c), kind_name(kind));
    return smpi_error(c, MPI_ERR_TOPOLOGY, R, "%s has a %s topology, not a %s one", cname(c),
                      kind_name(c->topo->kind), kind_name(kind));
}

/* --- Making topology communicators ------------------------------------------
 * Every constructor checks its arguments, then agrees on them over the old
 * communicator, so that no rank goes on alone into the creation while
 * another returns an error (MPI_ERRORS_RETURN). */

/* An argument error found on this rank (class 0: none), kept for agree(). */
struct bad { int cls; char what[256]; };
static int bad(struct bad *b, int cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(struct bad *b, int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->what, sizeof b->what, fmt, ap);
    va_end(ap);
    return b->cls = cls;
}

/* Collective over c: MPI_SUCCESS when no rank found an error, else every
 * rank raises the worst one (its own words where it found it). A rank
 * whose error ends the job raises it at once (one clear message). */
static int agree(struct smpi_comm *c, MPI_Comm comm, const struct bad *b, const char *R)
{
    if (c->inter) return smpi_error(c, MPI_ERR_COMM, R, "%s is an intercommunicator", cname(c));
    if (b->cls && c->errh == MPI_ERRORS_ARE_FATAL) return smpi_error(c, b->cls, R, "%s", b->what);
    long long mine = (long long)b->cls << 32 | (unsigned)(INT_MAX - c->pt.rank), worst = mine;
    int rc = PMPI_Allreduce(&mine, &worst, 1, MPI_LONG_LONG, MPI_MAX, comm);
    if (rc) return rc;
    int cls = (int)(worst >> 32), who = INT_MAX - (int)(worst & 0xffffffff);
    if (!cls) return MPI_SUCCESS;
    if (b->cls) return smpi_error(c, b->cls, R, "%s", b->what);
    return smpi_error(c, cls, R, "rank %d of %s gave invalid arguments", who, cname(c));
}

/* A new communicator of the first n ranks of comm (MPI_COMM_NULL for the
 * others) with topology t, or none when t is NULL; t is owned. Attributes
 * are not copied; the error handler is inherited. Collective over comm. */
static int comm_with(MPI_Comm comm, int n, struct smpi_topo *t, MPI_Comm *out)
{
    MPI_Group all, first = MPI_GROUP_EMPTY;
    int rc = PMPI_Comm_group(comm, &all);
    if (!rc && n > 0) rc = PMPI_Group_range_incl(all, 1, (int[][3]){ { 0, n - 1, 1 } }, &first);
    if (!rc) rc = PMPI_Comm_create(comm, first, out);
    if (first != MPI_GROUP_EMPTY) PMPI_Group_free(&first);
    PMPI_Group_free(&all);
    if (!rc && *out != MPI_COMM_NULL) smpi_comm(*out)->topo = t;
    else smpi_topo_unref(t);
    return rc;
}

static __attribute__((noinline, cold)) int no_mem(struct smpi_comm *c, const char *R)
{
    return smpi_error(c, MPI_ERR_NO_MEM, R, "no memory for the topology");
}

/* --- Cartesian grids ------------------------------------------------------------ */

/* "2x3x4" (the first dims, for messages). */
static const char *dims_str(int ndims, const int *dims)
{
    static __thread char b[96];
    int n = 0;
    b[0] = 0;
    for (int i = 0; i < ndims && n < (int)sizeof b - 16; i++)
        n += snprintf(b + n, sizeof b - (size_t)n, "%s%d", i ? "x" : "", dims[i]);
    return b;
}

/* Check a grid's description; *nodes: its size (capped past INT_MAX). */
static int check_grid(struct bad *b, int ndims, const int dims[], const int periods[], int size, long long *nodes)
{
    *nodes = 1;
    if (ndims < 0) return bad(b, MPI_ERR_DIMS, "ndims %d is negative", ndims);
    if (ndims && (!dims || !periods)) return bad(b, MPI_ERR_ARG, "dims or periods is NULL with ndims %d", ndims);
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0) return bad(b, MPI_ERR_DIMS, "dims[%d] = %d is not positive", i, dims[i]);
        if (*nodes <= INT_MAX) *nodes *= dims[i];
    }
    if (*nodes > size)
        return bad(b, MPI_ERR_TOPOLOGY, "the %s grid has %lld processes, more than the %d of the communicator",
                   dims_str(ndims, dims), *nodes, size);
    return MPI_SUCCESS;
}

/* The rank at the caller's coordinates moved by disp in dimension dim:
 * wrapped in a periodic dimension, MPI_PROC_NULL off a non-periodic one. */
static int cart_shifted(const struct smpi_topo *t, int dim, long long disp)
{
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        long long x = t->coords[i] + (i == dim ? disp : 0);
        if (x < 0 || x >= t->dims[i]) {
            if (!t->periods[i]) return MPI_PROC_NULL;
            x %= t->dims[i];
            if (x < 0) x += t->dims[i];
        }
        r = r * t->dims[i] + (int)x;     /* row-major: the last dimension varies fastest */
    }
    return r;
}

static void cart_coords(const struct smpi_topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* The grid as rank sees it; its neighbours, in and out alike, are for each
 * dimension the one below, then the one above (MPI 3.1 §7.6). */
static struct smpi_topo *cart_new(int ndims, const int *dims, const int *periods, int rank)
{
    int *cur;
    struct smpi_topo *t = topo_new(MPI_CART, 5 * (size_t)ndims, &cur);
    if (!t) return NULL;
    t->ndims = ndims;
    t->dims = take(&cur, ndims), t->periods = take(&cur, ndims), t->coords = take(&cur, ndims);
    for (int i = 0; i < ndims; i++) t->dims[i] = dims[i], t->periods[i] = periods[i] != 0;
    cart_coords(t, rank, t->coords);
    t->indeg = t->outdeg = 2 * ndims;
    t->in = t->out = take(&cur, 2 * ndims);
    for (int d = 0; d < ndims; d++) {
        t->in[2 * d] = cart_shifted(t, d, -1);
        t->in[2 * d + 1] = cart_shifted(t, d, 1);
    }
    return t;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                     MPI_Comm *comm_cart)
{
    static const char R[] = "MPI_Cart_create";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm_old, R);
    (void)reorder;                       /* allowed, not required: ranks stay */
    if (!comm_cart) return smpi_error(c, MPI_ERR_ARG, R, "comm_cart is NULL");
    struct bad b = { 0 };
    long long nodes;
    check_grid(&b, ndims, dims, periods, c->pt.size, &nodes);
    int rc = agree(c, comm_old, &b, R);
    if (rc) return rc;
    struct smpi_topo *t = NULL;
    if (c->pt.rank < nodes && !(t = cart_new(ndims, dims, periods, c->pt.rank))) return no_mem(c, R);
    return comm_with(comm_old, (int)nodes, t, comm_cart);
}
#pragma weak MPI_Cart_create = PMPI_Cart_create

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    static const char R[] = "MPI_Cartdim_get";
    GET_TOPO(c, t, comm, MPI_CART, R);
    if (!ndims) return smpi_error(c, MPI_ERR_ARG, R, "ndims is NULL");
    *ndims = t->ndims;
    return MPI_SUCCESS;
}
#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get

static int check_maxdims(struct smpi_comm *c, const struct smpi_topo *t, int maxdims, const char *R)
{
    if (maxdims < t->ndims)
        return smpi_error(c, MPI_ERR_ARG, R, "maxdims %d is less than the %d dimensions of %s", maxdims, t->ndims,
                          cname(c));
    return MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char R[] = "MPI_Cart_get";
    GET_TOPO(c, t, comm, MPI_CART, R);
    int rc = check_maxdims(c, t, maxdims, R);
    if (rc) return rc;
    if (t->ndims && (!dims || !periods || !coords)) return smpi_error(c, MPI_ERR_ARG, R, "NULL argument");
    for (int i = 0; i < t->ndims; i++) dims[i] = t->dims[i], periods[i] = t->periods[i], coords[i] = t->coords[i];
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_get = PMPI_Cart_get

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char R[] = "MPI_Cart_rank";
    GET_TOPO(c, t, comm, MPI_CART, R);
    if (!rank || (t->ndims && !coords)) return smpi_error(c, MPI_ERR_ARG, R, "NULL argument");
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int x = coords[i];
        if (x < 0 || x >= t->dims[i]) {
            if (!t->periods[i])
                return smpi_error(c, MPI_ERR_ARG, R, "coords[%d] = %d is outside [0, %d) of a non-periodic dimension",
                                  i, x, t->dims[i]);
            x %= t->dims[i];
            if (x < 0) x += t->dims[i];
        }
        r = r * t->dims[i] + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_rank = PMPI_Cart_rank

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char R[] = "MPI_Cart_coords";
    GET_TOPO(c, t, comm, MPI_CART, R);
    if (rank < 0 || rank >= c->pt.size)
        return smpi_error(c, MPI_ERR_RANK, R, "rank %d not in [0, %d) of %s", rank, c->pt.size, cname(c));
    int rc = check_maxdims(c, t, maxdims, R);
    if (rc) return rc;
    if (t->ndims && !coords) return smpi_error(c, MPI_ERR_ARG, R, "coords is NULL");
    cart_coords(t, rank, coords);
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_coords = PMPI_Cart_coords

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    static const char R[] = "MPI_Cart_shift";
    GET_TOPO(c, t, comm, MPI_CART, R);
    if (!rank_source || !rank_dest) return smpi_error(c, MPI_ERR_ARG, R, "NULL argument");
    if (direction < 0 || direction >= t->ndims)
        return smpi_error(c, MPI_ERR_DIMS, R, "direction %d is not a dimension of the %d-dimensional grid",
                          direction, t->ndims);
    *rank_source = cart_shifted(t, direction, -(long long)disp);
    *rank_dest = cart_shifted(t, direction, disp);
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_shift = PMPI_Cart_shift

/* The sub-grids that keep the dimensions remain_dims says: the ranks with
 * the same coordinates in the others, in the grid's order (row-major, so
 * their old order). None kept: each rank alone in a 0-dimensional grid. */
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char R[] = "MPI_Cart_sub";
    GET_TOPO(c, t, comm, MPI_CART, R);
    if (!newcomm) return smpi_error(c, MPI_ERR_ARG, R, "newcomm is NULL");
    struct bad b = { 0 };
    if (t->ndims && !remain_dims) bad(&b, MPI_ERR_ARG, "remain_dims is NULL");
    int rc = agree(c, comm, &b, R);
    if (rc) return rc;
    int color = 0, kept = 0, dims[t->ndims + 1], periods[t->ndims + 1], coords[t->ndims + 1];
    for (int i = 0; i < t->ndims; i++) {
        if (!remain_dims[i]) {
            color = color * t->dims[i] + t->coords[i];
            continue;
        }
        dims[kept] = t->dims[i], periods[kept] = t->periods[i], coords[kept++] = t->coords[i];
    }
    int rank = 0;                        /* the caller's rank in its sub-grid */
    for (int i = 0; i < kept; i++) rank = rank * dims[i] + coords[i];
    struct smpi_topo *nt = cart_new(kept, dims, periods, rank);
    if (!nt) return no_mem(c, R);
    if ((rc = PMPI_Comm_split(comm, color, c->pt.rank, newcomm))) {
        smpi_topo_unref(nt);
        return rc;
    }
    smpi_comm(*newcomm)->topo = nt;
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_sub = PMPI_Cart_sub

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    static const char R[] = "MPI_Cart_map";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    if (!newrank) return smpi_error(c, MPI_ERR_ARG, R, "newrank is NULL");
    struct bad b = { 0 };
    long long nodes;
    if (check_grid(&b, ndims, dims, periods, c->pt.size, &nodes)) return smpi_error(c, b.cls, R, "%s", b.what);
    *newrank = c->pt.rank < nodes ? c->pt.rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_map = PMPI_Cart_map

/* MPI_Dims_create fills the zero entries of dims with the most balanced
 * factors of what the others leave: the largest as small as possible, then
 * the next, and so on (so the filled entries never increase). A depth-
 * first search over the divisors, smallest first: the first complete
 * choice found is the best. */
struct factors { int ndiv, *div, k, *out; };

static bool pow_below(long long f, int j, long long n)   /* f^j < n ? */
{
    long long p = 1;
    for (int i = 0; i < j; i++)
        if ((p *= f) >= n) return false;
    return p < n;
}

static bool factor(struct factors *F, int i, long long rest, long long cap)
{
    int left = F->k - i;
    if (left == 0) return rest == 1;
    if (rest == 1) {
        for (int j = i; j < F->k; j++) F->out[j] = 1;
        return true;
    }
    for (int d = 0; d < F->ndiv && F->div[d] <= cap; d++) {
        long long f = F->div[d];
        if (rest % f || pow_below(f, left, rest)) continue;   /* left factors up to f must make rest */
        F->out[i] = (int)f;
        if (factor(F, i + 1, rest / f, f)) return true;
    }
    return false;
}

/* The divisors of m, ascending (an int has at most 1600). */
#define MAX_DIVISORS 1600
static int divisors(int m, int *div)
{
    int n = 0, hi[MAX_DIVISORS], nh = 0;
    for (int f = 1; (long long)f * f <= m; f++)
        if (m % f == 0) {
            div[n++] = f;
            if (f != m / f) hi[nh++] = m / f;
        }
    while (nh) div[n++] = hi[--nh];
    return n;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char R[] = "MPI_Dims_create";
    SMPI_CHECK_INIT(R);
    if (ndims < 0) return smpi_error(NULL, MPI_ERR_DIMS, R, "ndims %d is negative", ndims);
    if (ndims && !dims) return smpi_error(NULL, MPI_ERR_ARG, R, "dims is NULL");
    if (nnodes <= 0) return smpi_error(NULL, MPI_ERR_ARG, R, "nnodes %d is not positive", nnodes);
    long long fixed = 1;
    int free_dims = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0) return smpi_error(NULL, MPI_ERR_DIMS, R, "dims[%d] = %d is negative", i, dims[i]);
        if (!dims[i]) free_dims++;
        else if (fixed <= nnodes) fixed *= dims[i];
    }
    if (!free_dims && fixed != nnodes)
        return smpi_error(NULL, MPI_ERR_DIMS, R, "nnodes %d is not the size of the %s grid dims gives", nnodes,
                          dims_str(ndims, dims));
    if (nnodes % fixed)
        return smpi_error(NULL, MPI_ERR_DIMS, R, "nnodes %d is not a multiple of %lld, the product of the nonzero dims",
                          nnodes, fixed);
    if (!free_dims) return MPI_SUCCESS;
    int m = (int)(nnodes / fixed), out[free_dims], div[MAX_DIVISORS];
    struct factors F = { divisors(m, div), div, free_dims, out };
    if (!factor(&F, 0, m, m))            /* never: m, 1, 1... will do */
        return smpi_error(NULL, MPI_ERR_INTERN, R, "no factors of %d found", m);
    for (int i = 0, j = 0; i < ndims; i++)
        if (!dims[i]) dims[i] = out[j++];
    return MPI_SUCCESS;
}
#pragma weak MPI_Dims_create = PMPI_Dims_create

/* --- Graphs ------------------------------------------------------------------------ */

static int check_graph(struct bad *b, int nnodes, const int index[], const int edges[], int size)
{
    if (nnodes < 0) return bad(b, MPI_ERR_ARG, "nnodes %d is negative", nnodes);
    if (nnodes > size)
        return bad(b, MPI_ERR_TOPOLOGY, "the graph has %d nodes, more than the %d processes of the communicator",
                   nnodes, size);
    if (nnodes && !index) return bad(b, MPI_ERR_ARG, "index is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return bad(b, MPI_ERR_ARG, "index[%d] = %d is less than %s (%d)", i, index[i],
                       i ? "the entry before" : "zero", i ? index[i - 1] : 0);
    int nedges = nnodes ? index[nnodes - 1] : 0;
    if (nedges && !edges) return bad(b, MPI_ERR_ARG, "edges is NULL");
    for (int j = 0; j < nedges; j++)
        if (edges[j] < 0 || edges[j] >= nnodes)
            return bad(b, MPI_ERR_TOPOLOGY, "edges[%d] = %d is not a node of the graph [0, %d)", j, edges[j], nnodes);
    return MPI_SUCCESS;
}

/* The graph as node rank sees it: its neighbours, in and out alike, are
 * its adjacency list in order (loops and repeated edges included). */
static struct smpi_topo *graph_new(int nnodes, const int *index, const int *edges, int rank)
{
    int nedges = index[nnodes - 1], *cur;
    struct smpi_topo *t = topo_new(MPI_GRAPH, (size_t)nnodes + (size_t)nedges, &cur);
    if (!t) return NULL;
    t->nnodes = nnodes, t->nedges = nedges;
    t->index = take(&cur, nnodes), t->edges = take(&cur, nedges);
    memcpy(t->index, index, sizeof(int) * (size_t)nnodes);
    memcpy(t->edges, edges, sizeof(int) * (size_t)nedges);
    int first = rank ? index[rank - 1] : 0;
    t->indeg = t->outdeg = index[rank] - first;
    t->in = t->out = t->edges + first;
    return t;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                      MPI_Comm *comm_graph)
{
    static const char R[] = "MPI_Graph_create";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm_old, R);
    (void)reorder;
    if (!comm_graph) return smpi_error(c, MPI_ERR_ARG, R, "comm_graph is NULL");
    struct bad b = { 0 };
    check_graph(&b, nnodes, index, edges, c->pt.size);
    int rc = agree(c, comm_old, &b, R);
    if (rc) return rc;
    struct smpi_topo *t = NULL;
    if (c->pt.rank < nnodes && !(t = graph_new(nnodes, index, edges, c->pt.rank))) return no_mem(c, R);
    return comm_with(comm_old, nnodes, t, comm_graph);  /* no nodes: MPI_COMM_NULL everywhere */
}
#pragma weak MPI_Graph_create = PMPI_Graph_create

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    static const char R[] = "MPI_Graphdims_get";
    GET_TOPO(c, t, comm, MPI_GRAPH, R);
    if (!nnodes || !nedges) return smpi_error(c, MPI_ERR_ARG, R, "NULL argument");
    *nnodes = t->nnodes, *nedges = t->nedges;
    return MPI_SUCCESS;
}
#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get

/* Copy up to max of the n entries of from (the arrays' lengths, MPI says). */
static int copy_out(struct smpi_comm *c, int *to, const int *from, int n, int max, const char *maxname,
                    const char *what, const char *R)
{
    if (max < 0) return smpi_error(c, MPI_ERR_ARG, R, "%s %d is negative", maxname, max);
    if (n > max) n = max;
    if (n && !to) return smpi_error(c, MPI_ERR_ARG, R, "%s is NULL", what);
    if (n) memcpy(to, from, sizeof(int) * (size_t)n);
    return MPI_SUCCESS;
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    static const char R[] = "MPI_Graph_get";
    GET_TOPO(c, t, comm, MPI_GRAPH, R);
    int rc = copy_out(c, index, t->index, t->nnodes, maxindex, "maxindex", "index", R);
    return rc ? rc : copy_out(c, edges, t->edges, t->nedges, maxedges, "maxedges", "edges", R);
}
#pragma weak MPI_Graph_get = PMPI_Graph_get

static int check_node(struct smpi_comm *c, const struct smpi_topo *t, int rank, const char *R)
{
    if (rank < 0 || rank >= t->nnodes)
        return smpi_error(c, MPI_ERR_RANK, R, "rank %d is not a node of the graph [0, %d)", rank, t->nnodes);
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char R[] = "MPI_Graph_neighbors_count";
    GET_TOPO(c, t, comm, MPI_GRAPH, R);
    int rc = check_node(c, t, rank, R);
    if (rc) return rc;
    if (!nneighbors) return smpi_error(c, MPI_ERR_ARG, R, "nneighbors is NULL");
    *nneighbors = t->index[rank] - (rank ? t->index[rank - 1] : 0);
    return MPI_SUCCESS;
}
#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    static const char R[] = "MPI_Graph_neighbors";
    GET_TOPO(c, t, comm, MPI_GRAPH, R);
    int rc = check_node(c, t, rank, R);
    if (rc) return rc;
    int first = rank ? t->index[rank - 1] : 0;
    return copy_out(c, neighbors, t->edges + first, t->index[rank] - first, maxneighbors, "maxneighbors",
                    "neighbors", R);
}
#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    static const char R[] = "MPI_Graph_map";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    if (!newrank) return smpi_error(c, MPI_ERR_ARG, R, "newrank is NULL");
    struct bad b = { 0 };
    if (check_graph(&b, nnodes, index, edges, c->pt.size)) return smpi_error(c, b.cls, R, "%s", b.what);
    *newrank = c->pt.rank < nnodes ? c->pt.rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Graph_map = PMPI_Graph_map

/* --- Distributed graphs ---------------------------------------------------------
 * A rank's weights say: 0 nothing (NULL with no edges), 1 unweighted, 2
 * weighted; every rank that says something must say the same. */
enum { W_ANY, W_NO, W_YES };

static int check_ranks(struct bad *b, const int *r, int n, int size, const char *what)
{
    if (n < 0) return bad(b, MPI_ERR_ARG, "the number of %s, %d, is negative", what, n);
    if (n && !r) return bad(b, MPI_ERR_ARG, "%s is NULL", what);
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= size) return bad(b, MPI_ERR_RANK, "%s[%d] = %d not in [0, %d)", what, i, r[i], size);
    return MPI_SUCCESS;
}

static int check_weights(struct bad *b, const int *w, int n, const char *what, int *kind)
{
    *kind = W_YES;
    if (w == MPI_UNWEIGHTED) *kind = W_NO;
    else if (w == MPI_WEIGHTS_EMPTY) {
        if (n) return bad(b, MPI_ERR_ARG, "%s is MPI_WEIGHTS_EMPTY for %d edges", what, n);
    } else if (!w) {
        if (n) return bad(b, MPI_ERR_ARG, "%s is NULL", what);
        *kind = W_ANY;
    } else
        for (int i = 0; i < n; i++)
            if (w[i] < 0) return bad(b, MPI_ERR_ARG, "%s[%d] = %d is negative", what, i, w[i]);
    return MPI_SUCCESS;
}

/* The distributed graph as one rank sees it. */
static struct smpi_topo *dist_new(int indeg, const int *in, const int *inw, int outdeg, const int *out,
                                  const int *outw, bool weighted)
{
    int *cur;
    size_t n = (size_t)indeg + (size_t)outdeg;
    struct smpi_topo *t = topo_new(MPI_DIST_GRAPH, weighted ? 2 * n : n, &cur);
    if (!t) return NULL;
    t->weighted = weighted;
    t->indeg = indeg, t->outdeg = outdeg;
    t->in = take(&cur, indeg), t->out = take(&cur, outdeg);
    if (indeg) memcpy(t->in, in, sizeof(int) * (size_t)indeg);
    if (outdeg) memcpy(t->out, out, sizeof(int) * (size_t)outdeg);
    if (weighted) {
        t->inw = take(&cur, indeg), t->outw = take(&cur, outdeg);
        if (indeg) memcpy(t->inw, inw, sizeof(int) * (size_t)indeg);
        if (outdeg) memcpy(t->outw, outw, sizeof(int) * (size_t)outdeg);
    }
    return t;
}

/* What each rank tells every other before a distributed graph is made. */
struct hello { int n, weights; };

/* Every rank's weights kind must agree (*weighted: the graph's); else an
 * error in *b. */
static void weights_agree(struct bad *b, const struct hello *from, int size, bool *weighted)
{
    int first = -1;                      /* the first rank that said something */
    for (int p = 0; p < size && !b->cls; p++) {
        if (from[p].weights == W_ANY) continue;
        if (first < 0) first = p;
        else if (from[p].weights != from[first].weights)
            bad(b, MPI_ERR_ARG,
                "rank %d gave %s edges and rank %d %s ones: MPI_UNWEIGHTED must be given by all or none", first, from[first].weights == W_NO ? "unweighted" : "weighted", p,
                from[p].weights == W_NO ? "unweighted" : "weighted");
    }
    *weighted = first >= 0 && from[first].weights == W_YES;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int *sourceweights,
                                    int outdegree, const int destinations[], const int *destweights, MPI_Info info,
                                    int reorder, MPI_Comm *comm_dist_graph)
{
    static const char R[] = "MPI_Dist_graph_create_adjacent";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm_old, R);
    SMPI_CHECK_INFO(c, info, R);         /* no hints are read */
    (void)reorder;
    if (!comm_dist_graph) return smpi_error(c, MPI_ERR_ARG, R, "comm_dist_graph is NULL");
    int n = c->pt.size, inw, outw;
    struct bad b = { 0 };
    if (!check_ranks(&b, sources, indegree, n, "sources") &&
        !check_ranks(&b, destinations, outdegree, n, "destinations") &&
        !check_weights(&b, sourceweights, indegree, "sourceweights", &inw) &&
        !check_weights(&b, destweights, outdegree, "destweights", &outw) && inw != W_ANY && outw != W_ANY &&
        inw != outw)
        bad(&b, MPI_ERR_ARG, "sourceweights and destweights must both be MPI_UNWEIGHTED, or neither");
    int rc = agree(c, comm_old, &b, R);
    if (rc) return rc;
    /* The graph is taken as each rank gives it: MPI 3.1 §7.5.4 asks the
     * program for ends that agree and the library to check nothing (nor do
     * MPICH and Open MPI). Only whether it is weighted must be agreed on,
     * for the ranks without edges, which may give either. */
    struct hello *from = calloc((size_t)n, sizeof *from);
    if (!from) return no_mem(c, R);
    struct hello mine = { 0, inw != W_ANY ? inw : outw };
    rc = PMPI_Allgather(&mine, 2, MPI_INT, from, 2, MPI_INT, comm_old);
    bool weighted = false;
    if (!rc) {
        weights_agree(&b, from, n, &weighted);
        rc = agree(c, comm_old, &b, R);
    }
    free(from);
    if (rc) return rc;
    struct smpi_topo *t = dist_new(indegree, sources, sourceweights, outdegree, destinations, destweights, weighted);
    if (!t) return no_mem(c, R);
    return comm_with(comm_old, n, t, comm_dist_graph);
}
#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent

/* An edge as the ranks at its ends learn it: the other end and the weight. */
struct edge_msg { int out, peer, weight; };

/* The edges that n ranks gave (sources, degrees, destinations, weights)
 * travel to both their ends; each rank's in- and out-lists are in the
 * order of the ranks that gave them, each in its own order. */
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int *weights, MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph)
{
    static const char R[] = "MPI_Dist_graph_create";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm_old, R);
    SMPI_CHECK_INFO(c, info, R);
    (void)reorder;
    if (!comm_dist_graph) return smpi_error(c, MPI_ERR_ARG, R, "comm_dist_graph is NULL");
    int size = c->pt.size, wk = W_ANY;
    long long nedges = 0;
    struct bad b = { 0 };
    if (!check_ranks(&b, sources, n, size, "sources")) {
        if (n && !degrees) bad(&b, MPI_ERR_ARG, "degrees is NULL");
        for (int i = 0; i < n && !b.cls; i++) {
            if (degrees[i] < 0) bad(&b, MPI_ERR_ARG, "degrees[%d] = %d is negative", i, degrees[i]);
            nedges += degrees[i];
        }
        if (!b.cls && nedges > INT_MAX / 3) bad(&b, MPI_ERR_ARG, "%lld edges are too many", nedges);
        if (!b.cls && !check_ranks(&b, destinations, (int)nedges, size, "destinations"))
            check_weights(&b, weights, (int)nedges, "weights", &wk);
    }
    int rc = agree(c, comm_old, &b, R);
    if (rc) return rc;
    bool use_w = wk == W_YES;
    struct hello *to = calloc((size_t)size, sizeof *to), *from = calloc((size_t)size, sizeof *from);
    int *scount = malloc(sizeof(int) * 4 * (size_t)size), *sdispl = scount + size, *rcount = sdispl + size,
        *rdispl = rcount + size;
    struct edge_msg *sm = malloc(sizeof *sm * (size_t)(2 * nedges + 1)), *rm = NULL;
    int *lists = NULL;
    if (!to || !from || !scount || !sm) goto nomem;
    for (int p = 0; p < size; p++) to[p].weights = wk;
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) to[sources[i]].n++, to[destinations[e]].n++;
    if ((rc = PMPI_Alltoall(to, 2, MPI_INT, from, 2, MPI_INT, comm_old))) goto out;
    bool weighted;
    weights_agree(&b, from, size, &weighted);
    if ((rc = agree(c, comm_old, &b, R))) goto out;
    /* Pack each edge for both ends, in the order of the ranks they go to. */
    long long total = 0;
    for (int p = 0; p < size; p++) {
        sdispl[p] = 3 * (int)total, scount[p] = 3 * to[p].n;
        rcount[p] = 3 * from[p].n;
        rdispl[p] = p ? rdispl[p - 1] + rcount[p - 1] : 0;
        total += to[p].n;
        to[p].n = 0;                     /* now: how many packed for p */
    }
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            int s = sources[i], d = destinations[e], w = use_w ? weights[e] : 0;
            sm[sdispl[s] / 3 + to[s].n++] = (struct edge_msg){ 1, d, w };
            sm[sdispl[d] / 3 + to[d].n++] = (struct edge_msg){ 0, s, w };
        }
    int nrecv = size ? (rdispl[size - 1] + rcount[size - 1]) / 3 : 0;
    if (!(rm = malloc(sizeof *rm * (size_t)(nrecv + 1))) || !(lists = malloc(sizeof(int) * 4 * (size_t)(nrecv + 1))))
        goto nomem;
    if ((rc = PMPI_Alltoallv(sm, scount, sdispl, MPI_INT, rm, rcount, rdispl, MPI_INT, comm_old))) goto out;
    int indeg = 0, outdeg = 0, *in = lists, *out = in + nrecv, *inw = out + nrecv, *outw = inw + nrecv;
    for (int i = 0; i < nrecv; i++) {
        if (rm[i].out) outw[outdeg] = rm[i].weight, out[outdeg++] = rm[i].peer;
        else inw[indeg] = rm[i].weight, in[indeg++] = rm[i].peer;
    }
    struct smpi_topo *t = dist_new(indeg, in, inw, outdeg, out, outw, weighted);
    if (!t) goto nomem;
    rc = comm_with(comm_old, size, t, comm_dist_graph);
    goto out;
nomem:
    rc = no_mem(c, R);
out:
    free(to), free(from), free(scount), free(sm), free(rm), free(lists);
    return rc;
}
#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    static const char R[] = "MPI_Dist_graph_neighbors_count";
    GET_TOPO(c, t, comm, MPI_DIST_GRAPH, R);
    if (!indegree || !outdegree || !weighted) return smpi_error(c, MPI_ERR_ARG, R, "NULL argument");
    *indegree = t->indeg, *outdegree = t->outdeg, *weighted = t->weighted;
    return MPI_SUCCESS;
}
#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int *sourceweights, int maxoutdegree,
                              int destinations[], int *destweights)
{
    static const char R[] = "MPI_Dist_graph_neighbors";
    GET_TOPO(c, t, comm, MPI_DIST_GRAPH, R);
    int rc;
    if ((rc = copy_out(c, sources, t->in, t->indeg, maxindegree, "maxindegree", "sources", R)) ||
        (rc = copy_out(c, destinations, t->out, t->outdeg, maxoutdegree, "maxoutdegree", "destinations", R)))
        return rc;
    /* the weights of an unweighted graph are not written (MPI_UNWEIGHTED may be passed) */
    if (t->weighted && sourceweights != MPI_UNWEIGHTED &&
        (rc = copy_out(c, sourceweights, t->inw, t->indeg, maxindegree, "maxindegree", "sourceweights", R)))
        return rc;
    if (t->weighted && destweights != MPI_UNWEIGHTED)
        return copy_out(c, destweights, t->outw, t->outdeg, maxoutdegree, "maxoutdegree", "destweights", R);
    return MPI_SUCCESS;
}
#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    static const char R[] = "MPI_Topo_test";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    if (!status) return smpi_error(c, MPI_ERR_ARG, R, "status is NULL");
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Topo_test = PMPI_Topo_test
