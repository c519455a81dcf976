/* Collective bindings, blocking and nonblocking (MPI-3.1 §5): argument
 * checks, MPI_IN_PLACE, datatypes as the engine's buffers (contiguous ones
 * as bytes, the others as their typemaps, copied typemap to typemap between
 * the ranks' buffers), operations as the engine's kernels or the user's
 * function; then one collective of the engine (src/coll): run to the end
 * for the blocking call, started with a request for the I- form (the
 * engine completes the request; it progresses in every MPI call). */
#include <stdlib.h>
#include <string.h>

#include "sm_core.h"
#include "smpi.h"

/* One call, as prepared for the engine. A nonblocking one lives with its
 * request until the engine is done with it. */
struct call {
    struct coll_args a;
    struct smpi_red red;               /* the operation (a user one's context lives here) */
    const char *routine;
    struct smpi_type *held[2];         /* datatypes held while it runs */
    struct smpi_type **wheld;          /* alltoallw: 2n of them */
    const struct dt_type **wtypes;     /* alltoallw: the engine's send types, then receive types */
    int nw;
    int *arrays;                       /* nonblocking: its own copy of the count and displacement arrays */
};

/* A reduction's call of kind on root holding t, every field set one by
 * one (as margs does for the data movers): written as `struct call k = {
 * ... }`, the 272 bytes were cleared with rep stosq, and the 16-byte loads
 * that copied the buffers' structs just after could not take their values
 * from those stores. perf, 2 ranks, 64-byte exscans: reduce() was 21-23%
 * of each rank's samples, its rep stosq 24% of them and two such movdqu
 * 25% and 21%; without them 2 ranks' Scan and Exscan of 8-64 B took
 * 1.09-1.17x less time (16 rounds alternated; docs/NOTES.md scan2). */
static inline __attribute__((always_inline)) void call_init(struct call *k, enum coll_kind kind, int root,
                                                            struct smpi_type *t)
{
    k->a.kind = kind, k->a.root = root, k->a.quiet = false, k->a.failed = false;
    k->held[0] = t, k->held[1] = NULL;
    k->wheld = NULL, k->wtypes = NULL, k->nw = 0, k->arrays = NULL, k->routine = NULL;
}

/* held: the datatypes were referenced for a nonblocking call. Inline: a
 * blocking call's (held false) is three loads. */
static inline void call_free(struct call *k, bool held)
{
    for (int i = 0; i < 2 && held; i++) if (k->held[i]) smpi_type_unref(k->held[i]);
    for (int i = 0; i < k->nw && held; i++) smpi_type_unref(k->wheld[i]);
    /* only alltoallw and nonblocking calls have these: three calls of
     * free(NULL) were a tenth of a small blocking call's binding */
    if (SM_UNLIKELY(k->wheld || k->wtypes || k->arrays)) {
        free(k->wheld);
        free(k->wtypes);
        free(k->arrays);
    }
}

/* A nonblocking call reads the count and displacement arrays while it runs;
 * they become its own (as other MPIs do), since programs and bindings free
 * or reuse theirs once the call returns (mpi4py converts MPI_Count arrays
 * into temporaries). */
static bool own_arrays(struct call *k, int n)
{
    const int **a[] = { &k->a.src.counts, &k->a.src.displs, &k->a.dst.counts, &k->a.dst.displs };
    int m = 0;
    for (size_t i = 0; i < sizeof a / sizeof *a; i++) m += *a[i] != NULL;
    if (!m || n <= 0) return true;
    if (!(k->arrays = malloc(sizeof(int) * (size_t)n * (size_t)m))) return false;
    int *p = k->arrays;
    for (size_t i = 0; i < sizeof a / sizeof *a; i++)
        if (*a[i]) memcpy(p, *a[i], sizeof(int) * (size_t)n), *a[i] = p, p += n;
    return true;
}

/* An engine's status as an MPI error (naming the routine and the reason). */
static int status(struct smpi_comm *c, sm_status_t st, const char *R)
{
    if (SM_LIKELY(st == SM_OK)) return MPI_SUCCESS;
    return smpi_error(c, smpi_class_of(st), R, "%s", sm_fail_reason());
}

static void idone(void *ctx, sm_status_t st, const char *why)
{
    struct smpi_request *q = ctx;
    struct call *k = q->coll;
    q->coll = NULL;
    const char *routine = k->routine;
    call_free(k, true);
    smpi_request_coll_done(q, st, routine, why);
    free(k);
}

static __attribute__((noinline)) int go_nb(struct smpi_comm *c, struct call *k, MPI_Request *req, const char *R);
/* Run the prepared call (req NULL), or start it with a new request. Inline,
 * the nonblocking part out of line: the call and its return were ~45
 * instructions of a small blocking scan's ~800. */
static inline int go(struct smpi_comm *c, struct call *k, MPI_Request *req, const char *R)
{
    if (SM_LIKELY(!req)) {
        sm_status_t st = coll_run(&c->cg, &k->a);
        call_free(k, false);
        return status(c, st, R);
    }
    return go_nb(c, k, req, R);
}
/* The same for a call that holds at most two datatypes and owns nothing
 * (the data movers but alltoallw): a blocking one runs on its arguments
 * alone (margs), a nonblocking one gets its call here. Building a `struct
 * call` (272 bytes, zeroed with rep stosq) for every call was ~45 of a small
 * blocking MPI_Scatter's ~920 instructions (1 rank, callgrind). */
static inline int go_args(struct smpi_comm *c, const struct coll_args *a, struct smpi_type *t0, struct smpi_type *t1,
                          MPI_Request *req, const char *R)
{
    if (SM_LIKELY(!req)) return status(c, coll_run(&c->cg, a), R);
    struct call k = { .a = *a, .held = { t0, t1 } };
    return go_nb(c, &k, req, R);
}
/* A data mover's arguments: the buffers written once, everything after
 * them (the reduction, the flags) cleared. A designated initializer
 * zeroed all of it first (rep stosq), then wrote the buffers again. */
_Static_assert(offsetof(struct coll_args, src) == 2 * sizeof(int) &&
                   offsetof(struct coll_args, red) == offsetof(struct coll_args, dst) + sizeof(struct coll_buf),
               "margs writes kind, root, src and dst, and clears the rest");
static inline void margs(struct coll_args *a, enum coll_kind kind, int root, struct coll_buf src, struct coll_buf dst)
{
    a->kind = kind, a->root = root, a->src = src, a->dst = dst;
    memset(&a->red, 0, sizeof *a - offsetof(struct coll_args, red));
}
static const struct coll_buf nobuf;
static int go_nb(struct smpi_comm *c, struct call *k, MPI_Request *req, const char *R)
{
    struct call *h = malloc(sizeof *h);
    struct smpi_request *q = h ? smpi_request_coll(c) : NULL;
    if (q) {
        *h = *k;
        h->arrays = NULL;
        if (!own_arrays(h, c->pt.size)) smpi_request_release(q), q = NULL;
    }
    if (!q) {
        free(h);
        call_free(k, false);
        return smpi_error(c, MPI_ERR_NO_MEM, R, "no memory for a request");
    }
    if (h->a.red.fn.ctx == &k->red.uop) h->a.red.fn.ctx = &h->red.uop;   /* the user op's context moved */
    h->routine = R;
    for (int i = 0; i < 2; i++) if (h->held[i]) smpi_type_ref(h->held[i]);
    for (int i = 0; i < h->nw; i++) smpi_type_ref(h->wheld[i]);
    q->coll = h;
    sm_status_t st = coll_start(&c->cg, &h->a, idone, q);
    if (st) {
        call_free(h, true);
        free(h);
        q->coll = NULL;
        smpi_request_release(q);
        return status(c, st, R);
    }
    *req = q;
    return MPI_SUCCESS;
}

/* --- Argument checks ---------------------------------------------------------- */

/* On an intercommunicator (ic_ in call), a collective is inter.c's; what
 * reaches BEGIN there (Scan, Exscan and their I- forms) is refused. */
#define INTER(R, call) do { struct smpi_comm *ic_ = smpi_comm(comm); \
    if (ic_ && ic_->inter) { SMPI_CHECK_INIT(R); return call; } } while (0)
/* The I- forms on an intercommunicator: inter.c's with the request. */
#define INTER_NB(R, call) do { struct smpi_comm *ic_ = smpi_comm(comm); \
    if (ic_ && ic_->inter) { SMPI_CHECK_INIT(R); \
        if (!request) return smpi_error(ic_, MPI_ERR_REQUEST, R, "request pointer is NULL"); \
        return call; } } while (0)
#define BEGIN(R, nb, req) SMPI_CHECK_INIT(R); SMPI_GET_COMM(c, comm, R); int rc; \
    if (SM_UNLIKELY(c->inter)) \
        return smpi_error(c, MPI_ERR_COMM, R, "not available on an intercommunicator (%s)", c->name); \
    if ((nb) && !(req)) return smpi_error(c, MPI_ERR_REQUEST, R, "request pointer is NULL")

static int check_root(struct smpi_comm *c, int root, const char *R)
{
    if (root < 0 || root >= c->pt.size)
        return smpi_error(c, MPI_ERR_ROOT, R, "root %d not in [0, %d)", root, c->pt.size);
    return MPI_SUCCESS;
}

/* A buffer of count (not negative) elements of t. */
static int check_buf(struct smpi_comm *c, const void *buf, int count, const struct smpi_type *t, const char *R)
{
    if (buf == MPI_IN_PLACE) return smpi_error(c, MPI_ERR_BUFFER, R, "MPI_IN_PLACE is not allowed here");
    if (!buf && count > 0 && t->dt->size && t->id)
        return smpi_error(c, MPI_ERR_BUFFER, R, "buffer is NULL with count %d", count);
    return MPI_SUCCESS;
}

static int check_data(struct smpi_comm *c, const void *buf, int count, MPI_Datatype type,
                      struct smpi_type **t, const char *R)
{
    int rc = smpi_type_check(c, type, R, t);
    if (rc) return rc;
    if (count < 0) return smpi_error(c, MPI_ERR_COUNT, R, "count %d is negative", count);
    return check_buf(c, buf, count, *t, R);
}

static int check_counts(struct smpi_comm *c, const int *counts, const int *displs, const char *what, const char *R)
{
    if (!counts || !displs) return smpi_error(c, MPI_ERR_ARG, R, "%s counts or displacements are NULL", what);
    for (int i = 0; i < c->pt.size; i++)
        if (counts[i] < 0) return smpi_error(c, MPI_ERR_COUNT, R, "%scounts[%d] = %d is negative", what, i, counts[i]);
    return MPI_SUCCESS;
}

static int in_place_root_only(struct smpi_comm *c, bool in_place, bool at_root, const char *R)
{
    if (in_place && !at_root) return smpi_error(c, MPI_ERR_BUFFER, R, "MPI_IN_PLACE is only for the root");
    return MPI_SUCCESS;
}

/* --- Buffers as the engine sees them ------------------------------------------------ */

/* count elements of t at buf: a contiguous run as bytes, else the typemap
 * (blocks of count elements an extent apart, as MPI lays them out). */
static struct coll_buf ebuf(void *buf, int count, const struct smpi_type *t)
{
    if (t->dt->contig) return (struct coll_buf){ .base = (char *)buf + t->dt->true_lb, .count = (size_t)count * t->dt->size, .type = NULL };
    return (struct coll_buf){ .base = buf, .count = (size_t)count, .type = t->dt };
}
/* Per-member blocks: counts[i] elements at displs[i] extents. */
static struct coll_buf vbuf(void *buf, const int *counts, const int *displs, const struct smpi_type *t)
{
    return (struct coll_buf){ .base = buf, .type = t->dt, .counts = counts, .displs = displs };
}
static struct coll_buf in_place(void) { return (struct coll_buf){ .base = COLL_IN_PLACE, .count = 0, .type = NULL }; }

/* A reduction's buffer: C arrays of the element type as bytes where the
 * datatype is that already; else its typemap (user functions always). r is
 * prepare_op's: a predefined op's elem is NULL where the element type's C
 * array is its packed layout (looked up there once, not again per buffer). */
static inline __attribute__((always_inline)) void rbuf(struct coll_buf *b, const void *buf, int count,
                                                       const struct smpi_type *t, const struct coll_red *r)
{
    /* (set field by field: a struct returned from a call was copied back
     * with 16-byte loads of its 8-byte stores, which cannot forward) */
    b->counts = NULL, b->displs = NULL, b->types = NULL;
    if (buf == MPI_IN_PLACE) {
        b->base = COLL_IN_PLACE, b->count = 0, b->type = NULL;
    } else if (r->op != COLL_USER && !r->elem && t->dt->contig) {
        b->base = (char *)buf + t->dt->true_lb, b->count = (size_t)count * t->dt->size, b->type = NULL;
    } else {
        b->base = (void *)buf, b->count = (size_t)count, b->type = t->dt;
    }
}

/* The operation on t for the engine (into k->red and k->a.red). */
static int prepare_op(struct smpi_comm *c, struct call *k, MPI_Op op, MPI_Datatype h, const struct smpi_type *t,
                      const char *R)
{
    int rc = smpi_op_prepare(c, op, h, t, R, &k->red);
    if (rc) return rc;
    if (!k->red.predefined) {
        k->a.red = (struct coll_red){ .op = COLL_USER, .fn = k->red.fn, .commute = k->red.uop.op->commute != 0 };
        return MPI_SUCCESS;
    }
    const struct dt_type *e = smpi_types[t->dt->basic].dt;
    /* field by field, as call_init (fn and commute are for user functions) */
    k->a.red.t = k->red.type, k->a.red.op = k->red.op;
    k->a.red.elem = e->size == (size_t)dt_extent(e) ? NULL : e;
    k->a.red.fn = (struct coll_fn){ 0 }, k->a.red.commute = false;
    return MPI_SUCCESS;
}

/* --- Barrier, broadcast ------------------------------------------------------------ */

static int barrier(MPI_Comm comm, MPI_Request *req, bool nb, const char *R)
{
    BEGIN(R, nb, req);
    (void)rc;
    struct call k = { .a = { .kind = COLL_BARRIER } };
    return go(c, &k, req, R);
}
int PMPI_Barrier(MPI_Comm comm)
{
    INTER("MPI_Barrier", ic_->inter->ops->barrier(ic_, NULL, "MPI_Barrier"));
    return barrier(comm, NULL, false, "MPI_Barrier");
}
#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    INTER_NB("MPI_Ibarrier", ic_->inter->ops->barrier(ic_, request, "MPI_Ibarrier"));
    return barrier(comm, request, true, "MPI_Ibarrier");
}
#pragma weak MPI_Ibarrier = PMPI_Ibarrier

static int bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *req, bool nb,
                 const char *R)
{
    BEGIN(R, nb, req);
    struct smpi_type *t;
    if ((rc = check_root(c, root, R)) || (rc = check_data(c, buffer, count, datatype, &t, R))) return rc;
    struct coll_args a;
    margs(&a, COLL_BCAST, root, nobuf, ebuf(buffer, count, t));
    return go_args(c, &a, t, NULL, req, R);
}
int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    INTER("MPI_Bcast", ic_->inter->ops->bcast(ic_, buffer, count, datatype, root, NULL, "MPI_Bcast"));
    return bcast(buffer, count, datatype, root, comm, NULL, false, "MPI_Bcast");
}
#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
    INTER_NB("MPI_Ibcast", ic_->inter->ops->bcast(ic_, buffer, count, datatype, root, request, "MPI_Ibcast"));
    return bcast(buffer, count, datatype, root, comm, request, true, "MPI_Ibcast");
}
#pragma weak MPI_Ibcast = PMPI_Ibcast

/* --- Reductions ------------------------------------------------------------------------ */

static int reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                  enum coll_kind kind, MPI_Comm comm, MPI_Request *req, bool nb, const char *R)
{
    BEGIN(R, nb, req);
    struct smpi_type *t;
    bool rooted = kind == COLL_REDUCE, at_root = !rooted || c->pt.rank == root, inpl = sendbuf == MPI_IN_PLACE;
    if (rooted && (rc = check_root(c, root, R))) return rc;
    if ((rc = in_place_root_only(c, inpl, at_root, R))) return rc;
    if ((rc = check_data(c, inpl ? recvbuf : sendbuf, count, datatype, &t, R))) return rc;
    /* the receive buffer: its datatype and count are the ones just checked */
    if (at_root && (rc = check_buf(c, recvbuf, count, t, R))) return rc;
    struct call k;
    call_init(&k, kind, root, t);
    if ((rc = prepare_op(c, &k, op, datatype, t, R))) return rc;
    rbuf(&k.a.src, sendbuf, count, t, &k.a.red);
    if (at_root) rbuf(&k.a.dst, recvbuf, count, t, &k.a.red);
    else k.a.dst = (struct coll_buf){ .base = NULL, .count = 0, .type = NULL };
    return go(c, &k, req, R);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm)
{
    INTER("MPI_Reduce", ic_->inter->ops->reduce(ic_, sendbuf, recvbuf, count, datatype, op, root, NULL, "MPI_Reduce"));
    return reduce(sendbuf, recvbuf, count, datatype, op, root, COLL_REDUCE, comm, NULL, false, "MPI_Reduce");
}
#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    INTER_NB("MPI_Ireduce",
          ic_->inter->ops->reduce(ic_, sendbuf, recvbuf, count, datatype, op, root, request, "MPI_Ireduce"));
    return reduce(sendbuf, recvbuf, count, datatype, op, root, COLL_REDUCE, comm, request, true, "MPI_Ireduce");
}
#pragma weak MPI_Ireduce = PMPI_Ireduce

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    INTER("MPI_Allreduce",
          ic_->inter->ops->allreduce(ic_, sendbuf, recvbuf, count, datatype, op, NULL, "MPI_Allreduce"));
    return reduce(sendbuf, recvbuf, count, datatype, op, 0, COLL_ALLREDUCE, comm, NULL, false, "MPI_Allreduce");
}
#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request *request)
{
    INTER_NB("MPI_Iallreduce",
          ic_->inter->ops->allreduce(ic_, sendbuf, recvbuf, count, datatype, op, request, "MPI_Iallreduce"));
    return reduce(sendbuf, recvbuf, count, datatype, op, 0, COLL_ALLREDUCE, comm, request, true, "MPI_Iallreduce");
}
#pragma weak MPI_Iallreduce = PMPI_Iallreduce

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce(sendbuf, recvbuf, count, datatype, op, 0, COLL_SCAN, comm, NULL, false, "MPI_Scan");
}
#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Request *request)
{
    return reduce(sendbuf, recvbuf, count, datatype, op, 0, COLL_SCAN, comm, request, true, "MPI_Iscan");
}
#pragma weak MPI_Iscan = PMPI_Iscan

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce(sendbuf, recvbuf, count, datatype, op, 0, COLL_EXSCAN, comm, NULL, false, "MPI_Exscan");
}
#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request *request)
{
    return reduce(sendbuf, recvbuf, count, datatype, op, 0, COLL_EXSCAN, comm, request, true, "MPI_Iexscan");
}
#pragma weak MPI_Iexscan = PMPI_Iexscan

/* Member i gets block i of the reduced vector: recvcounts[i] elements
 * (recvcount each for the _block form); in place, the vector is recvbuf. */
static int reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts, int recvcount,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *req, bool nb, const char *R)
{
    BEGIN(R, nb, req);
    struct smpi_type *t;
    int n = c->pt.size, me = c->pt.rank;
    long total = 0;
    if (recvcounts) {
        for (int i = 0; i < n; i++) {
            if (recvcounts[i] < 0) return smpi_error(c, MPI_ERR_COUNT, R, "recvcounts[%d] = %d is negative", i, recvcounts[i]);
            total += recvcounts[i];
        }
        recvcount = recvcounts[me];
    } else if (recvcount < 0) {
        return smpi_error(c, MPI_ERR_COUNT, R, "recvcount %d is negative", recvcount);
    } else {
        total = (long)recvcount * n;
    }
    if (total > INT32_MAX) return smpi_error(c, MPI_ERR_COUNT, R, "%ld elements in all are too many", total);
    bool inpl = sendbuf == MPI_IN_PLACE;
    if ((rc = check_data(c, recvbuf, inpl ? (int)total : recvcount, datatype, &t, R))) return rc;
    if (!inpl && (rc = check_data(c, sendbuf, (int)total, datatype, &t, R))) return rc;
    struct call k;
    call_init(&k, COLL_REDUCE_SCATTER, 0, t);
    if ((rc = prepare_op(c, &k, op, datatype, t, R))) return rc;
    rbuf(&k.a.src, sendbuf, (int)total, t, &k.a.red);
    if (recvcounts) k.a.dst = (struct coll_buf){ .base = recvbuf, .type = t->dt, .counts = recvcounts };
    else rbuf(&k.a.dst, recvbuf, recvcount, t, &k.a.red);
    return go(c, &k, req, R);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm)
{
    INTER("MPI_Reduce_scatter",
          ic_->inter->ops->reduce_scatter(ic_, sendbuf, recvbuf, recvcounts, 0, datatype, op, NULL,
          "MPI_Reduce_scatter"));
    if (!recvcounts) return smpi_error(smpi_comm(comm), MPI_ERR_ARG, "MPI_Reduce_scatter", "recvcounts is NULL");
    return reduce_scatter(sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, NULL, false, "MPI_Reduce_scatter");
}
#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    INTER_NB("MPI_Ireduce_scatter",
          ic_->inter->ops->reduce_scatter(ic_, sendbuf, recvbuf, recvcounts, 0, datatype, op, request,
          "MPI_Ireduce_scatter"));
    if (!recvcounts) return smpi_error(smpi_comm(comm), MPI_ERR_ARG, "MPI_Ireduce_scatter", "recvcounts is NULL");
    return reduce_scatter(sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, request, true, "MPI_Ireduce_scatter");
}
#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm)
{
    INTER("MPI_Reduce_scatter_block",
          ic_->inter->ops->reduce_scatter(ic_, sendbuf, recvbuf, NULL, recvcount, datatype, op, NULL,
          "MPI_Reduce_scatter_block"));
    return reduce_scatter(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, NULL, false, "MPI_Reduce_scatter_block");
}
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request *request)
{
    INTER_NB("MPI_Ireduce_scatter_block",
          ic_->inter->ops->reduce_scatter(ic_, sendbuf, recvbuf, NULL, recvcount, datatype, op, request,
          "MPI_Ireduce_scatter_block"));
    return reduce_scatter(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, request, true,
                          "MPI_Ireduce_scatter_block");
}
#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block

/* The reduction on local buffers only: inoutbuf = inbuf op inoutbuf. */
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    static const char R[] = "MPI_Reduce_local";
    SMPI_CHECK_INIT(R);
    struct smpi_type *t;
    int rc;
    if ((rc = check_data(NULL, inbuf, count, datatype, &t, R)) || (rc = check_data(NULL, inoutbuf, count, datatype, &t, R)))
        return rc;
    struct smpi_red o;
    if ((rc = smpi_op_prepare(NULL, op, datatype, t, R, &o))) return rc;
    if (!o.predefined) {                 /* the function sees the buffers as they are */
        int len = count;
        if (count) o.uop.op->fn((void *)inbuf, inoutbuf, &len, &datatype);
        return MPI_SUCCESS;
    }
    /* C arrays of the element type: the buffers themselves, or copies */
    const struct dt_type *e = smpi_types[t->dt->basic].dt;
    size_t n = (size_t)count * t->dt->nbasic, es = (size_t)dt_extent(e), bytes = (size_t)count * t->dt->size;
    bool direct = t->dt->contig && e->size == es;
    const struct dt_type *as = e->size == es ? NULL : e;
    char *a = direct ? (char *)inbuf + t->dt->true_lb : malloc(n * es + 1);
    char *b = direct ? (char *)inoutbuf + t->dt->true_lb : malloc(n * es + 1);
    if (!a || !b) {
        if (!direct) free(a), free(b);
        return smpi_error(NULL, MPI_ERR_NO_MEM, R, "%zu elements", n);
    }
    if (!direct) {
        dt_copy(a, as, inbuf, t->dt, 0, bytes);
        dt_copy(b, as, inoutbuf, t->dt, 0, bytes);
    }
    coll_kernel(o.type, o.op)(b, a, b, n);
    if (!direct) {
        dt_copy(inoutbuf, t->dt, b, as, 0, bytes);
        free(a), free(b);
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Reduce_local = PMPI_Reduce_local

/* --- Gather, scatter, allgather, alltoall ------------------------------------------------ */

/* A member's own block whose send and receive sizes differ is the
 * engine's to report (it fails it, naming both): a binding that returned
 * here would leave the call to the other members alone, and they would
 * wait for this one. */

static int gather(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount, MPI_Datatype rtype,
                  int root, MPI_Comm comm, MPI_Request *req, bool nb, const char *R)
{
    BEGIN(R, nb, req);
    struct smpi_type *st = NULL, *rt = NULL;
    bool at_root = c->pt.rank == root, inpl = sendbuf == MPI_IN_PLACE;
    if ((rc = check_root(c, root, R)) || (rc = in_place_root_only(c, inpl, at_root, R))) return rc;
    if (!inpl && (rc = check_data(c, sendbuf, scount, stype, &st, R))) return rc;
    if (at_root && (rc = check_data(c, recvbuf, rcount, rtype, &rt, R))) return rc;
    struct coll_args a;
    margs(&a, COLL_GATHER, root, inpl ? in_place() : ebuf((void *)sendbuf, scount, st),
          at_root ? ebuf(recvbuf, rcount, rt) : nobuf);
    return go_args(c, &a, st, rt, req, R);
}

static int gatherv(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, const int *rcounts,
                   const int *displs, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req, bool nb,
                   const char *R)
{
    BEGIN(R, nb, req);
    struct smpi_type *st = NULL, *rt = NULL;
    bool at_root = c->pt.rank == root, inpl = sendbuf == MPI_IN_PLACE;
    if ((rc = check_root(c, root, R)) || (rc = in_place_root_only(c, inpl, at_root, R))) return rc;
    if (!inpl && (rc = check_data(c, sendbuf, scount, stype, &st, R))) return rc;
    if (at_root && ((rc = smpi_type_check(c, rtype, R, &rt)) || (rc = check_counts(c, rcounts, displs, "recv", R))))
        return rc;
    struct coll_args a;
    margs(&a, COLL_GATHER, root, inpl ? in_place() : ebuf((void *)sendbuf, scount, st),
          at_root ? vbuf(recvbuf, rcounts, displs, rt) : nobuf);
    return go_args(c, &a, st, rt, req, R);
}

static int scatter(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount, MPI_Datatype rtype,
                   int root, MPI_Comm comm, MPI_Request *req, bool nb, const char *R)
{
    BEGIN(R, nb, req);
    struct smpi_type *st = NULL, *rt = NULL;
    bool at_root = c->pt.rank == root, inpl = recvbuf == MPI_IN_PLACE;
    if ((rc = check_root(c, root, R)) || (rc = in_place_root_only(c, inpl, at_root, R))) return rc;
    if (!inpl && (rc = check_data(c, recvbuf, rcount, rtype, &rt, R))) return rc;
    if (at_root && (rc = check_data(c, sendbuf, scount, stype, &st, R))) return rc;
    struct coll_args a;
    margs(&a, COLL_SCATTER, root, at_root ? ebuf((void *)sendbuf, scount, st) : nobuf,
          inpl ? in_place() : ebuf(recvbuf, rcount, rt));
    return go_args(c, &a, st, rt, req, R);
}

static int scatterv(const void *sendbuf, const int *scounts, const int *displs, MPI_Datatype stype, void *recvbuf,
                    int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req, bool nb, const char *R)
{
    BEGIN(R, nb, req);
    struct smpi_type *st = NULL, *rt = NULL;
    bool at_root = c->pt.rank == root, inpl = recvbuf == MPI_IN_PLACE;
    if ((rc = check_root(c, root, R)) || (rc = in_place_root_only(c, inpl, at_root, R))) return rc;
    if (!inpl && (rc = check_data(c, recvbuf, rcount, rtype, &rt, R))) return rc;
    if (at_root && ((rc = smpi_type_check(c, stype, R, &st)) || (rc = check_counts(c, scounts, displs, "send", R))))
        return rc;
    struct coll_args a;
    margs(&a, COLL_SCATTER, root, at_root ? vbuf((void *)sendbuf, scounts, displs, st) : nobuf,
          inpl ? in_place() : ebuf(recvbuf, rcount, rt));
    return go_args(c, &a, st, rt, req, R);
}

static int allgather(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, const int *rcounts,
                     const int *displs, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req, bool nb,
                     const char *R)
{
    BEGIN(R, nb, req);
    struct smpi_type *st = NULL, *rt = NULL;
    bool inpl = sendbuf == MPI_IN_PLACE, v = rcounts || displs;
    if (!inpl && (rc = check_data(c, sendbuf, scount, stype, &st, R))) return rc;
    if (v && ((rc = smpi_type_check(c, rtype, R, &rt)) || (rc = check_counts(c, rcounts, displs, "recv", R)))) return rc;
    if (!v && (rc = check_data(c, recvbuf, rcount, rtype, &rt, R))) return rc;
    struct coll_args a;
    margs(&a, COLL_ALLGATHER, 0, inpl ? in_place() : ebuf((void *)sendbuf, scount, st),
          v ? vbuf(recvbuf, rcounts, displs, rt) : ebuf(recvbuf, rcount, rt));
    return go_args(c, &a, st, rt, req, R);
}

static int alltoall(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount, MPI_Datatype rtype,
                    MPI_Comm comm, MPI_Request *req, bool nb, const char *R)
{
    BEGIN(R, nb, req);
    struct smpi_type *st = NULL, *rt = NULL;
    bool inpl = sendbuf == MPI_IN_PLACE;
    if (!inpl && (rc = check_data(c, sendbuf, scount, stype, &st, R))) return rc;
    if ((rc = check_data(c, recvbuf, rcount, rtype, &rt, R))) return rc;
    struct coll_args a;
    margs(&a, COLL_ALLTOALL, 0, inpl ? in_place() : ebuf((void *)sendbuf, scount, st), ebuf(recvbuf, rcount, rt));
    return go_args(c, &a, st, rt, req, R);
}

static int alltoallv(const void *sendbuf, const int *scounts, const int *sdispls, MPI_Datatype stype, void *recvbuf,
                     const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req,
                     bool nb, const char *R)
{
    BEGIN(R, nb, req);
    struct smpi_type *st = NULL, *rt = NULL;
    bool inpl = sendbuf == MPI_IN_PLACE;
    if (!inpl && ((rc = smpi_type_check(c, stype, R, &st)) || (rc = check_counts(c, scounts, sdispls, "send", R))))
        return rc;
    if ((rc = smpi_type_check(c, rtype, R, &rt)) || (rc = check_counts(c, rcounts, rdispls, "recv", R))) return rc;
    struct coll_args a;
    margs(&a, COLL_ALLTOALL, 0, inpl ? in_place() : vbuf((void *)sendbuf, scounts, sdispls, st),
          vbuf(recvbuf, rcounts, rdispls, rt));
    return go_args(c, &a, st, rt, req, R);
}

/* Alltoallw: a datatype per block, displacements in bytes. The engine
 * gets the layouts; the handles are held while the call runs. */
static int alltoallw(const void *sendbuf, const int *scounts, const int *sdispls, const MPI_Datatype *stypes,
                     void *recvbuf, const int *rcounts, const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm,
                     MPI_Request *req, bool nb, const char *R)
{
    BEGIN(R, nb, req);
    int n = c->pt.size;
    bool inpl = sendbuf == MPI_IN_PLACE;
    if (!inpl && (rc = check_counts(c, scounts, sdispls, "send", R))) return rc;
    if ((rc = check_counts(c, rcounts, rdispls, "recv", R))) return rc;
    if ((!inpl && !stypes) || !rtypes) return smpi_error(c, MPI_ERR_TYPE, R, "the array of datatypes is NULL");
    struct call k = { .a = { .kind = COLL_ALLTOALL } };
    k.wtypes = malloc(sizeof *k.wtypes * 2 * (size_t)n);
    k.wheld = malloc(sizeof *k.wheld * 2 * (size_t)n);
    if (!k.wtypes || !k.wheld) {
        call_free(&k, false);
        return smpi_error(c, MPI_ERR_NO_MEM, R, "%d ranks", n);
    }
    for (int s = inpl; s < 2; s++)
        for (int i = 0; i < n; i++) {
            struct smpi_type *t;
            if ((rc = smpi_type_check(c, s ? rtypes[i] : stypes[i], R, &t))) {
                call_free(&k, false);
                return rc;
            }
            k.wtypes[s * n + i] = t->dt, k.wheld[k.nw++] = t;
        }
    k.a.src = inpl ? in_place() : (struct coll_buf){ .base = (void *)sendbuf, .counts = scounts, .displs = sdispls, .types = k.wtypes };
    k.a.dst = (struct coll_buf){ .base = recvbuf, .counts = rcounts, .displs = rdispls, .types = k.wtypes + n };
    return go(c, &k, req, R);
}

/* The blocking and nonblocking entry points. */
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    INTER("MPI_Gather",
          ic_->inter->ops->gather(ic_, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype, root,
          NULL, "MPI_Gather"));
    return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, NULL, false, "MPI_Gather");
}
#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    INTER_NB("MPI_Igather",
          ic_->inter->ops->gather(ic_, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype, root,
          request, "MPI_Igather"));
    return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request, true, "MPI_Igather");
}
#pragma weak MPI_Igather = PMPI_Igather

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    INTER("MPI_Gatherv",
          ic_->inter->ops->gather(ic_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, root,
          NULL, "MPI_Gatherv"));
    return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, NULL, false,
                   "MPI_Gatherv");
}
#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    INTER_NB("MPI_Igatherv",
          ic_->inter->ops->gather(ic_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, root,
          request, "MPI_Igatherv"));
    return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request, true,
                   "MPI_Igatherv");
}
#pragma weak MPI_Igatherv = PMPI_Igatherv

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    INTER("MPI_Scatter",
          ic_->inter->ops->scatter(ic_, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
          NULL, "MPI_Scatter"));
    return scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, NULL, false, "MPI_Scatter");
}
#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    INTER_NB("MPI_Iscatter",
          ic_->inter->ops->scatter(ic_, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
          request, "MPI_Iscatter"));
    return scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request, true,
                   "MPI_Iscatter");
}
#pragma weak MPI_Iscatter = PMPI_Iscatter

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    INTER("MPI_Scatterv",
          ic_->inter->ops->scatter(ic_, sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount, recvtype, root,
          NULL, "MPI_Scatterv"));
    return scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, NULL, false,
                    "MPI_Scatterv");
}
#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    INTER_NB("MPI_Iscatterv",
          ic_->inter->ops->scatter(ic_, sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount, recvtype, root,
          request, "MPI_Iscatterv"));
    return scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request, true,
                    "MPI_Iscatterv");
}
#pragma weak MPI_Iscatterv = PMPI_Iscatterv

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm)
{
    INTER("MPI_Allgather",
          ic_->inter->ops->allgather(ic_, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype, NULL,
          "MPI_Allgather"));
    return allgather(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype, comm, NULL, false,
                     "MPI_Allgather");
}
#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    INTER_NB("MPI_Iallgather",
          ic_->inter->ops->allgather(ic_, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype,
          request, "MPI_Iallgather"));
    return allgather(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype, comm, request, true,
                     "MPI_Iallgather");
}
#pragma weak MPI_Iallgather = PMPI_Iallgather

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    INTER("MPI_Allgatherv",
          ic_->inter->ops->allgather(ic_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, NULL,
          "MPI_Allgatherv"));
    return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, comm, NULL, false,
                     "MPI_Allgatherv");
}
#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    INTER_NB("MPI_Iallgatherv",
          ic_->inter->ops->allgather(ic_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype,
          request, "MPI_Iallgatherv"));
    return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, comm, request, true,
                     "MPI_Iallgatherv");
}
#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    INTER("MPI_Alltoall",
          ic_->inter->ops->alltoall(ic_, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
          recvtype, NULL, "MPI_Alltoall"));
    return alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL, false, "MPI_Alltoall");
}
#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    INTER_NB("MPI_Ialltoall",
          ic_->inter->ops->alltoall(ic_, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
          recvtype, request, "MPI_Ialltoall"));
    return alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, true, "MPI_Ialltoall");
}
#pragma weak MPI_Ialltoall = PMPI_Ialltoall

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    INTER("MPI_Alltoallv",
          ic_->inter->ops->alltoall(ic_, sendbuf, sendcounts, sdispls, 0, sendtype, recvbuf, recvcounts, rdispls, 0,
          recvtype, NULL, "MPI_Alltoallv"));
    return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, NULL, false,
                     "MPI_Alltoallv");
}
#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    INTER_NB("MPI_Ialltoallv",
          ic_->inter->ops->alltoall(ic_, sendbuf, sendcounts, sdispls, 0, sendtype, recvbuf, recvcounts, rdispls, 0,
          recvtype, request, "MPI_Ialltoallv"));
    return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request,
                     true, "MPI_Ialltoallv");
}
#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm)
{
    INTER("MPI_Alltoallw",
          ic_->inter->ops->alltoallw(ic_, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
          recvtypes, true, NULL, "MPI_Alltoallw"));
    return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, NULL,
                     false, "MPI_Alltoallw");
}
#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                    void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                    MPI_Comm comm, MPI_Request *request)
{
    INTER_NB("MPI_Ialltoallw",
          ic_->inter->ops->alltoallw(ic_, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
          recvtypes, true, request, "MPI_Ialltoallw"));
    return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request,
                     true, "MPI_Ialltoallw");
}
#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
