/* net.c: UCX between nodes (net.h). The worker's address is published
 * under NET_KEY with PMIx at net_init; an endpoint to a peer is made the
 * first time something is sent to it. A thread watches the worker's event
 * fd so that sleeping waits wake for UCX. */
#define _GNU_SOURCE             /* pthread_setname_np */
#include <stdlib.h>
#include <string.h>

#include "sm_core.h"
#include "net.h"

#ifndef SM_HAVE_UCX

sm_status_t net_init(void)
{
    return sm_fail(SM_ERR_UNSUPPORTED, "the job's %d ranks are on more than one node (%d on this one), and this "
                   "smartmap was built without UCX (install libucx-dev and rebuild): run every rank on one node",
                   sm_core.size, sm_core.nlocal);
}
sm_status_t net_finalize(void) { return SM_OK; }
unsigned net_progress(void) { return 0; }
sm_status_t net_send(struct net_op *op, int peer, const void *buf, size_t len, uint64_t tag, bool sync)
{
    (void)op, (void)buf, (void)len, (void)tag, (void)sync;
    return sm_fail(SM_ERR_UNSUPPORTED, "rank %d is on another node and this smartmap was built without UCX", peer);
}
sm_status_t net_recv(struct net_op *op, void *buf, size_t cap, uint64_t tag, uint64_t mask)
{
    (void)op, (void)buf, (void)cap, (void)tag, (void)mask;
    return sm_fail(SM_ERR_UNSUPPORTED, "built without UCX");
}
void net_probe(uint64_t tag, uint64_t mask, bool take, bool *found, uint64_t *stag, size_t *len, void **msg)
{
    (void)tag, (void)mask, (void)take, (void)stag, (void)len, (void)msg;
    *found = false;
}
sm_status_t net_mrecv(struct net_op *op, void *buf, size_t cap, void *msg)
{
    (void)op, (void)buf, (void)cap, (void)msg;
    return sm_fail(SM_ERR_UNSUPPORTED, "built without UCX");
}
void net_cancel(struct net_op *op) { (void)op; }
void net_bytes(uint64_t *sent, uint64_t *received) { *sent = *received = 0; }
sm_status_t net_mem_init(void *base, size_t len)
{
    (void)base, (void)len;
    return sm_fail(SM_ERR_UNSUPPORTED, "built without UCX");
}
bool net_mem_up(void) { return false; }
bool net_wakes(void) { return false; }
sm_status_t net_put(int peer, uint64_t raddr, const void *src, size_t len)
{
    (void)raddr, (void)src, (void)len;
    return sm_fail(SM_ERR_UNSUPPORTED, "rank %d is on another node and this smartmap was built without UCX", peer);
}
sm_status_t net_get(int peer, void *dst, uint64_t raddr, size_t len)
{
    (void)raddr, (void)dst, (void)len;
    return sm_fail(SM_ERR_UNSUPPORTED, "rank %d is on another node and this smartmap was built without UCX", peer);
}
sm_status_t net_wait_local(void) { return SM_OK; }
sm_status_t net_amo(int peer, uint64_t raddr, enum net_amo op, size_t width, uint64_t value, uint64_t compare,
                    uint64_t *result)
{
    (void)raddr, (void)op, (void)width, (void)value, (void)compare, (void)result;
    return sm_fail(SM_ERR_UNSUPPORTED, "rank %d is on another node and this smartmap was built without UCX", peer);
}
sm_status_t net_flush(void) { return SM_OK; }
sm_status_t net_fence(void) { return SM_OK; }
sm_status_t net_mem_finalize(void) { return SM_OK; }

#else
#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <ucp/api/ucp.h>

#define NET_KEY "smartmap.ucx"
static sm_status_t connect_to(int peer);
/* The remote keys of a rank's two registered regions (net.h): its slot up
 * to the symmetric region (published at net_init), and the symmetric
 * region (at net_mem_init). */
static const char *const NET_RKEY[2] = { "smartmap.rkey0", "smartmap.rkey" };

/* UCX is loaded (dlopen) by the first job that spans nodes, not linked:
 * its memory hooks (libucm patches mmap, munmap, madvise and brk as it
 * loads) would stop the slot allocator returning memory in every program,
 * and its fault handlers would take over a rank's crash report. A job on
 * one node never loads it. The calls go through this table. */
#define UCX_CALLS(X)                                                                               \
    X(ucp_config_read) X(ucp_config_release) X(ucp_init_version) X(ucp_worker_create)              \
    X(ucp_worker_get_address) X(ucp_worker_release_address) X(ucp_ep_create) X(ucp_worker_progress) \
    X(ucp_request_free) X(ucp_request_cancel) X(ucp_tag_send_nbx) X(ucp_tag_send_sync_nbx)          \
    X(ucp_tag_recv_nbx) X(ucp_tag_probe_nb) X(ucp_tag_msg_recv_nbx) X(ucs_status_string)              \
    X(ucp_mem_map) X(ucp_rkey_pack) X(ucp_rkey_buffer_release) X(ucp_ep_rkey_unpack) X(ucp_put_nbx) \
    X(ucp_get_nbx) X(ucp_atomic_op_nbx) X(ucp_worker_flush_nbx) X(ucp_worker_fence)                  \
    X(ucp_request_check_status) X(ucp_worker_get_efd) X(ucp_worker_arm)
static struct {
#define X(f) __typeof__(f) *f;
    UCX_CALLS(X)
#undef X
} U;

static sm_status_t ucx_load(void)
{
    /* No memory hooks: the registration cache they feed is for RDMA
     * transports, and the slot's own allocator must keep its calls. The
     * user's settings win. */
    setenv("UCX_MEM_MALLOC_HOOKS", "no", 0);
    setenv("UCX_MEM_EVENTS", "no", 0);
    void *h = dlopen("libucp.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return sm_fail(SM_ERR_UNSUPPORTED, "the job spans nodes, and UCX cannot be loaded: %s (Debian: libucx0)", dlerror());
#define X(f) if (!(U.f = (__typeof__(f) *)dlsym(h, #f))) \
        return sm_fail(SM_ERR_UNSUPPORTED, "UCX (libucp.so.0) has no %s: a version before 1.10?", #f);
    UCX_CALLS(X)
#undef X
    return SM_OK;
}

static struct {
    bool           up;
    bool           wakes;           /* sleeping waits are woken by UCX's events (the watcher) */
    ucp_context_h  ctx;
    ucp_worker_h   worker;
    ucp_ep_h      *ep;              /* per job rank, made on first use */
    _Atomic long   inflight;        /* sends not yet complete */
    _Atomic long   recving;         /* receives posted, not complete */
    _Atomic long   waiting;         /* requests waited for (atomics, flushes, gets) */
    _Atomic long   bulk;            /* sends and receives of NET_BULK bytes or more not complete */
    _Atomic uint64_t sent, received;
    _Atomic uint64_t msgs_sent, msgs_received;  /* messages, for SMARTMAP_STATS (what collectives cost) */
    _Atomic uint64_t polls, rings;  /* UCX progress calls; the watcher's wakes (SMARTMAP_STATS) */
    int            eps_start;       /* endpoints made at net_init (SMARTMAP_STATS; the rest: on first use) */
    /* one-sided */
    bool           mem_up;          /* the symmetric region is registered (net_mem_init) */
    ucp_mem_h      memh[2];         /* [0]: the slot below SM_SYM_OFF, [1]: the symmetric region */
    ucp_rkey_h    *rkey[2];         /* per region, per job rank, unpacked on first use */
    _Atomic long   pending;         /* puts and gets not yet complete locally */
    _Atomic int    rma_err;         /* a put or get failed: the peer */
    _Atomic uint64_t put_bytes, get_bytes, amos;
    bool           said;            /* the one-sided line of SMARTMAP_STATS is out */
} N;

/* This thread's runs of UCX, and the events they found, since the wait
 * source last ran (wake_progress). */
static __thread struct { unsigned long runs, seen; unsigned found; } T __attribute__((tls_model("initial-exec")));

/* A count for SMARTMAP_STATS: a load and a store, not a locked add. Each
 * locked add is a full barrier on x86, and a small collective between
 * nodes made about a dozen a call and rank (UCX's runs, a send's three, a
 * receive's four); threads of one rank that count at once may lose one. */
static inline void count(_Atomic uint64_t *c, uint64_t n)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n, memory_order_relaxed);
}

/* UCX's progress, counted (SMARTMAP_STATS: a polling wait makes hundreds of
 * thousands a second, a sleeping one a few). */
static inline unsigned run(void)
{
    count(&N.polls, 1);
    unsigned n = U.ucp_worker_progress(N.worker);
    T.runs++, T.found += n;
    return n;
}

static sm_status_t ucx_fail(const char *call, int peer, ucs_status_t s)
{
    if (peer < 0) return sm_fail(SM_ERR_PEER, "%s: %s", call, U.ucs_status_string(s));
    return sm_fail(SM_ERR_PEER, "%s (rank %d): %s", call, peer, U.ucs_status_string(s));
}

/* Register [base, +len) as region k and publish its key (a PMIx put; the
 * caller fences). */
static sm_status_t mem_register(int k, void *base, size_t len)
{
    ucp_mem_map_params_t mp = { .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                                .address = base, .length = len };
    ucs_status_t s = U.ucp_mem_map(N.ctx, &mp, &N.memh[k]);
    if (s != UCS_OK) return ucx_fail("ucp_mem_map", -1, s);
    void *kb;
    size_t klen;
    if ((s = U.ucp_rkey_pack(N.ctx, N.memh[k], &kb, &klen)) != UCS_OK) return ucx_fail("ucp_rkey_pack", -1, s);
    sm_status_t st = sm_pmix_put(NET_RKEY[k], kb, klen);
    U.ucp_rkey_buffer_release(kb);
    return st;
}

/* --- Sleeping with UCX: the core's wait source (sm_core.h) ---------------------------
 * No doorbell rings for what arrives over UCX, and with TCP this rank's own
 * worker carries out peers' puts and atomics to it. The worker's event fd
 * is watched by a thread of this process that does nothing else: asleep in
 * poll on the fd while the worker is armed, it rings the rank's doorbell
 * when UCX has an event, so that whichever wait sleeps wakes and runs UCX
 * (only the program's threads do: UCX's callbacks are the engines'). The fd
 * stays readable until the events are run, so the watcher then waits for
 * the next arming. A sleeping rank costs nothing; a UCX event while it
 * sleeps, two wakes (the watcher, then the rank). */
static struct {
    int efd;
    _Atomic uint32_t gen;           /* armings since the start */
    _Atomic uint32_t parked;        /* the watcher waits for the next arming */
    _Atomic bool dead;              /* the fd failed: sleeping waits cannot be woken, so they poll */
} W = { .efd = -1 };

static bool wake_arm(void)
{
    if (atomic_load_explicit(&W.dead, memory_order_relaxed) || U.ucp_worker_arm(N.worker) != UCS_OK) return false;
    atomic_fetch_add(&W.gen, 1);
    /* (a Dekker pair with the watcher's parked, then gen: seq_cst both) */
    if (atomic_load(&W.parked)) syscall(SYS_futex, &W.gen, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    return true;
}
/* A wait's turn runs its condition and then the source; most conditions
 * (p2p progress, a collective's with MPI's point-to-point polled) have just
 * run UCX, and a second run finds nothing the first did not: every yield
 * of a wait between nodes made two runs, each an epoll_wait or two (a small
 * broadcast between nodes polled UCX 2.5 times as often as Open MPI, which
 * runs it once a yield: docs/NOTES.md). So the source runs UCX only if this
 * thread has not since its last turn, and says what those runs found. */
static unsigned wake_progress(void)
{
    if (T.runs == T.seen) run();
    T.seen = T.runs;
    unsigned n = T.found;
    T.found = 0;
    return n;
}
/* Work under way: a wait polls UCX a while before sleeping (core/wait.c). */
static bool wake_busy(void)
{
    return atomic_load_explicit(&N.inflight, memory_order_relaxed) > 0 ||
           atomic_load_explicit(&N.recving, memory_order_relaxed) > 0 ||
           atomic_load_explicit(&N.waiting, memory_order_relaxed) > 0 ||
           atomic_load_explicit(&N.pending, memory_order_relaxed) > 0;
}
/* A large message's transfer (UCX's rendezvous over TCP: from 256 KiB for
 * a standard send, NET_BULK) moves only while both sides run UCX: the
 * sender writes as the socket drains, the receiver reads into the buffer.
 * Gaps of more than 50 us between its events are common when ranks share
 * a core (the rank beside it copying its own megabyte), and a wait that
 * slept then cost the transfer the watcher's wake and the rank's at each
 * gap: a 1 MiB broadcast on 4 nodes of 1 rank, 2 cores, 0.6-0.75x Open
 * MPI's (whose ranks always poll). So while one is under way a wait polls
 * with yields until SMARTMAP_NET_BULK_US (default 10000) pass without an
 * event, from the start (docs/NOTES.md, big). */
#define NET_BULK ((size_t)256 << 10)
#define NET_BULK_US 10000
static bool wake_bulk(void) { return atomic_load_explicit(&N.bulk, memory_order_relaxed) > 0; }
static inline void bulk_begin(struct net_op *op, size_t len)
{
    if ((op->bulk = len >= NET_BULK)) atomic_fetch_add_explicit(&N.bulk, 1, memory_order_relaxed);
}
static inline void bulk_end(bool bulk)
{
    if (bulk) atomic_fetch_sub_explicit(&N.bulk, 1, memory_order_relaxed);
}
/* SMARTMAP_NET_SPIN_US (default 50): how long a wait with UCX work under
 * way polls after an event for the next before it sleeps; and
 * SMARTMAP_NET_SPIN_FIRST_US (default 0) for a first event (core/wait.c). */
#define NET_SPIN_US 50
static struct sm_wait_source wake_source = { wake_progress, wake_arm, wake_busy, NET_SPIN_US * 1000L, 0,
                                             wake_bulk, NET_BULK_US * 1000L };

static void *watcher(void *arg)
{
    (void)arg;
    for (;;) {
        uint32_t g = atomic_load(&W.gen);
        struct pollfd p = { .fd = W.efd, .events = POLLIN };
        int rc = poll(&p, 1, -1);
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0 || (p.revents & (POLLNVAL | POLLERR))) {
            atomic_store(&W.dead, true);
            sm_wake_self();
            return NULL;
        }
        sm_wake_self();
        count(&N.rings, 1);     /* (this thread's alone) */
        atomic_store(&W.parked, 1);
        while (atomic_load(&W.gen) == g) syscall(SYS_futex, &W.gen, FUTEX_WAIT_PRIVATE, g, NULL, NULL, 0);
        atomic_store(&W.parked, 0);
    }
    return NULL;
}

/* Start the watcher and install the source; false (waits poll, as without
 * it) if UCX gives no event fd. */
static bool wake_init(void)
{
    if (U.ucp_worker_get_efd(N.worker, &W.efd) != UCS_OK) return false;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);    /* the thread inherits: signals go to the program */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 << 10);
    pthread_t t;
    int rc = pthread_create(&t, &attr, watcher, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) return false;
    pthread_setname_np(t, "smartmap-ucx");
    const char *spin = getenv("SMARTMAP_NET_SPIN_US");
    if (spin && *spin) wake_source.busy_ns = strtol(spin, NULL, 10) * 1000L;
    const char *first = getenv("SMARTMAP_NET_SPIN_FIRST_US");
    if (first && *first) wake_source.first_ns = strtol(first, NULL, 10) * 1000L;
    const char *bulk = getenv("SMARTMAP_NET_BULK_US");
    if (bulk && *bulk) wake_source.bulk_ns = strtol(bulk, NULL, 10) * 1000L;
    sm_wait_source(&wake_source);
    return true;
}

bool net_wakes(void) { return N.wakes && !atomic_load_explicit(&W.dead, memory_order_relaxed); }

/* Wait until done(arg), running UCX: asleep when it is quiet, if it can
 * wake this rank (the core's waits run the source and arm it). */
struct until { bool (*done)(void *); void *arg; };
static bool until_cond(void *a)
{
    struct until *u = a;
    if (u->done(u->arg)) return true;
    run();
    return u->done(u->arg);
}
static void wait_until(bool (*done)(void *), void *arg)
{
    if (net_wakes()) {
        struct until u = { done, arg };
        sm_wait_for(0, until_cond, &u);
        return;
    }
    while (!done(arg)) run();
}

/* Endpoints to the ranks on other nodes, made at the start rather than at
 * the first send, as Open MPI's pml/ucx makes them for the ranks it knows
 * at MPI_Init (add_procs). One ucp_worker_progress polls each of UCX's
 * interfaces in turn (over TCP an epoll_wait each: two between fake nodes
 * on one machine, tcp/lo and tcp/eth0, an endpoint having a lane on each),
 * in the order UCX activated them, and a message that completes a receive
 * on one waits for the others' polls before the reply can be sent. With
 * the endpoint made by the first send, the rank that sent first polled the
 * interface carrying the small messages first: every reply of its
 * ping-pong waited for one more epoll_wait (perf tracepoints, in 100% of
 * its receives; the other rank and Open MPI's ranks in none); made here,
 * the order comes out the other way round on both sides (0 in 100%). 2
 * ranks as 2 nodes of 1 over TCP, a /tmp loop of 8-byte ping-pongs
 * alternated with main's build: docs/NOTES.md (offrate). Beyond
 * SMARTMAP_NET_EAGER_MAX ranks on other nodes (default 64) endpoints are
 * made on first use again: a TCP connection to every rank of a large job
 * from every rank costs more at the start than the poll does later. */
#define NET_EAGER_MAX 64
static sm_status_t connect_all(void)
{
    const char *e = getenv("SMARTMAP_NET_EAGER_MAX");
    long max = e && *e ? strtol(e, NULL, 10) : NET_EAGER_MAX;
    int n = sm_core.size;
    if (n - sm_core.nlocal > max) return SM_OK;
    for (int k = 1; k < n; k++) {      /* (from the next rank on: not every rank's first connection to rank 0) */
        int r = (sm_core.rank + k) % n;
        if (sm_rank_local(r) || N.ep[r]) continue;
        sm_status_t st = connect_to(r);
        if (st) return st;
        N.eps_start++;
    }
    return SM_OK;
}

sm_status_t net_init(void)
{
    if (N.up) return SM_OK;
    sm_status_t st = ucx_load();
    if (st) return st;
    ucp_config_t *cfg;
    ucs_status_t s = U.ucp_config_read(NULL, NULL, &cfg);
    if (s != UCS_OK) return ucx_fail("ucp_config_read", -1, s);
    /* WAKEUP: transports that can signal an event fd (sleeping waits, above);
     * where UCX has none for this job's, without (waits poll). */
    ucp_params_t p = { .field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_TAG | UCP_FEATURE_RMA |
                                                                UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 |
                                                                UCP_FEATURE_WAKEUP };
    s = U.ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, &p, cfg, &N.ctx);
    if (s != UCS_OK) {
        p.features &= ~(uint64_t)UCP_FEATURE_WAKEUP;
        s = U.ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, &p, cfg, &N.ctx);
    }
    U.ucp_config_release(cfg);
    if (s != UCS_OK) return ucx_fail("ucp_init", -1, s);
    /* Several application threads may drive the engine (MPI_THREAD_MULTIPLE):
     * the point-to-point engine's locks do not cover the worker. */
    ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE, .thread_mode = UCS_THREAD_MODE_MULTI };
    if ((s = U.ucp_worker_create(N.ctx, &wp, &N.worker)) != UCS_OK) return ucx_fail("ucp_worker_create", -1, s);
    ucp_address_t *a;
    size_t alen;
    if ((s = U.ucp_worker_get_address(N.worker, &a, &alen)) != UCS_OK) return ucx_fail("ucp_worker_get_address", -1, s);
    st = sm_pmix_put(NET_KEY, a, alen);
    U.ucp_worker_release_address(N.worker, a);
    /* The slot below the symmetric region (control areas, globals, stack,
     * heap: all that MPI windows, ARMCI and the one-sided engine's sync
     * words may be in), registered now so that its key rides on this
     * fence: windows are made by any group, not by the whole job, and have
     * no fence of their own to publish keys with. */
    if (!st) st = mem_register(0, (void *)sm_slot_base(sm_core.rank), SM_SYM_OFF);
    if (!st) st = sm_pmix_fence();
    if (st) return st;
    if (!(N.ep = calloc((size_t)sm_core.size, sizeof *N.ep)) ||
        !(N.rkey[0] = calloc((size_t)sm_core.size, sizeof *N.rkey[0])))
        return sm_fail(SM_ERR_NOMEM, "no memory for %d endpoints", sm_core.size);
    N.up = true;
    if ((st = connect_all())) return st;
    /* SMARTMAP_NET_POLL=1: waits poll UCX instead of sleeping (to compare). */
    const char *poll_only = getenv("SMARTMAP_NET_POLL");
    N.wakes = (p.features & UCP_FEATURE_WAKEUP) && !(poll_only && *poll_only == '1') && wake_init();
    return SM_OK;
}

static __attribute__((noinline)) sm_status_t connect_to(int peer)
{
    void *a;
    size_t alen;
    sm_status_t st = sm_pmix_get(peer, NET_KEY, &a, &alen);
    if (st) return st;
    ucp_ep_params_t ep = { .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS, .address = a };
    ucs_status_t s = U.ucp_ep_create(N.worker, &ep, &N.ep[peer]);
    free(a);
    return s == UCS_OK ? SM_OK : ucx_fail("ucp_ep_create", peer, s);
}

unsigned net_progress(void) { return run(); }

static void sent(struct net_op *op, ucs_status_t s)
{
    op->ucx = NULL;
    op->err = s == UCS_OK ? SM_OK : SM_ERR_PEER;
    op->done(op);
}
/* (a send UCX completed at once was never counted in flight) */
static void send_cb(void *req, ucs_status_t s, void *user)
{
    U.ucp_request_free(req);
    atomic_fetch_sub_explicit(&N.inflight, 1, memory_order_relaxed);
    bulk_end(((struct net_op *)user)->bulk);
    sent(user, s);
}

sm_status_t net_send(struct net_op *op, int peer, const void *buf, size_t len, uint64_t tag, bool sync)
{
    if (SM_UNLIKELY(!N.ep[peer])) {
        sm_status_t st = connect_to(peer);
        if (st) return st;
    }
    /* FAST_CMPL: UCX's thresholds for a send whose sender waits (Open MPI's
     * blocking MPI_Send asks for them too): over TCP, eager copies up to
     * 256 KiB (UCX_RNDV_SEND_NBR_THRESH) where a plain send goes by
     * rendezvous from 8 KiB, a round trip more (a 32 KiB ping-pong 58 us
     * against Open MPI's 39). Standard mode may complete before the
     * receive is posted; synchronous mode keeps UCX's own. */
    ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                                              (sync ? 0 : UCP_OP_ATTR_FLAG_FAST_CMPL),
                              .cb.send = send_cb, .user_data = op };
    op->err = SM_OK, op->cancelled = false, op->ucx = NULL;
    count(&N.sent, len);
    count(&N.msgs_sent, 1);
    bulk_begin(op, len);        /* (before the call: its callback may run in another thread's progress) */
    ucs_status_ptr_t r = sync ? U.ucp_tag_send_sync_nbx(N.ep[peer], buf, len, tag, &p)
                              : U.ucp_tag_send_nbx(N.ep[peer], buf, len, tag, &p);
    if (SM_UNLIKELY(UCS_PTR_IS_ERR(r))) {
        bulk_end(op->bulk);
        return ucx_fail(sync ? "ucp_tag_send_sync_nbx" : "ucp_tag_send_nbx", peer, UCS_PTR_STATUS(r));
    }
    /* In flight only if UCX returned a request (a small send over TCP
     * completes at once: no locked add and sub for it). Its callback may
     * run in another thread's progress before the add: the count dips
     * below 0 a moment, which reads as none in flight, as it is. */
    if (r == NULL) {
        bulk_end(op->bulk);
        sent(op, UCS_OK);
    } else {
        op->ucx = r;
        atomic_fetch_add_explicit(&N.inflight, 1, memory_order_relaxed);
    }
    return SM_OK;
}

static void received(struct net_op *op, ucs_status_t s, const ucp_tag_recv_info_t *info, size_t cap)
{
    op->ucx = NULL;
    atomic_fetch_sub_explicit(&N.recving, 1, memory_order_relaxed);
    bulk_end(op->bulk);
    op->cancelled = s == UCS_ERR_CANCELED;
    op->err = s == UCS_OK || op->cancelled ? SM_OK : s == UCS_ERR_MESSAGE_TRUNCATED ? SM_ERR_TRUNCATE : SM_ERR_PEER;
    if (!op->cancelled) {
        op->tag = info->sender_tag;
        op->len = info->length < cap ? info->length : cap;
        count(&N.received, op->len);
        count(&N.msgs_received, 1);
    }
    op->done(op);
}
/* Receives always complete through the callback (UCP_OP_ATTR_FLAG_NO_IMM_CMPL):
 * UCX 1.13 left recv_info unset for some receives completed at once. The
 * capacity rides in the op's len until the message arrives. */
static void recv_cb(void *req, ucs_status_t s, const ucp_tag_recv_info_t *info, void *user)
{
    struct net_op *op = user;
    received(op, s, info, op->len);     /* info is in the request: before freeing it */
    U.ucp_request_free(req);
}

/* A receive's op->ucx while the call that starts it runs. With NO_IMM_CMPL
 * the callback may come before the call returns (a message already there),
 * and it frees the request the call then returns: the request is kept only
 * if no callback has cleared the mark meanwhile (this thread's or another's
 * progress), else a later net_cancel (MPI_Cancel of the completed receive)
 * cancelled whichever receive UCX had given the freed request to next. */
static char starting;

static sm_status_t recv_started(struct net_op *op, ucs_status_ptr_t r, const ucp_tag_recv_info_t *info, size_t cap,
                                const char *call)
{
    if (UCS_PTR_IS_ERR(r)) {
        atomic_fetch_sub_explicit(&N.recving, 1, memory_order_relaxed);
        bulk_end(op->bulk);
        op->ucx = NULL;
        return ucx_fail(call, -1, UCS_PTR_STATUS(r));
    }
    if (r == NULL) received(op, UCS_OK, info, cap);
    else atomic_compare_exchange_strong(&op->ucx, &(void *){ &starting }, r);
    return SM_OK;
}

sm_status_t net_recv(struct net_op *op, void *buf, size_t cap, uint64_t tag, uint64_t mask)
{
    ucp_tag_recv_info_t info;
    ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                                              UCP_OP_ATTR_FIELD_RECV_INFO | UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
                              .cb.recv = recv_cb, .user_data = op, .recv_info.tag_info = &info };
    op->err = SM_OK, op->cancelled = false, op->len = cap;
    op->ucx = &starting;
    atomic_fetch_add_explicit(&N.recving, 1, memory_order_relaxed);
    bulk_begin(op, cap);
    return recv_started(op, U.ucp_tag_recv_nbx(N.worker, buf, cap, tag, mask, &p), &info, cap, "ucp_tag_recv_nbx");
}

void net_probe(uint64_t tag, uint64_t mask, bool take, bool *found, uint64_t *stag, size_t *len, void **msg)
{
    ucp_tag_recv_info_t info;
    ucp_tag_message_h m = U.ucp_tag_probe_nb(N.worker, tag, mask, take, &info);
    *found = m != NULL;
    if (!m) return;
    *stag = info.sender_tag, *len = info.length;
    if (take) *msg = m;
}

sm_status_t net_mrecv(struct net_op *op, void *buf, size_t cap, void *msg)
{
    ucp_tag_recv_info_t info;
    ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                                              UCP_OP_ATTR_FIELD_RECV_INFO | UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
                              .cb.recv = recv_cb, .user_data = op, .recv_info.tag_info = &info };
    op->err = SM_OK, op->cancelled = false, op->len = cap;
    op->ucx = &starting;
    atomic_fetch_add_explicit(&N.recving, 1, memory_order_relaxed);
    bulk_begin(op, cap);
    return recv_started(op, U.ucp_tag_msg_recv_nbx(N.worker, buf, cap, msg, &p), &info, cap, "ucp_tag_msg_recv_nbx");
}

void net_cancel(struct net_op *op)
{
    void *r = op->ucx;
    if (r && r != &starting) U.ucp_request_cancel(N.worker, r);
}

void net_bytes(uint64_t *s, uint64_t *r)
{
    *s = atomic_load(&N.sent), *r = atomic_load(&N.received);
}

/* --- One-sided ------------------------------------------------------------------- */

sm_status_t net_mem_init(void *base, size_t len)
{
    if (N.mem_up) return SM_OK;
    sm_status_t st = net_init();
    if (st) return st;
    if ((st = mem_register(1, base, len)) || (st = sm_pmix_fence())) return st;
    if (!(N.rkey[1] = calloc((size_t)sm_core.size, sizeof *N.rkey[1])))
        return sm_fail(SM_ERR_NOMEM, "no memory for %d remote keys", sm_core.size);
    N.mem_up = true;
    return SM_OK;
}

bool net_mem_up(void) { return N.mem_up; }

/* Which registered region a remote address is in (net.h): the symmetric
 * region from SM_SYM_OFF of the slot on. */
static inline int region_of(uint64_t raddr)
{
    return ((raddr - SM_BASE) & (SM_SLOT - 1)) >= SM_SYM_OFF;
}

/* The endpoint and remote key of peer's region k, made on first use. */
static __attribute__((noinline)) sm_status_t rkey_of(int peer, int k)
{
    sm_status_t st;
    if (!N.up) return sm_fail(SM_ERR_STATE, "rank %d is on another node and UCX is not set up", peer);
    if (!N.rkey[k])
        return sm_fail(SM_ERR_STATE, "rank %d is on another node and one-sided access to its symmetric memory is "
                       "not set up", peer);
    if (!N.ep[peer] && (st = connect_to(peer))) return st;
    void *kb;
    size_t klen;
    if ((st = sm_pmix_get(peer, NET_RKEY[k], &kb, &klen))) return st;
    ucs_status_t s = U.ucp_ep_rkey_unpack(N.ep[peer], kb, &N.rkey[k][peer]);
    free(kb);
    return s == UCS_OK ? SM_OK : ucx_fail("ucp_ep_rkey_unpack", peer, s);
}
/* The key for raddr at peer in *key. */
static inline sm_status_t ready(int peer, uint64_t raddr, ucp_rkey_h *key)
{
    int k = region_of(raddr);
    if (SM_UNLIKELY(!N.rkey[k] || !N.rkey[k][peer])) {
        sm_status_t st = rkey_of(peer, k);
        if (st) return st;
    }
    *key = N.rkey[k][peer];
    return SM_OK;
}

static void rma_cb(void *req, ucs_status_t s, void *user)
{
    if (s != UCS_OK) atomic_store(&N.rma_err, (int)(intptr_t)user + 1);
    U.ucp_request_free(req);
    atomic_fetch_sub_explicit(&N.pending, 1, memory_order_release);
}

static sm_status_t rma_started(ucs_status_ptr_t r, const char *call, int peer)
{
    if (UCS_PTR_IS_ERR(r)) return ucx_fail(call, peer, UCS_PTR_STATUS(r));
    if (r) atomic_fetch_add_explicit(&N.pending, 1, memory_order_relaxed);
    return SM_OK;
}

sm_status_t net_put(int peer, uint64_t raddr, const void *src, size_t len)
{
    ucp_rkey_h key;
    sm_status_t st = ready(peer, raddr, &key);
    if (st) return st;
    ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
                              .cb.send = rma_cb, .user_data = (void *)(intptr_t)peer };
    count(&N.put_bytes, len);
    return rma_started(U.ucp_put_nbx(N.ep[peer], src, len, raddr, key, &p), "ucp_put_nbx", peer);
}

sm_status_t net_get(int peer, void *dst, uint64_t raddr, size_t len)
{
    ucp_rkey_h key;
    sm_status_t st = ready(peer, raddr, &key);
    if (st) return st;
    ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
                              .cb.send = rma_cb, .user_data = (void *)(intptr_t)peer };
    count(&N.get_bytes, len);
    return rma_started(U.ucp_get_nbx(N.ep[peer], dst, len, raddr, key, &p), "ucp_get_nbx", peer);
}

static bool none_pending(void *a)
{
    (void)a;
    return atomic_load_explicit(&N.pending, memory_order_acquire) <= 0;
}
sm_status_t net_wait_local(void)
{
    if (!none_pending(NULL)) wait_until(none_pending, NULL);
    int e = atomic_exchange(&N.rma_err, 0);
    if (e) return sm_fail(SM_ERR_PEER, "ucp_put_nbx/ucp_get_nbx (rank %d): the operation failed", e - 1);
    return SM_OK;
}

static bool req_done(void *r) { return U.ucp_request_check_status(r) != UCS_INPROGRESS; }
/* Wait for request r of call (to peer) to complete; its status. */
static sm_status_t wait_req(ucs_status_ptr_t r, const char *call, int peer)
{
    if (UCS_PTR_IS_ERR(r)) return ucx_fail(call, peer, UCS_PTR_STATUS(r));
    if (!r) return SM_OK;
    atomic_fetch_add_explicit(&N.waiting, 1, memory_order_relaxed);
    wait_until(req_done, r);
    atomic_fetch_sub_explicit(&N.waiting, 1, memory_order_relaxed);
    ucs_status_t s = U.ucp_request_check_status(r);
    U.ucp_request_free(r);
    return s == UCS_OK ? SM_OK : ucx_fail(call, peer, s);
}

sm_status_t net_amo(int peer, uint64_t raddr, enum net_amo op, size_t width, uint64_t value, uint64_t compare,
                    uint64_t *result)
{
    static const ucp_atomic_op_t code[] = {
        [NET_AMO_ADD] = UCP_ATOMIC_OP_ADD, [NET_AMO_AND] = UCP_ATOMIC_OP_AND, [NET_AMO_OR] = UCP_ATOMIC_OP_OR,
        [NET_AMO_XOR] = UCP_ATOMIC_OP_XOR, [NET_AMO_SWAP] = UCP_ATOMIC_OP_SWAP, [NET_AMO_CSWAP] = UCP_ATOMIC_OP_CSWAP,
    };
    if (width != 4 && width != 8) return sm_fail(SM_ERR_ARG, "atomic of %zu bytes on rank %d: 4 or 8 only", width, peer);
    ucp_rkey_h key;
    sm_status_t st = ready(peer, raddr, &key);
    if (st) return st;
    count(&N.amos, 1);
    /* Operands in the width's own type: UCX reads width bytes at each. */
    /* cswap: UCX compares with buffer and swaps in reply_buffer (ucp.h's table). */
    uint64_t x = op == NET_AMO_CSWAP ? compare : value, z = op == NET_AMO_CSWAP ? value : 0;
    union { uint32_t w4; uint64_t w8; } v, rep;
    if (width == 4) v.w4 = (uint32_t)x, rep.w4 = (uint32_t)z;
    else v.w8 = x, rep.w8 = z;
    ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE, .datatype = ucp_dt_make_contig(width) };
    if (result) p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER, p.reply_buffer = &rep;
    ucs_status_ptr_t r = U.ucp_atomic_op_nbx(N.ep[peer], code[op], &v, 1, raddr, key, &p);
    /* Waited for even without a result: UCX may read the operand until the
     * request completes (a post completes once sent, at its target at the next flush). */
    if ((st = wait_req(r, "ucp_atomic_op_nbx", peer))) return st;
    if (result) *result = width == 4 ? rep.w4 : rep.w8;
    return SM_OK;
}

sm_status_t net_flush(void)
{
    if (!N.up) return SM_OK;
    sm_status_t st = net_wait_local();
    ucp_request_param_t p = { .op_attr_mask = 0 };
    sm_status_t fs = wait_req(U.ucp_worker_flush_nbx(N.worker, &p), "ucp_worker_flush_nbx", -1);
    return st ? st : fs;
}

sm_status_t net_fence(void)
{
    if (!N.up) return SM_OK;
    ucs_status_t s = U.ucp_worker_fence(N.worker);
    return s == UCS_OK ? SM_OK : ucx_fail("ucp_worker_fence", -1, s);
}

/* SMARTMAP_STATS: the one-sided line, once (at the last one-sided user's
 * end, or at net_finalize for a job whose windows or ARMCI used it). */
static void say_onesided(void)
{
    if (N.said || !sm_setting(SM_SET_STATS)) return;
    N.said = true;
    sm_say("one-sided bytes between nodes (UCX): put %llu, got %llu; atomics %llu",
           (unsigned long long)atomic_load(&N.put_bytes), (unsigned long long)atomic_load(&N.get_bytes),
           (unsigned long long)atomic_load(&N.amos));
}

/* SMARTMAP_STATS: what the waits cost, once (at the first of the two finalizes). */
static void wait_stats(void)
{
    static bool said;
    if (!sm_setting(SM_SET_STATS) || said) return;
    said = true;
    /* (and how the rank's sleeps and wakes fence, core/wait.c: which of
     * them pays depends on the ranks on the machine, which every rank of a
     * node must see alike) */
    sm_say("waits with UCX: %llu progress calls, woken by UCX %llu times (%s); %s, %s",
           (unsigned long long)atomic_load(&N.polls), (unsigned long long)atomic_load(&N.rings),
           net_wakes() ? "sleeping" : "polling", sm_core.oversubscribed ? "oversubscribed" : "a core per rank",
           sm_wake_unfenced ? "sleepers fence" : "wakers fence");
    sm_say("waits that yielded on their leader's exchange between nodes: %llu", (unsigned long long)sm_wait_leans());
}

static bool sends_done(void *a)
{
    (void)a;
    return atomic_load(&N.inflight) <= 0;
}
sm_status_t net_mem_finalize(void)
{
    if (!N.mem_up) return SM_OK;
    sm_status_t st = net_flush();
    wait_until(sends_done, NULL);
    say_onesided();
    wait_stats();
    sm_status_t fs = sm_pmix_fence();
    return st ? st : fs;
}

sm_status_t net_finalize(void)
{
    if (!N.up) return SM_OK;
    sm_status_t st = net_flush();   /* (puts of windows and ARMCI complete before anyone leaves) */
    wait_until(sends_done, NULL);
    if (sm_setting(SM_SET_STATS)) {
        sm_say("bytes between nodes (UCX): sent %llu, received %llu; messages sent %llu, received %llu",
               (unsigned long long)atomic_load(&N.sent), (unsigned long long)atomic_load(&N.received),
               (unsigned long long)atomic_load(&N.msgs_sent), (unsigned long long)atomic_load(&N.msgs_received));
        int eps = 0;
        for (int r = 0; r < sm_core.size; r++) eps += N.ep[r] != NULL;
        sm_say("endpoints to other nodes (UCX): %d made at the start, %d on first use", N.eps_start, eps - N.eps_start);
        if (atomic_load(&N.put_bytes) || atomic_load(&N.get_bytes) || atomic_load(&N.amos)) say_onesided();
    }
    wait_stats();
    sm_status_t fs = sm_pmix_fence();
    return st ? st : fs;
}
#endif
