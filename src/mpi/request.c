/* Requests as objects: made from the p2p engine's requests (which a peer
 * may still write after the program freed them), holding the communicator
 * and datatype they were started with; and a request complete from the
 * start, for the nonblocking calls that finish at once (MPI_Comm_idup).
 * Starting and completing them is pt2pt.c's. */
#include <string.h>

#include "smpi.h"

struct smpi_request *smpi_request_new(struct smpi_comm *c, int kind, void *buf, int count, struct smpi_type *t,
                                      int peer, int tag, enum p2p_mode mode)
{
    struct smpi_request *q = (struct smpi_request *)p2p_req_alloc();
    if (!q) return NULL;
    q->kind = kind, q->comm = c, q->ubuf = buf, q->ucount = count, q->utype = t;
    q->peer = peer, q->tag = tag, q->mode = mode;
    smpi_comm_ref(c);                    /* both may be freed by the program while q lives */
    smpi_type_ref(t);
    return q;
}

void smpi_request_release(struct smpi_request *q)
{
    smpi_comm_unref(q->comm);
    smpi_type_unref(q->utype);
    p2p_req_free(&q->p);                 /* an active one completes, then goes */
}

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
