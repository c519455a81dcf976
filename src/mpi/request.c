/* Requests complete from the start, for the nonblocking calls that finish
 * at once (MPI_Comm_idup, MPI_Ibsend) and for MPI_PROC_NULL; the requests
 * of nonblocking collectives on the engine (completed by its callback); and
 * composite requests, one MPI request over many engine requests (the
 * nonblocking neighbourhood collectives). Making and releasing requests is
 * inline in smpi.h (every message does); starting and completing them is
 * pt2pt.c's. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smpi.h"

void smpi_request_complete(struct smpi_request *q)
{
    q->started = true, q->proc_null = true;
    memset(&q->p.st, 0, sizeof q->p.st);
    q->p.st.source = MPI_PROC_NULL, q->p.st.tag = MPI_ANY_TAG;
    atomic_store(&q->p.done, 1);
}

MPI_Request smpi_request_done(struct smpi_comm *c)
{
    struct smpi_request *q = smpi_request_new(c, SMPI_REQ_SEND, NULL, 0, NULL, MPI_PROC_NULL, 0, P2P_STANDARD);
    if (q) smpi_request_complete(q);
    return q;
}

struct smpi_request *smpi_request_coll(struct smpi_comm *c)
{
    struct smpi_request *q = smpi_request_new(c, SMPI_REQ_COLL, NULL, 0, NULL, MPI_PROC_NULL, 0, P2P_STANDARD);
    if (!q) return NULL;
    q->started = true;
    q->p.active = 1;            /* MPI_Request_free meanwhile: released when done */
    return q;
}

void smpi_request_coll_done(struct smpi_request *q, sm_status_t st, const char *routine, const char *why)
{
    memset(&q->p.st, 0, sizeof q->p.st);
    q->p.st.source = MPI_ANY_SOURCE, q->p.st.tag = MPI_ANY_TAG;
    if (st) {
        q->p.st.err = st;
        size_t n = strlen(routine) + strlen(why) + 3;
        if ((q->p.why = malloc(n))) snprintf(q->p.why, n, "%s: %s", routine, why);
    }
    q->p.active = 0;
    atomic_store_explicit(&q->p.done, 1, memory_order_release);
    if (q->p.detached) smpi_request_release(q);
}

void smpi_idle_slow(void) { sched_yield(); }

/* --- Composite requests ---------------------------------------------------------- */

/* Why part r failed, in words, for the composite's error message. */
static char *describe_part(const struct p2p_req *r)
{
    char b[256];
    if (r->st.err == SM_ERR_TRUNCATE)
        snprintf(b, sizeof b, "the message from rank %d is longer than the %zu-byte buffer", r->st.source, r->len);
    else if (r->kind == P2P_RECV)
        snprintf(b, sizeof b, "the message from rank %d could not be received: %s", r->st.source,
                 r->why ? r->why : sm_status_name(r->st.err));
    else
        snprintf(b, sizeof b, "a send of %zu bytes failed: %s", r->len, sm_status_name(r->st.err));
    return strdup(b);                    /* NULL if no memory: the status still says */
}

/* Complete when every part is; then the parts go, the first failure stays. */
static bool composite_poll(struct smpi_request *q)
{
    for (; q->first < q->nparts; q->first++)
        if (!p2p_done(q->parts[q->first])) return false;
    q->p.st = (struct p2p_status){ .source = MPI_ANY_SOURCE, .tag = MPI_ANY_TAG };
    for (int i = 0; i < q->nparts; i++) {
        struct p2p_req *r = q->parts[i];
        if (r->st.err && !q->p.st.err) q->p.st.err = r->st.err, q->p.why = describe_part(r);
        p2p_req_free(r);
    }
    free(q->parts);
    q->parts = NULL, q->nparts = q->first = 0;
    atomic_store_explicit(&q->p.done, 1, memory_order_release);
    return true;
}

struct smpi_request *smpi_request_composite(struct smpi_comm *c, int n)
{
    struct smpi_request *q = smpi_request_new(c, SMPI_REQ_COLL, NULL, 0, NULL, MPI_PROC_NULL, 0, P2P_STANDARD);
    if (!q) return NULL;
    if (!(q->parts = malloc(sizeof *q->parts * (size_t)(n ? n : 1)))) {
        smpi_request_release(q);
        return NULL;
    }
    q->poll = composite_poll, q->started = true;
    return q;
}

/* Released before it completed (an error while its parts were started):
 * the engine frees the active parts when they complete. */
void smpi_request_drop_parts(struct smpi_request *q)
{
    for (int i = 0; i < q->nparts; i++) p2p_req_free(q->parts[i]);
    free(q->parts);
    q->parts = NULL, q->nparts = q->first = 0;
}

/* The references smpi_request_new took (q->refs). */
void smpi_request_unref(struct smpi_request *q)
{
    if (smpi_comm_counted(q->comm)) smpi_comm_unref(q->comm);
    if (q->utype && !q->utype->id) smpi_type_unref(q->utype);
}

static bool polled_done(void *a) { return smpi_req_done(a); }

sm_status_t smpi_request_wait_polled(struct smpi_request *q)
{
    sm_status_t st = p2p_wait_until(polled_done, q);
    return p2p_done(&q->p) ? q->p.st.err : st;
}

sm_status_t smpi_request_test_polled(struct smpi_request *q)
{
    if (smpi_req_done(q)) return q->p.st.err;
    sm_status_t st = p2p_progress();
    if (smpi_req_done(q)) return q->p.st.err;
    return st ? st : SM_INPROGRESS;
}

/* --- Generalized requests (MPI 3.1 §12.2) -----------------------------------------------
 * The program completes the request (MPI_Grequest_complete); the calls that
 * complete requests then ask query_fn for its status and free_fn to release
 * the program's state. The request's communicator is MPI_COMM_WORLD (whose
 * error handler MPI 3.1 §8.3 gives errors tied to no communicator). */
struct smpi_greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
    /* GREQ_COMPLETE and GREQ_FREED, set once each by MPI_Grequest_complete and
     * MPI_Request_free (which may be two threads): the second one ends the
     * request. Once p.done is set, a waiting thread may end it at any time. */
    _Atomic int state;
};
enum { GREQ_COMPLETE = 1, GREQ_FREED = 2 };

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request)
{
    static const char R[] = "MPI_Grequest_start";
    SMPI_CHECK_INIT(R);
    if (!request) return smpi_error(NULL, MPI_ERR_ARG, R, "request is NULL");
    struct smpi_greq *g = malloc(sizeof *g);
    struct smpi_request *q = g ? smpi_request_new(&smpi_comm_world, SMPI_REQ_GREQ, NULL, 0, NULL, MPI_PROC_NULL,
                                                  0, P2P_STANDARD) : NULL;
    if (!q) {
        free(g);
        return smpi_error(NULL, MPI_ERR_NO_MEM, R, "out of memory for a generalized request");
    }
    *g = (struct smpi_greq){ query_fn, free_fn, cancel_fn, extra_state, 0 };
    q->coll = g, q->started = true;
    *request = q;
    return MPI_SUCCESS;
}
#pragma weak MPI_Grequest_start = PMPI_Grequest_start

static struct smpi_greq *greq_of(MPI_Request r)
{
    return r && smpi_object(r, sizeof *r) && r->kind == SMPI_REQ_GREQ ? r->coll : NULL;
}

static int greq_release(struct smpi_request *q)
{
    struct smpi_greq *g = q->coll;
    int rc = g->free ? g->free(g->extra) : MPI_SUCCESS;
    free(g);
    q->coll = NULL;
    smpi_request_release(q);
    return rc;
}

int PMPI_Grequest_complete(MPI_Request request)
{
    static const char R[] = "MPI_Grequest_complete";
    SMPI_CHECK_INIT(R);
    struct smpi_greq *g = greq_of(request);
    if (!g) return smpi_error(NULL, MPI_ERR_REQUEST, R, "request %p is not a generalized request",
                              (void *)request);
    int old = atomic_fetch_or(&g->state, GREQ_COMPLETE);
    if (old & GREQ_COMPLETE)
        return smpi_error(NULL, MPI_ERR_REQUEST, R, "generalized request %p is complete already", (void *)request);
    if (!(old & GREQ_FREED)) {
        atomic_store_explicit(&request->p.done, 1, memory_order_release);   /* (the waiter's from here) */
        sm_wake_for(sm_core.rank, SM_WAKE_P2P);   /* a thread asleep in a wait on it */
        return MPI_SUCCESS;
    }
    int rc = greq_release(request);
    return rc ? smpi_error(NULL, rc, R, "the request's free_fn returned error class %d", rc) : MPI_SUCCESS;
}
#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete

int smpi_greq_status(struct smpi_request *q, MPI_Status *st)
{
    struct smpi_greq *g = q->coll;
    *st = (MPI_Status){ .MPI_SOURCE = MPI_ANY_SOURCE, .MPI_TAG = MPI_ANY_TAG, .MPI_ERROR = MPI_SUCCESS };
    int rc = g->query ? g->query(g->extra, st) : MPI_SUCCESS;
    st->MPI_ERROR = rc;
    return rc;
}

int smpi_greq_end(struct smpi_request *q) { return greq_release(q); }

int smpi_greq_free(struct smpi_request *q)
{
    int old = atomic_fetch_or(&((struct smpi_greq *)q->coll)->state, GREQ_FREED);
    return old & GREQ_COMPLETE ? greq_release(q) : MPI_SUCCESS;
}

int smpi_greq_cancel(struct smpi_request *q)
{
    struct smpi_greq *g = q->coll;
    return g->cancel ? g->cancel(g->extra, atomic_load(&g->state) & GREQ_COMPLETE) : MPI_SUCCESS;
}
