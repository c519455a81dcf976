/* Neighbourhood collectives (MPI 3.1 §7.6), blocking and nonblocking: one
 * composite request (request.c) of a receive from every source and a send
 * to every destination of the communicator's topology, on its collective
 * context, any datatype travelling as the point-to-point engine moves it
 * (large blocks once, from the sender's buffer into the receiver's). The
 * blocking forms wait for that request. MPI_PROC_NULL neighbours (edges of
 * a non-periodic grid) are skipped, their blocks left alone.
 *
 * Matching: blocks between two ranks pair in the order the two lists give
 * them (one tag, the engine keeps order). A Cartesian grid's blocks carry
 * their direction instead: what a rank sends downwards (its block 2d)
 * arrives at the neighbour below as the block from above (2d + 1), and the
 * other way round (MPI 4.0's errata to 3.1, mpi-forum/mpi-issues#153);
 * when a periodic dimension of 1 or 2 ranks makes both neighbours one
 * rank, only the tag tells the two blocks apart. */
#include <stdlib.h>
#include <string.h>

#include "sm_core.h"
#include "smpi.h"

static inline int tag_out(const struct smpi_topo *t, int j)
{
    return t->kind == MPI_CART ? SMPI_TAG_NEIGHBOR - j : SMPI_TAG_NEIGHBOR;
}
static inline int tag_in(const struct smpi_topo *t, int j)
{
    return t->kind == MPI_CART ? SMPI_TAG_NEIGHBOR - (j ^ 1) : SMPI_TAG_NEIGHBOR;
}

/* Where the blocks of one side are: block j has counts[j] (or count)
 * elements of types[j] (or type) at buf plus bdispls[j] bytes, displs[j]
 * extents, or (neither) j blocks further; same: every block is the first. */
struct side {
    char *buf;
    int count;
    const int *counts;
    const int *displs;
    const MPI_Aint *bdispls;
    MPI_Datatype type;
    const MPI_Datatype *types;
    bool w;                              /* types, bdispls: MPI_Neighbor_alltoallw */
    bool same;
    const char *name;                    /* "send" or "receive", for messages */
};

static void block(const struct side *s, int j, void **addr, int *count, struct smpi_type **t)
{
    *count = s->counts ? s->counts[j] : s->count;
    *t = smpi_type(s->types ? s->types[j] : s->type);
    ptrdiff_t off = s->bdispls ? s->bdispls[j]
                  : s->displs ? (ptrdiff_t)s->displs[j] * smpi_extent(*t)
                  : s->same ? 0 : (ptrdiff_t)j * *count * smpi_extent(*t);
    *addr = s->buf + off;
}

/* Check one side's n blocks. */
static int check_side(struct smpi_comm *c, const struct side *s, int n, const char *R)
{
    struct smpi_type *t = NULL;
    int rc;
    if (s->buf == MPI_IN_PLACE)
        return smpi_error(c, MPI_ERR_BUFFER, R, "MPI_IN_PLACE is not allowed in a neighbourhood collective");
    if (!s->w && (rc = smpi_type_check(c, s->type, R, &t))) return rc;
    for (int j = 0; j < (s->counts ? n : 1); j++) {   /* each block with its own count, or the one count */
        int count = s->counts ? s->counts[j] : s->count;
        if (s->w && (rc = smpi_type_check(c, s->types[j], R, &t))) return rc;
        if (count < 0)
            return smpi_error(c, MPI_ERR_COUNT, R, "%s count %d%s is negative", s->name, count,
                              s->counts ? " (a neighbour's)" : "");
        /* (with byte displacements the buffer may be MPI_BOTTOM) */
        if (!s->buf && !s->w && n && count > 0 && t->dt->size && t->id)
            return smpi_error(c, MPI_ERR_BUFFER, R, "%s buffer is NULL with count %d", s->name, count);
    }
    return MPI_SUCCESS;
}

static __attribute__((noinline, cold)) int failed(struct smpi_comm *c, struct smpi_request *q, sm_status_t st,
                                                  const char *R)
{
    const char *why = p2p_done(&q->p) && q->p.why ? q->p.why : sm_fail_reason();
    int rc = smpi_error(c, smpi_class_of(st), R, "%s", why);
    smpi_request_release(q);
    return rc;
}

/* Start one part of q: a receive (recv) or a send of block j of s with peer. */
static sm_status_t part(struct smpi_request *q, const struct side *s, int j, int peer, int tag, bool recv)
{
    void *addr, *b;
    int count;
    struct smpi_type *t;
    block(s, j, &addr, &count, &t);
    const struct dt_type *type = smpi_engine_view(addr, count, t, &b);
    size_t len = (size_t)count * t->dt->size;
    struct p2p_req *r = p2p_req_alloc();
    if (!r) return SM_ERR_NOMEM;
    const struct p2p_comm *pc = &q->comm->co;
    sm_status_t st = recv ? p2p_irecv(r, b, len, peer, tag, pc, type)
                          : p2p_isend(r, b, len, peer, tag, pc, P2P_STANDARD, type);
    if (st) p2p_req_free(r);
    else smpi_request_add(q, r);
    return st;
}

/* The exchange itself, on checked arguments: request NULL for the blocking form. */
static int exchange(struct smpi_comm *c, const struct side *snd, const struct side *rcv, MPI_Request *request,
                    const char *R)
{
    const struct smpi_topo *t = c->topo;
    struct smpi_request *q = smpi_request_composite(c, t->indeg + t->outdeg);
    if (!q) return smpi_error(c, MPI_ERR_NO_MEM, R, "%s", sm_fail_reason());
    sm_status_t st = SM_OK;
    for (int j = 0; j < t->indeg && !st; j++)      /* receives first: large blocks need not wait aside */
        if (t->in[j] != MPI_PROC_NULL) st = part(q, rcv, j, t->in[j], tag_in(t, j), true);
    for (int j = 0; j < t->outdeg && !st; j++)
        if (t->out[j] != MPI_PROC_NULL) st = part(q, snd, j, t->out[j], tag_out(t, j), false);
    if (!st && request) {
        *request = q;
        return MPI_SUCCESS;
    }
    if (!st) st = smpi_req_wait(q);
    if (st) return failed(c, q, st, R);
    smpi_request_release(q);
    return MPI_SUCCESS;
}

/* The topology's in- and out-degree, or an error when comm has none. */
#define BEGIN(R) \
    SMPI_CHECK_INIT(R); \
    SMPI_GET_COMM(c, comm, R); \
    if (!c->topo) return smpi_error(c, MPI_ERR_TOPOLOGY, R, "%s has no process topology", \
                                    c->name[0] ? c->name : "the communicator"); \
    int rc, nin = c->topo->indeg, nout = c->topo->outdeg

static int check_request(struct smpi_comm *c, MPI_Request *request, bool nonblocking, const char *R)
{
    return !nonblocking || request ? MPI_SUCCESS : smpi_error(c, MPI_ERR_REQUEST, R, "request pointer is NULL");
}

static int allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, bool v, MPI_Comm comm,
                     MPI_Request *request, bool nonblocking, const char *R)
{
    BEGIN(R);
    struct side s = { .buf = (char *)sendbuf, .count = sendcount, .type = sendtype, .same = true, .name = "send" };
    struct side r = { .buf = recvbuf, .count = recvcount, .counts = recvcounts, .displs = displs, .type = recvtype,
                      .name = "receive" };
    if (v && nin && (!recvcounts || !displs)) return smpi_error(c, MPI_ERR_ARG, R, "recvcounts or displs is NULL");
    if ((rc = check_request(c, request, nonblocking, R)) || (rc = check_side(c, &s, nout, R)) ||
        (rc = check_side(c, &r, nin, R)))
        return rc;
    return exchange(c, &s, &r, nonblocking ? request : NULL, R);
}

enum form { PLAIN, V, W };
static int alltoall(const void *sendbuf, int sendcount, const int sendcounts[], const int sdispls[],
                    const MPI_Aint sbdispls[], MPI_Datatype sendtype, const MPI_Datatype sendtypes[], void *recvbuf,
                    int recvcount, const int recvcounts[], const int rdispls[], const MPI_Aint rbdispls[],
                    MPI_Datatype recvtype, const MPI_Datatype recvtypes[], enum form f, MPI_Comm comm,
                    MPI_Request *request, bool nonblocking, const char *R)
{
    BEGIN(R);
    struct side s = { .buf = (char *)sendbuf, .count = sendcount, .counts = sendcounts, .displs = sdispls,
                      .bdispls = sbdispls, .type = sendtype, .types = sendtypes, .w = f == W, .name = "send" };
    struct side r = { .buf = recvbuf, .count = recvcount, .counts = recvcounts, .displs = rdispls,
                      .bdispls = rbdispls, .type = recvtype, .types = recvtypes, .w = f == W, .name = "receive" };
    if (f != PLAIN && ((nout && (!sendcounts || !(sdispls || sbdispls))) ||
                       (nin && (!recvcounts || !(rdispls || rbdispls)))))
        return smpi_error(c, MPI_ERR_ARG, R, "an array of counts or displacements is NULL");
    if (f == W && ((nout && !sendtypes) || (nin && !recvtypes)))
        return smpi_error(c, MPI_ERR_ARG, R, "an array of datatypes is NULL");
    if ((rc = check_request(c, request, nonblocking, R)) || (rc = check_side(c, &s, nout, R)) ||
        (rc = check_side(c, &r, nin, R)))
        return rc;
    return exchange(c, &s, &r, nonblocking ? request : NULL, R);
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, false, comm, NULL, false,
                     "MPI_Neighbor_allgather");
}
#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype, false, comm, request, true,
                     "MPI_Ineighbor_allgather");
}
#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, true, comm, NULL, false,
                     "MPI_Neighbor_allgatherv");
}
#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request *request)
{
    return allgather(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, true, comm, request, true,
                     "MPI_Ineighbor_allgatherv");
}
#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall(sendbuf, sendcount, NULL, NULL, NULL, sendtype, NULL, recvbuf, recvcount, NULL, NULL, NULL,
                    recvtype, NULL, PLAIN, comm, NULL, false, "MPI_Neighbor_alltoall");
}
#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return alltoall(sendbuf, sendcount, NULL, NULL, NULL, sendtype, NULL, recvbuf, recvcount, NULL, NULL, NULL,
                    recvtype, NULL, PLAIN, comm, request, true, "MPI_Ineighbor_alltoall");
}
#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    return alltoall(sendbuf, 0, sendcounts, sdispls, NULL, sendtype, NULL, recvbuf, 0, recvcounts, rdispls, NULL,
                    recvtype, NULL, V, comm, NULL, false, "MPI_Neighbor_alltoallv");
}
#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request)
{
    return alltoall(sendbuf, 0, sendcounts, sdispls, NULL, sendtype, NULL, recvbuf, 0, recvcounts, rdispls, NULL,
                    recvtype, NULL, V, comm, request, true, "MPI_Ineighbor_alltoallv");
}
#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoall(sendbuf, 0, sendcounts, NULL, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts, NULL,
                    rdispls, MPI_DATATYPE_NULL, recvtypes, W, comm, NULL, false, "MPI_Neighbor_alltoallw");
}
#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request)
{
    return alltoall(sendbuf, 0, sendcounts, NULL, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts, NULL,
                    rdispls, MPI_DATATYPE_NULL, recvtypes, W, comm, request, true, "MPI_Ineighbor_alltoallw");
}
#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
