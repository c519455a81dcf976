/* Requests complete from the start, for the nonblocking calls that finish
 * at once (MPI_Comm_idup, MPI_Ibsend) and for MPI_PROC_NULL; and composite
 * requests, one MPI request over many engine requests (the nonblocking
 * neighbourhood collectives). Making and releasing requests is inline in
 * smpi.h (every message does); starting and completing them is pt2pt.c's. */
#include <stdio.h>
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
