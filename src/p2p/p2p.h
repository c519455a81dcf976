/* p2p.h: the point-to-point engine (DESIGN.md §3, seed 000 §3.2): per-peer
 * rings of send descriptors in each receiver's SM_AREA_P2P area, eager data
 * inline, large messages copied once by the receiver from the sender's
 * buffer, typemap to typemap for datatypes (src/dt). Every entry point
 * returns an sm_status_t and records why it failed (sm_fail); nothing here
 * prints or ends the job. */
#ifndef P2P_H
#define P2P_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sm_status.h"
#include "net.h"

struct dt_type;

/* Contexts of the collective engine's own traffic (groups spanning nodes):
 * P2P_CTX_COLL | the group's number, or | P2P_CTX_COLL_JOB over the job, or
 * | P2P_CTX_COLL_ASET | an active set (start, stride, size) while its group
 * is made. */
#define P2P_CTX_COLL      0xc0000000u
#define P2P_CTX_COLL_JOB  0xffffu
#define P2P_CTX_COLL_ASET 0x100000u

#define P2P_ANY_SOURCE (-1)
#define P2P_ANY_TAG    (-1)

/* A communicator as the engine sees it: a context id and the comm-rank ->
 * job-rank table. Owned by the bindings. */
struct p2p_comm {
    uint32_t   ctx;
    int        rank, size;
    const int *world;           /* world[i]: job rank of comm rank i */
    int        coll_tag;        /* the tag collectives use (negative ones are internal:
                                 * P2P_ANY_TAG does not match them) */
};

/* The result of an operation, final once p2p_done says so. */
struct p2p_status {
    int    source, tag;         /* receives: the message's */
    bool   cancelled;
    size_t len;                 /* bytes received */
    sm_status_t err;            /* SM_OK, SM_ERR_TRUNCATE (a receive), or why the data
                                 * could not be moved (both sides: the receiver sets the
                                 * sender's, e.g. SM_ERR_ACCESS for an unreadable buffer) */
};

/* An unexpected message (a drained descriptor nobody had asked for yet). */
struct p2p_msg;

enum p2p_kind { P2P_SEND = 1, P2P_RECV = 2 };
enum p2p_mode { P2P_STANDARD = 0, P2P_SYNC = 1 };

/* A request. The bindings allocate a larger object that starts with this
 * (p2p_init gives its size), always through p2p_req_alloc: the receiver
 * writes `done` and `st.err` of a send through its global address, so it
 * must live in exposed memory and outlive a Request_free. */
struct p2p_req {
    _Atomic uint32_t done;      /* set (release) when the operation is complete */
    uint8_t  kind;              /* enum p2p_kind */
    uint8_t  active;            /* posted: in a ring, a pending queue or the posted queue */
    uint8_t  detached;          /* freed by the user while active: the engine frees it later */
    uint8_t  posted;            /* send: descriptor is in the peer's ring */
    int      peer;              /* job rank of the destination (send) */
    uint32_t ctx;
    int      tag, src;          /* recv: what to match (comm rank or ANY); send: my comm rank */
    const struct p2p_comm *comm;
    void    *buf;
    size_t   len;               /* send: message length; recv: capacity */
    uint32_t flags;             /* send: descriptor flags */
    struct dt_type *type;       /* buf's typemap (a reference), or NULL for plain bytes */
    void    *tmp;               /* send: the data packed (or, copy transport, bounced) here */
    char    *why;               /* receive: why st.err (owned), if it failed moving data */
    struct p2p_status st;       /* the result */
    struct p2p_req *next;       /* posted / pending / detached lists */
    uint64_t pos;               /* posted send: its record's position in the peer's ring (cancel) */
    /* send of a large message: the receiver may invite the sender, waiting
     * for it anyway, to copy part of it (see p2p.c, "Sharing the copy") */
    _Atomic uint64_t coop_dst;  /* receiver's buffer, global address; 0: no invitation */
    uint64_t coop_dtype;        /* its typemap's global address, 0: plain bytes */
    _Atomic uint64_t coop_next; /* next chunk to claim */
    _Atomic uint64_t coop_left; /* bytes not yet copied */
    uint64_t coop_len;          /* bytes to copy */
    /* a peer on another node (src/net) */
    uint8_t  remote;            /* the operation is on the off-node path */
    uint8_t  probing;           /* receive: posted, matched by probing the network (see p2p.c) */
    struct net_op net;
};

/* Initialise the engine (after the core): req_size is the bindings' request
 * size. SM_ERR_ARG for a bad SMARTMAP_TRANSPORT, SM_ERR_NOMEM. */
sm_status_t p2p_init(size_t req_size);
/* A request size enough for every binding's (MPI's): for an engine that
 * starts p2p before the binding that will use it (coll, for OpenSHMEM
 * across nodes), when p2p_started() says nobody has. A later p2p_init
 * asking for more fails. */
#define P2P_REQ_SIZE_ANY 1024
bool p2p_started(void);
/* From now on any thread may call any entry point at any time (the
 * structures take locks; before this call, none is taken). Before any
 * traffic. SM_ERR_NOMEM if the locks cannot be made. */
sm_status_t p2p_threads(void);
/* Every send started has reached its ring (the program's last sends). */
sm_status_t p2p_finalize(void);
/* A zeroed request, or NULL when out of memory (the reason recorded). */
struct p2p_req *p2p_req_alloc(void);
/* Release a request; an active one is released by the engine when it completes. */
void p2p_req_free(struct p2p_req *r);
/* Release a request that is complete (p2p_done said so) or was never
 * started: the engine holds it no more, so none of p2p_req_free's tests. */
void p2p_req_free_done(struct p2p_req *r);

/* Start a send of len bytes to comm rank dst / a receive of up to len
 * bytes from comm rank src. The bytes are plain at buf (type NULL), or the
 * typemap stream of elements of type at buf (the request holds a reference
 * while it needs it). Arguments have been checked by the caller. SM_OK, or
 * SM_ERR_NOMEM (a send that had to pack its data): the request did not start. */
sm_status_t p2p_isend(struct p2p_req *r, const void *buf, size_t len, int dst, int tag, const struct p2p_comm *c,
                      enum p2p_mode mode, const struct dt_type *type);
sm_status_t p2p_irecv(struct p2p_req *r, void *buf, size_t len, int src, int tag, const struct p2p_comm *c,
                      const struct dt_type *type);
/* The small blocking send's path: a standard send of len bytes of plain
 * data, at most p2p_eager_max(), with no request. True: the message is in
 * dst's ring, or sent to UCX for dst on another node (the send is
 * complete); false: nothing was done (the ring is full, or earlier sends
 * to dst wait for room; a tag UCX cannot carry), and the caller starts a
 * request instead. Also false after a send to another node that failed:
 * the endpoint is then in error, and the request's send fails the same way
 * and says why. */
bool p2p_send_eager(const void *buf, size_t len, int dst, int tag, const struct p2p_comm *c);
/* The small nonblocking send's path: as p2p_send_eager to a rank on this
 * node, with r (fresh from p2p_req_alloc, or a complete persistent send)
 * made a posted eager send, complete at once: p2p_cancel still withdraws
 * the record while the receiver has not taken it. False: nothing was done
 * (r untouched), and the caller starts r with p2p_isend. */
bool p2p_isend_eager(struct p2p_req *r, const void *buf, size_t len, int dst, int tag, const struct p2p_comm *c);
/* The small blocking receive's path: a receive of up to len bytes of plain
 * data from comm rank src (or P2P_ANY_SOURCE) with no request, which waits
 * a little for a message from one rank. True: received, *st has its
 * source, tag and length; false: nothing was done (nothing came yet, or
 * the message needs more), and the caller starts a request. */
bool p2p_recv_eager(void *buf, size_t len, int src, int tag, const struct p2p_comm *c, struct p2p_status *st);
/* A request its caller owns (a blocking receive's, on its stack), zeroed
 * for p2p_irecv; once complete, p2p_req_fini releases what it holds. Only
 * for receives: the engine never touches a complete receive. */
static inline void p2p_req_init(struct p2p_req *r)
{
    /* Plain 16-byte stores (the barrier keeps the compiler from turning the
     * loop back into memset): a 216-byte `rep stos`, what it would make of
     * `*r = (struct p2p_req){0}`, starts slowly and took the largest share
     * of a blocking receive's own time. */
    typedef uint64_t zero2 __attribute__((vector_size(16), may_alias, aligned(8)));
    typedef uint64_t zero1 __attribute__((may_alias));
    _Static_assert(sizeof(struct p2p_req) % 8 == 0, "whole words");
    char *c = (char *)r;
    for (size_t i = 0; i + 16 <= sizeof *r; i += 16) {
        *(zero2 *)(c + i) = (zero2){0, 0};
        __asm__ volatile("" ::: "memory");
    }
    if (sizeof *r % 16) *(zero1 *)(c + sizeof *r - 8) = 0;
}
void p2p_req_fini(struct p2p_req *r);
static inline bool p2p_done(const struct p2p_req *r)
{
    return atomic_load_explicit(&r->done, memory_order_acquire) != 0;
}
/* Make progress once. A sender is stuck when a message of its that no
 * receive matches yet cannot be kept aside (no memory): it stays in the
 * ring, with those behind it, until memory frees or a receive takes it.
 * p2p_progress: SM_ERR_NOMEM while any sender is stuck. p2p_test and
 * p2p_wait, once r is complete: its result (r->st.err); before:
 * SM_INPROGRESS (test), or SM_ERR_NOMEM when r is a receive whose message
 * may be behind a stuck one (from that sender, or from any), r still active. */
sm_status_t p2p_progress(void);
sm_status_t p2p_test(struct p2p_req *r);
/* Other engines' progress, run by every progress pass (and so by every
 * test and wait) while set: the collective engine sets it while it has
 * nonblocking collectives to move on. The hook must not wait. */
extern void (*p2p_progress_hook)(void);
sm_status_t p2p_wait(struct p2p_req *r);
/* Progress until cond(arg) is true (SM_OK), sleeping politely; SM_ERR_NOMEM
 * if a sender is stuck first (the condition cannot say what it waits for). */
sm_status_t p2p_wait_until(bool (*cond)(void *), void *arg);
/* Cancel an operation that has not matched yet: a receive still posted, a
 * send still waiting for ring space or whose message still waits in the
 * receiver's ring (a message a receiver has set aside, unmatched, is no
 * longer cancelled). SM_OK: r completes (an eager send had completed
 * already) with st.cancelled, and no receive will see the message. Else
 * SM_ERR_STATE: it matched, or may have; r completes as usual. */
sm_status_t p2p_cancel(struct p2p_req *r);

/* Probe for a matching message: *found and its status (SM_ERR_NOMEM when
 * not found and a sender it could come from is stuck). With take, the
 * message is removed from matching and returned (MPI_Mprobe); p2p_mrecv
 * then receives it. */
sm_status_t p2p_iprobe(int src, int tag, const struct p2p_comm *c, bool take, bool *found, struct p2p_status *st,
                       struct p2p_msg **msg);
sm_status_t p2p_mrecv(struct p2p_req *r, void *buf, size_t len, struct p2p_msg *m, const struct dt_type *type);
/* Whether m is a message a matched probe returned that no p2p_mrecv has
 * taken yet; any other value (a bogus handle, a used one) is refused
 * without being read outside the heap. */
bool p2p_msg_pending(const struct p2p_msg *m);

/* The transport, from SMARTMAP_TRANSPORT (DESIGN.md §3). */
enum p2p_transport { P2P_SMARTMAP, P2P_CMA, P2P_COPY };
extern enum p2p_transport p2p_transport;
/* Messages up to this many bytes travel inline in the descriptor. */
size_t p2p_eager_max(void);

/* What the engine holds now, and how shared copies went (tests, statistics). */
struct p2p_stats {
    uint64_t requests;          /* allocated and not yet released */
    uint64_t unexpected;        /* messages kept aside */
    uint64_t pending;           /* sends waiting for ring space */
    uint64_t ring_bytes;        /* capacity of a ring */
    uint64_t coop_chunks_sent;  /* chunks of shared copies this rank copied as the sender */
    uint64_t coop_chunks_recv;  /* ... and as the receiver */
    uint64_t back_offs;         /* pauses of a receiver caught up with a burst (p2p.c rx_back_off) */
    uint64_t fast_recvs;        /* blocking receives taken straight from the ring (p2p_recv_eager) */
    uint64_t watched;           /* blocking receives that found that ring empty and watched it (p2p.c may_watch) */
    uint64_t eager_isends;      /* nonblocking sends complete when started (p2p_isend_eager) */
    uint64_t kept;              /* messages ever kept aside (a malloc and a copy each) */
    uint64_t queued;            /* sends ever queued for ring space */
    uint64_t wants;             /* times a full ring's receiver was asked to drain it to its end */
    uint64_t locked;            /* with threads: send or receive side locked through the spin lock,
                                 * not by the thread it is biased to (p2p.c "Threads") */
    uint64_t revoked;           /* ... and taken from the thread it was biased to */
    uint64_t behind;            /* receives posted behind one matching all they match, no ring looked at */
    uint64_t net_sent, net_received;    /* bytes to and from other nodes */
};
void p2p_stats(struct p2p_stats *s);

#endif
