/* Point-to-point bindings: argument checks, starting and completing
 * requests (nonblocking, persistent, buffered), the completion calls, probe
 * and matched probe, and the engine's failures as MPI errors; everything
 * else is one call into the p2p engine. */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sm_core.h"
#include "smpi.h"

#define IGNORED(st) ((st) == MPI_STATUS_IGNORE || (st) == NULL)

static void status_empty(MPI_Status *st, int source)
{
    if (IGNORED(st)) return;
    st->MPI_SOURCE = source, st->MPI_TAG = MPI_ANY_TAG, st->MPI_ERROR = MPI_SUCCESS;
    st->smpi_cancelled = 0, st->smpi_count = 0;
}

/* --- Argument checks ---------------------------------------------------------- */

/* The checks are inline (every message passes them), their errors out of line. */
static __attribute__((noinline, cold)) int bad_buf(struct smpi_comm *c, int count, const char *R)
{
    if (count < 0) return smpi_error(c, MPI_ERR_COUNT, R, "count %d is negative", count);
    return smpi_error(c, MPI_ERR_BUFFER, R, "buffer is NULL with count %d", count);
}
static inline int check_buf(struct smpi_comm *c, const void *buf, int count, MPI_Datatype type,
                            struct smpi_type **t, const char *R)
{
    int rc = smpi_type_check(c, type, R, t);
    if (SM_UNLIKELY(rc)) return rc;
    if (SM_UNLIKELY(count < 0 || (!buf && count > 0 && (*t)->dt->size > 0 && (*t)->id))) return bad_buf(c, count, R);
    return MPI_SUCCESS;
}

static __attribute__((noinline, cold)) int bad_peer(struct smpi_comm *c, int peer, const char *what, const char *R)
{
    return smpi_error(c, MPI_ERR_RANK, R, "%s %d not in [0, %d) of %s", what, peer, c->pt.size,
                      c->name[0] ? c->name : "the communicator");
}
static inline int check_peer(struct smpi_comm *c, int peer, bool any, const char *what, const char *R)
{
    if (SM_LIKELY((unsigned)peer < (unsigned)c->pt.size) || peer == MPI_PROC_NULL || (any && peer == MPI_ANY_SOURCE))
        return MPI_SUCCESS;
    return bad_peer(c, peer, what, R);
}

static __attribute__((noinline, cold)) int bad_tag(struct smpi_comm *c, int tag, const char *R)
{
    if (tag > smpi_tag_ub) return smpi_error(c, MPI_ERR_TAG, R, "tag %d is above MPI_TAG_UB (%d)", tag, smpi_tag_ub);
    return smpi_error(c, MPI_ERR_TAG, R, "tag %d is negative", tag);
}
static inline int check_tag(struct smpi_comm *c, int tag, bool any, const char *R)
{
    /* one compare: negative tags and those above MPI_TAG_UB (INT_MAX, or less across nodes) */
    if (SM_LIKELY((unsigned)tag <= (unsigned)smpi_tag_ub) || (any && tag == MPI_ANY_TAG)) return MPI_SUCCESS;
    return bad_tag(c, tag, R);
}

/* A request the library made, or MPI_REQUEST_NULL; any other value is
 * refused without being read (smpi_object). */
static inline bool bad_req(MPI_Request r)
{
    return r && !(smpi_object(r, sizeof *r) &&
                  r->kind >= SMPI_REQ_SEND && r->kind <= SMPI_REQ_GREQ);
}
static __attribute__((noinline, cold)) int bad_req_error(MPI_Request r, const char *R)
{
    return smpi_error(NULL, MPI_ERR_REQUEST, R, "request %p is not a request", (void *)r);
}

static __attribute__((noinline, cold)) int null_req(struct smpi_comm *c, const char *R)
{
    return smpi_error(c, MPI_ERR_REQUEST, R, "request pointer is NULL");
}
static inline int check_req(struct smpi_comm *c, const MPI_Request *r, const char *R)
{
    return SM_LIKELY(r != NULL) ? MPI_SUCCESS : null_req(c, R);
}

/* --- Starting operations --------------------------------------------------------- */

/* Start (or restart, if persistent) the operation q describes. */
static sm_status_t req_start(struct smpi_request *q)
{
    q->started = true;
    q->proc_null = q->peer == MPI_PROC_NULL;
    if (q->proc_null) {
        smpi_request_complete(q);
        return SM_OK;
    }
    size_t len = (size_t)q->ucount * q->utype->dt->size;
    void *b;
    const struct dt_type *type = smpi_engine_view(q->ubuf, q->ucount, q->utype, &b);
    if (q->kind == SMPI_REQ_SEND) {
        /* a small standard send of plain bytes is in the ring and complete now */
        if (SM_LIKELY(!type && q->mode == P2P_STANDARD) && p2p_isend_eager(&q->p, b, len, q->peer, q->tag, &q->comm->pt))
            return SM_OK;
        return p2p_isend(&q->p, b, len, q->peer, q->tag, &q->comm->pt, q->mode, type);
    }
    return p2p_irecv(&q->p, b, len, q->peer == MPI_ANY_SOURCE ? P2P_ANY_SOURCE : q->peer,
                     q->tag == MPI_ANY_TAG ? P2P_ANY_TAG : q->tag, &q->comm->pt, type);
}

/* What went wrong with a completed request whose st.err is set, in words
 * (made before the request and perhaps its freed communicator go). */
static void describe(const struct smpi_request *q, char *buf, size_t len)
{
    if (q->kind == SMPI_REQ_GREQ) {
        snprintf(buf, len, "generalized request %p: its query_fn or free_fn returned an error", (void *)q);
        return;
    }
    const struct p2p_status *ps = &q->p.st;
    if (q->kind == SMPI_REQ_COLL)
        snprintf(buf, len, "%s", q->p.why ? q->p.why : sm_status_name(ps->err));
    else if (ps->err == SM_ERR_TRUNCATE)
        snprintf(buf, len, "message from rank %d with tag %d is longer than the %zu-byte buffer", ps->source, ps->tag,
                 q->p.len);
    else if (q->kind == SMPI_REQ_RECV)
        snprintf(buf, len, "the message from rank %d with tag %d could not be received: %s", ps->source, ps->tag,
                 q->p.why ? q->p.why : sm_status_name(ps->err));
    else if (ps->err == SM_ERR_ACCESS)
        snprintf(buf, len, "rank %d could not read the send buffer %p (%zu bytes)", q->peer, q->ubuf, q->p.len);
    else
        snprintf(buf, len, "the send to rank %d failed (%s)", q->peer, sm_status_name(ps->err));
}

/* The status of a completed request that is not a generalized one, but
 * for MPI_ERROR: a receive's envelope and count, or a send's empty one. */
static inline void status_fill(const struct smpi_request *q, MPI_Status *st)
{
    if (q->kind == SMPI_REQ_RECV) {
        st->MPI_SOURCE = q->p.st.source, st->MPI_TAG = q->p.st.tag;
        st->smpi_count = (MPI_Count)q->p.st.len;
    } else {
        st->MPI_SOURCE = MPI_ANY_SOURCE, st->MPI_TAG = MPI_ANY_TAG;
        st->smpi_count = 0;
    }
    st->smpi_cancelled = q->p.st.cancelled;
}

/* A completed request's status; its error class. */
static int status_of(struct smpi_request *q, MPI_Status *st)
{
    if (SM_UNLIKELY(q->kind == SMPI_REQ_GREQ)) {
        MPI_Status own;
        return smpi_greq_status((struct smpi_request *)q, IGNORED(st) ? &own : st);
    }
    int err = SM_LIKELY(!q->p.st.err) ? MPI_SUCCESS : smpi_class_of(q->p.st.err);
    if (!IGNORED(st)) status_fill(q, st), st->MPI_ERROR = err;
    return err;
}

/* The request is done: report its status and release it unless it is
 * persistent. Returns the operation's error class. */
static void bsend_unlink(struct smpi_request *owner);
static int req_finish(MPI_Request *h, MPI_Status *st)
{
    struct smpi_request *q = *h;
    int err = status_of(q, st);
    if (SM_UNLIKELY(q->kind == SMPI_REQ_GREQ)) {    /* free_fn's error when query_fn had none */
        int ferr = smpi_greq_end(q);
        *h = MPI_REQUEST_NULL;
        return err ? err : ferr;
    }
    if (SM_UNLIKELY(q->bsend)) bsend_unlink(q);
    if (q->persistent) q->started = false;
    else {
        smpi_request_release_done(q);
        *h = MPI_REQUEST_NULL;
    }
    return err;
}

/* Finish one completed request and raise its error if it failed (a
 * truncated receive, data that could not be moved). */
static int finish1(MPI_Request *h, MPI_Status *st, const char *R)
{
    struct smpi_request *q = *h;
    if (SM_LIKELY(!q->p.st.err && q->kind != SMPI_REQ_GREQ)) return req_finish(h, st);
    struct smpi_comm *c = q->comm;
    char what[256];
    describe(q, what, sizeof what);
    if (q->kind == SMPI_REQ_GREQ) {
        int err = req_finish(h, st);
        return err ? smpi_error(NULL, err, R, "%s", what) : MPI_SUCCESS;
    }
    smpi_comm_ref(c);
    int err = smpi_error(c, req_finish(h, st), R, "%s", what);
    smpi_comm_unref(c);
    return err;
}

/* The engine could not make progress (SM_ERR_NOMEM keeping a message
 * aside), raised on c (NULL: MPI_COMM_WORLD, for the calls on many requests). */
static __attribute__((noinline, cold)) int progress_error(struct smpi_comm *c, sm_status_t st, const char *R)
{
    return smpi_error(c, smpi_class_of(st), R, "%s", sm_fail_reason());
}

/* Inactive: the null request, or a persistent request not started. */
static inline bool inactive(MPI_Request r) { return !r || (r->persistent && !r->started); }

/* --- Send and receive ------------------------------------------------------------ */

/* A request that could not be made or started: the engine's reason. */
static __attribute__((noinline, cold)) int req_failed(struct smpi_comm *c, struct smpi_request *q, sm_status_t st,
                                                      const char *R)
{
    if (q) smpi_request_release(q);
    return smpi_error(c, smpi_class_of(st), R, "%s", sm_fail_reason());
}

/* A new request on checked arguments, started unless persistent. */
static inline int req_open(struct smpi_comm *c, int kind, void *buf, int count, struct smpi_type *t, int peer,
                           int tag, enum p2p_mode mode, bool persistent, MPI_Request *request, const char *R)
{
    struct smpi_request *q = smpi_request_new(c, kind, buf, count, t, peer, tag, mode);
    if (SM_UNLIKELY(!q)) return req_failed(c, NULL, SM_ERR_NOMEM, R);
    q->persistent = persistent;
    sm_status_t st = persistent ? SM_OK : req_start(q);
    if (SM_UNLIKELY(st)) return req_failed(c, q, st, R);
    *request = q;
    return MPI_SUCCESS;
}

static inline int send_checks(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                              struct smpi_comm *c, struct smpi_type **t, const char *R)
{
    int rc;
    if ((rc = check_buf(c, buf, count, type, t, R)) || (rc = check_peer(c, dest, false, "dest", R)) ||
        (rc = check_tag(c, tag, false, R)))
        return rc;
    return MPI_SUCCESS;
}

static int isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                 MPI_Request *request, enum p2p_mode mode, bool persistent, const char *R)
{
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    struct smpi_type *t;
    int rc;
    if ((rc = send_checks(buf, count, type, dest, tag, c, &t, R)) || (rc = check_req(c, request, R))) return rc;
    return req_open(c, SMPI_REQ_SEND, (void *)buf, count, t, dest, tag, mode, persistent, request, R);
}

static inline int recv_checks(void *buf, int count, MPI_Datatype type, int source, int tag, struct smpi_comm *c,
                              struct smpi_type **t, const char *R)
{
    int rc;
    if ((rc = check_buf(c, buf, count, type, t, R)) || (rc = check_peer(c, source, true, "source", R)) ||
        (rc = check_tag(c, tag, true, R)))
        return rc;
    return MPI_SUCCESS;
}

static int irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                 MPI_Request *request, bool persistent, const char *R)
{
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    struct smpi_type *t;
    int rc;
    if ((rc = recv_checks(buf, count, type, source, tag, c, &t, R)) || (rc = check_req(c, request, R))) return rc;
    return req_open(c, SMPI_REQ_RECV, buf, count, t, source, tag, P2P_STANDARD, persistent, request, R);
}

static inline int wait1(MPI_Request *h, MPI_Status *st, const char *R)
{
    sm_status_t s = smpi_req_wait(*h);
    if (SM_UNLIKELY(s) && !p2p_done(&(*h)->p)) return progress_error((*h)->comm, s, R);
    return finish1(h, st, R);
}

/* A blocking send: a small one of contiguous data goes straight into the
 * receiver's ring with no request (no allocation, no references to take
 * and drop); any other, or when the ring is full, through a request. */
static int send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                enum p2p_mode mode, const char *R)
{
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    struct smpi_type *t;
    int rc = send_checks(buf, count, type, dest, tag, c, &t, R);
    if (rc) return rc;
    if (SM_LIKELY(mode == P2P_STANDARD && dest != MPI_PROC_NULL && dt_is_contig(t->dt, (size_t)count)) &&
        p2p_send_eager((const char *)buf + t->dt->true_lb, (size_t)count * t->dt->size, dest, tag, &c->pt))
        return MPI_SUCCESS;
    MPI_Request r = MPI_REQUEST_NULL;
    rc = req_open(c, SMPI_REQ_SEND, (void *)buf, count, t, dest, tag, mode, false, &r, R);
    return rc ? rc : wait1(&r, MPI_STATUS_IGNORE, R);
}

/* A blocking receive of contiguous data whose message is the next in its
 * sender's ring needs no request at all (p2p_recv_eager); any other's
 * request lives on the caller's stack: no allocation and no references
 * (the communicator and the type cannot go during the call). On an error
 * before it matched, it is withdrawn before return. */
static void recv_status(const struct p2p_status *ps, MPI_Status *st, int err)
{
    if (IGNORED(st)) return;
    st->MPI_SOURCE = ps->source, st->MPI_TAG = ps->tag, st->MPI_ERROR = err;
    st->smpi_count = (MPI_Count)ps->len, st->smpi_cancelled = 0;
}

static __attribute__((noinline, cold)) int recv_failed(struct smpi_comm *c, struct p2p_req *r, sm_status_t s,
                                                       MPI_Status *st, const char *R)
{
    char what[256];
    snprintf(what, sizeof what, "%s", sm_fail_reason());
    int cls = smpi_class_of(s);
    if (!p2p_done(r) && p2p_cancel(r) != SM_OK)
        while (!p2p_done(r)) p2p_progress();        /* it matched meanwhile: it completes */
    if (!r->st.cancelled) {                         /* it completed, well or not */
        cls = smpi_class_of(r->st.err);
        if (r->st.err == SM_ERR_TRUNCATE)
            snprintf(what, sizeof what, "message from rank %d with tag %d is longer than the %zu-byte buffer",
                     r->st.source, r->st.tag, r->len);
        else if (r->st.err)
            snprintf(what, sizeof what, "the message from rank %d with tag %d could not be received: %s",
                     r->st.source, r->st.tag, r->why ? r->why : sm_status_name(r->st.err));
        recv_status(&r->st, st, cls);
    }
    p2p_req_fini(r);
    return cls ? smpi_error(c, cls, R, "%s", what) : MPI_SUCCESS;
}

static int recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *st,
                const char *R)
{
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    struct smpi_type *t;
    int rc = recv_checks(buf, count, type, source, tag, c, &t, R);
    if (rc) return rc;
    if (source == MPI_PROC_NULL) {
        status_empty(st, MPI_PROC_NULL);
        return MPI_SUCCESS;
    }
    void *b;
    const struct dt_type *dt = smpi_engine_view(buf, count, t, &b);
    size_t len = (size_t)count * t->dt->size;
    int src = source == MPI_ANY_SOURCE ? P2P_ANY_SOURCE : source, tg = tag == MPI_ANY_TAG ? P2P_ANY_TAG : tag;
    struct p2p_status ps;
    if (SM_LIKELY(!dt) && p2p_recv_eager(b, len, src, tg, &c->pt, &ps)) {     /* no request at all */
        recv_status(&ps, st, MPI_SUCCESS);
        return MPI_SUCCESS;
    }
    struct p2p_req r;
    p2p_req_init(&r);
    sm_status_t s = p2p_irecv(&r, b, len, src, tg, &c->pt, dt);
    if (SM_LIKELY(!s)) s = p2p_wait(&r);
    if (SM_UNLIKELY(s)) return recv_failed(c, &r, s, st, R);
    recv_status(&r.st, st, MPI_SUCCESS);
    p2p_req_fini(&r);
    return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm, P2P_STANDARD, "MPI_Send");
}
#pragma weak MPI_Send = PMPI_Send

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm, P2P_SYNC, "MPI_Ssend");
}
#pragma weak MPI_Ssend = PMPI_Ssend

int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm, P2P_STANDARD, "MPI_Rsend");
}
#pragma weak MPI_Rsend = PMPI_Rsend

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    return recv(buf, count, datatype, source, tag, comm, status, "MPI_Recv");
}
#pragma weak MPI_Recv = PMPI_Recv

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, request, P2P_STANDARD, false, "MPI_Isend");
}
#pragma weak MPI_Isend = PMPI_Isend

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, request, P2P_SYNC, false, "MPI_Issend");
}
#pragma weak MPI_Issend = PMPI_Issend

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, request, P2P_STANDARD, false, "MPI_Irsend");
}
#pragma weak MPI_Irsend = PMPI_Irsend

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return irecv(buf, count, datatype, source, tag, comm, request, false, "MPI_Irecv");
}
#pragma weak MPI_Irecv = PMPI_Irecv

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, request, P2P_STANDARD, true, "MPI_Send_init");
}
#pragma weak MPI_Send_init = PMPI_Send_init

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, request, P2P_SYNC, true, "MPI_Ssend_init");
}
#pragma weak MPI_Ssend_init = PMPI_Ssend_init

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, request, P2P_STANDARD, true, "MPI_Rsend_init");
}
#pragma weak MPI_Rsend_init = PMPI_Rsend_init

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    int rc = isend(buf, count, datatype, dest, tag, comm, request, P2P_STANDARD, true, "MPI_Bsend_init");
    if (!rc) (*request)->buffered = true;
    return rc;
}
#pragma weak MPI_Bsend_init = PMPI_Bsend_init

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return irecv(buf, count, datatype, source, tag, comm, request, true, "MPI_Recv_init");
}
#pragma weak MPI_Recv_init = PMPI_Recv_init

static int bsend_go(struct smpi_comm *c, const void *buf, int count, struct smpi_type *t, int dest, int tag,
                    struct smpi_request *owner, const char *R);

static int start(MPI_Request *request, const char *R)
{
    if (!request || !*request) return smpi_error(NULL, MPI_ERR_REQUEST, R, "null request");
    if (SM_UNLIKELY(bad_req(*request))) return bad_req_error(*request, R);
    struct smpi_request *q = *request;
    if (!q->persistent) return smpi_error(q->comm, MPI_ERR_REQUEST, R, "request %p is not persistent", (void *)q);
    if (q->started) return smpi_error(q->comm, MPI_ERR_REQUEST, R, "request %p is already active", (void *)q);
    if (q->buffered) {                   /* copied aside now: complete at once */
        smpi_request_complete(q);
        int rc = bsend_go(q->comm, q->ubuf, q->ucount, q->utype, q->peer, q->tag, q, R);
        if (rc) q->started = false;
        return rc;
    }
    sm_status_t st = req_start(q);
    if (SM_UNLIKELY(st)) {
        q->started = false;
        return smpi_error(q->comm, smpi_class_of(st), R, "%s", sm_fail_reason());
    }
    return MPI_SUCCESS;
}

int PMPI_Start(MPI_Request *request)
{
    SMPI_CHECK_INIT("MPI_Start");
    return start(request, "MPI_Start");
}
#pragma weak MPI_Start = PMPI_Start

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    SMPI_CHECK_INIT("MPI_Startall");
    if (count < 0 || (count && !array_of_requests))
        return smpi_error(NULL, MPI_ERR_ARG, "MPI_Startall", "count %d or NULL array", count);
    for (int i = 0; i < count; i++) {
        int rc = start(&array_of_requests[i], "MPI_Startall");
        if (rc) return rc;
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Startall = PMPI_Startall

/* --- Completion ----------------------------------------------------------------------- */

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    SMPI_CHECK_INIT("MPI_Wait");
    if (!request) return smpi_error(NULL, MPI_ERR_REQUEST, "MPI_Wait", "request pointer is NULL");
    if (SM_UNLIKELY(bad_req(*request))) return bad_req_error(*request, "MPI_Wait");
    if (inactive(*request)) { status_empty(status, MPI_ANY_SOURCE); return MPI_SUCCESS; }
    return wait1(request, status, "MPI_Wait");
}
#pragma weak MPI_Wait = PMPI_Wait

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    static const char R[] = "MPI_Test";
    SMPI_CHECK_INIT(R);
    if (!request || !flag) return smpi_error(NULL, MPI_ERR_ARG, R, "NULL argument");
    if (SM_UNLIKELY(bad_req(*request))) return bad_req_error(*request, R);
    if (inactive(*request)) { *flag = 1; status_empty(status, MPI_ANY_SOURCE); return MPI_SUCCESS; }
    sm_status_t st = smpi_req_test(*request);
    *flag = st != SM_INPROGRESS && p2p_done(&(*request)->p);
    if (*flag) return finish1(request, status, R);
    smpi_idle();
    return st == SM_INPROGRESS ? MPI_SUCCESS : progress_error((*request)->comm, st, R);
}
#pragma weak MPI_Test = PMPI_Test

static int check_array(int count, const MPI_Request reqs[], const char *R)
{
    if (count < 0) return smpi_error(NULL, MPI_ERR_COUNT, R, "count %d is negative", count);
    if (count && !reqs) return smpi_error(NULL, MPI_ERR_REQUEST, R, "array of requests is NULL");
    for (int i = 0; i < count; i++)
        if (SM_UNLIKELY(bad_req(reqs[i]))) return bad_req_error(reqs[i], R);
    return MPI_SUCCESS;
}

/* Requests to complete; all_done skips the prefix it has seen complete
 * (completion is final), so a wait on many polls each request once. */
struct arr { int n; MPI_Request *r; int first; };
static bool all_done(void *a)
{
    struct arr *x = a;
    for (; x->first < x->n; x->first++) {
        MPI_Request q = x->r[x->first];
        if (!inactive(q) && !smpi_req_done(q)) return false;
    }
    return true;
}
static bool any_done(void *a)
{
    struct arr *x = a;
    bool active = false;
    for (int i = 0; i < x->n; i++) {
        if (inactive(x->r[i])) continue;
        active = true;
        if (smpi_req_done(x->r[i])) return true;
    }
    return !active;
}

/* For the calls completing many: the first request that failed, its
 * communicator (a reference: the request goes), what went wrong, and the
 * status it has. These calls set a status's MPI_ERROR only when they
 * return MPI_ERR_IN_STATUS (MPI-3.1 §3.2.5: "if and only if"): from the
 * first failure on as they go, and the statuses before it in many_error;
 * a call that succeeds leaves the field as the caller had it (and the
 * window's fast path saves the store). */
struct failure { int index, slot, cls; struct smpi_comm *c; char what[256]; };

/* Complete request *h (slot: its status's index) the slow way: inactive,
 * persistent, buffered, failed or generalized. */
static void finish_one(MPI_Request *h, MPI_Status *st, int i, int slot, struct failure *f)
{
    int keep = IGNORED(st) ? 0 : st->MPI_ERROR;
    struct smpi_request *q = *h;
    if (inactive(q)) status_empty(st, MPI_ANY_SOURCE);
    else if (SM_LIKELY(!q->p.st.err && q->kind != SMPI_REQ_GREQ)) req_finish(h, st);
    else {
        bool first = f->index < 0;
        struct smpi_comm *c = q->comm;
        smpi_comm_ref(c);
        if (first) describe(q, f->what, sizeof f->what);
        int cls = req_finish(h, st);
        if (first && cls) f->index = i, f->slot = slot, f->c = c, f->cls = cls;  /* (a generalized request may succeed) */
        else smpi_comm_unref(c);
    }
    if (f->index < 0 && !IGNORED(st)) st->MPI_ERROR = keep;
}
static int many_error(struct failure *f, MPI_Status sts[], const char *R)
{
    if (f->index < 0) return MPI_SUCCESS;
    if (sts != MPI_STATUSES_IGNORE)
        for (int j = 0; j < f->slot; j++) sts[j].MPI_ERROR = MPI_SUCCESS;
    int rc = smpi_error(f->c, sts == MPI_STATUSES_IGNORE ? f->cls : MPI_ERR_IN_STATUS, R, "request %d: %s",
                        f->index, f->what);
    smpi_comm_unref(f->c);
    return rc;
}

static int finish_all(int count, MPI_Request reqs[], MPI_Status sts[], const char *R)
{
    struct failure f;
    f.index = -1;               /* (not the rest: an initialiser cleared `what` with a rep stos each call) */
    bool failed = false;        /* (f.index >= 0, in a register) */
    for (int i = 0; i < count; i++) {
        struct smpi_request *q = reqs[i];
        /* A window's plain sends and receives that succeeded: their status
         * (osu_mbw_mr asks for them) and released at once (req_finish's
         * tests cost more than the release itself). */
        if (SM_LIKELY(q && !q->persistent && !q->bsend && !q->p.st.err && q->kind != SMPI_REQ_GREQ)) {
            if (sts != MPI_STATUSES_IGNORE) {
                status_fill(q, &sts[i]);
                if (SM_UNLIKELY(failed)) sts[i].MPI_ERROR = MPI_SUCCESS;
            }
            smpi_request_release_done(q);   /* (all_done saw it complete) */
            reqs[i] = MPI_REQUEST_NULL;
            continue;
        }
        finish_one(&reqs[i], sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i], i, i, &f);
        failed = f.index >= 0;
    }
    return many_error(&f, sts, R);
}

int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status sts[])
{
    static const char R[] = "MPI_Waitall";
    SMPI_CHECK_INIT(R);
    int rc = check_array(count, reqs, R);
    if (rc) return rc;
    struct arr a = { count, reqs, 0 };
    p2p_progress();
    sm_status_t st = p2p_wait_until(all_done, &a);
    return st ? progress_error(NULL, st, R) : finish_all(count, reqs, sts, R);
}
#pragma weak MPI_Waitall = PMPI_Waitall

int PMPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    static const char R[] = "MPI_Testall";
    SMPI_CHECK_INIT(R);
    int rc = check_array(count, reqs, R);
    if (rc) return rc;
    if (!flag) return smpi_error(NULL, MPI_ERR_ARG, R, "flag is NULL");
    struct arr a = { count, reqs, 0 };
    sm_status_t st = p2p_progress();
    *flag = all_done(&a);
    if (!*flag) smpi_idle();
    return *flag ? finish_all(count, reqs, sts, R) : st ? progress_error(NULL, st, R) : MPI_SUCCESS;
}
#pragma weak MPI_Testall = PMPI_Testall

static int any(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *st, bool block, const char *R)
{
    SMPI_CHECK_INIT(R);
    int rc = check_array(count, reqs, R);
    if (rc) return rc;
    if (!index) return smpi_error(NULL, MPI_ERR_ARG, R, "index is NULL");
    struct arr a = { count, reqs, 0 };
    sm_status_t ps = block ? p2p_wait_until(any_done, &a) : p2p_progress();
    if (ps && block) return progress_error(NULL, ps, R);
    *index = MPI_UNDEFINED;
    if (flag) *flag = 0;
    bool active = false;
    for (int i = 0; i < count; i++) {
        if (inactive(reqs[i])) continue;
        active = true;
        if (!smpi_req_done(reqs[i])) continue;
        *index = i;
        if (flag) *flag = 1;
        return finish1(&reqs[i], st, R);
    }
    if (!active) { if (flag) *flag = 1; status_empty(st, MPI_ANY_SOURCE); }
    else smpi_idle();
    return ps && active ? progress_error(NULL, ps, R) : MPI_SUCCESS;
}

int PMPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    return any(count, reqs, index, NULL, status, true, "MPI_Waitany");
}
#pragma weak MPI_Waitany = PMPI_Waitany

int PMPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    if (!flag) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Testany", "flag is NULL");
    return any(count, reqs, index, flag, status, false, "MPI_Testany");
}
#pragma weak MPI_Testany = PMPI_Testany

static int some(int count, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[], bool block,
                const char *R)
{
    SMPI_CHECK_INIT(R);
    int rc = check_array(count, reqs, R);
    if (rc) return rc;
    if (!outcount || (count && !idx)) return smpi_error(NULL, MPI_ERR_ARG, R, "NULL argument");
    struct arr a = { count, reqs, 0 };
    sm_status_t ps = block ? p2p_wait_until(any_done, &a) : p2p_progress();
    if (ps && block) return progress_error(NULL, ps, R);
    int n = 0;
    bool active = false;
    struct failure f;
    f.index = -1;               /* (not the rest: an initialiser cleared `what` with a rep stos each call) */
    for (int i = 0; i < count; i++) {
        if (inactive(reqs[i])) continue;
        active = true;
        if (!smpi_req_done(reqs[i])) continue;
        MPI_Status *st = sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[n];
        idx[n] = i;
        finish_one(&reqs[i], st, i, n, &f);
        n++;
    }
    *outcount = active ? n : MPI_UNDEFINED;
    if (!n && active) smpi_idle();
    if (!n && active && ps) return progress_error(NULL, ps, R);
    return many_error(&f, sts, R);
}

int PMPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[])
{
    return some(incount, reqs, outcount, idx, sts, true, "MPI_Waitsome");
}
#pragma weak MPI_Waitsome = PMPI_Waitsome

int PMPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[])
{
    return some(incount, reqs, outcount, idx, sts, false, "MPI_Testsome");
}
#pragma weak MPI_Testsome = PMPI_Testsome

/* MPI 3.1 §5.12: freeing or cancelling a nonblocking collective's request is erroneous. */
static __attribute__((noinline, cold)) int coll_request_error(struct smpi_request *q, const char *R)
{
    return smpi_error(q->comm, MPI_ERR_REQUEST, R, "request %p is a nonblocking collective operation's, "
                      "which can only be completed (MPI_Wait, MPI_Test...)", (void *)q);
}

int PMPI_Request_free(MPI_Request *request)
{
    static const char R[] = "MPI_Request_free";
    SMPI_CHECK_INIT(R);
    if (!request || !*request) return smpi_error(NULL, MPI_ERR_REQUEST, R, "null request");
    if (SM_UNLIKELY(bad_req(*request))) return bad_req_error(*request, R);
    struct smpi_request *q = *request;
    if (q->kind == SMPI_REQ_COLL) return coll_request_error(q, R);
    if (q->kind == SMPI_REQ_GREQ) {
        *request = MPI_REQUEST_NULL;
        int rc = smpi_greq_free(q);
        return rc ? smpi_error(NULL, rc, R, "the generalized request's free_fn returned error class %d", rc) : rc;
    }
    if (q->persistent && !q->started) atomic_store(&q->p.done, 1);
    if (q->bsend) bsend_unlink(q);
    smpi_request_release(q);            /* an active one completes, then goes */
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Request_free = PMPI_Request_free

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    static const char R[] = "MPI_Request_get_status";
    SMPI_CHECK_INIT(R);
    if (!flag) return smpi_error(NULL, MPI_ERR_ARG, R, "flag is NULL");
    if (SM_UNLIKELY(bad_req(request))) return bad_req_error(request, R);
    if (inactive(request)) { *flag = 1; status_empty(status, MPI_ANY_SOURCE); return MPI_SUCCESS; }
    sm_status_t st = smpi_req_test(request);
    *flag = p2p_done(&request->p);
    if (*flag) {
        int err = status_of(request, status);     /* a generalized request's query_fn may fail */
        if (err && request->kind == SMPI_REQ_GREQ)
            return smpi_error(NULL, err, R, "generalized request %p: its query_fn returned error class %d",
                              (void *)request, err);
    } else smpi_idle();
    return *flag || st == SM_INPROGRESS ? MPI_SUCCESS : progress_error(request->comm, st, R);
}
#pragma weak MPI_Request_get_status = PMPI_Request_get_status

static int bsend_cancel(struct smpi_request *owner);
int PMPI_Cancel(MPI_Request *request)
{
    SMPI_CHECK_INIT("MPI_Cancel");
    if (!request || !*request) return smpi_error(NULL, MPI_ERR_REQUEST, "MPI_Cancel", "null request");
    if (SM_UNLIKELY(bad_req(*request))) return bad_req_error(*request, "MPI_Cancel");
    if ((*request)->kind == SMPI_REQ_COLL) return coll_request_error(*request, "MPI_Cancel");
    /* Operations that have not matched are cancelled (a buffered send's
     * message too); the others complete normally, as MPI allows. */
    struct smpi_request *q = *request;
    if (q->kind == SMPI_REQ_GREQ) {
        int rc = smpi_greq_cancel(q);
        return rc ? smpi_error(NULL, rc, "MPI_Cancel", "the generalized request's cancel_fn returned error class %d",
                               rc) : rc;
    }
    if (q->bsend) return bsend_cancel(q);
    if (inactive(q) || q->proc_null) return MPI_SUCCESS;
    (void)p2p_cancel(&q->p);
    return MPI_SUCCESS;
}
#pragma weak MPI_Cancel = PMPI_Cancel

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (IGNORED(status) || !flag) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Test_cancelled", "NULL argument");
    *flag = status->smpi_cancelled;
    return MPI_SUCCESS;
}
#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled

static int get_count(const MPI_Status *status, MPI_Datatype datatype, int *count, bool elements, const char *R)
{
    struct smpi_type *t;
    if (IGNORED(status) || !count) return smpi_error(NULL, MPI_ERR_ARG, R, "NULL argument");
    int rc = smpi_type_check(NULL, datatype, R, &t);
    if (rc) return rc;
    MPI_Count bytes = status->smpi_count, n;
    if (elements) n = smpi_type_elements(t, bytes);
    else if (!t->dt->size) n = 0;
    else n = bytes % (MPI_Count)t->dt->size ? MPI_UNDEFINED : bytes / (MPI_Count)t->dt->size;
    *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;   /* MPI: a count an int cannot hold */
    return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    return get_count(status, datatype, count, false, "MPI_Get_count");
}
#pragma weak MPI_Get_count = PMPI_Get_count

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    return get_count(status, datatype, count, true, "MPI_Get_elements");
}
#pragma weak MPI_Get_elements = PMPI_Get_elements

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    static const char R[] = "MPI_Get_elements_x";
    struct smpi_type *t;
    if (IGNORED(status) || !count) return smpi_error(NULL, MPI_ERR_ARG, R, "NULL argument");
    int rc = smpi_type_check(NULL, datatype, R, &t);
    if (rc) return rc;
    *count = smpi_type_elements(t, status->smpi_count);
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x

/* The byte count a status records for count basic elements of t: whole
 * elements of t, then the fewest bytes of one more that hold the rest
 * (a generalized request's status, MPI-3.1 §12.3). */
static int set_elements(MPI_Status *status, MPI_Datatype datatype, MPI_Count count, const char *R)
{
    struct smpi_type *t;
    if (IGNORED(status)) return smpi_error(NULL, MPI_ERR_ARG, R, "status is NULL");
    int rc = smpi_type_check(NULL, datatype, R, &t);
    if (rc) return rc;
    if (count < 0) return smpi_error(NULL, MPI_ERR_COUNT, R, "count %lld is negative", (long long)count);
    MPI_Count size = (MPI_Count)t->dt->size, per = smpi_type_elements(t, size);
    if (!per) {
        if (count) return smpi_error(NULL, MPI_ERR_COUNT, R, "%lld elements of a type with none", (long long)count);
        status->smpi_count = 0;
        return MPI_SUCCESS;
    }
    MPI_Count bytes = count / per * size, rest = count % per;
    while (rest && smpi_type_elements(t, bytes) < count) bytes++;   /* under size steps */
    status->smpi_count = bytes;
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return set_elements(status, datatype, count, "MPI_Status_set_elements");
}
#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements(status, datatype, count, "MPI_Status_set_elements_x");
}
#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    if (IGNORED(status)) return smpi_error(NULL, MPI_ERR_ARG, "MPI_Status_set_cancelled", "status is NULL");
    status->smpi_cancelled = flag != 0;
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled

/* --- Probe --------------------------------------------------------------------- */

static void status_probe(MPI_Status *st, const struct p2p_status *ps)
{
    if (IGNORED(st)) return;
    st->MPI_SOURCE = ps->source, st->MPI_TAG = ps->tag, st->MPI_ERROR = MPI_SUCCESS;
    st->smpi_count = (MPI_Count)ps->len, st->smpi_cancelled = 0;
}

struct probe {
    int src, tag;
    const struct p2p_comm *c;
    bool take, found;
    struct p2p_status st;
    struct p2p_msg *m;
    sm_status_t err;
};
/* Found, or the engine cannot make progress: stop waiting. */
static bool probe_cond(void *a)
{
    struct probe *p = a;
    p->err = p2p_iprobe(p->src, p->tag, p->c, p->take, &p->found, &p->st, &p->m);
    return p->found || p->err;
}

/* Probe (block) or Iprobe; with take, a matched probe returning the message. */
static int probe(int source, int tag, MPI_Comm comm, int *flag, bool matched, MPI_Message *msg,
                 MPI_Status *status, bool block, const char *R)
{
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    int rc;
    if ((rc = check_peer(c, source, true, "source", R)) || (rc = check_tag(c, tag, true, R))) return rc;
    if ((!block && !flag) || (matched && !msg)) return smpi_error(c, MPI_ERR_ARG, R, "NULL argument");
    if (source == MPI_PROC_NULL) {
        if (flag) *flag = 1;
        if (msg) *msg = MPI_MESSAGE_NO_PROC;
        status_empty(status, MPI_PROC_NULL);
        return MPI_SUCCESS;
    }
    struct probe p = { .src = source == MPI_ANY_SOURCE ? P2P_ANY_SOURCE : source,
                       .tag = tag == MPI_ANY_TAG ? P2P_ANY_TAG : tag, .c = &c->pt, .take = matched };
    if (!probe_cond(&p) && block) {
        sm_status_t st = p2p_wait_until(probe_cond, &p);
        if (st && !p.err) p.err = st;
    }
    if (p.err && !p.found) return progress_error(c, p.err, R);
    if (!p.found) smpi_idle();
    if (flag) *flag = p.found;
    if (msg) *msg = p.found ? (MPI_Message)p.m : MPI_MESSAGE_NULL;
    if (p.found) status_probe(status, &p.st);
    return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe(source, tag, comm, NULL, false, NULL, status, true, "MPI_Probe");
}
#pragma weak MPI_Probe = PMPI_Probe

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return probe(source, tag, comm, flag, false, NULL, status, false, "MPI_Iprobe");
}
#pragma weak MPI_Iprobe = PMPI_Iprobe

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    return probe(source, tag, comm, NULL, true, message, status, true, "MPI_Mprobe");
}
#pragma weak MPI_Mprobe = PMPI_Mprobe

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    return probe(source, tag, comm, flag, true, message, status, false, "MPI_Improbe");
}
#pragma weak MPI_Improbe = PMPI_Improbe

static int imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request,
                  const char *R)
{
    SMPI_CHECK_INIT(R);
    struct smpi_type *t;
    int rc = check_buf(NULL, buf, count, datatype, &t, R);
    if (rc) return rc;
    if (!message || *message == MPI_MESSAGE_NULL)
        return smpi_error(NULL, MPI_ERR_REQUEST, R, "invalid message handle");
    bool noproc = *message == MPI_MESSAGE_NO_PROC;
    if (!noproc && SM_UNLIKELY(!p2p_msg_pending((struct p2p_msg *)*message)))
        return smpi_error(NULL, MPI_ERR_REQUEST, R, "message %p is not one a matched probe returned, or was received already",
                          (void *)*message);
    struct smpi_request *q = smpi_request_new(&smpi_comm_world, SMPI_REQ_RECV, buf, count, t,
                                              noproc ? MPI_PROC_NULL : 0, 0, P2P_STANDARD);
    if (!q) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "%s", sm_fail_reason());
    if (noproc) req_start(q);
    else {
        void *b;
        const struct dt_type *type = smpi_engine_view(buf, count, t, &b);
        p2p_mrecv(&q->p, b, (size_t)count * t->dt->size, (struct p2p_msg *)*message, type);
    }
    *message = MPI_MESSAGE_NULL;
    *request = q;
    return MPI_SUCCESS;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    MPI_Request r;
    int rc = imrecv(buf, count, datatype, message, &r, "MPI_Mrecv");
    return rc ? rc : wait1(&r, status, "MPI_Mrecv");
}
#pragma weak MPI_Mrecv = PMPI_Mrecv

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    if (!request) return smpi_error(NULL, MPI_ERR_REQUEST, "MPI_Imrecv", "request pointer is NULL");
    return imrecv(buf, count, datatype, message, request, "MPI_Imrecv");
}
#pragma weak MPI_Imrecv = PMPI_Imrecv

/* --- Buffered sends -------------------------------------------------------------
 * The message is copied aside at once and sent by a request of our own; the
 * attached buffer is the budget MPI promises (each message takes its length
 * plus MPI_BSEND_OVERHEAD), so a full buffer gives MPI_ERR_BUFFER as in any
 * MPI. The copies live in the heap, which peers can read directly. The
 * user's request of MPI_Ibsend or MPI_Bsend_init is complete at once and
 * names our send while both live, for MPI_Cancel. With threads, all of this
 * is under B.lock. */
static struct {
    void *buf;
    size_t size, used;
    struct smpi_request *out;          /* sends still in flight */
    pthread_mutex_t lock;
} B = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void b_lock(void) { if (smpi_mt) pthread_mutex_lock(&B.lock); }
static void b_unlock(void) { if (smpi_mt) pthread_mutex_unlock(&B.lock); }

static void bsend_reap(bool all)
{
    struct smpi_request **pp = &B.out;
    while (*pp) {
        struct smpi_request *q = *pp;
        if (all) p2p_wait(&q->p);
        if (!p2p_done(&q->p)) { pp = &q->bnext; continue; }
        *pp = q->bnext;
        B.used -= q->p.len + MPI_BSEND_OVERHEAD;
        if (q->bowner) q->bowner->bsend = NULL;
        free(q->bcopy);
        smpi_request_release(q);
    }
}

/* The user's request goes (or restarts): it no longer names our send. */
static void bsend_unlink(struct smpi_request *owner)
{
    b_lock();
    if (owner->bsend) owner->bsend->bowner = NULL;
    owner->bsend = NULL;
    b_unlock();
}

/* MPI_Cancel of the user's request: cancel our send if it has not matched. */
static int bsend_cancel(struct smpi_request *owner)
{
    b_lock();
    if (owner->bsend && p2p_cancel(&owner->bsend->p) == SM_OK) {
        owner->p.st.cancelled = true;
        bsend_reap(false);              /* its room in the buffer is free again */
    }
    b_unlock();
    return MPI_SUCCESS;
}

static int bsend_go(struct smpi_comm *c, const void *buf, int count, struct smpi_type *t, int dest, int tag,
                    struct smpi_request *owner, const char *R);
static int bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                 MPI_Request *request, const char *R)
{
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    struct smpi_type *t;
    int rc;
    if ((rc = check_buf(c, buf, count, type, &t, R)) || (rc = check_peer(c, dest, false, "dest", R)) ||
        (rc = check_tag(c, tag, false, R)))
        return rc;
    if (!request) return bsend_go(c, buf, count, t, dest, tag, NULL, R);
    /* MPI_Ibsend: the user's request is complete at once */
    struct smpi_request *q = smpi_request_done(c);
    if (!q) return smpi_error(c, MPI_ERR_NO_MEM, R, "%s", sm_fail_reason());
    if ((rc = bsend_go(c, buf, count, t, dest, tag, q, R))) {
        smpi_request_release(q);
        return rc;
    }
    *request = q;
    return MPI_SUCCESS;
}

/* The buffered send itself, on checked arguments; owner: the user's
 * request to link to it (or NULL). */
static int bsend_go(struct smpi_comm *c, const void *buf, int count, struct smpi_type *t, int dest, int tag,
                    struct smpi_request *owner, const char *R)
{
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    size_t len = (size_t)count * t->dt->size;
    p2p_progress();
    b_lock();
    bsend_reap(false);
    if (B.used + len + MPI_BSEND_OVERHEAD > B.size) {
        size_t used = B.used, size = B.size;
        b_unlock();
        return smpi_error(c, MPI_ERR_BUFFER, R, "%zu bytes do not fit in the attached buffer (%zu of %zu used)",
                          len + MPI_BSEND_OVERHEAD, used, size);
    }
    B.used += len + MPI_BSEND_OVERHEAD;
    b_unlock();
    void *copy = malloc(len ? len : 1);
    struct smpi_request *q = copy ? smpi_request_new(c, SMPI_REQ_SEND, NULL, 0, t, dest, tag, P2P_STANDARD) : NULL;
    sm_status_t st = q ? SM_OK : SM_ERR_NOMEM;
    if (q) {
        q->bcopy = copy;
        smpi_pack(buf, count, t, copy);
        st = p2p_isend(&q->p, copy, len, dest, tag, &c->pt, P2P_STANDARD, NULL);
    }
    b_lock();
    if (st) B.used -= len + MPI_BSEND_OVERHEAD;
    else {
        q->bnext = B.out;
        B.out = q;
        if (owner) owner->bsend = q, q->bowner = owner;
    }
    b_unlock();
    if (!st) return MPI_SUCCESS;
    free(copy);
    if (q) smpi_request_release(q);
    return q ? smpi_error(c, smpi_class_of(st), R, "%s", sm_fail_reason())
             : smpi_error(c, MPI_ERR_NO_MEM, R, "no memory for a copy of %zu bytes", len);
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return bsend(buf, count, datatype, dest, tag, comm, NULL, "MPI_Bsend");
}
#pragma weak MPI_Bsend = PMPI_Bsend

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    if (!request) return smpi_error(NULL, MPI_ERR_REQUEST, "MPI_Ibsend", "request pointer is NULL");
    return bsend(buf, count, datatype, dest, tag, comm, request, "MPI_Ibsend");
}
#pragma weak MPI_Ibsend = PMPI_Ibsend

int PMPI_Buffer_attach(void *buffer, int size)
{
    static const char R[] = "MPI_Buffer_attach";
    SMPI_CHECK_INIT(R);
    if (!buffer || size < 0) return smpi_error(NULL, MPI_ERR_BUFFER, R, "buffer %p, size %d", buffer, size);
    b_lock();
    bool had = B.buf;
    if (!had) B.buf = buffer, B.size = (size_t)size;
    b_unlock();
    return had ? smpi_error(NULL, MPI_ERR_BUFFER, R, "a buffer is already attached") : MPI_SUCCESS;
}
#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    static const char R[] = "MPI_Buffer_detach";
    SMPI_CHECK_INIT(R);
    if (!buffer_addr || !size) return smpi_error(NULL, MPI_ERR_ARG, R, "NULL argument");
    b_lock();
    void *had = B.buf;
    if (had) {
        bsend_reap(true);                /* detach waits for the buffered messages */
        *(void **)buffer_addr = B.buf;
        *size = (int)B.size;
        B.buf = NULL, B.size = 0;
    }
    b_unlock();
    return had ? MPI_SUCCESS : smpi_error(NULL, MPI_ERR_BUFFER, R, "no buffer is attached");
}
#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach

/* --- Send-receive ------------------------------------------------------------------ */

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    static const char R[] = "MPI_Sendrecv";
    MPI_Request rr, sr;
    int rc = irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &rr, false, R);
    if (rc) return rc;
    if ((rc = isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &sr, P2P_STANDARD, false, R))) {
        if (p2p_cancel(&rr->p) == SM_OK) req_finish(&rr, MPI_STATUS_IGNORE);
        else wait1(&rr, MPI_STATUS_IGNORE, R);       /* it matched already: it completes */
        return rc;
    }
    int src = wait1(&sr, MPI_STATUS_IGNORE, R), rrc = wait1(&rr, status, R);
    return src ? src : rrc;
}
#pragma weak MPI_Sendrecv = PMPI_Sendrecv

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Status *status)
{
    static const char R[] = "MPI_Sendrecv_replace";
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    struct smpi_type *t;
    int rc = check_buf(c, buf, count, datatype, &t, R);
    if (rc) return rc;
    /* The outgoing data is packed aside, so the receive may overwrite buf. */
    size_t len = (size_t)count * t->dt->size;
    void *copy = malloc(len ? len : 1);
    if (!copy) return smpi_error(c, MPI_ERR_NO_MEM, R, "%zu bytes", len);
    smpi_pack(buf, count, t, copy);
    rc = PMPI_Sendrecv(copy, (int)len, MPI_BYTE, dest, sendtag, buf, count, datatype, source, recvtag,
                       comm, status);
    free(copy);
    return rc;
}
#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
