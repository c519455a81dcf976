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
    _Atomic(void *) ucx;                 /* UCX's request while in flight */
    sm_status_t err;                     /* SM_OK, SM_ERR_TRUNCATE (receive), SM_ERR_PEER */
    bool     cancelled;                  /* a receive cancelled by net_cancel */
    uint64_t tag;                        /* receive: the sender's tag */
    size_t   len;                        /* receive: bytes received */
    bool     bulk;                       /* counted among the large transfers under way (net.c) */
};

/* Collective over every rank of the job (a PMIx fence): the worker, its
 * address published. SM_ERR_UNSUPPORTED when built without UCX. */
sm_status_t net_init(void);
/* Every send started has completed; then a fence, so that no rank leaves
 * while another still needs it. */
sm_status_t net_finalize(void);
/* Run UCX's progress once; the number of events it handled. */
unsigned net_progress(void);
/* Sleeping waits (the core's, sm_wait_for and sm_wait_word) run UCX and are
 * woken by its events (its event fd, watched by a thread that rings the
 * rank's doorbell): a wait for something from another node may sleep.
 * false before net_init, without UCX's wakeup (waits must poll), or with
 * SMARTMAP_NET_POLL=1. */
bool net_wakes(void);
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

/* --- One-sided between nodes (UCX RMA and atomics) ---
 * Each rank registers its memory once (net_mem_init, collective over the
 * job: a PMIx fence) and publishes the rkey; a peer's rkey is unpacked on
 * first use. A remote address is a number in the target's own address
 * space: for smartmap, its slot, where it sits at the same address as in
 * every rank's view (sm_slot_base). Errors name the UCX call and the peer. */
sm_status_t net_mem_init(void *base, size_t len);
bool net_mem_up(void);
/* Start a put or get of len bytes; both are complete locally (the source
 * reusable, the data arrived) after net_wait_local, at the target after
 * net_flush. */
sm_status_t net_put(int peer, uint64_t raddr, const void *src, size_t len);
sm_status_t net_get(int peer, void *dst, uint64_t raddr, size_t len);
sm_status_t net_wait_local(void);
/* Atomic on width (4 or 8) bytes at raddr: value is the operand (the new
 * value for swap and cswap), compare cswap's; with result (required for
 * SWAP and CSWAP) the old value is fetched, and the call returns once it
 * has; without, it completes at net_flush. */
enum net_amo { NET_AMO_ADD, NET_AMO_AND, NET_AMO_OR, NET_AMO_XOR, NET_AMO_SWAP, NET_AMO_CSWAP };
sm_status_t net_amo(int peer, uint64_t raddr, enum net_amo op, size_t width, uint64_t value, uint64_t compare,
                    uint64_t *result);
/* Every operation started is complete at its target (ucp_worker_flush). */
sm_status_t net_flush(void);
/* Operations started before are complete at their targets before any after (ucp_worker_fence). */
sm_status_t net_fence(void);
/* Collective at the end of the last one-sided user: flush, sends done, a
 * PMIx fence; with SMARTMAP_STATS the one-sided bytes. */
sm_status_t net_mem_finalize(void);

#endif
