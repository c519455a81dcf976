/* Requests complete from the start, for the nonblocking calls that finish
 * at once (MPI_Comm_idup, MPI_Ibsend) and for MPI_PROC_NULL. Making and
 * releasing requests is inline in smpi.h (every message does); starting and
 * completing them is pt2pt.c's. */
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
