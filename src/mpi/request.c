/* Requests complete from the start, for the nonblocking calls that finish
 * at once (MPI_Comm_idup, MPI_Ibsend) and for MPI_PROC_NULL. Making and
 * releasing requests is inline in smpi.h (every message does); starting and
 * completing them is pt2pt.c's. */
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
