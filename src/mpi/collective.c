/* Collective bindings: argument checks, MPI_IN_PLACE, packing of
 * non-contiguous datatypes, then one call into the collective engine
 * (src/coll): in place on the communicator's group for the barrier,
 * broadcast, allgather, alltoall and reductions with predefined operations;
 * on point-to-point for the rest. */
#include <stdlib.h>
#include <string.h>

#include "sm_core.h"
#include "smpi.h"

static int check_root(struct smpi_comm *c, int root, const char *R)
{
    if (root < 0 || root >= c->pt.size)
        return smpi_error(c, MPI_ERR_ROOT, R, "root %d not in [0, %d)", root, c->pt.size);
    return MPI_SUCCESS;
}

static int check_data(struct smpi_comm *c, const void *buf, int count, MPI_Datatype type,
                      struct smpi_type **t, const char *R)
{
    int rc = smpi_type_check(c, type, R, t);
    if (rc) return rc;
    if (count < 0) return smpi_error(c, MPI_ERR_COUNT, R, "count %d is negative", count);
    if (!buf && count > 0 && (*t)->dt->size && (*t)->id)
        return smpi_error(c, MPI_ERR_BUFFER, R, "buffer is NULL with count %d", count);
    return MPI_SUCCESS;
}

#define BEGIN(R) SMPI_CHECK_INIT(R); SMPI_GET_COMM(c, comm, R); int rc

/* On an intercommunicator (ic_ in call), the collective is inter.c's. */
#define INTER(R, call) do { struct smpi_comm *ic_ = smpi_comm(comm); \
    if (ic_ && ic_->inter) { SMPI_CHECK_INIT(R); return call; } } while (0)
#define NOT_INTER(R) do { struct smpi_comm *ic_ = smpi_comm(comm); if (ic_ && ic_->inter) \
    return smpi_error(ic_, MPI_ERR_COMM, R, "not defined on an intercommunicator (%s)", ic_->name); } while (0)

/* An engine's status as an MPI error (naming the routine and the reason). */
static int status(struct smpi_comm *c, sm_status_t st, const char *R)
{
    if (SM_LIKELY(st == SM_OK)) return MPI_SUCCESS;
    /* ranks that disagree on sizes: as a message longer than its buffer */
    int cls = st == SM_ERR_MISMATCH ? MPI_ERR_TRUNCATE : smpi_class_of(st);
    return smpi_error(c, cls, R, "%s", sm_fail_reason());
}

int PMPI_Barrier(MPI_Comm comm)
{
    INTER("MPI_Barrier", ic_->inter->ops->barrier(ic_, "MPI_Barrier"));
    BEGIN("MPI_Barrier");
    (void)rc;
    return status(c, coll_barrier(&c->cg), "MPI_Barrier");
}
#pragma weak MPI_Barrier = PMPI_Barrier

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    INTER("MPI_Bcast", ic_->inter->ops->bcast(ic_, buffer, count, datatype, root, "MPI_Bcast"));
    static const char R[] = "MPI_Bcast";
    BEGIN(R);
    struct smpi_type *t;
    if ((rc = check_data(c, buffer, count, datatype, &t, R)) || (rc = check_root(c, root, R))) return rc;
    void *tmp, *b = smpi_contig_buf(buffer, count, t, c->pt.rank == root, &tmp);
    rc = status(c, coll_bcast(&c->cg, b, b, (size_t)count * t->dt->size, root), R);
    if (tmp) {
        if (c->pt.rank != root && !rc) smpi_unpack(tmp, count, t, buffer);
        free(tmp);
    }
    return rc;
}
#pragma weak MPI_Bcast = PMPI_Bcast

/* Predefined operations work on arrays of the basic elements in C layout
 * (the pair types with their padding): the buffer itself for a predefined
 * type, else a scratch copy (*tmp) that `elements_back` returns. */
static void *elements(const void *buf, int count, const struct smpi_type *t, bool fill, void **tmp)
{
    *tmp = NULL;
    if (t->id) return (void *)buf;
    const struct smpi_type *b = &smpi_types[t->dt->basic];
    void *packed = smpi_contig_buf((void *)buf, count, t, fill, tmp);
    if ((ptrdiff_t)b->dt->size == smpi_extent(b)) return packed;   /* packed is C layout already */
    size_t n = (size_t)count * t->dt->nbasic;
    void *el = malloc(n * (size_t)smpi_extent(b) + 1);
    if (!el) sm_fatal("MPI: out of memory for %zu elements", n);
    if (fill) smpi_unpack(packed, (int)n, b, el);      /* spread each element over its padding */
    free(*tmp);
    return *tmp = el;
}
static void elements_back(const void *el, int count, const struct smpi_type *t, void *buf)
{
    const struct smpi_type *b = &smpi_types[t->dt->basic];
    void *packed = (void *)el;
    if ((ptrdiff_t)b->dt->size != smpi_extent(b)) {
        size_t n = (size_t)count * t->dt->nbasic;
        if (!(packed = malloc(n * b->dt->size + 1))) sm_fatal("MPI: out of memory for %zu elements", n);
        smpi_pack(el, (int)n, b, packed);
    }
    smpi_unpack(packed, count, t, buf);
    if (packed != el) free(packed);
}

/* Copy the bytes of count elements of t from src to dst, leaving the holes. */
static void copy_typemap(void *dst, const void *src, int count, const struct smpi_type *t)
{
    dt_copy(dst, t->dt, src, t->dt, 0, (size_t)count * t->dt->size);
}

enum { ALL = -1, SCAN = -2, EXSCAN = -3 };   /* reduce's root argument for the others */
static int reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  int root, MPI_Comm comm, const char *R)
{
    BEGIN(R);
    struct smpi_type *t;
    bool all = root < 0, at_root = all || c->pt.rank == root;
    if (!all && (rc = check_root(c, root, R))) return rc;
    if ((rc = check_data(c, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, datatype, &t, R))) return rc;
    if (at_root && (rc = check_data(c, recvbuf, count, datatype, &t, R))) return rc;
    if (sendbuf == MPI_IN_PLACE && !at_root)
        return smpi_error(c, MPI_ERR_BUFFER, R, "MPI_IN_PLACE is only for the root");
    struct smpi_red o;
    if ((rc = smpi_op_prepare(c, op, datatype, t, R, &o))) return rc;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    bool user = !o.predefined;           /* user functions see the datatype's own layout */
    size_t n = user ? (size_t)count : (size_t)count * t->dt->nbasic;
    void *stmp = NULL, *rtmp = NULL, *out = recvbuf;
    /* A user function on a type with holes (or a lower bound) works on whole
     * extents: they travel as they are, the result lands in a scratch copy
     * and only the typemap's bytes reach recvbuf. */
    bool raw = user && !(smpi_contig(t) && !t->dt->true_lb && !t->dt->lb);
    if (raw) {
        size_t span = (size_t)count * (size_t)smpi_extent(t);
        in = (const char *)in + t->dt->lb;
        if (at_root && !(rtmp = malloc(span + 1))) return smpi_error(c, MPI_ERR_NO_MEM, R, "%zu bytes", span);
        out = rtmp;
    } else if (!user) {
        in = elements(in, count, t, true, &stmp);
        if (at_root) out = elements(recvbuf, count, t, false, &rtmp);
    }
    sm_status_t st;
    if (root == SCAN || root == EXSCAN) st = coll_p2p_scan(in, out, n, &o.fn, root == EXSCAN, &c->co);
    else if (!user) st = coll_reduce(&c->cg, out, in, n, o.type, o.op, all ? COLL_ALL : root);
    else if (all) st = coll_p2p_allreduce(in, out, n, &o.fn, &c->co);
    else st = coll_p2p_reduce(in, out, n, &o.fn, root, &c->co);
    rc = status(c, st, R);
    if (rtmp && !rc && !(root == EXSCAN && c->pt.rank == 0)) {  /* Exscan leaves rank 0's recvbuf alone */
        if (raw) copy_typemap(recvbuf, (char *)rtmp - t->dt->lb, count, t);
        else elements_back(rtmp, count, t, recvbuf);
    }
    free(stmp);
    free(rtmp);
    return rc;
}

/* The reduction on local buffers only (no communication, no communicator). */
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    static const char R[] = "MPI_Reduce_local";
    SMPI_CHECK_INIT(R);
    struct smpi_type *t;
    int rc;
    if ((rc = check_data(NULL, inbuf, count, datatype, &t, R)) || (rc = check_data(NULL, inoutbuf, count, datatype, &t, R)))
        return rc;
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return smpi_error(NULL, MPI_ERR_BUFFER, R, "MPI_IN_PLACE is not allowed here");
    struct smpi_red o;
    if ((rc = smpi_op_prepare(NULL, op, datatype, t, R, &o))) return rc;
    bool user = !o.predefined;
    size_t n = user ? (size_t)count : (size_t)count * t->dt->nbasic;
    void *itmp = NULL, *otmp = NULL;
    const void *in = inbuf;
    void *out = inoutbuf;
    if (user) {                          /* the function sees the buffers as they are */
        in = (const char *)inbuf + t->dt->lb;
        out = (char *)inoutbuf + t->dt->lb;
    } else {                             /* arrays of the element type, as in reduce */
        in = elements(inbuf, count, t, true, &itmp);
        out = elements(inoutbuf, count, t, true, &otmp);
    }
    if (n) o.fn.fn(in, out, n, o.fn.ctx);
    if (otmp) elements_back(otmp, count, t, inoutbuf);
    free(itmp);
    free(otmp);
    return MPI_SUCCESS;
}
#pragma weak MPI_Reduce_local = PMPI_Reduce_local

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm)
{
    INTER("MPI_Reduce", ic_->inter->ops->reduce(ic_, sendbuf, recvbuf, count, datatype, op, root, "MPI_Reduce"));
    if (root < 0) {
        SMPI_GET_COMM(c, comm, "MPI_Reduce");
        return check_root(c, root, "MPI_Reduce");
    }
    return reduce(sendbuf, recvbuf, count, datatype, op, root, comm, "MPI_Reduce");
}
#pragma weak MPI_Reduce = PMPI_Reduce

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    INTER("MPI_Allreduce", ic_->inter->ops->allreduce(ic_, sendbuf, recvbuf, count, datatype, op, "MPI_Allreduce"));
    return reduce(sendbuf, recvbuf, count, datatype, op, ALL, comm, "MPI_Allreduce");
}
#pragma weak MPI_Allreduce = PMPI_Allreduce

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    NOT_INTER("MPI_Scan");
    return reduce(sendbuf, recvbuf, count, datatype, op, SCAN, comm, "MPI_Scan");
}
#pragma weak MPI_Scan = PMPI_Scan

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    NOT_INTER("MPI_Exscan");
    return reduce(sendbuf, recvbuf, count, datatype, op, EXSCAN, comm, "MPI_Exscan");
}
#pragma weak MPI_Exscan = PMPI_Exscan

/* Reduce the whole vector at rank 0, then hand out rank i's recvcounts[i]
 * elements (MPI_IN_PLACE: the input is the whole vector in recvbuf). */
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm)
{
    INTER("MPI_Reduce_scatter",
          ic_->inter->ops->reduce_scatter(ic_, sendbuf, recvbuf, recvcounts, 0, datatype, op, "MPI_Reduce_scatter"));
    static const char R[] = "MPI_Reduce_scatter";
    BEGIN(R);
    struct smpi_type *t;
    int n = c->pt.size;
    if (!recvcounts) return smpi_error(c, MPI_ERR_ARG, R, "recvcounts is NULL");
    if ((rc = check_data(c, recvbuf, recvcounts[c->pt.rank], datatype, &t, R))) return rc;
    int *displs = malloc(sizeof(int) * (size_t)n), total = 0;
    if (!displs) return smpi_error(c, MPI_ERR_NO_MEM, R, "%d ranks", n);
    for (int i = 0; i < n; i++) {
        if (recvcounts[i] < 0) {
            free(displs);
            return smpi_error(c, MPI_ERR_COUNT, R, "recvcounts[%d] = %d is negative", i, recvcounts[i]);
        }
        displs[i] = total, total += recvcounts[i];
    }
    size_t bytes = (size_t)total * (size_t)smpi_extent(t);
    void *whole = malloc(bytes ? bytes : 1);
    if (!whole) { free(displs); return smpi_error(c, MPI_ERR_NO_MEM, R, "%zu bytes", bytes); }
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if ((rc = reduce(in, whole, total, datatype, op, 0, comm, R)) == MPI_SUCCESS)
        rc = PMPI_Scatterv(whole, recvcounts, displs, datatype, recvbuf, recvcounts[c->pt.rank], datatype, 0, comm);
    free(whole);
    free(displs);
    return rc;
}
#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm)
{
    INTER("MPI_Reduce_scatter_block",
          ic_->inter->ops->reduce_scatter(ic_, sendbuf, recvbuf, NULL, recvcount, datatype, op,
          "MPI_Reduce_scatter_block"));
    static const char R[] = "MPI_Reduce_scatter_block";
    BEGIN(R);
    struct smpi_type *t;
    if ((rc = check_data(c, recvbuf, recvcount, datatype, &t, R))) return rc;
    /* reduce the whole vector at rank 0, then hand out the blocks */
    int n = c->pt.size;
    size_t bytes = (size_t)recvcount * (size_t)n * (size_t)smpi_extent(t);
    void *whole = malloc(bytes ? bytes : 1);
    if (!whole) return smpi_error(c, MPI_ERR_NO_MEM, R, "%zu bytes", bytes);
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if ((rc = reduce(in, whole, recvcount * n, datatype, op, 0, comm, R)) == MPI_SUCCESS)
        rc = PMPI_Scatter(whole, recvcount, datatype, recvbuf, recvcount, datatype, 0, comm);
    free(whole);
    return rc;
}
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block

/* The rooted and all-to-all data movers share one shape: per-rank blocks of
 * len bytes, the sent and received type signatures must agree. */
enum mover { GATHER, SCATTER, ALLGATHER, ALLTOALL };

static int move(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm, enum mover kind, const char *R)
{
    BEGIN(R);
    int n = c->pt.size, me = c->pt.rank;
    bool rooted = kind == GATHER || kind == SCATTER, at_root = !rooted || me == root;
    if (rooted && (rc = check_root(c, root, R))) return rc;
    bool send_side = kind != SCATTER || at_root, recv_side = kind != GATHER || at_root;
    /* MPI_IN_PLACE: the root's recvbuf for Scatter (its block stays in sendbuf),
     * else sendbuf, and then the data to send already sits in recvbuf. */
    bool in_place = kind == SCATTER ? recvbuf == MPI_IN_PLACE : sendbuf == MPI_IN_PLACE;
    if (in_place && rooted && !at_root) return smpi_error(c, MPI_ERR_BUFFER, R, "MPI_IN_PLACE is only for the root");
    if (in_place && kind == SCATTER) recv_side = false;
    bool send_from_recv = in_place && kind != SCATTER;
    struct smpi_type *st = NULL, *rt = NULL;
    if ((recv_side || send_from_recv) && (rc = check_data(c, recvbuf, rcount, rtype, &rt, R))) return rc;
    if (send_side && !send_from_recv && (rc = check_data(c, sendbuf, scount, stype, &st, R))) return rc;
    int per_s = kind == ALLTOALL || kind == SCATTER ? n : 1;     /* blocks in the send buffer */
    int per_r = kind == SCATTER ? 1 : n;                           /* blocks in the receive buffer */
    size_t len = st ? (size_t)scount * st->dt->size : (size_t)rcount * rt->dt->size;
    if (st && rt && (size_t)rcount * rt->dt->size != len)
        return smpi_error(c, MPI_ERR_TRUNCATE, R, "%zu bytes sent per rank but %zu expected",
                          len, (size_t)rcount * rt->dt->size);
    void *stmp = NULL, *rtmp = NULL;
    const void *in = NULL;
    void *out = NULL;
    if (recv_side) out = smpi_contig_buf(recvbuf, rcount * per_r, rt, send_from_recv, &rtmp);
    if (send_from_recv) {
        if (kind == ALLTOALL) {                     /* recvbuf is overwritten: send from a copy */
            if (!(stmp = malloc(len * (size_t)n + 1))) return smpi_error(c, MPI_ERR_NO_MEM, R, "%zu bytes", len);
            memcpy(stmp, out, len * (size_t)n);
            in = stmp;
        } else in = (char *)out + (size_t)me * len;
    } else if (send_side) in = smpi_contig_buf((void *)sendbuf, scount * per_s, st, true, &stmp);
    if (in_place && kind == SCATTER) out = (char *)in + (size_t)me * len;
    sm_status_t e = SM_OK;
    switch (kind) {
    case GATHER: e = coll_p2p_gather(in, out, len, root, &c->co); break;
    case SCATTER: e = coll_p2p_scatter(in, out, len, root, &c->co); break;
    case ALLGATHER: e = coll_allgather(&c->cg, out, in, len); break;
    case ALLTOALL: e = coll_alltoall(&c->cg, out, in, len); break;
    }
    rc = status(c, e, R);
    if (rtmp && !rc) smpi_unpack(rtmp, rcount * per_r, rt, recvbuf);
    free(stmp);
    free(rtmp);
    return rc;
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    INTER("MPI_Gather",
          ic_->inter->ops->gather(ic_, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype, root,
          "MPI_Gather"));
    return move(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, GATHER, "MPI_Gather");
}
#pragma weak MPI_Gather = PMPI_Gather

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    INTER("MPI_Scatter",
          ic_->inter->ops->scatter(ic_, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
          "MPI_Scatter"));
    return move(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, SCATTER, "MPI_Scatter");
}
#pragma weak MPI_Scatter = PMPI_Scatter

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm)
{
    INTER("MPI_Allgather",
          ic_->inter->ops->allgather(ic_, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype,
          "MPI_Allgather"));
    return move(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, ALLGATHER, "MPI_Allgather");
}
#pragma weak MPI_Allgather = PMPI_Allgather

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    INTER("MPI_Alltoall",
          ic_->inter->ops->alltoall(ic_, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
          recvtype, "MPI_Alltoall"));
    return move(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, ALLTOALL, "MPI_Alltoall");
}
#pragma weak MPI_Alltoall = PMPI_Alltoall

/* --- The v-variants ----------------------------------------------------------
 * A vector of per-rank blocks (counts[i] elements at displs[i] extents) as
 * byte lengths and displacements: the buffer itself for contiguous types,
 * else the blocks packed one after the other in a scratch buffer. */
struct vbuf { char *base; size_t *len, *disp; void *tmp; const int *counts, *displs; struct smpi_type *t; };

static int vview(struct smpi_comm *c, void *buf, const int *counts, const int *displs, MPI_Datatype type,
                 bool pack, struct vbuf *v, const char *R)
{
    int n = c->pt.size, rc;
    memset(v, 0, sizeof *v);
    if ((rc = smpi_type_check(c, type, R, &v->t))) return rc;
    if (!counts || !displs) return smpi_error(c, MPI_ERR_ARG, R, "counts or displacements are NULL");
    for (int i = 0; i < n; i++)
        if (counts[i] < 0) return smpi_error(c, MPI_ERR_COUNT, R, "count[%d] = %d is negative", i, counts[i]);
    v->len = malloc(2 * sizeof(size_t) * (size_t)n);
    if (!v->len) return smpi_error(c, MPI_ERR_NO_MEM, R, "%d ranks", n);
    v->disp = v->len + n, v->counts = counts, v->displs = displs;
    ptrdiff_t ext = smpi_extent(v->t);
    size_t total = 0;
    for (int i = 0; i < n; i++) v->len[i] = (size_t)counts[i] * v->t->dt->size, total += v->len[i];
    if (smpi_contig(v->t)) {
        ptrdiff_t off0 = v->t->dt->true_lb;
        /* displacements may be negative: bytes are counted from the lowest */
        ptrdiff_t lo = 0;
        for (int i = 0; i < n; i++) if (displs[i] * ext + off0 < lo) lo = displs[i] * ext + off0;
        v->base = (char *)buf + lo;
        for (int i = 0; i < n; i++) v->disp[i] = (size_t)(displs[i] * ext + off0 - lo);
        return MPI_SUCCESS;
    }
    if (!(v->tmp = malloc(total + 1))) { free(v->len); return smpi_error(c, MPI_ERR_NO_MEM, R, "%zu bytes", total); }
    v->base = v->tmp;
    for (int i = 0, at = 0; i < n; at += (int)v->len[i], i++) {
        v->disp[i] = (size_t)at;
        if (pack) smpi_pack((char *)buf + displs[i] * ext, counts[i], v->t, v->base + at);
    }
    return MPI_SUCCESS;
}

static void vdone(struct vbuf *v, void *buf, bool unpack, int n)
{
    if (v->tmp && unpack)
        for (int i = 0; i < n; i++)
            smpi_unpack(v->base + v->disp[i], v->counts[i], v->t, (char *)buf + v->displs[i] * smpi_extent(v->t));
    free(v->tmp);
    free(v->len);
}

/* One block, as in the non-v calls. */
static int view1(struct smpi_comm *c, const void *buf, int count, MPI_Datatype type, bool pack, void **tmp,
                 const void **out, size_t *len, const char *R)
{
    struct smpi_type *t;
    int rc = check_data(c, buf, count, type, &t, R);
    if (rc) return rc;
    *out = smpi_contig_buf((void *)buf, count, t, pack, tmp);
    *len = (size_t)count * t->dt->size;
    return MPI_SUCCESS;
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    INTER("MPI_Gatherv",
          ic_->inter->ops->gather(ic_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, root,
          "MPI_Gatherv"));
    static const char R[] = "MPI_Gatherv";
    BEGIN(R);
    if ((rc = check_root(c, root, R))) return rc;
    bool at_root = c->pt.rank == root, in_place = sendbuf == MPI_IN_PLACE;
    if (in_place && !at_root) return smpi_error(c, MPI_ERR_BUFFER, R, "MPI_IN_PLACE is only for the root");
    struct vbuf v = { 0 };
    if (at_root && (rc = vview(c, recvbuf, recvcounts, displs, recvtype, in_place, &v, R))) return rc;
    void *stmp = NULL;
    const void *in;
    size_t slen;
    if (in_place) in = v.base + v.disp[root], slen = v.len[root];
    else if ((rc = view1(c, sendbuf, sendcount, sendtype, true, &stmp, &in, &slen, R))) { if (at_root) vdone(&v, recvbuf, false, 0); return rc; }
    rc = status(c, coll_p2p_gatherv(in, slen, v.base, v.len, v.disp, root, &c->co), R);
    if (at_root) vdone(&v, recvbuf, !rc, c->pt.size);
    free(stmp);
    return rc;
}
#pragma weak MPI_Gatherv = PMPI_Gatherv

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    INTER("MPI_Scatterv",
          ic_->inter->ops->scatter(ic_, sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount, recvtype, root,
          "MPI_Scatterv"));
    static const char R[] = "MPI_Scatterv";
    BEGIN(R);
    if ((rc = check_root(c, root, R))) return rc;
    bool at_root = c->pt.rank == root, in_place = recvbuf == MPI_IN_PLACE;
    if (in_place && !at_root) return smpi_error(c, MPI_ERR_BUFFER, R, "MPI_IN_PLACE is only for the root");
    struct vbuf v = { 0 };
    if (at_root && (rc = vview(c, (void *)sendbuf, sendcounts, displs, sendtype, true, &v, R))) return rc;
    void *rtmp = NULL;
    const void *out;
    size_t rlen;
    if (in_place) out = v.base + v.disp[root], rlen = v.len[root];
    else if ((rc = view1(c, recvbuf, recvcount, recvtype, false, &rtmp, &out, &rlen, R))) { if (at_root) vdone(&v, NULL, false, 0); return rc; }
    rc = status(c, coll_p2p_scatterv(v.base, v.len, v.disp, (void *)out, rlen, root, &c->co), R);
    if (rtmp) {
        if (!rc) smpi_unpack(rtmp, recvcount, smpi_type(recvtype), recvbuf);
        free(rtmp);
    }
    if (at_root) vdone(&v, NULL, false, 0);
    return rc;
}
#pragma weak MPI_Scatterv = PMPI_Scatterv

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    INTER("MPI_Allgatherv",
          ic_->inter->ops->allgather(ic_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype,
          "MPI_Allgatherv"));
    static const char R[] = "MPI_Allgatherv";
    BEGIN(R);
    bool in_place = sendbuf == MPI_IN_PLACE;
    struct vbuf v;
    if ((rc = vview(c, recvbuf, recvcounts, displs, recvtype, in_place, &v, R))) return rc;
    void *stmp = NULL;
    const void *in;
    size_t slen;
    int me = c->pt.rank;
    if (in_place) in = v.base + v.disp[me], slen = v.len[me];
    else if ((rc = view1(c, sendbuf, sendcount, sendtype, true, &stmp, &in, &slen, R))) { vdone(&v, recvbuf, false, 0); return rc; }
    if (slen != v.len[me]) {
        vdone(&v, recvbuf, false, 0);
        free(stmp);
        return smpi_error(c, MPI_ERR_TRUNCATE, R, "%zu bytes sent but %zu expected", slen, v.len[me]);
    }
    rc = status(c, coll_p2p_allgatherv(in, slen, v.base, v.len, v.disp, &c->co), R);
    vdone(&v, recvbuf, !rc, c->pt.size);
    free(stmp);
    return rc;
}
#pragma weak MPI_Allgatherv = PMPI_Allgatherv

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    INTER("MPI_Alltoallv",
          ic_->inter->ops->alltoall(ic_, sendbuf, sendcounts, sdispls, 0, sendtype, recvbuf, recvcounts, rdispls, 0,
          recvtype, "MPI_Alltoallv"));
    static const char R[] = "MPI_Alltoallv";
    BEGIN(R);
    bool in_place = sendbuf == MPI_IN_PLACE;
    struct vbuf sv, rv;
    if ((rc = vview(c, recvbuf, recvcounts, rdispls, recvtype, in_place, &rv, R))) return rc;
    if (in_place) {                      /* send what recvbuf holds, from a copy */
        if ((rc = vview(c, recvbuf, recvcounts, rdispls, recvtype, true, &sv, R))) { vdone(&rv, recvbuf, false, 0); return rc; }
        if (!sv.tmp) {
            size_t span = 0;
            for (int i = 0; i < c->pt.size; i++) if (sv.disp[i] + sv.len[i] > span) span = sv.disp[i] + sv.len[i];
            if (!(sv.tmp = malloc(span + 1))) { vdone(&rv, recvbuf, false, 0); vdone(&sv, NULL, false, 0); return smpi_error(c, MPI_ERR_NO_MEM, R, "%zu bytes", span); }
            memcpy(sv.tmp, sv.base, span);
            sv.base = sv.tmp;
        }
    } else if ((rc = vview(c, (void *)sendbuf, sendcounts, sdispls, sendtype, true, &sv, R))) {
        vdone(&rv, recvbuf, false, 0);
        return rc;
    }
    rc = status(c, coll_p2p_alltoallv(sv.base, sv.len, sv.disp, rv.base, rv.len, rv.disp, &c->co), R);
    vdone(&rv, recvbuf, !rc, c->pt.size);
    vdone(&sv, NULL, false, 0);
    return rc;
}
#pragma weak MPI_Alltoallv = PMPI_Alltoallv
