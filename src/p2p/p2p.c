/* The point-to-point engine (DESIGN.md §3): rings of send descriptors, one
 * per sender, in every receiver's SM_AREA_P2P area; matching, eager and
 * single-copy delivery (typemap to typemap for datatypes), pending queues
 * for full rings, progress and waiting. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "sm_core.h"
#include "p2p.h"

/* --- Shared layout ----------------------------------------------------------
 * A receiver's area: one ring_ctl per possible sender, then one ring per
 * sender of this job. Single producer, single consumer. A ring is a stream of
 * records packed one after the other in whole cache lines: a descriptor with
 * the eager data behind it. Packed, a burst of small messages is a run of
 * consecutive lines that the receiver's prefetcher streams in, and a small
 * message costs one cache-line transfer (header and data share a line).
 * Positions are byte counters that only grow; a record that starts before
 * the end of the ring runs on into a slack area behind it, so records are
 * never split. A record is valid when its seq says so; the sender clears the
 * next record's seq before it publishes a record, so the receiver, polling
 * the line after the last record, never mistakes an older lap's bytes for a
 * message. The receiver publishes how far it has consumed in head; the
 * sender reads head only when its ring looks full. */
struct ring_ctl {
    alignas(SM_CACHELINE) _Atomic uint64_t head;  /* written by the receiver */
    alignas(SM_CACHELINE) _Atomic uint32_t want;  /* written by the sender: it has pending sends */
};
#define RING_OFF ((size_t)SM_NMAX * sizeof(struct ring_ctl))
_Static_assert(RING_OFF < SM_AREA_SIZE / 8, "ring controls fit");

enum { D_EAGER = 1, D_SYNC = 2, D_LAYOUT = 4 };
/* A send descriptor. Eager data follows at DESC_DATA; a large message's
 * addresses sit there instead. */
struct desc {
    _Atomic uint64_t seq;       /* record's position / 64 + 1 once it is filled; 0 before */
    uint32_t ctx;
    int32_t  tag, src;          /* src: the sender's rank in the communicator */
    uint32_t flags;
    uint64_t len;
    uint64_t req;               /* global address of the sender's request (sync and large) */
    uint64_t addr;              /* large: sender's buffer, as the sender names it; with
                                 * D_LAYOUT, the global address of its p2p_layout */
    uint64_t gaddr;             /* large: its global address (or the bounce buffer's); 0 if not exposed */
};
#define DESC_DATA offsetof(struct desc, addr)
_Static_assert(DESC_DATA == 40 && sizeof(struct desc) <= SM_CACHELINE, "a descriptor is one line");
static inline char *desc_data(const struct desc *d) { return (char *)d + DESC_DATA; }
/* Records start on 128-byte boundaries: x86 cores fetch a line's 128-byte
 * buddy along with it, and the receiver, polling for record k, must not pull
 * in the line where the sender is about to write record k+1 (measured: 10 ns
 * more per message in a ping-pong with 64-byte records). */
#define REC_ALIGN 128
/* Bytes a record takes in the ring. */
static inline uint64_t rec_size(uint32_t flags, uint64_t len)
{
    uint64_t n = flags & D_EAGER ? DESC_DATA + len : sizeof(struct desc);
    return (n + REC_ALIGN - 1) & ~(uint64_t)(REC_ALIGN - 1);
}
static inline uint64_t rec_seq(uint64_t pos) { return pos / SM_CACHELINE + 1; }

struct p2p_msg {                /* an unexpected message */
    struct p2p_msg *next;
    int    world;               /* job rank of the sender */
    struct desc d;
    char   data[];              /* eager payload (private copy) */
};
struct msgq { struct p2p_msg *head, *tail; };
struct reqq { struct p2p_req *head, *tail; };

enum p2p_transport p2p_transport = P2P_SMARTMAP;

static struct {
    bool     up;
    size_t   req_size;
    uint64_t cap;               /* bytes of a ring, a power of two (slack not counted) */
    size_t   ring_bytes;        /* a ring with its slack */
    size_t   eager_max;         /* largest record - DESC_DATA, or lower (SMARTMAP_EAGER_MAX) */
    uint64_t *head;             /* per sender: position of the next record to consume (ours) */
    uint64_t *tail;             /* per destination: position of the next record to fill (ours) */
    uint64_t *head_seen;        /* per destination: its head when we last looked */
    struct msgq *unexp;         /* per sender job rank */
    struct reqq  posted;        /* posted receives, in posting order */
    struct reqq *pending;       /* per destination: sends waiting for ring space */
    int      npending;          /* destinations with a non-empty pending queue */
    struct reqq  detached;      /* freed by the user while active */
    int      drain_from;        /* fairness: next sender to drain first */
    int      any_from;          /* fairness: next sender to look at for ANY_SOURCE */
    struct p2p_req *freelist;
} P;

static inline struct ring_ctl *ctl_of(int rcv, int snd)
{
    return (struct ring_ctl *)sm_area(rcv, SM_AREA_P2P) + snd;
}
/* The record at position pos of snd's ring in rcv's area. */
static inline struct desc *rec_at(int rcv, int snd, uint64_t pos)
{
    char *base = (char *)sm_area(rcv, SM_AREA_P2P) + RING_OFF + (size_t)snd * P.ring_bytes;
    return (struct desc *)(base + (pos & (P.cap - 1)));
}
size_t p2p_eager_max(void) { return P.eager_max; }

/* (a + 1) mod n for a in [0, n): no division on the polling path. */
static inline int next_rank(int a, int n) { return a + 1 == n ? 0 : a + 1; }

static uint32_t pow2floor(size_t x)
{
    uint32_t p = 1;
    while ((size_t)p * 2 <= x) p *= 2;
    return p;
}

int p2p_init(size_t req_size)
{
    if (P.up) return 0;
    int n = sm_core.size;
    P.req_size = req_size < sizeof(struct p2p_req) ? sizeof(struct p2p_req) : req_size;
    /* The geometry depends only on the job size, so every rank computes the
     * same: records of up to 8 KiB, a ring that holds at least 16 of the
     * largest (plus one in its slack), at most 1 MiB. */
    size_t per = (SM_AREA_SIZE - RING_OFF) / (size_t)n;
    uint32_t maxrec = pow2floor(per / 32);
    if (maxrec > 8192) maxrec = 8192;
    if (maxrec < 256) maxrec = 256;
    P.cap = pow2floor(per - maxrec);
    if (P.cap > (1u << 20)) P.cap = 1u << 20;
    P.ring_bytes = P.cap + maxrec;
    P.eager_max = maxrec - DESC_DATA;
    /* SMARTMAP_EAGER_MAX lowers the limit; SMARTMAP_TRANSPORT's values are
     * smartmap|cma|copy, in the order of enum p2p_transport (sm_settings.h). */
    if (sm_setting(SM_SET_EAGER_MAX) < P.eager_max) P.eager_max = (size_t)sm_setting(SM_SET_EAGER_MAX);
    p2p_transport = (enum p2p_transport)sm_setting(SM_SET_TRANSPORT);
    P.unexp = calloc((size_t)n, sizeof *P.unexp);
    P.pending = calloc((size_t)n, sizeof *P.pending);
    P.head = calloc((size_t)n, sizeof *P.head);
    P.tail = calloc((size_t)n, sizeof *P.tail);
    P.head_seen = calloc((size_t)n, sizeof *P.head_seen);
    if (!P.unexp || !P.pending || !P.head || !P.tail || !P.head_seen) return -1;
    P.drain_from = P.any_from = 0;
    P.up = true;
    return 0;
}

static bool no_pending(void *arg) { (void)arg; return P.npending == 0; }

void p2p_finalize(void)
{
    /* Sends the user forgot about must still reach their rings. */
    p2p_wait_until(no_pending, NULL);
    P.up = false;
}

/* --- Requests ------------------------------------------------------------- */

static void q_push(struct reqq *q, struct p2p_req *r)
{
    r->next = NULL;
    if (q->tail) q->tail->next = r; else q->head = r;
    q->tail = r;
}


struct p2p_req *p2p_req_alloc(void)
{
    struct p2p_req *r = P.freelist;
    if (r) P.freelist = r->next;
    else if (!(r = malloc(P.req_size))) return NULL;
    memset(r, 0, P.req_size);
    return r;
}

static void release(struct p2p_req *r)
{
    if (SM_UNLIKELY(r->bounce || r->tmp || r->lay)) {   /* rare: spare the hot path three calls */
        free(r->bounce);
        free(r->tmp);
        free(r->lay);
    }
    r->next = P.freelist;
    P.freelist = r;
}

void p2p_req_free(struct p2p_req *r)
{
    if (!r) return;
    if (r->active && !p2p_done(r)) {
        r->detached = 1;
        /* Posted receives stay on the posted queue and unposted sends on
         * their pending queue: completion or posting takes care of them. */
        if (r->kind == P2P_SEND && r->posted) {
            q_push(&P.detached, r);
        }
        return;
    }
    release(r);
}

/* --- Delivery ---------------------------------------------------------------- */

/* A position in a byte stream laid out contiguously (l NULL) or by a layout. */
struct cursor { char *base; const struct p2p_layout *l; size_t elem; int blk; size_t in; };

/* The next piece of at most max bytes: its address and length. */
static size_t next_piece(struct cursor *c, size_t max, char **at)
{
    if (!c->l) { *at = c->base + c->in; c->in += max; return max; }
    while (c->l->blk[c->blk].len == c->in) {         /* finished a block: next one */
        c->in = 0;
        if (++c->blk == c->l->nblk) c->blk = 0, c->elem++;
    }
    const struct p2p_blk *b = &c->l->blk[c->blk];
    size_t n = b->len - c->in < max ? b->len - c->in : max;
    *at = c->base + (ptrdiff_t)c->elem * c->l->extent + b->off + (ptrdiff_t)c->in;
    c->in += n;
    return n;
}

/* Copy n bytes of typemap stream from one layout to another: one pass, no
 * intermediate buffer (DESIGN.md §3). */
static void copy_layouts(char *dst, const struct p2p_layout *dl, const char *src, const struct p2p_layout *sl,
                         size_t n)
{
    if (!dl && !sl) { memcpy(dst, src, n); return; }
    struct cursor d = { dst, dl, 0, 0, 0 }, s = { (char *)src, sl, 0, 0, 0 };
    char *dp = NULL, *sp = NULL;
    size_t dn = 0, sn = 0;
    while (n) {
        if (!dn) dn = next_piece(&d, n, &dp);
        if (!sn) sn = next_piece(&s, n, &sp);
        size_t k = dn < sn ? dn : sn;
        memcpy(dp, sp, k);
        dp += k, sp += k, dn -= k, sn -= k, n -= k;
    }
}


/* The single copy of a large message, on the chosen transport. */
static void copy_from(int world, void *dst, const struct desc *d, size_t n)
{
    if (!n) return;
    if (p2p_transport == P2P_CMA &&
        sm_copy_via(SM_PATH_KERNEL, world, false, (void *)d->addr, dst, n) == SM_OK)
        return;
    if (d->gaddr) memcpy(dst, (void *)d->gaddr, n);
    else sm_get(world, dst, (void *)d->addr, n);       /* not exposed: kernel or staged */
}

/* --- Sharing the copy -------------------------------------------------------
 * One core cannot pull a large message out of another core's cache as fast
 * as two can. When the receiver of a large contiguous message finds its
 * buffer exposed, it invites the sender: it publishes its buffer in the
 * sender's request, and both claim chunks from a counter there until none
 * is left. A sender that waits for this send (MPI_Send, MPI_Wait) takes
 * chunks; one that is busy elsewhere takes none, and the receiver copies
 * everything, as without the invitation. The receiver completes both sides
 * once the bytes left reach zero. */
#define COOP_MIN (16u << 10)    /* smaller messages: one copier is as fast */
/* An eighth to a quarter of the message, 8-64 KiB: small chunks share small messages
 * evenly, large ones keep the claim counter's line from bouncing. */
static inline uint64_t coop_chunk(uint64_t len)
{
    uint64_t c = 8u << 10;
    while (c < (64u << 10) && c * 8 <= len) c *= 2;
    return c;
}

/* Claim and copy chunks of s's message from src to dst until none is left. */
static void coop_copy(struct p2p_req *s, char *dst, const char *src)
{
    uint64_t len = s->coop_len, chunk = coop_chunk(len), i;
    while ((i = atomic_fetch_add_explicit(&s->coop_next, 1, memory_order_relaxed)) * chunk < len) {
        uint64_t off = i * chunk, k = len - off < chunk ? len - off : chunk;
        memcpy(dst + off, src + off, k);
        atomic_fetch_sub_explicit(&s->coop_left, k, memory_order_release);
    }
}

/* The sender's side: help with r's copy if invited. */
static void coop_help(struct p2p_req *r)
{
    uint64_t dst = atomic_load_explicit(&r->coop_dst, memory_order_acquire);
    if (dst) coop_copy(r, (char *)dst, r->buf);
}

/* The receiver's side: copy n bytes of d's message into r's buffer, shared
 * with the sender when it may help. */
static bool coop_recv(struct p2p_req *r, const struct desc *d, size_t n, int world)
{
    char *gdst;
    if (n < COOP_MIN || p2p_transport != P2P_SMARTMAP || !d->gaddr || r->lay || !(gdst = sm_global(r->buf)))
        return false;
    struct p2p_req *s = (struct p2p_req *)d->req;
    s->coop_len = n;
    atomic_store_explicit(&s->coop_next, 0, memory_order_relaxed);
    atomic_store_explicit(&s->coop_left, n, memory_order_relaxed);
    atomic_store_explicit(&s->coop_dst, (uint64_t)(uintptr_t)gdst, memory_order_release);
    sm_wake(world);
    coop_copy(s, r->buf, (const char *)d->gaddr);
    for (int i = 0; atomic_load_explicit(&s->coop_left, memory_order_acquire); i++)
        if (i > 1000) sched_yield();    /* the sender is copying its last chunk, or descheduled */
    return true;
}

static void complete_recv(struct p2p_req *r)
{
    r->active = 0;
    atomic_store_explicit(&r->done, 1, memory_order_release);
    if (r->detached) release(r);
}

/* Deliver message d (eager payload at data) from job rank world into r. */
static void deliver(struct p2p_req *r, const struct desc *d, const char *data, int world)
{
    size_t n = d->len <= r->len ? d->len : r->len;
    if (!n) ;
    else if (d->flags & D_EAGER) copy_layouts(r->buf, r->lay, data, NULL, n);
    else if (d->flags & D_LAYOUT)     /* typemap to typemap, straight from the sender */
        copy_layouts(r->buf, r->lay, (const char *)d->gaddr, (const struct p2p_layout *)d->addr, n);
    else if (coop_recv(r, d, n, world)) ;
    else if (!r->lay) copy_from(world, r->buf, d, n);
    else if (d->gaddr && p2p_transport == P2P_SMARTMAP) copy_layouts(r->buf, r->lay, (const char *)d->gaddr, NULL, n);
    else {                            /* through the kernel or staged: then scatter */
        char *t = malloc(n);
        if (!t) sm_fatal("p2p: out of memory receiving %zu bytes", n);
        copy_from(world, t, d, n);
        copy_layouts(r->buf, r->lay, t, NULL, n);
        free(t);
    }
    r->st.source = d->src;
    r->st.tag = d->tag;
    r->st.len = n;
    r->st.truncated = d->len > r->len;
    if (d->flags & D_SYNC || !(d->flags & D_EAGER)) {
        struct p2p_req *s = (struct p2p_req *)d->req;
        atomic_store_explicit(&s->done, 1, memory_order_release);
        sm_wake(world);
    }
    complete_recv(r);
}

static inline bool matches(const struct desc *d, uint32_t ctx, int src, int tag)
{
    return d->ctx == ctx && (src == P2P_ANY_SOURCE || d->src == src) &&
           (tag == P2P_ANY_TAG ? d->tag >= 0 : d->tag == tag);
}

/* A descriptor arrived from world: match it against the posted receives,
 * else against cand (a receive about to be posted, so after them), else
 * keep it as unexpected. True if cand took it. */
static bool arrive(const struct desc *d, int world, struct p2p_req *cand)
{
    struct p2p_req *prev = NULL;
    for (struct p2p_req *r = P.posted.head; r; prev = r, r = r->next) {
        if (!matches(d, r->ctx, r->src, r->tag)) continue;
        if (prev) prev->next = r->next; else P.posted.head = r->next;
        if (P.posted.tail == r) P.posted.tail = prev;
        deliver(r, d, desc_data(d), world);
        return false;
    }
    if (cand && matches(d, cand->ctx, cand->src, cand->tag)) {
        deliver(cand, d, desc_data(d), world);
        return true;
    }
    size_t eager = d->flags & D_EAGER ? d->len : 0;
    struct p2p_msg *m = malloc(sizeof *m + eager);
    if (!m) sm_fatal("p2p: out of memory keeping an unexpected message of %llu bytes",
                     (unsigned long long)d->len);
    memcpy(m->data, desc_data(d), eager);
    m->next = NULL, m->world = world, m->d = *d;
    struct msgq *q = &P.unexp[world];
    if (q->tail) q->tail->next = m; else q->head = m;
    q->tail = m;
    return false;
}

/* Drain sender s's ring: to its end with to_end or when s waits for room,
 * else while receives are posted or until cand (see arrive) takes a
 * message. True if cand took one. */
static bool drain_ring(int s, bool to_end, struct p2p_req *cand)
{
    int me = sm_core.rank;
    struct ring_ctl *c = ctl_of(me, s);
    bool want = atomic_load_explicit(&c->want, memory_order_relaxed);
    to_end = to_end || want;
    uint64_t h = P.head[s], h0 = h;
    bool taken = false;
    while (!taken && (to_end || cand || P.posted.head)) {
        struct desc *d = rec_at(me, s, h);
        if (atomic_load_explicit(&d->seq, memory_order_acquire) != rec_seq(h)) break;
        uint64_t size = rec_size(d->flags, d->len);
        taken = arrive(d, s, cand);
        h += size;
    }
    if (h != h0) {
        P.head[s] = h;
        atomic_store_explicit(&c->head, h, memory_order_release);
        if (want) sm_wake(s);
    }
    return taken;
}

/* Drain rings into the posted receives or the unexpected lists. With all,
 * every ring to its end (probes look at the unexpected lists). Otherwise
 * lazily: a ring only while receives are posted or while its sender waits
 * for space, so a message sent before its receive is posted stays in the
 * ring until that receive takes it from there, with no copy to the side. */
static void drain(bool all)
{
    int n = sm_core.size;
    for (int k = 0, s = P.drain_from; k < n; k++, s = next_rank(s, n)) {
        uint64_t h0 = P.head[s];
        drain_ring(s, all, NULL);
        if (P.head[s] != h0) P.drain_from = next_rank(s, n);
    }
}

/* --- Sending -------------------------------------------------------------- */

/* Room for r's record and the cleared header after it. */
static bool ring_has_space(const struct p2p_req *r)
{
    int peer = r->peer;
    uint64_t need = rec_size(r->flags, r->len) + SM_CACHELINE;
    if (P.tail[peer] + need - P.head_seen[peer] <= P.cap) return true;
    P.head_seen[peer] = atomic_load_explicit(&ctl_of(peer, sm_core.rank)->head, memory_order_acquire);
    return P.tail[peer] + need - P.head_seen[peer] <= P.cap;
}

static void post(struct p2p_req *r)
{
    uint64_t t = P.tail[r->peer], next = t + rec_size(r->flags, r->len);
    P.tail[r->peer] = next;
    struct desc *d = rec_at(r->peer, sm_core.rank, t);
    atomic_store_explicit(&rec_at(r->peer, sm_core.rank, next)->seq, 0, memory_order_relaxed);
    d->ctx = r->ctx, d->tag = r->tag, d->src = r->src, d->flags = r->flags;
    d->len = r->len;
    d->req = (uint64_t)(uintptr_t)sm_global(r);
    if (r->flags & D_EAGER) {
        if (r->len) copy_layouts(desc_data(d), NULL, r->buf, r->lay, r->len);
    } else if (r->flags & D_LAYOUT) {
        d->addr = (uint64_t)(uintptr_t)sm_global(r->lay);
        d->gaddr = (uint64_t)(uintptr_t)sm_global(r->buf);
    } else {
        d->addr = (uint64_t)(uintptr_t)r->buf;
        d->gaddr = (uint64_t)(uintptr_t)sm_global(r->bounce ? r->bounce : r->buf);
    }
    atomic_store_explicit(&d->seq, rec_seq(t), memory_order_release);
    sm_wake(r->peer);
    r->posted = 1;
    if ((r->flags & (D_EAGER | D_SYNC)) == D_EAGER) {
        r->active = 0;
        atomic_store_explicit(&r->done, 1, memory_order_release);
    }
}

bool p2p_layout_ok(const void *lo, const void *hi, size_t len)
{
    if (len <= p2p_eager_max()) return true;          /* packed into the ring by the sender */
    if (p2p_transport != P2P_SMARTMAP) return false;
    char *glo = sm_global(lo), *ghi = sm_global(hi);  /* one exposed region, linearly mapped */
    return glo && ghi && ghi - glo == (const char *)hi - (const char *)lo;
}

void p2p_isend(struct p2p_req *r, const void *buf, size_t len, int dst, int tag,
               const struct p2p_comm *c, enum p2p_mode mode, struct p2p_layout *lay)
{
    r->kind = P2P_SEND;
    r->peer = c->world[dst];
    r->ctx = c->ctx, r->tag = tag, r->src = c->rank, r->comm = c;
    r->buf = (void *)buf, r->len = len;
    r->lay = lay;
    r->flags = (len <= p2p_eager_max() ? D_EAGER : lay ? D_LAYOUT : 0) | (mode == P2P_SYNC ? D_SYNC : 0);
    atomic_store_explicit(&r->done, 0, memory_order_relaxed);
    atomic_store_explicit(&r->coop_dst, 0, memory_order_relaxed);
    r->active = 1, r->posted = 0;
    if (!(r->flags & D_EAGER) && p2p_transport == P2P_COPY) {
        /* The classic two copies: into a shared buffer here, out at the receiver. */
        if (!(r->bounce = malloc(len)))
            sm_fatal("p2p: no memory for a %zu-byte bounce buffer", len);
        copy_layouts(r->bounce, NULL, buf, lay, len);
        r->flags &= ~(uint32_t)D_LAYOUT;
    }
    struct reqq *pq = &P.pending[r->peer];
    if (!pq->head && ring_has_space(r)) { post(r); return; }
    if (!pq->head) {
        P.npending++;
        atomic_store(&ctl_of(r->peer, sm_core.rank)->want, 1);
    }
    q_push(pq, r);
}

static void drain_pending(void)
{
    int n = sm_core.size;
    for (int p = 0; p < n && P.npending; p++) {
        struct reqq *q = &P.pending[p];
        if (!q->head) continue;
        while (q->head && ring_has_space(q->head)) {
            struct p2p_req *r = q->head;
            q->head = r->next;
            if (!q->head) q->tail = NULL;
            r->next = NULL;
            post(r);
            if (r->detached) {
                if (p2p_done(r)) release(r);
                else q_push(&P.detached, r);
            }
        }
        if (!q->head) {
            P.npending--;
            atomic_store(&ctl_of(p, sm_core.rank)->want, 0);
        }
    }
}

/* --- Receiving --------------------------------------------------------------- */

/* The first unexpected message from job rank w matching, unlinked with take. */
static struct p2p_msg *unexp_find(int w, int src, int tag, const struct p2p_comm *c, bool take)
{
    struct msgq *q = &P.unexp[w];
    struct p2p_msg *prev = NULL;
    for (struct p2p_msg *m = q->head; m; prev = m, m = m->next) {
        if (!matches(&m->d, c->ctx, src, tag)) continue;
        if (take) {
            if (prev) prev->next = m->next; else q->head = m->next;
            if (q->tail == m) q->tail = prev;
            m->next = NULL;
        }
        return m;
    }
    return NULL;
}

/* Find (and with take unlink) the first unexpected message matching,
 * scanning senders round-robin for MPI_ANY_SOURCE so that no sender starves. */
static struct p2p_msg *find_unexpected(int src, int tag, const struct p2p_comm *c, bool take)
{
    int n = sm_core.size;
    if (src != P2P_ANY_SOURCE) return unexp_find(c->world[src], src, tag, c, take);
    for (int k = 0, w = P.any_from; k < n; k++, w = next_rank(w, n)) {
        struct p2p_msg *m = unexp_find(w, src, tag, c, take);
        if (m && take) P.any_from = next_rank(w, n);
        if (m) return m;
    }
    return NULL;
}

static void deliver_msg(struct p2p_req *r, struct p2p_msg *m)
{
    deliver(r, &m->d, m->data, m->world);
    free(m);
}

void p2p_irecv(struct p2p_req *r, void *buf, size_t len, int src, int tag, const struct p2p_comm *c,
               struct p2p_layout *lay)
{
    r->kind = P2P_RECV;
    r->lay = lay;
    r->ctx = c->ctx, r->src = src, r->tag = tag, r->comm = c;
    r->buf = buf, r->len = len;
    memset(&r->st, 0, sizeof r->st);
    atomic_store_explicit(&r->done, 0, memory_order_relaxed);
    r->active = 1;
    /* A sender's older messages are in its unexpected list, its newer ones
     * still in its ring, where r takes its message with no copy to the side.
     * MPI_ANY_SOURCE asks the senders in turn, so that none starves. */
    int n = sm_core.size, any = src == P2P_ANY_SOURCE;
    int w = any ? P.any_from : c->world[src];
    for (int k = 0; k < (any ? n : 1); k++, w = next_rank(w, n)) {
        struct p2p_msg *m = unexp_find(w, src, tag, c, true);
        if (m || drain_ring(w, false, r)) {
            if (any) P.any_from = next_rank(w, n);
            if (m) deliver_msg(r, m);
            return;
        }
    }
    q_push(&P.posted, r);
}

void p2p_mrecv(struct p2p_req *r, void *buf, size_t len, struct p2p_msg *m, struct p2p_layout *lay)
{
    r->kind = P2P_RECV;
    r->lay = lay;
    r->buf = buf, r->len = len;
    memset(&r->st, 0, sizeof r->st);
    r->active = 1;
    deliver_msg(r, m);
}

static void progress(bool all);
bool p2p_iprobe(int src, int tag, const struct p2p_comm *c, struct p2p_status *st,
                bool take, struct p2p_msg **msg)
{
    progress(true);
    struct p2p_msg *m = find_unexpected(src, tag, c, take);
    if (!m) return false;
    st->source = m->d.src, st->tag = m->d.tag, st->len = m->d.len;
    st->truncated = st->cancelled = false;
    if (msg) *msg = m;
    return true;
}

bool p2p_cancel(struct p2p_req *r)
{
    if (r->kind != P2P_RECV || p2p_done(r)) return false;
    struct p2p_req *prev = NULL;
    for (struct p2p_req *q = P.posted.head; q; prev = q, q = q->next) {
        if (q != r) continue;
        if (prev) prev->next = q->next; else P.posted.head = q->next;
        if (P.posted.tail == q) P.posted.tail = prev;
        r->st.cancelled = true;
        complete_recv(r);
        return true;
    }
    return false;
}

/* --- Progress and waiting ---------------------------------------------------- */

static void reap_detached(void)
{
    struct p2p_req *prev = NULL, *r = P.detached.head;
    while (r) {
        struct p2p_req *next = r->next;
        if (p2p_done(r)) {
            if (prev) prev->next = next; else P.detached.head = next;
            if (P.detached.tail == r) P.detached.tail = prev;
            release(r);
        } else prev = r;
        r = next;
    }
}

static void progress(bool all)
{
    drain(all);
    if (P.npending) drain_pending();
    if (P.detached.head) reap_detached();
}
void p2p_progress(void) { progress(false); }

bool p2p_test(struct p2p_req *r)
{
    if (p2p_done(r)) return true;
    p2p_progress();
    return p2p_done(r);
}

struct until { bool (*cond)(void *); void *arg; };
static bool progress_until(void *a)
{
    struct until *u = a;
    p2p_progress();
    return u->cond(u->arg);
}

void p2p_wait_until(bool (*cond)(void *), void *arg)
{
    if (cond(arg)) return;
    struct until u = { cond, arg };
    sm_wait(progress_until, &u);
}

static bool req_done(void *r) { return p2p_done(r); }
static bool send_done(void *a)
{
    struct p2p_req *r = a;
    coop_help(r);
    return p2p_done(r);
}

void p2p_wait(struct p2p_req *r)
{
    if (!p2p_test(r)) p2p_wait_until(r->kind == P2P_SEND && !(r->flags & D_EAGER) ? send_done : req_done, r);
}
