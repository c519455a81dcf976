/* Bad input to the topology routines and neighbourhood collectives.
 * "return": with MPI_ERRORS_RETURN each gives its error class, a bad
 * argument on one rank of a constructor gives an error on all (none hangs),
 * and the program goes on. Any other mode: rank 1 makes one mistake under
 * MPI_ERRORS_ARE_FATAL while the others wait, and expect.py checks the
 * message (tests/mpi/CMakeLists.txt). */
#include <string.h>

#include "mcheck.h"

#define EXPECT(call, cls) do { int rc_ = (call); \
    CHECK(rc_ == (cls), "%s returned %d, expected %s (%d)", #call, rc_, #cls, cls); } while (0)

static int me, n;

static void returns(void)
{
    int v[64] = { 0 }, w[64], r, k;
    MPI_Comm c = MPI_COMM_NULL, cart, graph;
    MPI_Request q;
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    /* no topology, or another kind */
    EXPECT(MPI_Cartdim_get(MPI_COMM_WORLD, &k), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Graphdims_get(MPI_COMM_WORLD, &k, &r), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &k, &r, v), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Neighbor_allgather(v, 1, MPI_INT, w, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Ineighbor_alltoall(v, 1, MPI_INT, w, 1, MPI_INT, MPI_COMM_WORLD, &q), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Topo_test(MPI_COMM_NULL, &k), MPI_ERR_COMM);
    /* Dims_create */
    int d[4] = { 0, 3, 0, 0 };
    EXPECT(MPI_Dims_create(7, 2, d), MPI_ERR_DIMS);
    EXPECT(MPI_Dims_create(6, -1, d), MPI_ERR_DIMS);
    d[1] = -2;
    EXPECT(MPI_Dims_create(6, 2, d), MPI_ERR_DIMS);
    d[0] = 2, d[1] = 2;
    EXPECT(MPI_Dims_create(6, 2, d), MPI_ERR_DIMS);
    EXPECT(MPI_Dims_create(0, 2, d), MPI_ERR_ARG);
    EXPECT(MPI_Dims_create(5, 0, d), MPI_ERR_DIMS);
    /* Cart_create: every rank wrong alike, then one rank alone */
    int dims[2] = { n, 1 }, per[2] = { 0, 1 };
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, per, 0, &c), MPI_ERR_DIMS);
    dims[1] = 0;
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &c), MPI_ERR_DIMS);
    dims[1] = 2;
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &c), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 2, NULL, per, 0, &c), MPI_ERR_ARG);
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Cart_create(MPI_COMM_NULL, 2, dims, per, 0, &c), MPI_ERR_COMM);
    dims[1] = me == 1 ? 0 : 1;
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &c), n > 1 ? MPI_ERR_DIMS : MPI_SUCCESS);
    if (n == 1) OK(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL, "no communicator after an error");
    EXPECT(MPI_Cart_map(MPI_COMM_WORLD, 1, (int[]){ n + 1 }, per, &k), MPI_ERR_TOPOLOGY);
    /* the queries on a grid n x 1, periodic in its second dimension */
    dims[1] = 1;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &cart));
    EXPECT(MPI_Cart_shift(cart, 2, 1, &k, &r), MPI_ERR_DIMS);
    EXPECT(MPI_Cart_shift(cart, -1, 1, &k, &r), MPI_ERR_DIMS);
    EXPECT(MPI_Cart_coords(cart, n, 2, v), MPI_ERR_RANK);
    EXPECT(MPI_Cart_coords(cart, 0, 1, v), MPI_ERR_ARG);
    EXPECT(MPI_Cart_get(cart, 1, v, w, v + 2), MPI_ERR_ARG);
    EXPECT(MPI_Cart_rank(cart, (int[]){ n, 0 }, &r), MPI_ERR_ARG);     /* not periodic */
    OK(MPI_Cart_rank(cart, (int[]){ 0, 5 }, &r));                       /* periodic: wraps */
    EXPECT(MPI_Graph_neighbors_count(cart, 0, &k), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Dist_graph_neighbors(cart, 1, v, MPI_UNWEIGHTED, 1, w, MPI_UNWEIGHTED), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Cart_sub(cart, NULL, &c), MPI_ERR_ARG);
    /* neighbourhood collectives' arguments */
    EXPECT(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, w, 1, MPI_INT, cart), MPI_ERR_BUFFER);
    EXPECT(MPI_Neighbor_alltoall(v, -1, MPI_INT, w, 1, MPI_INT, cart), MPI_ERR_COUNT);
    EXPECT(MPI_Neighbor_alltoall(v, 1, MPI_DATATYPE_NULL, w, 1, MPI_INT, cart), MPI_ERR_TYPE);
    EXPECT(MPI_Neighbor_alltoall(v, 1, MPI_INT, NULL, 1, MPI_INT, cart), MPI_ERR_BUFFER);
    EXPECT(MPI_Ineighbor_allgather(v, 1, MPI_INT, w, 1, MPI_INT, cart, NULL), MPI_ERR_REQUEST);
    EXPECT(MPI_Neighbor_alltoallv(v, NULL, NULL, MPI_INT, w, v, v, MPI_INT, cart), MPI_ERR_ARG);
    EXPECT(MPI_Neighbor_allgatherv(v, 1, MPI_INT, w, v, NULL, MPI_INT, cart), MPI_ERR_ARG);
    MPI_Aint ad[4] = { 0 };
    int cnt[4] = { 1, 1, 1, 1 };
    MPI_Datatype ts[4] = { MPI_INT, MPI_INT, MPI_DATATYPE_NULL, MPI_INT };
    EXPECT(MPI_Neighbor_alltoallw(v, cnt, ad, NULL, w, cnt, ad, ts, cart), MPI_ERR_ARG);
    EXPECT(MPI_Neighbor_alltoallw(v, cnt, ad, ts, w, cnt, ad, ts, cart), MPI_ERR_TYPE);
    cnt[1] = -3;
    EXPECT(MPI_Neighbor_alltoallv(v, cnt, v, MPI_INT, w, cnt, v, MPI_INT, cart), MPI_ERR_COUNT);
    /* a receive block smaller than what arrives: truncated, blocking and not */
    int two[4] = { 2, 2, 2, 2 };
    cnt[1] = 1;
    EXPECT(MPI_Neighbor_alltoall(v, 2, MPI_INT, w, me == 0 && n > 1 ? 1 : 2, MPI_INT, cart),
           me == 0 && n > 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
    OK(MPI_Ineighbor_allgatherv(v, 2, MPI_INT, w, me == 0 && n > 1 ? cnt : two, (int[]){ 0, 4, 8, 12 }, MPI_INT,
                                cart, &q));
    EXPECT(MPI_Wait(&q, MPI_STATUS_IGNORE), me == 0 && n > 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
    CHECK(q == MPI_REQUEST_NULL, "a failed request is freed");
    /* a nonblocking collective's request cannot be freed or cancelled; it
     * still completes */
    OK(MPI_Ineighbor_alltoall(v, 1, MPI_INT, w, 1, MPI_INT, cart, &q));
    EXPECT(MPI_Request_free(&q), MPI_ERR_REQUEST);
    EXPECT(MPI_Cancel(&q), MPI_ERR_REQUEST);
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    OK(MPI_Comm_free(&cart));
    /* graphs */
    int index[64], edges[64];
    for (int i = 0; i < n; i++) index[i] = i + 1, edges[i] = (i + 1) % n;
    EXPECT(MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &c), MPI_ERR_ARG);
    EXPECT(MPI_Graph_create(MPI_COMM_WORLD, n + 1, index, edges, 0, &c), MPI_ERR_TOPOLOGY);
    edges[0] = n;
    EXPECT(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &c), MPI_ERR_TOPOLOGY);
    edges[0] = 1 % n, index[0] = -1;
    EXPECT(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &c), MPI_ERR_ARG);
    EXPECT(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &k), MPI_ERR_ARG);
    index[0] = 1;
    OK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &graph));
    EXPECT(MPI_Graph_neighbors_count(graph, n, &k), MPI_ERR_RANK);
    EXPECT(MPI_Graph_neighbors(graph, -1, 4, v), MPI_ERR_RANK);
    EXPECT(MPI_Graph_get(graph, -1, 4, v, w), MPI_ERR_ARG);
    EXPECT(MPI_Cart_shift(graph, 0, 1, &k, &r), MPI_ERR_TOPOLOGY);
    OK(MPI_Comm_free(&graph));
    /* distributed graphs: local mistakes, then ones only the others see */
    int src[2] = { (me + n - 1) % n, 0 }, dst[2] = { (me + 1) % n, 0 }, wt[2] = { 1, -1 };
    EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, (int[]){ n }, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &c), MPI_ERR_RANK);
    EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &c), MPI_ERR_ARG);
    EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, wt + 1, 1, dst, wt, MPI_INFO_NULL, 0, &c),
           MPI_ERR_ARG);
    EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_WEIGHTS_EMPTY, 1, dst, wt, MPI_INFO_NULL, 0,
                                          &c), MPI_ERR_ARG);
    EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst, wt, MPI_INFO_NULL, 0, &c),
           MPI_ERR_ARG);
    EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED,
                                          (MPI_Info)&k, 0, &c), MPI_ERR_INFO);
    /* weighted on one rank, not on the others */
    EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, me == 0 ? wt : MPI_UNWEIGHTED, 1, dst,
                                          me == 0 ? wt : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
           n > 1 ? MPI_ERR_ARG : MPI_SUCCESS);
    if (n == 1) OK(MPI_Comm_free(&c));
    EXPECT(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, (int[]){ 1 }, (int[]){ -2 }, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &c), MPI_ERR_RANK);
    EXPECT(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, (int[]){ -1 }, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
           MPI_ERR_ARG);
    EXPECT(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, (int[]){ 1 }, dst, me == 1 ? wt : MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &c), n > 1 ? MPI_ERR_ARG : MPI_SUCCESS);
    if (n == 1) OK(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL, "no communicator after an error");
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* One mistake of rank 1's under MPI_ERRORS_ARE_FATAL (collective calls
 * are made by every rank, the others with good arguments). */
static void fatal(const char *mode)
{
    int v[8] = { 0 }, w[8], k, r, ring = n, per = 1;
    MPI_Comm c, cart;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &ring, &per, 0, &cart));
    if (!strcmp(mode, "cart_dims"))
        MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){ n, me == 1 ? 0 : 1 }, (int[]){ 0, 0 }, 0, &c);
    else if (!strcmp(mode, "cart_size"))
        MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){ n, me == 1 ? 2 : 1 }, (int[]){ 0, 0 }, 0, &c);
    else if (!strcmp(mode, "graph_edge"))
        MPI_Graph_create(MPI_COMM_WORLD, 2, (int[]){ 1, 2 }, (int[]){ 1, me == 1 ? 9 : 0 }, 0, &c);
    else if (!strcmp(mode, "dist_graph"))   /* rank 1 names a destination outside the communicator */
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 1, (int[]){ me == 1 ? 9 : 0 },
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
    else if (!strcmp(mode, "truncate"))   /* rank 1 expects 1 int from each neighbour, gets 2 */
        MPI_Neighbor_alltoall(v, 2, MPI_INT, w, me == 1 ? 1 : 2, MPI_INT, cart);
    else if (me == 1) {
        if (!strcmp(mode, "dims_create")) MPI_Dims_create(7, 2, (int[]){ 0, 3 });
        else if (!strcmp(mode, "shift")) MPI_Cart_shift(cart, 1, 1, &k, &r);
        else if (!strcmp(mode, "no_topo")) MPI_Cart_coords(MPI_COMM_WORLD, 0, 1, v);
        else if (!strcmp(mode, "wrong_topo")) MPI_Graph_neighbors_count(cart, 0, &k);
        else if (!strcmp(mode, "in_place")) MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, w, 1, MPI_INT, cart);
        else if (!strcmp(mode, "free")) {
            MPI_Request q;
            MPI_Ineighbor_alltoall(v, 1, MPI_INT, w, 1, MPI_INT, cart, &q);
            MPI_Request_free(&q);
        }
    }
    if (me == 1) {
        fprintf(stderr, "test_topo_errors: mode %s did not end the job\n", mode);
        exit(1);
    }
    MPI_Recv(v, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* never comes */
    exit(1);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "return";
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    CHECK(n <= 16, "at most 16 ranks");
    if (strcmp(mode, "return")) fatal(mode);
    returns();
    OK(MPI_Finalize());
    if (me == 0) printf("test_topo_errors: ok\n");
    return 0;
}
