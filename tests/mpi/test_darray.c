/* MPI_Type_create_darray (MPI 3.1 §4.1.4): block, cyclic and undistributed
 * dimensions, default and explicit distribution arguments, C and Fortran
 * order, 1 to 3 dimensions, against a reference computed here: each rank
 * gathers its elements of a global array through the type and checks them
 * in typemap order, then fills its own positions of a zeroed array, and the
 * sum over ranks must be the whole array, each element owned once. Also the
 * envelope and contents, a derived oldtype, and bad input (argv[1]
 * "fatal": one call under MPI_ERRORS_ARE_FATAL). */
#include <stdbool.h>
#include <string.h>

#include "mcheck.h"

enum { MAXD = 3 };

struct dcase {
    int ndims, gsizes[MAXD], distribs[MAXD], dargs[MAXD];
    bool none_dim[MAXD];              /* force psize 1 (MPI_DISTRIBUTE_NONE) */
};

/* The process grid coordinate owning index i of a dimension. */
static int owner(int i, int gsize, int distrib, int darg, int psize)
{
    if (distrib == MPI_DISTRIBUTE_NONE) return 0;
    if (darg == MPI_DISTRIBUTE_DFLT_DARG)
        darg = distrib == MPI_DISTRIBUTE_BLOCK ? (gsize + psize - 1) / psize : 1;
    return i / darg % psize;
}

static const char *dname(int d)
{
    return d == MPI_DISTRIBUTE_BLOCK ? "block" : d == MPI_DISTRIBUTE_CYCLIC ? "cyclic" : "none";
}

static void run_case(const struct dcase *c, int order, int rank, int size, MPI_Datatype old, int per)
{
    int nd = c->ndims, psizes[MAXD] = { 0 }, coord[MAXD], total = 1;
    /* a grid over the distributed dimensions */
    int free_dims = 0;
    for (int d = 0; d < nd; d++) {
        psizes[d] = c->none_dim[d] || c->distribs[d] == MPI_DISTRIBUTE_NONE ? 1 : 0;
        free_dims += !psizes[d];
    }
    if (!free_dims) {
        if (size != 1) return;            /* nothing to distribute over */
    } else {
        int dims[MAXD] = { 0 }, k = 0;
        OK(MPI_Dims_create(size, free_dims, dims));
        for (int d = 0; d < nd; d++)
            if (!psizes[d]) psizes[d] = dims[k++];
    }
    /* a block distribution with an explicit darg must cover the dimension */
    int dargs[MAXD];
    for (int d = 0; d < nd; d++) {
        dargs[d] = c->dargs[d];
        if (c->distribs[d] == MPI_DISTRIBUTE_BLOCK && dargs[d] != MPI_DISTRIBUTE_DFLT_DARG &&
            dargs[d] * psizes[d] < c->gsizes[d])
            dargs[d] = (c->gsizes[d] + psizes[d] - 1) / psizes[d] + 1;
    }
    for (int d = nd - 1, q = rank; d >= 0; d--) coord[d] = q % psizes[d], q /= psizes[d];
    for (int d = 0; d < nd; d++) total *= c->gsizes[d];
    MPI_Datatype t;
    OK(MPI_Type_create_darray(size, rank, nd, c->gsizes, c->distribs, dargs, psizes, order, old, &t));
    OK(MPI_Type_commit(&t));
    char what[160];
    snprintf(what, sizeof what, "%dD %s %s/%s/%s gsizes %d,%d,%d psizes %d,%d,%d dargs %d,%d,%d",
             nd, order == MPI_ORDER_C ? "C" : "Fortran", dname(c->distribs[0]), nd > 1 ? dname(c->distribs[1]) : "-",
             nd > 2 ? dname(c->distribs[2]) : "-", c->gsizes[0], nd > 1 ? c->gsizes[1] : 0, nd > 2 ? c->gsizes[2] : 0,
             psizes[0], psizes[1], psizes[2], dargs[0], nd > 1 ? dargs[1] : 0, nd > 2 ? dargs[2] : 0);

    /* the reference: global elements in array order, those this rank owns */
    int *expect = malloc(sizeof(int) * (size_t)total), n = 0;
    int idx[MAXD] = { 0 };
    for (int lin = 0; lin < total; lin++) {
        /* idx from lin: the fastest dimension is the last (C) or the first (Fortran) */
        for (int k = 0, q = lin; k < nd; k++) {
            int d = order == MPI_ORDER_C ? nd - 1 - k : k;
            idx[d] = q % c->gsizes[d], q /= c->gsizes[d];
        }
        bool mine = true;
        for (int d = 0; d < nd; d++)
            mine = mine && owner(idx[d], c->gsizes[d], c->distribs[d], dargs[d], psizes[d]) == coord[d];
        if (mine) expect[n++] = lin;
    }
    MPI_Aint lb, ext;
    int tsize, osize;
    MPI_Aint olb, oext;
    OK(MPI_Type_size(t, &tsize));
    OK(MPI_Type_size(old, &osize));
    OK(MPI_Type_get_extent(old, &olb, &oext));
    OK(MPI_Type_get_extent(t, &lb, &ext));
    CHECK(tsize == n * osize, "%s: size %d for %d elements", what, tsize, n);
    CHECK(lb == 0 && ext == total * oext, "%s: lb %td, extent %td for %d elements", what, lb, ext, total);

    /* gather this rank's elements through the type (per ints per element) */
    int *global = malloc(sizeof(int) * (size_t)(total * per)), *local = malloc(sizeof(int) * (size_t)(n * per + 1));
    for (int i = 0; i < total * per; i++) global[i] = i;
    OK(MPI_Sendrecv(global, 1, t, 0, 0, local, n * per, MPI_INT, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    for (int k = 0; k < n; k++)
        for (int j = 0; j < per; j++)
            CHECK(local[k * per + j] == expect[k] * per + j, "%s: local element %d.%d is %d, expected %d", what, k, j,
                  local[k * per + j], expect[k] * per + j);
    /* fill own positions of a zeroed array; the sum over ranks is the array */
    int *mineg = calloc((size_t)(total * per), sizeof(int)), *sum = malloc(sizeof(int) * (size_t)(total * per));
    for (int k = 0; k < n * per; k++) local[k] += 1;
    OK(MPI_Sendrecv(local, n * per, MPI_INT, 0, 1, mineg, 1, t, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    OK(MPI_Allreduce(mineg, sum, total * per, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < total * per; i++) CHECK(sum[i] == i + 1, "%s: element %d sums to %d over ranks", what, i, sum[i]);

    /* how it was made */
    int ni, na, ndt, comb;
    OK(MPI_Type_get_envelope(t, &ni, &na, &ndt, &comb));
    CHECK(comb == MPI_COMBINER_DARRAY && ni == 4 * nd + 4 && na == 0 && ndt == 1, "%s: envelope %d %d %d %d", what,
          ni, na, ndt, comb);
    int ints[4 * MAXD + 4];
    MPI_Datatype types[1];
    OK(MPI_Type_get_contents(t, ni, 0, 1, ints, NULL, types));
    CHECK(ints[0] == size && ints[1] == rank && ints[2] == nd && ints[4 * nd + 3] == order, "%s: contents", what);
    for (int d = 0; d < nd; d++)
        CHECK(ints[3 + d] == c->gsizes[d] && ints[3 + nd + d] == c->distribs[d] && ints[3 + 2 * nd + d] == dargs[d] &&
              ints[3 + 3 * nd + d] == psizes[d], "%s: contents of dimension %d", what, d);
    if (old != MPI_INT) OK(MPI_Type_free(&types[0]));
    else CHECK(types[0] == MPI_INT, "%s: oldtype", what);
    OK(MPI_Type_free(&t));
    free(expect), free(global), free(local), free(mineg), free(sum);
}

static void bad_input(int size)
{
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Datatype t;
    int g[2] = { 8, 6 }, blk[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK },
        dflt[2] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG }, p[2] = { size, 1 }, cls, rc;
#define BAD(call, want) do { rc = (call); MPI_Error_class(rc, &cls); \
    CHECK(cls == (want), "%s: class %d, expected %d", #call, cls, (want)); } while (0)
    BAD(MPI_Type_create_darray(size, size, 2, g, blk, dflt, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    BAD(MPI_Type_create_darray(size, -1, 2, g, blk, dflt, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    BAD(MPI_Type_create_darray(size, 0, 0, g, blk, dflt, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    BAD(MPI_Type_create_darray(size, 0, 2, g, blk, dflt, p, 99, MPI_INT, &t), MPI_ERR_ARG);
    int p2[2] = { size, 2 };          /* the grid is twice the group */
    BAD(MPI_Type_create_darray(size, 0, 2, g, blk, dflt, p2, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    int dist_bad[2] = { 7, MPI_DISTRIBUTE_BLOCK };
    BAD(MPI_Type_create_darray(size, 0, 2, g, dist_bad, dflt, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    int none2[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE }, p12[2] = { 1, size };
    if (size > 1) BAD(MPI_Type_create_darray(size, 0, 2, g, none2, dflt, p12, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    int small[2] = { 1, MPI_DISTRIBUTE_DFLT_DARG };   /* blocks of 1 on size processes do not cover 8 */
    if (size < 8) BAD(MPI_Type_create_darray(size, 0, 2, g, blk, small, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    int zero[2] = { 0, MPI_DISTRIBUTE_DFLT_DARG };
    BAD(MPI_Type_create_darray(size, 0, 2, g, blk, zero, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    int g0[2] = { 0, 6 };
    BAD(MPI_Type_create_darray(size, 0, 2, g0, blk, dflt, p, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    BAD(MPI_Type_create_darray(size, 0, 2, g, blk, dflt, p, MPI_ORDER_C, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
#undef BAD
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && !strcmp(argv[1], "fatal")) {
        int g[1] = { 10 }, dist[1] = { MPI_DISTRIBUTE_NONE }, darg[1] = { MPI_DISTRIBUTE_DFLT_DARG }, p[1] = { 2 };
        MPI_Datatype t;
        if (rank == 0) MPI_Type_create_darray(2, 0, 1, g, dist, darg, p, MPI_ORDER_C, MPI_INT, &t);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE, D = MPI_DISTRIBUTE_DFLT_DARG;
    static struct dcase cases[] = {
        { 1, { 17 }, { MPI_DISTRIBUTE_BLOCK }, { MPI_DISTRIBUTE_DFLT_DARG }, { false } },
        { 1, { 17 }, { MPI_DISTRIBUTE_CYCLIC }, { MPI_DISTRIBUTE_DFLT_DARG }, { false } },
        { 1, { 23 }, { MPI_DISTRIBUTE_CYCLIC }, { 3 }, { false } },
        { 1, { 5 }, { MPI_DISTRIBUTE_CYCLIC }, { 2 }, { false } },        /* some ranks own nothing */
        { 1, { 9 }, { MPI_DISTRIBUTE_BLOCK }, { 4 }, { false } },
    };
    struct dcase more[] = {
        { 2, { 10, 7 }, { B, B }, { D, D }, { false } },
        { 2, { 10, 7 }, { C, C }, { D, D }, { false } },
        { 2, { 11, 9 }, { C, B }, { 2, D }, { false } },
        { 2, { 6, 13 }, { B, C }, { 3, 4 }, { false } },
        { 2, { 8, 5 }, { N, C }, { D, 2 }, { false } },
        { 2, { 7, 6 }, { B, N }, { D, D }, { false } },
        { 3, { 5, 4, 6 }, { B, C, C }, { D, D, 2 }, { false } },
        { 3, { 4, 7, 3 }, { C, N, B }, { 3, D, D }, { false } },
        { 3, { 3, 5, 9 }, { B, B, B }, { D, D, D }, { false } },
    };
    for (int order = 0; order < 2; order++) {
        int o = order ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) run_case(&cases[k], o, rank, size, MPI_INT, 1);
        for (size_t k = 0; k < sizeof more / sizeof more[0]; k++) run_case(&more[k], o, rank, size, MPI_INT, 1);
    }
    /* an oldtype of three ints: elements stay whole */
    MPI_Datatype three;
    OK(MPI_Type_contiguous(3, MPI_INT, &three));
    OK(MPI_Type_commit(&three));
    run_case(&more[2], MPI_ORDER_C, rank, size, three, 3);
    run_case(&more[6], MPI_ORDER_FORTRAN, rank, size, three, 3);
    OK(MPI_Type_free(&three));
    bad_input(size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("darray: ok on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
