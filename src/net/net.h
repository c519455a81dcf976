/* net.h: point-to-point between nodes over UCX's tagged API (DESIGN.md §2):
 * one UCP context and worker per rank, worker addresses exchanged through
 * PMIx, endpoints made on first use. Matching is UCX's, on a 64-bit tag and
 * mask the caller composes; eager and rendezvous are UCX's choice. Every
 * operation ends in its done callback (also when it completed at once),
 * called from net_progress or from the call that started it. Nothing here
 * prints (but SMARTMAP_STATS) or ends the job. */
#ifndef NET_H
#define NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sm_status.h"

struct net_op {
    void (*done)(struct net_op *op);    /* set by the caller before starting */
    void    *ucx;                        /* UCX's request while in flight */
    sm_status_t err;                     /* SM_OK, SM_ERR_TRUNCATE (receive), SM_ERR_PEER */
    bool     cancelled;                  /* a receive cancelled by net_cancel */
    uint64_t tag;                        /* receive: the sender's tag */
    size_t   len;                        /* receive: bytes received */
};

/* Collective over every rank of the job (a PMIx fence): the worker, its
 * address published. SM_ERR_UNSUPPORTED when built without UCX. */
sm_status_t net_init(void);
/* Every send started has completed; then a fence, so that no rank leaves
 * while another still needs it. */
sm_status_t net_finalize(void);
/* Run UCX's progress once; the number of events it handled. */
unsigned net_progress(void);
/* Send len bytes at buf to job rank peer with tag; sync: complete only once
 * a receive has matched (MPI_Ssend). SM_ERR_PEER (the reason naming the
 * call and the peer) if it could not start. */
sm_status_t net_send(struct net_op *op, int peer, const void *buf, size_t len, uint64_t tag, bool sync);
/* Receive up to cap bytes into buf from the first message whose tag
 * matches tag on the bits of mask. */
sm_status_t net_recv(struct net_op *op, void *buf, size_t cap, uint64_t tag, uint64_t mask);
/* A message that has arrived and matches: *found, its tag and length; with
 * take it is removed from matching and *msg is for net_mrecv. */
void net_probe(uint64_t tag, uint64_t mask, bool take, bool *found, uint64_t *stag, size_t *len, void **msg);
sm_status_t net_mrecv(struct net_op *op, void *buf, size_t cap, void *msg);
/* Cancel a receive that has not matched: its done callback runs with
 * cancelled set, now or from a later progress. */
void net_cancel(struct net_op *op);
/* Bytes sent and received between nodes (SMARTMAP_STATS). */
void net_bytes(uint64_t *sent, uint64_t *received);

#endif
