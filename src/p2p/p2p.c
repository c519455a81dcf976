/* The point-to-point engine (DESIGN.md §3): rings of send descriptors, one
 * per sender, in every receiver's SM_AREA_P2P area; matching, eager and
 * single-copy delivery (typemap to typemap for datatypes, src/dt), pending
 * queues for full rings, failures reported to both sides, progress and
 * waiting. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "sm_core.h"
#include "dt.h"
#include "p2p.h"

/* --- Shared layout ----------------------------------------------------------
 * A receiver's area: one ring_ctl per possible sender, then one ring per
 * sender of this job. Single producer, single consumer. A ring is a stream of
 * records packed one after the other in 32-byte units: a descriptor with
 * the eager data behind it. Packed, a burst of small messages is a run of
 * consecutive lines that the receiver's prefetcher streams in, two 8-byte
 * messages to a line (header and data share it).
 * Positions are byte counters that only grow; a record that starts before
 * the end of the ring runs on into a slack area behind it, so records are
 * never split. A record is valid when its seq says so; the sender clears the
 * next record's seq before it publishes a record, so the receiver, polling
 * the line after the last record, never mistakes an older lap's bytes for a
 * message. The receiver publishes how far it has consumed in head; the
 * sender reads head only when its ring looks full. */
struct ring_ctl {
    alignas(SM_CACHELINE) _Atomic uint64_t head;  /* written by the receiver */
    _Atomic uint64_t claim;     /* receiver: position + 1 of the record it is deciding on (cancel) */
    _Atomic uint64_t stuck_at;  /* receiver: position + 1 of the record it could not keep aside */
    _Atomic uint64_t taken;     /* receiver: messages it took from those it kept aside (ring_refresh) */
    alignas(SM_CACHELINE) _Atomic uint32_t want;  /* written by the sender: it has pending sends */
};
#define RING_OFF ((size_t)SM_NMAX * sizeof(struct ring_ctl))
_Static_assert(RING_OFF < SM_AREA_SIZE / 8, "ring controls fit");

enum { D_EAGER = 1, D_SYNC = 2, D_LAYOUT = 4, D_CANCEL = 8, D_CANCEL_ACK = 16 };
/* A send descriptor: 24 bytes, then the eager data, so that an 8-byte
 * message takes 32 bytes and two share a line. A line transfer between
 * cores can cost as much as a third of a microsecond (this VM, some runs),
 * and a stream of small messages pays about one for each line the sender
 * fills after the receiver has looked at it: records of 128 bytes capped
 * the message rate at about one message a transfer. A synchronous eager
 * send adds its request (its data at 32); a large message, its addresses
 * and a 64-bit length. */
struct desc {
    _Atomic uint32_t seq;       /* rec_seq(position) once filled; 0 before */
    uint32_t flags;             /* the sender may add D_CANCEL while the record waits (__atomic) */
    uint32_t ctx;
    int32_t  tag, src;          /* src: the sender's rank in the communicator */
    uint32_t len;               /* eager: the length (a large message's is in xlen) */
    uint64_t req;               /* global address of the sender's request (sync and large) */
    uint64_t addr;              /* large: sender's buffer, as the sender names it; with
                                 * D_LAYOUT, the global address of its dt_type */
    uint64_t gaddr;             /* large: its global address (or the bounce buffer's); 0 if not exposed */
    uint64_t xlen;              /* large: the length */
};
#define DESC_EAGER offsetof(struct desc, req)
#define DESC_SYNC  offsetof(struct desc, addr)
_Static_assert(DESC_EAGER == 24 && DESC_SYNC == 32 && sizeof(struct desc) <= SM_CACHELINE, "a descriptor is one line");
/* Bytes of the descriptor proper (the eager data follows). */
static inline size_t desc_head(uint32_t flags)
{
    return !(flags & D_EAGER) ? sizeof(struct desc) : flags & D_SYNC ? DESC_SYNC : DESC_EAGER;
}
static inline char *desc_data(const struct desc *d) { return (char *)d + desc_head(d->flags); }
static inline uint64_t desc_len(const struct desc *d) { return d->flags & D_EAGER ? d->len : d->xlen; }
static inline void desc_set_len(struct desc *d, uint64_t len)
{
    if (d->flags & D_EAGER) d->len = (uint32_t)len;
    else d->xlen = len;
}
#define REC_ALIGN 32
/* Bytes a record takes in the ring. */
static inline uint64_t rec_size(uint32_t flags, uint64_t len)
{
    uint64_t n = desc_head(flags) + (flags & D_EAGER ? len : 0);
    return (n + REC_ALIGN - 1) & ~(uint64_t)(REC_ALIGN - 1);
}
/* Never 0, and different for each record position within 2^36 bytes (the
 * receiver also relies on the sender having cleared the word). */
static inline uint32_t rec_seq(uint64_t pos) { return (uint32_t)(pos >> 4) | 1; }

#define MSG_TAKEN 0x4d534754u       /* "MSGT": a matched probe returned it, no receive has yet */
struct p2p_msg {                /* an unexpected message */
    struct p2p_msg *next;
    uint32_t taken;             /* MSG_TAKEN while it is the user's (MPI_Message) */
    int    world;               /* job rank of the sender */
    void  *net_msg;             /* from another node: UCX's message (a matched probe's) */
    struct desc d;
    char   data[];              /* eager payload (private copy) */
};
struct msgq { struct p2p_msg *head, *tail; };
struct reqq { struct p2p_req *head, *tail; };

enum p2p_transport p2p_transport = P2P_SMARTMAP;

/* Slow and error paths, out of the small message's way. */
#define COLD __attribute__((noinline, cold))

/* Large messages that cannot be read directly (through the kernel or the
 * staged path) reach a typed receive buffer through this, a chunk at a time. */
#define BOUNCE_BYTES (64u << 10)

/* What a sender keeps of its ring in a destination's area, in one line: a
 * small send reads one line of its own (it read three, and computed the
 * ring's address from the slots twice). */
struct dest {
    alignas(SM_CACHELINE) uint64_t tail;     /* position of the next record to fill */
    uint64_t head_seen;         /* the destination's head that the ring's room counts from (ring_refresh) */
    char    *ring;              /* the ring (rec_at(dest, me, 0)) */
    struct reqq pending;        /* sends waiting for ring space */
    uint64_t head_polled;       /* the destination's head plus its taken when we last read them */
    uint32_t stalls;            /* looks in a row at a full ring that found head_polled unchanged */
    bool     want;              /* we raised the ring's want (stalled) */
};

/* A lock biased to one thread (see "Threads" below). Threads that may hold
 * a bias have a slot (bias_slot); a slot's `in` is written by its thread alone. */
#define BIAS_SLOTS 64
#define BIAS_NOBODY BIAS_SLOTS          /* owner: no thread holds the bias */
#define BIAS_NO_SLOT (BIAS_SLOTS + 1)   /* a thread without a slot (never biased) */
#define BIAS_FENCED 0x80u               /* owner: | the slot where the owner's entry fences (bias_owner) */
struct bias_lock {
    alignas(SM_CACHELINE) _Atomic int lk;  /* the spin lock, for every thread but the owner */
    _Atomic uint32_t owner;     /* the slot of the thread that enters without lk (bias_owner), or BIAS_NOBODY */
    uintptr_t last;             /* under lk: the last thread that took it, and how many times in a row */
    uint32_t run;
    uint64_t locked, revoked;   /* under lk: taken through it; biases revoked (p2p_stats) */
    _Atomic uint8_t in[BIAS_NO_SLOT + 1];  /* per slot: its thread is inside through the bias */
};

static struct {
    bool     up;
    size_t   req_size;
    uint64_t cap;               /* bytes of a ring, a power of two (slack not counted) */
    size_t   ring_bytes;        /* a ring with its slack */
    size_t   eager_max;         /* largest record - DESC_SYNC, or lower (SMARTMAP_EAGER_MAX) */
    uint64_t *head;             /* per sender: position of the next record to consume (ours) */
    uint64_t *want_at;          /* per sender: our head when a drain last let its want pass (drain_ring) */
    struct dest *out;           /* per destination: our ring in its area */
    struct msgq *unexp;         /* per sender job rank */
    struct reqq  posted;        /* posted receives, in posting order */
    int      npending;          /* destinations with a non-empty pending queue */
    struct reqq  detached;      /* freed by the user while active */
    int      drain_from;        /* fairness: next sender to drain first */
    int      any_from;          /* fairness: next sender to look at for ANY_SOURCE */
    struct p2p_req *freelist;
    uint8_t *stuck;             /* per sender: a message of its could not be kept aside
                                 * (no memory); its ring stops there until a drain manages */
    int      nstuck;            /* senders stuck */
    char    *bounce;            /* BOUNCE_BYTES, allocated on first use */
    struct p2p_stats stats;
    /* The transport per peer, decided once (p2p_init): rings to the ranks
     * on this node, src/net to the others. The loops over senders visit
     * the node's ranks only. */
    uint8_t  remote[SM_NMAX];   /* job rank r is on another node */
    int      nremote;           /* ranks on other nodes (0: the job is on one node) */
    int      nlocal;            /* locals[0..nlocal): the node's ranks, ascending */
    int     *locals;
    int      nprobing;          /* posted receives matched by probing the network */
    int      any_all;           /* fairness across nodes: next job rank to look at for ANY_SOURCE */
    uint8_t  burst[SM_NMAX];    /* per sender: records its ring's looks found in a row (up to 2) */
    bool     back_off;          /* a drain caught up with a sender in a burst: pause (rx_back_off) */
    bool     mt;                /* threads: take the locks below */
    struct bias_lock lk_recv;   /* receive side: heads, posted and unexpected queues, stuck */
    struct bias_lock lk_send;   /* send side: tails, pending and detached sends */
    alignas(SM_CACHELINE) _Atomic int lk_pool;  /* the shared request free list, the threads' caches */
    struct req_cache *caches;   /* every thread's (stats) */
    pthread_key_t cache_key;    /* a thread's cache goes back to the pool when it ends */
} P;

/* --- Threads (MPI_THREAD_MULTIPLE) -------------------------------------------
 * With threads, each structure above has its own lock (order: receive or
 * send side, then pool), and each thread keeps freed requests in a cache
 * of its own; a thread that finds the receive side busy leaves the
 * draining to the one holding it. Single-threaded, no lock is taken: what
 * the fast path pays is a predictable branch on P.mt. Counts read without
 * the lock (is anything pending?) are read and written with PEEK/SET.
 * The locks spin (critical sections are short), yielding the processor
 * when the holder seems descheduled. */
#define PEEK(x)   __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define SET(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
static __attribute__((noinline)) void spin_wait(_Atomic int *l)
{
    for (int i = 0;; i++) {
        if (!atomic_load_explicit(l, memory_order_relaxed) && !atomic_exchange_explicit(l, 1, memory_order_acquire))
            return;
        if (i >= 64) sched_yield();
#if defined(__x86_64__) || defined(__i386__)
        else __builtin_ia32_pause();
#endif
    }
}
static inline void spin_lock(_Atomic int *l)
{
    if (SM_UNLIKELY(atomic_exchange_explicit(l, 1, memory_order_acquire))) spin_wait(l);
}
static inline bool spin_trylock(_Atomic int *l)
{
    return !atomic_load_explicit(l, memory_order_relaxed) && !atomic_exchange_explicit(l, 1, memory_order_acquire);
}
static inline void spin_unlock(_Atomic int *l) { atomic_store_explicit(l, 0, memory_order_release); }

/* The receive and send sides' locks are biased to one thread: the one that
 * asked for threads (p2p_threads), later whichever took the lock BIAS_RUN
 * times in a row. That thread enters with a store and a compiler barrier,
 * no atomic read-modify-write. A locked instruction waits for the thread's
 * earlier stores to leave its store buffer, and a sender's last stores are
 * to the ring line its receiver polls: each threaded send waited for that
 * line's transfer (a program asking for MPI_THREAD_MULTIPLE and calling
 * from one thread had 14 M messages/s against 33). Any other thread takes
 * the spin lock and, finding the bias held, revokes it: it clears the
 * owner, runs a barrier on every CPU of the job (sm_fence_peers, the rare
 * side of the asymmetric handshake a send's cancel uses; the owner's store
 * of `in` and its second load of the owner are the frequent side), and
 * waits for the owner to leave. Either the owner's second load sees the
 * bias gone, and it takes the spin lock like the others, or the revoker
 * sees `in` and waits. Biases revoked and locks taken through the spin
 * lock are counted (SMARTMAP_STATS). */
#define BIAS_RUN 4096           /* revoking costs IPIs: a bias moves only to a thread that keeps the lock busy */
static __thread uint32_t bias_slot __attribute__((tls_model("initial-exec"))) = BIAS_NO_SLOT;
static _Atomic uint32_t bias_slots;     /* slots handed out (never back: a thread's is its own) */
static inline uintptr_t thread_id(void) { return (uintptr_t)&bias_slot; }
/* This thread's slot, one handed out if it has none (false: none left). */
static bool bias_slot_get(void)
{
    if (bias_slot == BIAS_NO_SLOT && atomic_load_explicit(&bias_slots, memory_order_relaxed) < BIAS_SLOTS) {
        uint32_t n = atomic_fetch_add(&bias_slots, 1);
        if (n < BIAS_SLOTS) bias_slot = n;
    }
    return bias_slot != BIAS_NO_SLOT;
}

/* The owner's value for this thread: its slot, with BIAS_FENCED where
 * sm_fence_peers does not reach the peers (sm_fence_light is a full fence
 * then; sm_wait_init decides, before p2p_threads; a forked child decides
 * again but keeps its parent's owner values: MPI calls in a forked child
 * are not supported): the owner's fast entry need not look at which fence
 * it needs (3 instructions a lock). */
static uint32_t bias_owner(void) { return bias_slot | (sm_wake_unfenced ? 0 : BIAS_FENCED); }
/* The entry of an owner that fences (as when ranks outnumber cores). */
static __attribute__((noinline)) bool bias_enter_fenced(struct bias_lock *b, uint32_t me)
{
    atomic_store_explicit(&b->in[me], 1, memory_order_relaxed);
    sm_full_fence();
    if (SM_LIKELY(atomic_load_explicit(&b->owner, memory_order_relaxed) == (me | BIAS_FENCED))) return true;
    atomic_store_explicit(&b->in[me], 0, memory_order_release);        /* revoked meanwhile */
    return false;
}
/* (The first look at the owner keeps threads without a slot, which share
 * in[BIAS_NO_SLOT], from ever writing it: bias_unlock reads it.) */
static inline bool bias_enter(struct bias_lock *b)
{
    uint32_t me = bias_slot, o = atomic_load_explicit(&b->owner, memory_order_relaxed);
    if (SM_UNLIKELY(o != me)) return o == (me | BIAS_FENCED) && bias_enter_fenced(b, me);
    atomic_store_explicit(&b->in[me], 1, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst);  /* (sm_fence_peers reaches this process: bias_owner) */
    if (SM_LIKELY(atomic_load_explicit(&b->owner, memory_order_relaxed) == me)) return true;
    atomic_store_explicit(&b->in[me], 0, memory_order_release);        /* revoked meanwhile */
    return false;
}
/* The spin lock is ours: the bias, if a thread holds it, is revoked. (Each
 * slot's `in` has one writer: a thread that read itself the owner just
 * before a revocation, and stores its `in` after it, sees the owner
 * changed and clears only its own.) */
static void bias_taken(struct bias_lock *b)
{
    uint32_t o = atomic_load_explicit(&b->owner, memory_order_relaxed);
    if (o != BIAS_NOBODY) {
        atomic_store(&b->owner, BIAS_NOBODY);     /* (a full fence: before the load of in) */
        sm_fence_peers();
        for (int i = 0; atomic_load_explicit(&b->in[o & ~BIAS_FENCED], memory_order_acquire); i++)
            if (i >= 64) sched_yield();
            else sm_cpu_relax();
        SET(b->revoked, b->revoked + 1);
    }
    if (b->last != thread_id()) b->last = thread_id(), b->run = 0;
    SET(b->locked, b->locked + 1);
}
static __attribute__((noinline)) void bias_lock_slow(struct bias_lock *b)
{
    spin_lock(&b->lk);
    bias_taken(b);
}
static inline void bias_lock(struct bias_lock *b)
{
    if (SM_UNLIKELY(!bias_enter(b))) bias_lock_slow(b);
}
static inline bool bias_trylock(struct bias_lock *b)
{
    if (bias_enter(b)) return true;
    if (!spin_trylock(&b->lk)) return false;
    bias_taken(b);
    return true;
}
static __attribute__((noinline)) void bias_unlock_slow(struct bias_lock *b)
{
    if (++b->run >= BIAS_RUN) {
        b->run = 0;
        if (bias_slot_get()) atomic_store_explicit(&b->owner, bias_owner(), memory_order_relaxed);
    }
    spin_unlock(&b->lk);
}
/* Inside through the bias, or through lk: this thread's `in` says which.
 * Always inline: p2p_irecv called it (8 instructions a receive). (bias_lock
 * always inline too changed the registers of p2p_recv_eager's
 * single-threaded path: one instruction more.) */
static inline __attribute__((always_inline)) void bias_unlock(struct bias_lock *b)
{
    uint32_t me = bias_slot;
    if (SM_LIKELY(atomic_load_explicit(&b->in[me], memory_order_relaxed)))
        atomic_store_explicit(&b->in[me], 0, memory_order_release);
    else bias_unlock_slow(b);
}
#define LOCK(l)   do { if (SM_UNLIKELY(P.mt)) bias_lock(&P.l); } while (0)
#define UNLOCK(l) do { if (SM_UNLIKELY(P.mt)) bias_unlock(&P.l); } while (0)

/* A thread's requests (with threads): freed ones to reuse, and how many it
 * took from the pool or malloc less gave back to the pool (a request may go
 * in another thread than it came): its requests in use are held - nfree,
 * so that a request from the cache and back changes nfree alone. The cache
 * is the thread's own variable, not a pointer to one (the pointer's load
 * and test were a third of a threaded request's allocation and release);
 * until it is on P.caches, nfree is CACHE_MAX, so that the fast paths of
 * both fail and alloc_mt or release_mt puts it there. */
#define CACHE_MAX 256
struct req_cache {
    struct p2p_req *free;
    int      nfree;
    bool     on;                /* on P.caches, retired when the thread ends */
    int64_t  held;
    struct req_cache *next;     /* P.caches */
};
static __thread struct req_cache my_cache __attribute__((tls_model("initial-exec"))) = {.nfree = CACHE_MAX};

/* A thread ends: its cached requests go back to the shared list, its count
 * to P.stats, and its cache off P.caches (its memory goes with the thread). */
static void cache_retire(void *a)
{
    struct req_cache *c = a;
    spin_lock(&P.lk_pool);
    while (c->free) {
        struct p2p_req *r = c->free;
        c->free = r->next;
        r->next = P.freelist, P.freelist = r;
    }
    __atomic_fetch_add(&P.stats.requests, (uint64_t)(c->held - c->nfree), __ATOMIC_RELAXED);
    for (struct req_cache **p = &P.caches; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    c->held = 0, c->nfree = CACHE_MAX, c->on = false;
    spin_unlock(&P.lk_pool);
}

/* This thread's cache on P.caches (false: it cannot be retired, so stays off). */
static bool cache_on(void)
{
    struct req_cache *c = &my_cache;
    if (c->on) return true;
    if (pthread_setspecific(P.cache_key, c)) return false;
    spin_lock(&P.lk_pool);
    c->next = P.caches, P.caches = c;
    c->nfree = 0, c->on = true;
    spin_unlock(&P.lk_pool);
    return true;
}

sm_status_t p2p_threads(void)
{
    if (P.mt) return SM_OK;
    if (pthread_key_create(&P.cache_key, cache_retire))
        return sm_fail(SM_ERR_NOMEM, "cannot make the point-to-point engine's thread key");
    bool slot = bias_slot_get();
    atomic_store(&P.lk_recv.owner, slot ? bias_owner() : BIAS_NOBODY);
    atomic_store(&P.lk_send.owner, slot ? bias_owner() : BIAS_NOBODY);
    P.mt = true;
    return SM_OK;
}

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

bool p2p_started(void) { return P.up; }

sm_status_t p2p_init(size_t req_size)
{
    if (P.up && req_size > P.req_size)
        return sm_fail(SM_ERR_STATE, "point-to-point requests of %zu bytes asked for, but the engine was started "
                       "with %zu", req_size, P.req_size);
    if (P.up) return SM_OK;
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
    P.eager_max = maxrec - DESC_SYNC;
    /* SMARTMAP_EAGER_MAX lowers the limit; SMARTMAP_TRANSPORT's values are
     * smartmap|cma|copy, in the order of enum p2p_transport (sm_settings.h). */
    if (sm_setting(SM_SET_EAGER_MAX) < P.eager_max) P.eager_max = (size_t)sm_setting(SM_SET_EAGER_MAX);
    p2p_transport = (enum p2p_transport)sm_setting(SM_SET_TRANSPORT);
    P.unexp = calloc((size_t)n, sizeof *P.unexp);
    P.head = calloc((size_t)n, sizeof *P.head);
    P.want_at = calloc((size_t)n, sizeof *P.want_at);
    P.out = aligned_alloc(SM_CACHELINE, (size_t)n * sizeof *P.out);
    if (P.out) memset(P.out, 0, (size_t)n * sizeof *P.out);
    P.stuck = calloc((size_t)n, sizeof *P.stuck);
    if (!P.unexp || !P.head || !P.want_at || !P.out || !P.stuck) {
        free(P.unexp), free(P.head), free(P.want_at), free(P.out), free(P.stuck);
        return sm_fail(SM_ERR_NOMEM, "no memory for the point-to-point queues of %d ranks", n);
    }
    P.stats.ring_bytes = P.cap;
    P.drain_from = P.any_from = 0;
    if (!(P.locals = calloc((size_t)n, sizeof *P.locals)))
        return sm_fail(SM_ERR_NOMEM, "no memory for the point-to-point queues of %d ranks", n);
    P.nlocal = P.nremote = 0;
    for (int r = 0; r < n; r++) {
        P.remote[r] = !sm_rank_local(r);
        P.out[r].ring = (char *)rec_at(r, sm_core.rank, 0);
        if (P.remote[r]) P.nremote++;
        else P.locals[P.nlocal++] = r;
    }
    if (P.nremote) {
        sm_status_t st = net_init();
        if (st) return st;
    }
    P.up = true;
    return SM_OK;
}

static bool no_pending(void *arg) { (void)arg; return PEEK(P.npending) == 0; }

sm_status_t p2p_finalize(void)
{
    /* Sends the user forgot about must still reach their rings. */
    sm_status_t st = p2p_wait_until(no_pending, NULL);
    if (sm_setting(SM_SET_STATS)) {
        sm_say("blocking receives taken straight from the ring: %llu", (unsigned long long)P.stats.fast_recvs);
        sm_say("blocking receives that found their sender's ring empty and watched it: %llu",
               (unsigned long long)P.stats.watched);
        sm_say("nonblocking sends complete when started, no request started: %llu",
               (unsigned long long)PEEK(P.stats.eager_isends));
        sm_say("messages kept aside for a later receive: %llu", (unsigned long long)P.stats.kept);
        sm_say("receives posted behind one that matches all they match, no ring looked at: %llu",
               (unsigned long long)P.stats.behind);
        sm_say("pauses of a receive window caught up with its sender (rx_back_off): %llu",
               (unsigned long long)PEEK(P.stats.back_offs));
        sm_say("sends queued for ring room: %llu, rings asked to drain to their end: %llu",
               (unsigned long long)P.stats.queued, (unsigned long long)P.stats.wants);
        if (P.mt)
            sm_say("threads: send and receive locks taken through the spin lock: %llu, from a thread they were "
                   "biased to: %llu", (unsigned long long)(PEEK(P.lk_recv.locked) + PEEK(P.lk_send.locked)),
                   (unsigned long long)(PEEK(P.lk_recv.revoked) + PEEK(P.lk_send.revoked)));
    }
    if (!st && P.nremote) st = net_finalize();
    if (!st) P.up = false;
    return st;
}

void p2p_stats(struct p2p_stats *s)
{
    *s = P.stats;
    if (P.mt) {
        spin_lock(&P.lk_pool);      /* (a cache leaves the list with its thread) */
        for (struct req_cache *c = P.caches; c; c = c->next) s->requests += (uint64_t)(PEEK(c->held) - PEEK(c->nfree));
        spin_unlock(&P.lk_pool);
    }
    s->locked = PEEK(P.lk_recv.locked) + PEEK(P.lk_send.locked);
    s->revoked = PEEK(P.lk_recv.revoked) + PEEK(P.lk_send.revoked);
    if (P.nremote) net_bytes(&s->net_sent, &s->net_received);
}

/* --- Requests ------------------------------------------------------------- */

static void q_push(struct reqq *q, struct p2p_req *r)
{
    r->next = NULL;
    if (q->tail) q->tail->next = r; else q->head = r;
    q->tail = r;
}


/* With threads: from the thread's cache, else the shared list, else malloc. */
static __attribute__((noinline)) struct p2p_req *alloc_mt(void)
{
    struct req_cache *c = cache_on() ? &my_cache : NULL;
    struct p2p_req *r = NULL;
    if (c && (r = c->free)) {
        c->free = r->next, c->nfree--;
        return r;
    }
    if (P.freelist) {
        spin_lock(&P.lk_pool);
        if ((r = P.freelist)) P.freelist = r->next;
        spin_unlock(&P.lk_pool);
    }
    if (!r && !(r = malloc(P.req_size))) return NULL;
    if (c) c->held++;
    else __atomic_fetch_add(&P.stats.requests, 1, __ATOMIC_RELAXED);
    return r;
}

struct p2p_req *p2p_req_alloc(void)
{
    struct p2p_req *r;
    if (SM_UNLIKELY(P.mt)) {    /* the thread's cache inline: alloc_mt's call was most of its cost */
        if ((r = my_cache.free)) my_cache.free = r->next, my_cache.nfree--;
        else r = alloc_mt();
    } else if ((r = P.freelist)) P.freelist = r->next, P.stats.requests++;
    else if ((r = malloc(P.req_size))) P.stats.requests++;
    if (SM_UNLIKELY(!r)) {
        sm_fail(SM_ERR_NOMEM, "no memory for a request");
        return NULL;
    }
    memset(r, 0, P.req_size);
    return r;
}

static __attribute__((noinline)) void release_mt(struct p2p_req *r)
{
    struct req_cache *c = cache_on() ? &my_cache : NULL;
    if (c && c->nfree < CACHE_MAX) {
        r->next = c->free, c->free = r, c->nfree++;
        return;
    }
    if (c) c->held--;
    else __atomic_fetch_sub(&P.stats.requests, 1, __ATOMIC_RELAXED);
    spin_lock(&P.lk_pool);
    r->next = P.freelist, P.freelist = r;
    spin_unlock(&P.lk_pool);
}

static void release(struct p2p_req *r)
{
    if (SM_UNLIKELY(r->type || r->tmp || r->why)) {   /* rare: spare the hot path three calls */
        dt_unref(r->type);
        free(r->tmp);
        free(r->why);
    }
    if (SM_UNLIKELY(P.mt)) {
        struct req_cache *c = &my_cache;
        if (c->nfree < CACHE_MAX) r->next = c->free, c->free = r, c->nfree++;
        else release_mt(r);
        return;
    }
    P.stats.requests--;
    r->next = P.freelist;
    P.freelist = r;
}

/* If r is still active, leave it to the engine, which frees it when it
 * completes: true. Posted receives stay on the posted queue and unposted
 * sends on their pending queue: completion or posting takes care of them.
 * With threads, under the lock of the side that completes r. */
static bool detach(struct p2p_req *r)
{
    if (!r->active || p2p_done(r)) return false;
    r->detached = 1;
    if (r->kind == P2P_SEND && r->posted) q_push(&P.detached, r);
    return true;
}

/* With threads, r found not done (a completed request is the caller's alone: whoever
 * completes one does not touch it after setting done); else under the lock
 * of the side that completes it. */
static __attribute__((noinline)) bool detach_mt(struct p2p_req *r)
{
    struct bias_lock *l = r->kind == P2P_RECV ? &P.lk_recv : &P.lk_send;
    bias_lock(l);
    bool later = detach(r);
    bias_unlock(l);
    return later;
}

void p2p_req_free(struct p2p_req *r)
{
    if (!r) return;
    if (SM_UNLIKELY(P.mt) ? !p2p_done(r) && detach_mt(r) : detach(r)) return;
    release(r);
}

void p2p_req_free_done(struct p2p_req *r) { release(r); }

/* --- Delivery ---------------------------------------------------------------- */

/* Copy n bytes from stream position off: plain bytes inline, typemaps through dt. */
static inline void copy_stream(void *dst, const struct dt_type *dtype, const void *src, const struct dt_type *stype,
                               size_t off, size_t n)
{
    if (SM_LIKELY(!dtype && !stype)) memcpy((char *)dst + off, (const char *)src + off, n);
    else dt_copy(dst, dtype, src, stype, off, n);
}

/* Where peers can write or read the bytes of a stream of len bytes of type
 * at buf (NULL: plain): buf's global address, if the whole span is in one
 * exposed region (mapped linearly); else NULL. */
static char *global_span(const void *buf, const struct dt_type *type, size_t len)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)len;
    if (type) dt_span(type, type->size ? (len + type->size - 1) / type->size : 0, &lo, &hi);
    if (hi <= lo) return sm_global(buf);
    const char *b = buf;
    char *glo = sm_global(b + lo), *ghi = sm_global(b + hi - 1);
    return glo && ghi && ghi - glo == hi - 1 - lo ? glo - lo : NULL;
}

/* The single copy of bytes [off, off + n) of a large message's plain data,
 * on the chosen transport: SM_ERR_ACCESS if the sender's buffer cannot be read. */
static sm_status_t copy_from(int world, void *dst, const struct desc *d, size_t off, size_t n)
{
    if (p2p_transport == P2P_CMA &&
        sm_copy_via(SM_PATH_KERNEL, world, false, (char *)d->addr + off, dst, n) == SM_OK)
        return SM_OK;
    if (d->gaddr) {
        memcpy(dst, (const char *)d->gaddr + off, n);
        return SM_OK;
    }
    int rc = sm_get(world, dst, (char *)d->addr + off, n);      /* not exposed: kernel or staged */
    if (rc == SM_OK) return SM_OK;
    return sm_fail(rc == SM_ERR_ACCESS ? SM_ERR_ACCESS : SM_ERR_PEER,
                   "rank %d's send buffer %p (%llu bytes) %s", world, (void *)d->addr, (unsigned long long)d->xlen,
                   rc == SM_ERR_ACCESS ? "is not readable" : "cannot be reached");
}

/* --- Sharing the copy -------------------------------------------------------
 * One core cannot pull a large message out of another core's cache as fast
 * as two can. When the receiver of a large message finds its buffer (and
 * typemap) exposed, it invites the sender: it publishes them in the
 * sender's request, and both claim chunks of the stream from a counter
 * there until none is left, each copying typemap to typemap through its own
 * view of both buffers. A sender that waits for this send (MPI_Send,
 * MPI_Wait) takes chunks; one that is busy elsewhere takes none, and the
 * receiver copies everything, as without the invitation. The receiver
 * completes both sides once the bytes left reach zero. */
#define COOP_MIN (16u << 10)    /* smaller messages: one copier is as fast */
/* An eighth to a quarter of the message, 8-64 KiB: small chunks share small messages
 * evenly, large ones keep the claim counter's line from bouncing. */
static inline uint64_t coop_chunk(uint64_t len)
{
    uint64_t c = 8u << 10;
    while (c < (64u << 10) && c * 8 <= len) c *= 2;
    return c;
}

/* Claim and copy chunks of s's message until none is left; how many. */
static uint64_t coop_copy(struct p2p_req *s, char *dst, const struct dt_type *dtype, const char *src,
                          const struct dt_type *stype)
{
    uint64_t len = s->coop_len, chunk = coop_chunk(len), i, n = 0;
    while ((i = atomic_fetch_add_explicit(&s->coop_next, 1, memory_order_relaxed)) * chunk < len) {
        uint64_t off = i * chunk, k = len - off < chunk ? len - off : chunk;
        copy_stream(dst, dtype, src, stype, off, k);
        atomic_fetch_sub_explicit(&s->coop_left, k, memory_order_release);
        n++;
    }
    return n;
}

/* The sender's side: help with r's copy if invited. */
static void coop_help(struct p2p_req *r)
{
    uint64_t dst = atomic_load_explicit(&r->coop_dst, memory_order_acquire);
    if (!dst) return;
    const void *src = r->tmp ? r->tmp : r->buf;
    const struct dt_type *stype = r->tmp ? NULL : r->type;
    uint64_t n = coop_copy(r, (char *)dst, (const struct dt_type *)r->coop_dtype, src, stype);
    __atomic_fetch_add(&P.stats.coop_chunks_sent, n, __ATOMIC_RELAXED);     /* no lock held here */
}

/* The receiver's side: copy n bytes of d's message (at src, typemap stype)
 * into r's buffer, shared with the sender when it may help. */
static bool coop_recv(struct p2p_req *r, const struct desc *d, size_t n, const char *src,
                      const struct dt_type *stype, int world)
{
    char *gdst;
    const struct dt_type *gtype = NULL;
    if (n < COOP_MIN || p2p_transport != P2P_SMARTMAP || !src || !(gdst = global_span(r->buf, r->type, n)) ||
        (r->type && !(gtype = sm_global(r->type))))
        return false;
    struct p2p_req *s = (struct p2p_req *)d->req;
    s->coop_len = n;
    s->coop_dtype = (uint64_t)(uintptr_t)gtype;
    atomic_store_explicit(&s->coop_next, 0, memory_order_relaxed);
    atomic_store_explicit(&s->coop_left, n, memory_order_relaxed);
    atomic_store_explicit(&s->coop_dst, (uint64_t)(uintptr_t)gdst, memory_order_release);
    sm_wake_for(world, SM_WAKE_P2P);
    P.stats.coop_chunks_recv += coop_copy(s, r->buf, r->type, src, stype);
    for (int i = 0; atomic_load_explicit(&s->coop_left, memory_order_acquire); i++)
        if (i > 1000) sched_yield();    /* the sender is copying its last chunk, or descheduled */
    return true;
}

/* A large message's data into r: straight from the sender's memory where
 * it is readable, else through the kernel or the staged path. */
static __attribute__((noinline)) sm_status_t copy_large(struct p2p_req *r, const struct desc *d, size_t n, int world)
{
    if (d->flags & D_LAYOUT) {          /* typemap to typemap, straight from the sender */
        const struct dt_type *stype = (const struct dt_type *)d->addr;
        if (!coop_recv(r, d, n, (const char *)d->gaddr, stype, world))
            copy_stream(r->buf, r->type, (const char *)d->gaddr, stype, 0, n);
        return SM_OK;
    }
    if (coop_recv(r, d, n, (const char *)d->gaddr, NULL, world)) return SM_OK;
    if (d->gaddr && p2p_transport != P2P_CMA) {       /* direct, or out of the copy transport's bounce */
        copy_stream(r->buf, r->type, (const char *)d->gaddr, NULL, 0, n);
        return SM_OK;
    }
    if (!r->type) return copy_from(world, r->buf, d, 0, n);
    if (!P.bounce && !(P.bounce = malloc(BOUNCE_BYTES)))
        return sm_fail(SM_ERR_NOMEM, "no memory for a %u-byte bounce buffer", BOUNCE_BYTES);
    for (size_t off = 0; off < n; off += BOUNCE_BYTES) {      /* then scattered, a chunk at a time */
        size_t k = n - off < BOUNCE_BYTES ? n - off : BOUNCE_BYTES;
        sm_status_t st = copy_from(world, P.bounce, d, off, k);
        if (st) return st;
        /* the bounce holds stream bytes [off, off + k): as a stream, it starts off bytes before */
        dt_copy(r->buf, r->type, (const void *)((uintptr_t)P.bounce - off), NULL, off, k);
    }
    return SM_OK;
}

/* An eager message's bytes into or out of its record: 8 to 16 bytes (the
 * message rate's size) as two overlapping words, without memcpy's call
 * and its size dispatch (a fifth of a small send's instructions). */
static inline void copy_eager(void *dst, const void *src, size_t n)
{
    if (n - 8 <= 8) {
        uint64_t a, b;
        memcpy(&a, src, 8), memcpy(&b, (const char *)src + n - 8, 8);
        memcpy(dst, &a, 8), memcpy((char *)dst + n - 8, &b, 8);
    } else if (n) memcpy(dst, src, n);
}

/* (With threads, r is its owner's once done is set: nothing here reads it after.) */
static void complete_recv(struct p2p_req *r)
{
    bool detached = r->detached;
    r->active = 0;
    atomic_store_explicit(&r->done, 1, memory_order_release);
    if (detached) release(r);
}

/* Deliver message d (eager payload at data) from job rank world into r;
 * complete r, and the sender's request where it waits for us. A failure to
 * move the data completes both with the error. */
static void deliver(struct p2p_req *r, const struct desc *d, const char *data, int world)
{
    uint64_t len = desc_len(d);
    size_t n = len <= r->len ? len : r->len;
    sm_status_t st = SM_OK;
    if (!n) ;
    else if (d->flags & D_EAGER) {
        if (SM_LIKELY(!r->type)) copy_eager(r->buf, data, n);   /* (a drain delivers a window's 8-byte messages) */
        else copy_stream(r->buf, r->type, data, NULL, 0, n);
    }
    else st = copy_large(r, d, n, world);
    r->st.source = d->src;
    r->st.tag = d->tag;
    r->st.len = st ? 0 : n;
    r->st.err = st ? st : len > r->len ? SM_ERR_TRUNCATE : SM_OK;
    if (SM_UNLIKELY(st)) r->why = strdup(sm_fail_reason());      /* NULL if no memory: the status still says */
    if (d->flags & D_SYNC || !(d->flags & D_EAGER)) {
        struct p2p_req *s = (struct p2p_req *)d->req;
        if (SM_UNLIKELY(st)) s->st.err = st;
        atomic_store_explicit(&s->done, 1, memory_order_release);
        sm_wake_for(world, SM_WAKE_P2P);
    }
    complete_recv(r);
}

static inline bool matches(const struct desc *d, uint32_t ctx, int src, int tag)
{
    return d->ctx == ctx && (src == P2P_ANY_SOURCE || d->src == src) &&
           (tag == P2P_ANY_TAG ? d->tag >= 0 : d->tag == tag);
}

/* Whether d, from job rank world, is for receive r. Its rank in the
 * communicator is not enough: MPI_Comm_create_group's members talk over
 * their parent's context with one tag, and concurrent calls over other
 * groups (legal with the same tag) number their members differently. */
static inline bool matches_req(const struct desc *d, int world, const struct p2p_req *r)
{
    return matches(d, r->ctx, r->src, r->tag) && (r->src == P2P_ANY_SOURCE || r->comm->world[r->src] == world);
}

enum arrival { DELIVERED, TAKEN, KEPT, NOT_KEPT };

/* A descriptor arrived from world: match it against the posted receives,
 * else against cand (a receive about to be posted, so after them), else
 * keep it as unexpected (NOT_KEPT: no memory for that, the reason recorded). */
static enum arrival arrive(const struct desc *d, int world, struct p2p_req *cand)
{
    struct p2p_req *prev = NULL;
    for (struct p2p_req *r = P.posted.head; r; prev = r, r = r->next) {
        if (!matches_req(d, world, r)) continue;
        if (prev) prev->next = r->next; else P.posted.head = r->next;
        if (P.posted.tail == r) P.posted.tail = prev;
        if (SM_UNLIKELY(r->probing)) r->probing = 0, P.nprobing--;
        deliver(r, d, desc_data(d), world);
        return DELIVERED;
    }
    if (cand && matches_req(d, world, cand)) {
        deliver(cand, d, desc_data(d), world);
        return TAKEN;
    }
    size_t eager = d->flags & D_EAGER ? d->len : 0;
    struct p2p_msg *m = malloc(sizeof *m + eager);
    if (!m) return NOT_KEPT;
    memcpy(m->data, desc_data(d), eager);
    m->next = NULL, m->taken = 0, m->world = world, m->net_msg = NULL;
    memcpy(&m->d, d, desc_head(d->flags));     /* (not beyond the record: the next one's line) */
    struct msgq *q = &P.unexp[world];
    if (q->tail) q->tail->next = m; else q->head = m;
    q->tail = m;
    P.stats.unexpected++;
    P.stats.kept++;
    return KEPT;
}

/* --- Cancelling a send ------------------------------------------------------
 * A send is cancelled while its record still waits in the receiver's ring.
 * The receiver decides on each record once: it announces the record in
 * claim, then looks for the sender's D_CANCEL. The sender sets D_CANCEL,
 * runs a barrier on every CPU of the job (sm_fence_peers), then reads
 * claim: if the receiver has not reached the record, it will see the flag
 * and skip it. If it has, the receiver's decision shows soon: D_CANCEL_ACK
 * (skipped), its head past the record, or stuck_at naming it (kept). The
 * receiver pays one store to its own line and a compiler barrier. */
static COLD bool record_cancelled(struct desc *d)
{
    __atomic_fetch_or(&d->flags, D_CANCEL_ACK, __ATOMIC_RELAXED);   /* before head moves (release) */
    return true;
}
/* Whether the record at h of ring c was cancelled (the first time it is seen). */
static inline bool cancelled(struct ring_ctl *c, struct desc *d, uint64_t h)
{
    if (atomic_load_explicit(&c->claim, memory_order_relaxed) == h + 1) return false;    /* decided: kept */
    atomic_store_explicit(&c->claim, h + 1, memory_order_relaxed);
    sm_fence_light();
    return SM_UNLIKELY(__atomic_load_n(&d->flags, __ATOMIC_RELAXED) & D_CANCEL) && record_cancelled(d);
}

/* --- Catching up with a burst ------------------------------------------------
 * A receiver that has caught up with a sender in a burst of small messages
 * polls the line the sender fills next, between the sender's two records
 * in it (two 8-byte messages to a line): each look takes the line back, and
 * the sender's next store waits for it again (its stores queue behind that
 * transfer; perf puts its time in the request memset that follows). So the
 * first empty look after looks that found two records or more in a row
 * (in one drain or in consecutive ones: a receive takes one at a time)
 * pauses (RX_BACK_OFF pauses of ~25 ns here: ~1.6 us, about six far line
 * transfers), and the next look finds several lines filled.
 * Only while two receives or more wait (a window of them; the one being
 * posted counts), never for a lone one (a blocking receive, a ping-pong),
 * nor after single messages (a receive per neighbour); the pause is taken
 * outside the receive side's lock. Chosen by osu_mbw_mr's pattern (its
 * reply makes the receiver catch up at every window) in the VM's far mode
 * (flag ping-pong ~270 ns), medians of rounds alternated with main's 16
 * (one transfer, ~400 ns) and Open MPI, /tmp/rate/mr.c (docs/NOTES.md,
 * rate): 16 -> 9.7 M/s, 64 -> 12.2, 128 -> ~10 (two runs); near mode
 * unchanged (~40 against 40; the window of 64 and the 0-byte latency
 * too). A longer pause delays the window's last records (the reply's
 * wait grows) more than it frees the sender. */
#define RX_BACK_OFF 64
static void rx_back_off(void)
{
    __atomic_fetch_add(&P.stats.back_offs, 1, __ATOMIC_RELAXED);   /* (outside the lock) */
    for (int i = 0; i < RX_BACK_OFF; i++) sm_cpu_relax();
}

/* Drain sender s's ring: to its end with to_end or when s waits for room,
 * else while receives are posted or until cand (see arrive) takes a
 * message. A message that cannot be kept aside stays in the ring, and the
 * ones behind it too (their order matters): s is stuck until a drain gets
 * past it. True if cand took one. */
static bool drain_ring(int s, bool to_end, struct p2p_req *cand)
{
    int me = sm_core.rank;
    struct ring_ctl *c = ctl_of(me, s);
    bool want = atomic_load_explicit(&c->want, memory_order_relaxed);
    /* A sender waiting for room: drain to the end, unless we have taken
     * records of its since the last drain that let want pass (a window of
     * receives taking them from the head, then MPI_Waitall's progress):
     * then room comes anyway, and the copies aside would only slow us. */
    if (want && !to_end && !cand && P.head[s] != P.want_at[s]) P.want_at[s] = P.head[s];
    else to_end = to_end || want;
    uint64_t h = P.head[s], h0 = h;
    enum arrival a = KEPT;
    int took = 0;
    while (a != TAKEN && (to_end || cand || P.posted.head)) {
        struct desc *d = rec_at(me, s, h);
        if (atomic_load_explicit(&d->seq, memory_order_acquire) != rec_seq(h)) {
            if (!took && P.burst[s]) {      /* caught up: pause if others wait too (rx_back_off) */
                P.back_off |= P.burst[s] >= 2 && P.posted.head && (cand || P.posted.head->next);
                P.burst[s] = 0;
            }
            break;
        }
        took++;
        if (cancelled(c, d, h)) ;
        else if ((a = arrive(d, s, cand)) == NOT_KEPT) {
            atomic_store_explicit(&c->stuck_at, h + 1, memory_order_release);
            if (!P.stuck[s]) SET(P.stuck[s], 1), SET(P.nstuck, P.nstuck + 1);
            break;
        }
        h += rec_size(d->flags, d->len);      /* (a large record's size does not depend on len) */
    }
    if (took) P.burst[s] = (uint8_t)(P.burst[s] + took >= 2 ? 2 : 1);
    if (SM_UNLIKELY(P.stuck[s]) && h != h0) SET(P.stuck[s], 0), SET(P.nstuck, P.nstuck - 1);   /* got past it */
    if (h != h0) {
        SET(P.head[s], h);      /* (watch reads it without the lock) */
        atomic_store_explicit(&c->head, h, memory_order_release);
        if (want) sm_wake_for(s, SM_WAKE_P2P);
    }
    return a == TAKEN;
}

/* Drain rings into the posted receives or the unexpected lists. With all,
 * every ring to its end (probes look at the unexpected lists). Otherwise
 * lazily: a ring only while receives are posted or while its sender waits
 * for space, so a message sent before its receive is posted stays in the
 * ring until that receive takes it from there, with no copy to the side. */
static void drain(bool all)
{
    int n = P.nlocal, me = sm_core.rank;
    for (int k = 0, i = P.drain_from; k < n; k++, i = next_rank(i, n)) {
        int s = P.locals[i];
        /* drain_ring's lazy case, without the call: nothing posted to take
         * a message, no sender waiting for room. Between nodes the posted
         * receives are UCX's, and a rank alone on its node drained its own
         * ring on every turn of every wait for one (callgrind, 4 nodes of 1
         * rank, 8-byte allreduce: about 330 instructions a call). */
        if (!all && !P.posted.head && !atomic_load_explicit(&ctl_of(me, s)->want, memory_order_relaxed)) continue;
        uint64_t h0 = P.head[s];
        drain_ring(s, all, NULL);
        if (P.head[s] != h0) P.drain_from = next_rank(i, n);
    }
}

/* --- Messages nobody can keep aside -----------------------------------------
 * A sender is stuck when a message of its matched no receive and there was
 * no memory to keep it aside: it stays in the ring, and those behind it. A
 * wait fails (SM_ERR_NOMEM) only when what it waits for may be behind one:
 * a receive from that sender, or from any; the others go on. */
static COLD sm_status_t stuck_error(int s)          /* s: a stuck sender, or -1 for the first */
{
    if (s < 0)
        for (s = 0; !P.stuck[s]; s++) ;
    return sm_fail(SM_ERR_NOMEM, "no memory to keep aside a message from rank %d that no receive matches yet "
                   "(and those behind it)", s);
}
static inline bool blocked(const struct p2p_req *r)
{
    if (SM_LIKELY(!PEEK(P.nstuck)) || r->kind != P2P_RECV) return false;
    return r->src == P2P_ANY_SOURCE || PEEK(P.stuck[r->comm->world[r->src]]);
}
static COLD sm_status_t blocked_error(const struct p2p_req *r)
{
    return stuck_error(r->src == P2P_ANY_SOURCE ? -1 : r->comm->world[r->src]);
}

/* --- Peers on other nodes (src/net) -------------------------------------------
 * One path per sender, so a pair's messages stay in order. MPI's matching
 * is in UCX's 64-bit tag: the context (32 bits), the sender's job rank (8)
 * and the tag (24, signed: internal negative tags travel too, and
 * P2P_ANY_TAG requires the sign bit clear). A receive from a rank on
 * another node is posted to UCX, which matches it. A receive that could
 * match on either path (MPI_ANY_SOURCE) waits on the posted queue, where a
 * ring message may take it, and each progress pass probes UCX for it,
 * taking a message only for the receive that wants it: whichever path
 * matches first wins and the other never sees it. While such a receive
 * waits, later receives from other nodes wait the same way, so that a
 * later receive cannot overtake it in UCX's own matching. */
static struct p2p_msg *unexp_find(int w, int src, int tag, const struct p2p_comm *c, bool take);
static void deliver_msg(struct p2p_req *r, struct p2p_msg *m);

#define NET_TAG_BITS 24
#define NET_TAG_MASK ((1ull << NET_TAG_BITS) - 1)
#define NET_SRC_SHIFT NET_TAG_BITS
#define NET_CTX_SHIFT 32
_Static_assert(SM_NMAX <= 256, "a job rank fits the UCX tag's 8 bits of source");

static inline uint64_t net_tag(uint32_t ctx, int world, int tag)
{
    return (uint64_t)ctx << NET_CTX_SHIFT | (uint64_t)(uint8_t)world << NET_SRC_SHIFT | ((uint32_t)tag & NET_TAG_MASK);
}

/* What a receive of (src, tag) on c matches. */
static void net_match(int src, int tag, const struct p2p_comm *c, uint64_t *t, uint64_t *mask)
{
    *t = (uint64_t)c->ctx << NET_CTX_SHIFT;
    *mask = 0xffffffffull << NET_CTX_SHIFT;
    if (src != P2P_ANY_SOURCE) *t |= (uint64_t)(uint8_t)c->world[src] << NET_SRC_SHIFT, *mask |= 0xffull << NET_SRC_SHIFT;
    if (tag != P2P_ANY_TAG) *t |= (uint32_t)tag & NET_TAG_MASK, *mask |= NET_TAG_MASK;
    else *mask |= 1ull << (NET_TAG_BITS - 1);
}

/* The receiver's view of a matched message's tag: source (comm rank) and
 * tag. src: the receive's source, P2P_ANY_SOURCE to look it up (a search of
 * the communicator's ranks: a third of a receive's completion). */
static void net_envelope(uint64_t t, const struct p2p_comm *c, int src, int *source, int *tag)
{
    int w = (int)(t >> NET_SRC_SHIFT & 0xff), s = src;
    for (int i = 0; i < c->size && s < 0; i++)
        if (c->world[i] == w) s = i;
    *source = s;
    *tag = (int)((int32_t)((uint32_t)(t & NET_TAG_MASK) << (32 - NET_TAG_BITS)) >> (32 - NET_TAG_BITS));
}

#define REQ_OF(op) ((struct p2p_req *)((char *)(op) - offsetof(struct p2p_req, net)))

static void net_sent(struct net_op *op)
{
    struct p2p_req *r = REQ_OF(op);
    if (op->err) r->st.err = op->err, r->why = strdup(sm_fail_reason());
    r->active = 0;
    atomic_store_explicit(&r->done, 1, memory_order_release);
}

static void net_received(struct net_op *op)
{
    struct p2p_req *r = REQ_OF(op);
    if (op->cancelled) r->st.cancelled = true;
    else {
        if (r->comm) net_envelope(op->tag, r->comm, r->src, &r->st.source, &r->st.tag);  /* else a probe's, set */
        r->st.len = op->len;
        r->st.err = op->err;
        if (r->tmp && op->len) copy_stream(r->buf, r->type, r->tmp, NULL, 0, op->len);
    }
    complete_recv(r);
}

static COLD sm_status_t send_remote(struct p2p_req *r, const struct dt_type *type, enum p2p_mode mode)
{
    if (SM_UNLIKELY(r->tag < -(1 << (NET_TAG_BITS - 1)) || r->tag >= 1 << (NET_TAG_BITS - 1)))
        return sm_fail(SM_ERR_ARG, "tag %d: between nodes, tags are at most %d", r->tag, (1 << (NET_TAG_BITS - 1)) - 1);
    const void *from = r->buf;
    if (type) {
        if (!(r->tmp = malloc(r->len ? r->len : 1)))
            return sm_fail(SM_ERR_NOMEM, "no memory to pack a %zu-byte message for rank %d", r->len, r->peer);
        copy_stream(r->tmp, NULL, r->buf, type, 0, r->len);
        from = r->tmp;
    }
    r->remote = 1, r->active = 1, r->posted = 1;
    r->net.done = net_sent;
    sm_status_t st = net_send(&r->net, r->peer, from, r->len, net_tag(r->ctx, sm_core.rank, r->tag), mode == P2P_SYNC);
    if (st) r->active = 0;
    return st;
}

/* p2p_send_eager's to another node: the message goes to UCX from a net_op on
 * the stack, with no request (the binding's request, p2p_isend and the wait
 * around it cost about 300 instructions a blocking send, beside UCX's own
 * ~270 for a small one over TCP, where Open MPI's pml_ucx adds ~150). UCX
 * completes a small send at once (FAST_CMPL, net_send); else it is waited
 * for here. */
struct eager_net { struct net_op op; _Atomic bool done; };
static void progress(void);
static void wait_cond(bool (*cond)(void *), void *arg, unsigned source);
static void eager_net_sent(struct net_op *op)
{
    atomic_store_explicit(&((struct eager_net *)op)->done, true, memory_order_release);
}
static bool eager_net_done(void *a)
{
    if (atomic_load_explicit(&((struct eager_net *)a)->done, memory_order_acquire)) return true;
    progress();
    return atomic_load_explicit(&((struct eager_net *)a)->done, memory_order_acquire);
}
static COLD bool send_eager_remote(const void *buf, size_t len, int peer, int tag, const struct p2p_comm *c)
{
    if (tag < -(1 << (NET_TAG_BITS - 1)) || tag >= 1 << (NET_TAG_BITS - 1)) return false;     /* (the request says why) */
    struct eager_net e = { .op.done = eager_net_sent };
    if (net_send(&e.op, peer, buf, len, net_tag(c->ctx, sm_core.rank, tag), false)) return false;
    if (!atomic_load_explicit(&e.done, memory_order_acquire)) wait_cond(eager_net_done, &e, SM_WAIT_SOURCE);
    return e.op.err == SM_OK;
}

/* Start r's receive of message msg (a probe's), or from UCX's matching. */
static sm_status_t net_start_recv(struct p2p_req *r, void *msg)
{
    void *into = r->buf;
    if (r->type) {
        if (!r->tmp && !(r->tmp = malloc(r->len ? r->len : 1)))
            return sm_fail(SM_ERR_NOMEM, "no memory to unpack a %zu-byte message", r->len);
        into = r->tmp;
    }
    r->remote = 1;
    r->net.done = net_received;
    if (msg) return net_mrecv(&r->net, into, r->len, msg);
    uint64_t t, mask;
    net_match(r->src, r->tag, r->comm, &t, &mask);
    return net_recv(&r->net, into, r->len, t, mask);
}

/* MPI_ANY_SOURCE when some ranks are on other nodes: the senders in turn,
 * whichever their path, so that none starves; else r waits on the posted
 * queue for a ring message or a probe (progress_net). */
static COLD sm_status_t recv_any(struct p2p_req *r)
{
    const struct p2p_comm *c = r->comm;
    int n = sm_core.size;
    net_progress();
    LOCK(lk_recv);
    for (int k = 0, w = P.any_all; k < n; k++, w = next_rank(w, n)) {
        struct p2p_msg *m = NULL;
        void *msg = NULL;
        bool found = false;
        if (!P.remote[w]) found = (m = unexp_find(w, r->src, r->tag, c, true)) || drain_ring(w, false, r);
        else if (!P.nprobing) {      /* (behind a probing receive, UCX's order would pass it) */
            uint64_t t, mask, stag;
            size_t len;
            net_match(r->src, r->tag, c, &t, &mask);
            t |= (uint64_t)(uint8_t)w << NET_SRC_SHIFT, mask |= 0xffull << NET_SRC_SHIFT;
            net_probe(t, mask, true, &found, &stag, &len, &msg);
        }
        if (!found) continue;
        P.any_all = next_rank(w, n);
        if (m) deliver_msg(r, m);
        UNLOCK(lk_recv);
        if (!msg) return SM_OK;
        sm_status_t st = net_start_recv(r, msg);
        if (st) r->active = 0;
        return st;
    }
    r->probing = 1, P.nprobing++;
    q_push(&P.posted, r);
    UNLOCK(lk_recv);
    return SM_OK;
}

/* A receive that may match a message from another node. */
static COLD sm_status_t recv_remote(struct p2p_req *r)
{
    if (r->src == P2P_ANY_SOURCE) return recv_any(r);
    if (PEEK(P.nprobing)) {     /* behind a receive that probes: in posting order */
        LOCK(lk_recv);
        if (P.nprobing) {
            r->probing = 1, P.nprobing++;
            q_push(&P.posted, r);
            UNLOCK(lk_recv);
            return SM_OK;
        }
        UNLOCK(lk_recv);
    }
    sm_status_t st = net_start_recv(r, NULL);
    if (st) r->active = 0;
    return st;
}

static COLD sm_status_t mrecv_remote(struct p2p_req *r, struct p2p_msg *m)
{
    void *msg = m->net_msg;
    r->comm = NULL;
    r->st.source = m->d.src, r->st.tag = m->d.tag;
    free(m);
    sm_status_t st = net_start_recv(r, msg);
    if (st) r->active = 0;
    return st;
}

/* A message from another node matching (src, tag) on c, as a status (and
 * with take, as a p2p_msg for p2p_mrecv). */
static COLD sm_status_t probe_remote(int src, int tag, const struct p2p_comm *c, bool take, struct p2p_msg **out,
                                     struct p2p_status *st)
{
    uint64_t t, mask, stag;
    size_t len;
    void *msg = NULL;
    bool found;
    net_progress();
    net_match(src, tag, c, &t, &mask);
    net_probe(t, mask, take, &found, &stag, &len, &msg);
    *out = NULL;
    if (!found) return SM_OK;
    *st = (struct p2p_status){ .len = len };
    net_envelope(stag, c, src, &st->source, &st->tag);
    if (!take) {
        static struct p2p_msg seen;     /* a non-NULL marker: only take returns the message */
        *out = &seen;
        return SM_OK;
    }
    struct p2p_msg *m = calloc(1, sizeof *m);
    if (!m) return sm_fail(SM_ERR_NOMEM, "no memory for a probed message");   /* (UCX's stays taken) */
    m->net_msg = msg;
    m->world = -1;
    m->d.xlen = len, m->d.src = st->source, m->d.tag = st->tag, m->d.ctx = c->ctx;     /* (flags 0: xlen) */
    *out = m;
    return SM_OK;
}

static COLD sm_status_t cancel_remote(struct p2p_req *r)
{
    net_cancel(&r->net);
    if (p2p_done(r) && r->st.cancelled) return SM_OK;
    return sm_fail(SM_ERR_STATE, "the receive has matched a message already");
}

/* UCX's progress, then the receives that probe, in posting order. */
static COLD void progress_net(void)
{
    net_progress();
    if (!PEEK(P.nprobing)) return;
    LOCK(lk_recv);
    struct p2p_req *prev = NULL, *r = P.posted.head;
    while (r && P.nprobing) {
        struct p2p_req *next = r->next;
        uint64_t t, mask, stag;
        size_t len;
        void *msg = NULL;
        bool found = false;
        if (r->probing) {
            net_match(r->src, r->tag, r->comm, &t, &mask);
            net_probe(t, mask, true, &found, &stag, &len, &msg);
        }
        if (!found) {
            prev = r, r = next;
            continue;
        }
        if (prev) prev->next = next; else P.posted.head = next;
        if (P.posted.tail == r) P.posted.tail = prev;
        r->probing = 0, P.nprobing--;
        sm_status_t st = net_start_recv(r, msg);
        if (st) {
            r->st.err = st, r->why = strdup(sm_fail_reason());
            complete_recv(r);
        }
        r = next;
    }
    UNLOCK(lk_recv);
}

/* --- Sending -------------------------------------------------------------- */

/* --- A full ring ---------------------------------------------------------------
 * A sender that runs ahead of its receiver (nothing paces a stream of
 * nonblocking sends) fills the ring. It then reads the receiver's head
 * again only when the ring looks full, and takes the room it finds only
 * once a good part of the ring (RING_LOW) is free: so a sender a ring ahead
 * reads the line the receiver writes at every take once per that many
 * records, not every second message (smbench's msgrate: 99.7% of those
 * reads found the ring still full), and its sends wait on
 * the pending queue meanwhile, drained in its wait as room comes.
 * A receiver that takes records frees room without being asked. want asks
 * it to drain the ring to its end, keeping aside what no receive matches
 * yet, and to wake us: raised only once the sender waits for room and the
 * receiver has taken nothing of ours for WANT_AFTER looks in a row, neither
 * from the ring (its head) nor from what it kept aside (its taken: after a
 * drain, a receiver is busy with those for a ring's worth of messages, and
 * a sender that took that for a stall asked for the next drain, and so on)
 * (at once when ranks outnumber cores: the wait sleeps after 8 looks), so a
 * receiver busy elsewhere (a collective, its own blocked sends) cannot
 * leave us waiting. Raised when a send was queued (as it was), it sent a
 * receiver that kept up into the drain's slow path, a malloc and a copy
 * for each record of the ring, whenever the sender ran a ring ahead. */
#define RING_LOW 4              /* a full ring takes records again with a quarter of it free */
#define WANT_AFTER 8192
/* The ring looked full: the receiver's head, counted from only with RING_LOW free. */
static __attribute__((noinline)) bool ring_refresh(struct dest *o, int peer, uint64_t need)
{
    struct ring_ctl *c = ctl_of(peer, sm_core.rank);
    uint64_t h = atomic_load_explicit(&c->head, memory_order_acquire);
    uint64_t moved = h + atomic_load_explicit(&c->taken, memory_order_relaxed);    /* (both only grow) */
    if (moved != o->head_polled) o->head_polled = moved, o->stalls = 0;     /* the receiver takes ours */
    if (o->tail + need + P.cap / RING_LOW - h > P.cap) return false;
    o->head_seen = h;
    return true;
}
/* Room in peer's ring for a record of size bytes and the cleared header after it. */
static inline bool ring_room(int peer, uint64_t size)
{
    uint64_t need = size + SM_CACHELINE;
    struct dest *o = &P.out[peer];
    return o->tail + need - o->head_seen <= P.cap || ring_refresh(o, peer, need);
}
/* The first of p's pending sends found no room (send side locked). */
static void stalled(int p, struct dest *o)
{
    if (o->want || (++o->stalls < WANT_AFTER && !sm_core.oversubscribed)) return;
    o->want = true;
    atomic_store(&ctl_of(p, sm_core.rank)->want, 1);
    P.stats.wants++;
    sm_wake_for(p, SM_WAKE_P2P);    /* it may sleep in a wait that our last record ended before want */
}
static void unwant(int p, struct dest *o)
{
    o->stalls = 0;
    if (!o->want) return;
    o->want = false;
    atomic_store(&ctl_of(p, sm_core.rank)->want, 0);
}
static bool ring_has_space(const struct p2p_req *r) { return ring_room(r->peer, rec_size(r->flags, r->len)); }

/* Take the next size bytes of peer's ring: the record's header filled, the
 * one after it cleared; rec_publish makes it the receiver's. And ask for
 * the line RING_PF_AHEAD lines on (prefetchw): every ring line the sender
 * fills, the receiver read a lap earlier, so the first store to it waits
 * for the line's ownership, and a small send's stores (the record's, the
 * request's, the stack's) fill the store buffer behind that one in about a
 * message. Where that wait is a far line transfer (this VM's slow mode,
 * flag ping-pong ~270 ns), a stream of 8-byte messages (two to a line)
 * went at one transfer a line: 10.6 M/s (median of 25 far runs), Open
 * MPI's 9.9. Asked for 16 lines (32 small messages) ahead, the wait is
 * over before the stores come: 30.5 M/s (23 far runs of smbench's window
 * of 64; 8 lines ahead 30.2, 32 lines 36.9 in fewer; docs/NOTES.md, far). The
 * line ahead is past the receiver's head unless the ring is nearly full;
 * then the hint only takes a line the receiver reads again later. */
#define RING_PF_AHEAD 16
static inline struct desc *rec_open(int peer, uint64_t size, uint32_t ctx, int tag, int src, uint32_t flags,
                                    uint64_t len, uint64_t *pos)
{
    struct dest *o = &P.out[peer];
    uint64_t t = o->tail, next = t + size, mask = P.cap - 1;
    o->tail = next;
    *pos = t;
    struct desc *d = (struct desc *)(o->ring + (t & mask));
    sm_prefetch_write(o->ring + ((next + RING_PF_AHEAD * SM_CACHELINE) & mask));
    atomic_store_explicit(&((struct desc *)(o->ring + (next & mask)))->seq, 0, memory_order_relaxed);
    d->ctx = ctx, d->tag = tag, d->src = src, d->flags = flags;
    desc_set_len(d, len);
    return d;
}
static inline void rec_publish(struct desc *d, uint64_t pos, int peer)
{
    atomic_store_explicit(&d->seq, rec_seq(pos), memory_order_release);
    sm_wake_inline(peer, SM_WAKE_P2P);
}

static void post(struct p2p_req *r)
{
    uint64_t t;
    struct desc *d = rec_open(r->peer, rec_size(r->flags, r->len), r->ctx, r->tag, r->src, r->flags, r->len, &t);
    r->pos = t;
    if ((r->flags & (D_EAGER | D_SYNC)) != D_EAGER) d->req = (uint64_t)(uintptr_t)sm_global(r);
    if (r->flags & D_EAGER) {
        if (r->len) copy_stream(desc_data(d), NULL, r->buf, r->type, 0, r->len);
    } else if (r->flags & D_LAYOUT) {
        d->addr = (uint64_t)(uintptr_t)sm_global(r->type);
        d->gaddr = (uint64_t)(uintptr_t)global_span(r->buf, r->type, r->len);
    } else {
        void *from = r->tmp ? r->tmp : r->buf;
        d->addr = (uint64_t)(uintptr_t)from;
        d->gaddr = (uint64_t)(uintptr_t)sm_global(from);
    }
    r->posted = 1;              /* before the receiver may complete r (and its owner free it) */
    rec_publish(d, t, r->peer);
    if ((r->flags & (D_EAGER | D_SYNC)) == D_EAGER) {
        r->active = 0;
        atomic_store_explicit(&r->done, 1, memory_order_release);
    }
}

/* What a previous start of r left (a persistent request restarts). */
static COLD void drop(struct p2p_req *r)
{
    dt_unref(r->type);
    free(r->tmp);
    free(r->why);
    r->type = NULL, r->tmp = NULL, r->why = NULL;
}

void p2p_req_fini(struct p2p_req *r)
{
    if (SM_UNLIKELY(r->type || r->tmp || r->why)) drop(r);
}

/* A send with a typemap (or on the copy transport): eager data is packed
 * into the ring when posted; a large message goes typemap to typemap
 * where the receiver can read the buffer and the typemap directly, else it
 * is packed once into a private copy (the copy transport's first copy). */
static COLD sm_status_t send_typed(struct p2p_req *r, const struct dt_type *type)
{
    bool eager = r->flags & D_EAGER;
    if (type && (eager || (p2p_transport == P2P_SMARTMAP && sm_global(type) && global_span(r->buf, type, r->len)))) {
        r->type = dt_ref(type);
        if (!eager) r->flags |= D_LAYOUT;
        return SM_OK;
    }
    if (!(r->tmp = malloc(r->len ? r->len : 1)))
        return sm_fail(SM_ERR_NOMEM, "no memory to pack a %zu-byte message for rank %d", r->len, r->peer);
    copy_stream(r->tmp, NULL, r->buf, type, 0, r->len);
    return SM_OK;
}

sm_status_t p2p_isend(struct p2p_req *r, const void *buf, size_t len, int dst, int tag, const struct p2p_comm *c,
                      enum p2p_mode mode, const struct dt_type *type)
{
    if (SM_UNLIKELY(r->type || r->tmp || r->why)) drop(r);
    r->kind = P2P_SEND;
    r->remote = 0;
    r->peer = c->world[dst];
    r->ctx = c->ctx, r->tag = tag, r->src = c->rank, r->comm = c;
    r->buf = (void *)buf, r->len = len;
    r->flags = (len <= P.eager_max ? D_EAGER : 0) | (mode == P2P_SYNC ? D_SYNC : 0);
    r->st.err = SM_OK, r->st.cancelled = false;
    atomic_store_explicit(&r->done, 0, memory_order_relaxed);
    atomic_store_explicit(&r->coop_dst, 0, memory_order_relaxed);
    if (SM_UNLIKELY(P.remote[r->peer])) return send_remote(r, type, mode);
    if (SM_UNLIKELY(type || (!(r->flags & D_EAGER) && p2p_transport == P2P_COPY))) {
        sm_status_t st = send_typed(r, type);
        if (st) return st;
    }
    r->active = 1, r->posted = 0;
    LOCK(lk_send);
    struct reqq *pq = &P.out[r->peer].pending;
    if (SM_LIKELY(!pq->head && ring_has_space(r))) post(r);
    else {
        if (!pq->head) SET(P.npending, P.npending + 1);     /* (want: only once we wait, stalled) */
        q_push(pq, r);
        P.stats.pending++;
        P.stats.queued++;
    }
    UNLOCK(lk_send);
    return SM_OK;
}

/* A small standard send of plain bytes to peer on this node, straight into
 * its ring: false when the ring is full or earlier sends to peer wait for
 * room (nothing done, so that the message keeps its place behind them). */
static inline __attribute__((always_inline)) bool eager_put(const void *buf, size_t len, int peer, int tag,
                                                            const struct p2p_comm *c, uint64_t *pos, bool isend)
{
    uint64_t size = rec_size(D_EAGER, len);
    LOCK(lk_send);
    bool now = !P.out[peer].pending.head && ring_room(peer, size);
    if (SM_LIKELY(now)) {
        struct desc *d = rec_open(peer, size, c->ctx, tag, c->rank, D_EAGER, len, pos);
        copy_eager(desc_data(d), buf, len);
        rec_publish(d, *pos, peer);
        if (isend) P.stats.eager_isends++;      /* (under the lock: no atomic of its own) */
    }
    UNLOCK(lk_send);
    return now;
}

bool p2p_send_eager(const void *buf, size_t len, int dst, int tag, const struct p2p_comm *c)
{
    int peer = c->world[dst];
    if (SM_UNLIKELY(len > P.eager_max)) return false;
    if (SM_UNLIKELY(P.remote[peer])) return send_eager_remote(buf, len, peer, tag, c);
    uint64_t t;
    return eager_put(buf, len, peer, tag, c, &t, false);
}

bool p2p_isend_eager(struct p2p_req *r, const void *buf, size_t len, int dst, int tag, const struct p2p_comm *c)
{
    int peer = c->world[dst];
    if (SM_UNLIKELY(len > P.eager_max || P.remote[peer] || r->type || r->tmp || r->why)) return false;
    uint64_t t;
    if (SM_UNLIKELY(!eager_put(buf, len, peer, tag, c, &t, true))) return false;
    /* What cancel (retract) and the completion calls read of a send; the
     * receiver never reads an eager record's request. */
    r->kind = P2P_SEND, r->remote = 0, r->active = 0, r->posted = 1;
    r->peer = peer, r->pos = t, r->buf = (void *)buf, r->len = len, r->flags = D_EAGER;
    r->st.err = SM_OK, r->st.cancelled = false;
    atomic_store_explicit(&r->done, 1, memory_order_release);
    return true;
}

static void drain_pending(void)
{
    int n = sm_core.size;
    for (int p = 0; p < n && P.npending; p++) {
        struct dest *o = &P.out[p];
        struct reqq *q = &o->pending;
        if (!q->head) continue;
        while (q->head && ring_has_space(q->head)) {
            struct p2p_req *r = q->head;
            q->head = r->next;
            if (!q->head) q->tail = NULL;
            r->next = NULL;
            P.stats.pending--;
            bool detached = r->detached;        /* not r's after post unless detached */
            post(r);
            if (detached) {
                if (p2p_done(r)) release(r);
                else q_push(&P.detached, r);
            }
        }
        if (!q->head) {
            SET(P.npending, P.npending - 1);
            unwant(p, o);
        } else stalled(p, o);
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
    int n = P.nlocal;
    if (src != P2P_ANY_SOURCE) return P.remote[c->world[src]] ? NULL : unexp_find(c->world[src], src, tag, c, take);
    for (int k = 0, i = P.any_from; k < n; k++, i = next_rank(i, n)) {
        struct p2p_msg *m = unexp_find(P.locals[i], src, tag, c, take);
        if (m && take) P.any_from = next_rank(i, n);
        if (m) return m;
    }
    return NULL;
}

static void deliver_msg(struct p2p_req *r, struct p2p_msg *m)
{
    struct ring_ctl *c = ctl_of(sm_core.rank, m->world);     /* (ring_refresh) */
    atomic_store_explicit(&c->taken, atomic_load_explicit(&c->taken, memory_order_relaxed) + 1, memory_order_relaxed);
    deliver(r, &m->d, m->data, m->world);
    free(m);
    P.stats.unexpected--;
}

/* --- The small blocking receive ---------------------------------------------
 * When nothing is posted ahead of a blocking receive of plain bytes from
 * one rank of this node, and nothing of that sender's kept aside matches
 * it, its message can only be the sender's next record in the ring: it is
 * taken there in place (after the claim a cancel needs) with no request to
 * clear, post, complete and read back. A record not there yet is watched
 * for as watch_ring does (bounded, where that may). Anything else (still no
 * record, one that does not match, a large, synchronous or truncated one,
 * a sender waiting for room, receives posted, a stuck sender) is left to
 * the general path, which then finds the rings as they were. A nonblocking
 * receive that finds its message so (a window of them) takes it the same
 * way, without the drain's bookkeeping, and completes at once. */

enum take { TAKE_EMPTY = -1, TAKE_NOT = 0, TAKE_GOT = 1 };

/* Receive side locked. (Inline: a call's register saves were a tenth of it.) */
static inline __attribute__((always_inline)) enum take take_head(void *buf, size_t len, int s, int src, int tag,
                                                                 const struct p2p_comm *c, struct p2p_status *st,
                                                                 bool blocking)
{
    if (P.posted.head || PEEK(P.nstuck) || (P.unexp[s].head && unexp_find(s, src, tag, c, false))) return TAKE_NOT;
    int me = sm_core.rank;
    struct ring_ctl *ctl = ctl_of(me, s);
    uint64_t h = P.head[s];
    enum take got;
    for (;;) {
        struct desc *d = rec_at(me, s, h);
        if (atomic_load_explicit(&d->seq, memory_order_acquire) != rec_seq(h)) {
            P.burst[s] = 0;
            got = TAKE_EMPTY;
            break;
        }
        if ((d->flags & (D_EAGER | D_SYNC)) != D_EAGER || d->len > len || !matches(d, c->ctx, src, tag)) {
            got = TAKE_NOT;
            break;
        }
        bool skip = cancelled(ctl, d, h);
        if (!skip) {
            if (d->len) memcpy(buf, desc_data(d), d->len);      /* (before head frees the record) */
            st->source = d->src, st->tag = d->tag, st->len = d->len;
        }
        h += rec_size(D_EAGER, d->len);
        if (skip) continue;
        P.burst[s] = P.burst[s] ? 2 : 1;
        if (blocking) P.stats.fast_recvs++;
        got = TAKE_GOT;
        break;
    }
    if (h != P.head[s]) {
        SET(P.head[s], h);
        atomic_store_explicit(&ctl->head, h, memory_order_release);
        if (SM_UNLIKELY(atomic_load_explicit(&ctl->want, memory_order_relaxed))) sm_wake_for(s, SM_WAKE_P2P);
    }
    return got;
}

/* Whether posted receive t matches every message a receive of (src, tag)
 * on c would: the same communicator, t's source and tag the same or any. */
static inline bool behind(const struct p2p_req *t, int src, int tag, const struct p2p_comm *c)
{
    return t && t->comm == c && (t->src == src || t->src == P2P_ANY_SOURCE) && (t->tag == tag || t->tag == P2P_ANY_TAG);
}

/* Set r up as a receive into buf (type: its typemap, or NULL). */
static void recv_start(struct p2p_req *r, void *buf, size_t len, const struct dt_type *type)
{
    if (SM_UNLIKELY(r->type || r->tmp || r->why)) drop(r);
    r->kind = P2P_RECV;
    r->remote = 0;              /* (a persistent request restarts: its path is chosen again) */
    r->type = dt_ref(type);
    r->buf = buf, r->len = len;
    memset(&r->st, 0, sizeof r->st);
    atomic_store_explicit(&r->done, 0, memory_order_relaxed);
    r->active = 1;
}

sm_status_t p2p_irecv(struct p2p_req *r, void *buf, size_t len, int src, int tag, const struct p2p_comm *c,
                      const struct dt_type *type)
{
    recv_start(r, buf, len, type);
    r->ctx = c->ctx, r->src = src, r->tag = tag, r->comm = c;
    int any = src == P2P_ANY_SOURCE;
    if (SM_UNLIKELY(P.nremote) && (any || P.remote[c->world[src]])) return recv_remote(r);
    /* A sender's older messages are in its unexpected list, its newer ones
     * still in its ring, where r takes its message with no copy to the side.
     * MPI_ANY_SOURCE asks the senders in turn, so that none starves. Behind
     * a posted receive that matches whatever r matches (a window of
     * receives: osu_mbw_mr's pattern), r can take no message before that
     * one has (and none kept aside: that one would have), so it only joins
     * the posted queue: the next drain (a wait's progress) matches the
     * rings' records in posting order all the same, in one pass, and the
     * window's receives leave the lines the sender is filling alone (each
     * look took the line back from it: a transfer its next store waited
     * for). */
    int n = P.nlocal;
    int i = any ? P.any_from : 0;
    LOCK(lk_recv);
    if (!type && !any && take_head(buf, len, c->world[src], src, tag, c, &r->st, false) == TAKE_GOT) {
        complete_recv(r);       /* (the small blocking receive's way, for a window of receives) */
        UNLOCK(lk_recv);
        return SM_OK;
    }
    if (behind(P.posted.tail, src, tag, c)) {
        q_push(&P.posted, r);
        P.stats.behind++;
        UNLOCK(lk_recv);
        return SM_OK;
    }
    for (int k = 0; k < (any ? n : 1); k++, i = next_rank(i, n)) {
        int w = any ? P.locals[i] : c->world[src];
        struct p2p_msg *m = unexp_find(w, src, tag, c, true);
        if (m || drain_ring(w, false, r)) {
            if (any) P.any_from = next_rank(i, n);
            if (m) deliver_msg(r, m);
            UNLOCK(lk_recv);
            return SM_OK;
        }
    }
    q_push(&P.posted, r);
    bool pause = P.back_off;
    P.back_off = false;
    UNLOCK(lk_recv);
    if (SM_UNLIKELY(pause)) rx_back_off();
    return SM_OK;
}

bool p2p_msg_pending(const struct p2p_msg *m)
{
    return ((uintptr_t)m & (_Alignof(struct p2p_msg) - 1)) == 0 && sm_heap_holds(m, sizeof *m) &&
           m->taken == MSG_TAKEN;
}

sm_status_t p2p_mrecv(struct p2p_req *r, void *buf, size_t len, struct p2p_msg *m, const struct dt_type *type)
{
    m->taken = 0;                           /* a copy of the handle is refused from now on */
    recv_start(r, buf, len, type);
    if (SM_UNLIKELY(m->net_msg)) return mrecv_remote(r, m);
    LOCK(lk_recv);
    deliver_msg(r, m);
    UNLOCK(lk_recv);
    return SM_OK;
}

static void progress_send(void);
sm_status_t p2p_iprobe(int src, int tag, const struct p2p_comm *c, bool take, bool *found, struct p2p_status *st,
                       struct p2p_msg **msg)
{
    progress_send();
    LOCK(lk_recv);
    drain(true);
    struct p2p_msg *m = find_unexpected(src, tag, c, take);
    UNLOCK(lk_recv);
    if (SM_UNLIKELY(P.nremote) && !m && (src == P2P_ANY_SOURCE || P.remote[c->world[src]])) {
        sm_status_t e = probe_remote(src, tag, c, take, &m, st);
        if (e || !m) {
            *found = m != NULL;
            return e;
        }
    } else if (m) *st = (struct p2p_status){ .source = m->d.src, .tag = m->d.tag, .len = desc_len(&m->d) };
    *found = m != NULL;
    if (!m) {
        int w = src == P2P_ANY_SOURCE ? -1 : c->world[src];
        return PEEK(P.nstuck) && (w < 0 || PEEK(P.stuck[w])) ? stuck_error(w) : SM_OK;
    }
    if (take) m->taken = MSG_TAKEN;
    if (msg) *msg = m;
    return SM_OK;
}

/* Take r, a send not yet posted, off its pending queue (send side locked). */
static bool unpend(struct p2p_req *r)
{
    struct reqq *q = &P.out[r->peer].pending;
    struct p2p_req *prev = NULL;
    for (struct p2p_req *x = q->head; x; prev = x, x = x->next) {
        if (x != r) continue;
        if (prev) prev->next = x->next; else q->head = x->next;
        if (q->tail == x) q->tail = prev;
        P.stats.pending--;
        if (!q->head) {
            SET(P.npending, P.npending - 1);
            unwant(r->peer, &P.out[r->peer]);
        }
        return true;
    }
    return false;
}

/* Withdraw r's record from the receiver's ring if the receiver has not
 * taken it (see "Cancelling a send"; send side locked, so nobody reuses
 * the record's place meanwhile). */
static bool retract(struct p2p_req *r)
{
    struct ring_ctl *c = ctl_of(r->peer, sm_core.rank);
    struct desc *d = rec_at(r->peer, sm_core.rank, r->pos);
    if (atomic_load_explicit(&c->head, memory_order_acquire) > r->pos) return false;     /* taken */
    __atomic_fetch_or(&d->flags, D_CANCEL, __ATOMIC_SEQ_CST);
    sm_fence_peers();
    if (atomic_load_explicit(&c->claim, memory_order_relaxed) <= r->pos) return true;     /* it will skip it */
    /* The receiver is deciding on it now: wait for the outcome. */
    for (int i = 0;; i++) {
        if (__atomic_load_n(&d->flags, __ATOMIC_ACQUIRE) & D_CANCEL_ACK) return true;
        if (atomic_load_explicit(&c->head, memory_order_acquire) > r->pos ||
            atomic_load_explicit(&c->stuck_at, memory_order_acquire) == r->pos + 1)
            return __atomic_load_n(&d->flags, __ATOMIC_ACQUIRE) & D_CANCEL_ACK;
        if (i > 100) sched_yield();
    }
}

static COLD sm_status_t cancel_send(struct p2p_req *r)
{
    LOCK(lk_send);
    bool done = r->st.cancelled || (r->posted ? retract(r) : unpend(r));
    UNLOCK(lk_send);
    if (!done) return sm_fail(SM_ERR_STATE, "the message has been received already, or may have been");
    r->st.cancelled = true;
    r->active = 0;
    atomic_store_explicit(&r->done, 1, memory_order_release);
    return SM_OK;
}

sm_status_t p2p_cancel(struct p2p_req *r)
{
    if (r->kind == P2P_SEND) return r->remote ? sm_fail(SM_ERR_STATE, "a send to another node is not cancelled")
                                              : cancel_send(r);
    if (SM_UNLIKELY(r->remote)) return cancel_remote(r);
    LOCK(lk_recv);
    struct p2p_req *prev = NULL;
    for (struct p2p_req *q = P.posted.head; q && !p2p_done(r); prev = q, q = q->next) {
        if (q != r) continue;
        if (prev) prev->next = q->next; else P.posted.head = q->next;
        if (P.posted.tail == q) P.posted.tail = prev;
        if (r->probing) r->probing = 0, P.nprobing--;
        r->st.cancelled = true;
        complete_recv(r);
        UNLOCK(lk_recv);
        return SM_OK;
    }
    UNLOCK(lk_recv);
    return sm_fail(SM_ERR_STATE, "the receive has matched a message already");
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

/* Pending sends into rings that have room, detached sends released. */
static void progress_send(void)
{
    if (SM_LIKELY(!PEEK(P.npending) && !PEEK(P.detached.head))) return;
    LOCK(lk_send);
    if (P.npending) drain_pending();
    if (P.detached.head) reap_detached();
    UNLOCK(lk_send);
}

/* With threads, a thread that finds the receive side busy goes on: the
 * holder drains for everyone. */
static __attribute__((noinline)) void drain_mt(void)
{
    if (!bias_trylock(&P.lk_recv)) return;
    drain(false);
    bool pause = P.back_off;
    P.back_off = false;
    bias_unlock(&P.lk_recv);
    if (pause) rx_back_off();
}

void (*p2p_progress_hook)(void);

static void progress(void)
{
    if (SM_UNLIKELY(p2p_progress_hook != NULL)) p2p_progress_hook();
    if (SM_UNLIKELY(P.nremote)) progress_net();
    if (SM_UNLIKELY(P.mt)) drain_mt();
    else {
        drain(false);
        if (SM_UNLIKELY(P.back_off)) P.back_off = false, rx_back_off();
    }
    progress_send();
}

sm_status_t p2p_progress(void)
{
    progress();
    return SM_LIKELY(!PEEK(P.nstuck)) ? SM_OK : stuck_error(-1);
}

sm_status_t p2p_test(struct p2p_req *r)
{
    if (p2p_done(r)) return r->st.err;
    progress();
    if (p2p_done(r)) return r->st.err;
    return blocked(r) ? blocked_error(r) : SM_INPROGRESS;
}

/* What ends a sleep here: a message or a send's progress, and while
 * nonblocking collectives run through the progress hook, a member's
 * progress in one (never a put). */
static void block_on(bool (*cond)(void *), void *arg, unsigned source)
{
    sm_wait_for(SM_WAKE_ON(SM_WAKE_P2P) | (p2p_progress_hook ? SM_WAKE_ON(SM_WAKE_COLL) : 0) | source, cond, arg);
}

/* A condition of any kind cannot tell what it waits for: it stops at any stuck sender. */
struct until { bool (*cond)(void *); void *arg; bool met; };
static bool progress_until(void *a)
{
    struct until *u = a;
    progress();
    u->met = u->cond(u->arg);     /* once: a condition may take what it found (a matched probe) */
    return u->met || PEEK(P.nstuck);
}

/* block_on; with peers on other nodes too, whose messages ring no doorbell
 * themselves, UCX's events ring it (net_wakes: the core's wait runs UCX and
 * arms it before sleeping). Without that, poll, yielding the CPU after a
 * while (soon when the node's ranks outnumber its cores). */
static void wait_cond(bool (*cond)(void *), void *arg, unsigned source)
{
    if (SM_LIKELY(!P.nremote) || net_wakes()) {
        block_on(cond, arg, source);
        return;
    }
    int spin = sm_core.oversubscribed ? 100 : 20000;
    for (int i = 0; !cond(arg); i++)
        if (i > spin) sched_yield();
        else sm_cpu_relax();
}

sm_status_t p2p_wait_until(bool (*cond)(void *), void *arg)
{
    if (cond(arg)) return SM_OK;
    struct until u = { cond, arg, false };
    wait_cond(progress_until, &u, 0);
    return u.met ? SM_OK : stuck_error(-1);
}

/* A large send's sender, waiting anyway, helps with the copy. */
static bool ready(void *a)
{
    struct p2p_req *r = a;
    progress();
    if (r->kind == P2P_SEND && !(r->flags & D_EAGER)) coop_help(r);
    return p2p_done(r) || blocked(r);
}

/* A receive from one rank of this node, with nothing else to look after
 * (no sends waiting for room, no other node, no nonblocking collective):
 * watch that sender's next record alone, a load and a pause a turn, rather
 * than a round of every ring and queue, so that the message is seen up to a
 * round sooner (a blocking ping-pong's receive). Bounded, and not when
 * ranks outnumber cores: then the general wait. With threads too: a
 * program that asked for MPI_THREAD_MULTIPLE and receives from one thread
 * took the request path's wait instead (0-byte ping-pong 73 ns against 57
 * on Zen 5). The head is read without the receive lock: if another thread
 * takes the record meanwhile, the one watched is an old one (its seq still
 * set, or cleared until the sender writes there again), so the watch ends
 * at once or at its bound, and the look under the lock decides. */
static bool may_watch(void)
{
    return !(p2p_progress_hook || PEEK(P.npending) || P.nremote || PEEK(P.nstuck) || sm_core.oversubscribed);
}
static void watch(int s)
{
    _Atomic uint32_t *seq = &rec_at(sm_core.rank, s, PEEK(P.head[s]))->seq;
    for (int i = 0; i < 4096; i++) {
        if (atomic_load_explicit(seq, memory_order_relaxed)) return;
        sm_cpu_relax();
    }
}
static void watch_ring(const struct p2p_req *r)
{
    if (r->kind == P2P_RECV && r->src != P2P_ANY_SOURCE && !r->remote && may_watch()) watch(r->comm->world[r->src]);
}

sm_status_t p2p_wait(struct p2p_req *r)
{
    if (SM_UNLIKELY(P.nremote)) {
        /* the wait's first look is the test (ready): each runs UCX, and
         * the second, right after the first, found nothing it had not */
        if (p2p_done(r)) return r->st.err;
    } else {
        sm_status_t st = p2p_test(r);
        if (st != SM_INPROGRESS) return st;
        watch_ring(r);
    }
    wait_cond(ready, r, r->remote ? SM_WAIT_SOURCE : 0);   /* (only UCX completes it) */
    return p2p_done(r) ? r->st.err : blocked_error(r);
}

/* MPI_ANY_SOURCE: the senders in turn from where the last one left off, as
 * p2p_irecv asks them; a sender with nothing for it passes the turn on. */
static COLD bool recv_eager_any(void *buf, size_t len, int tag, const struct p2p_comm *c, struct p2p_status *st)
{
    if (P.nremote) return false;
    int n = P.nlocal;
    enum take got = TAKE_EMPTY;
    LOCK(lk_recv);
    for (int k = 0, i = P.any_from; k < n && got == TAKE_EMPTY; k++, i = next_rank(i, n))
        if ((got = take_head(buf, len, P.locals[i], P2P_ANY_SOURCE, tag, c, st, true)) == TAKE_GOT)
            P.any_from = next_rank(i, n);
    UNLOCK(lk_recv);
    return got == TAKE_GOT;
}

bool p2p_recv_eager(void *buf, size_t len, int src, int tag, const struct p2p_comm *c, struct p2p_status *st)
{
    if (SM_UNLIKELY(src == P2P_ANY_SOURCE)) return recv_eager_any(buf, len, tag, c, st);
    int s = c->world[src];
    if (SM_UNLIKELY(P.remote[s])) return false;
    for (bool watched = false;; watched = true) {
        LOCK(lk_recv);
        enum take got = take_head(buf, len, s, src, tag, c, st, true);
        bool wait = got == TAKE_EMPTY && !watched && may_watch();
        if (wait) P.stats.watched++;        /* (under the lock, while the message is on its way) */
        UNLOCK(lk_recv);
        if (!wait) return got == TAKE_GOT;
        watch(s);
    }
}
