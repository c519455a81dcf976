/* p2p.h: the point-to-point engine (DESIGN.md §3, seed 000 §3.2): per-peer
 * rings of send descriptors in each receiver's SM_AREA_P2P area, eager data
 * inline, large messages copied once by the receiver from the sender's buffer. */
#ifndef P2P_H
#define P2P_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

struct p2p_status {
    int    source, tag;
    bool   truncated, cancelled;
    size_t len;                 /* bytes received */
};

/* A non-contiguous buffer (a datatype's typemap, flattened): count elements
 * extent bytes apart, each made of nblk blocks at offsets from the element.
 * One malloc'd object, owned by the request it is given to; a sender's
 * layout is read by the receiver through its global address. */
struct p2p_blk { ptrdiff_t off; size_t len; };
struct p2p_layout {
    size_t    count;
    ptrdiff_t extent;
    int       nblk;
    struct p2p_blk blk[];
};

/* An unexpected message (a drained descriptor nobody had asked for yet). */
struct p2p_msg;

enum p2p_kind { P2P_SEND = 1, P2P_RECV = 2 };
enum p2p_mode { P2P_STANDARD = 0, P2P_SYNC = 1 };

/* A request. The bindings allocate a larger object that starts with this
 * (p2p_init gives its size), always through p2p_req_alloc: the receiver
 * writes `done` of a send through its global address, so it must live in
 * exposed memory and outlive a Request_free. */
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
    void    *bounce;            /* copy transport: the sender's shared bounce buffer */
    void    *tmp;               /* the bindings' pack buffer (sends), freed with the request */
    struct p2p_layout *lay;     /* buf's layout when not contiguous (owned), else NULL */
    struct p2p_status st;       /* recv: the result */
    struct p2p_req *next;       /* posted / pending / detached lists */
    /* send of a large message: the receiver may invite the sender, waiting
     * for it anyway, to copy part of it (see p2p.c, "Sharing the copy") */
    _Atomic uint64_t coop_dst;  /* receiver's buffer, global address; 0: no invitation */
    _Atomic uint64_t coop_next; /* next chunk to claim */
    _Atomic uint64_t coop_left; /* bytes not yet copied */
    uint64_t coop_len;          /* bytes to copy */
};

/* Initialise the engine (after the core): req_size is the bindings' request size. */
int  p2p_init(size_t req_size);
void p2p_finalize(void);
struct p2p_req *p2p_req_alloc(void);
/* Release a request; an active one is released by the engine when it completes. */
void p2p_req_free(struct p2p_req *r);

/* Start a send of len bytes to comm rank dst / a receive of up to len bytes.
 * The bytes are contiguous at buf, or laid out at buf as lay says (the
 * request takes lay over). A sender's layout is only for memory peers can
 * read directly (see p2p_layout_ok), as the receiver copies straight from it.
 * The arguments have been checked by the caller. */
void p2p_isend(struct p2p_req *r, const void *buf, size_t len, int dst, int tag,
               const struct p2p_comm *c, enum p2p_mode mode, struct p2p_layout *lay);
void p2p_irecv(struct p2p_req *r, void *buf, size_t len, int src, int tag, const struct p2p_comm *c,
               struct p2p_layout *lay);
/* Whether a send of len bytes spanning [lo, hi) can go with its layout. */
bool p2p_layout_ok(const void *lo, const void *hi, size_t len);
static inline bool p2p_done(const struct p2p_req *r)
{
    return atomic_load_explicit(&r->done, memory_order_acquire) != 0;
}
/* Make progress once; then report whether r is complete. */
bool p2p_test(struct p2p_req *r);
/* Progress until cond(arg) is true, sleeping politely. */
void p2p_wait_until(bool (*cond)(void *), void *arg);
void p2p_wait(struct p2p_req *r);
void p2p_progress(void);
/* Cancel a receive that has not matched yet; true if cancelled. */
bool p2p_cancel(struct p2p_req *r);

/* Probe for a matching unexpected message. With take, the message is removed
 * from matching and returned (MPI_Mprobe); p2p_mrecv then receives it. */
bool p2p_iprobe(int src, int tag, const struct p2p_comm *c, struct p2p_status *st,
                bool take, struct p2p_msg **msg);
void p2p_mrecv(struct p2p_req *r, void *buf, size_t len, struct p2p_msg *m, struct p2p_layout *lay);

/* The transport, from SMARTMAP_TRANSPORT (DESIGN.md §3). */
enum p2p_transport { P2P_SMARTMAP, P2P_CMA, P2P_COPY };
extern enum p2p_transport p2p_transport;
/* Messages up to this many bytes travel inline in the descriptor. */
size_t p2p_eager_max(void);

#endif
