/* Waiting and waking (DESIGN.md §6): spin with pause, then yield, then sleep
 * on a futex in shared memory with a bounded timeout. Wakers make a system
 * call only when someone sleeps. An outside source of events (UCX between
 * nodes) is run by every wait and ends sleeps through the doorbell. Also
 * the wait for a peer's published layout. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "sm_core.h"

/* The sleeper handshake is a Dekker pair: a waker stores the condition and
 * then reads the sleeper count, a sleeper counts itself and then reads the
 * condition, and each side's store must be visible before its load. The
 * sleeper's count is a locked read-modify-write, a full barrier on its side.
 * With a core per rank wakers are the hot path (every send) and sleepers the
 * cold one, so where the kernel allows it the sleeper pays for the waker too:
 * membarrier(GLOBAL_EXPEDITED) runs a full barrier on every CPU that runs a
 * registered process, i.e. on every waker of the job, and the waker's
 * barrier becomes a compiler barrier. Oversubscribed (more ranks than CPUs),
 * waits end in sleeps most of the time, and the IPIs each sleep sent to the
 * CPUs running other ranks cost more than the wakers' fences: wakers fence
 * (measured: 128 and 256 ranks on 2 cores, Allreduce + Barrier, half the
 * time). Without membarrier (old kernel, seccomp) wakers fence too.
 * But with 3 or 4 ranks a CPU the yields before a sleep (yield_iters) make
 * sleeps rare (8 ranks on 2 cores, 8 B scans: ~100 in 200000 calls a rank)
 * and a waker's fence waits for its stores' lines to come back from the
 * other CPU: every small collective's release wakes (coll_wake_all), and
 * sm_wake_fence was 26% of the samples of 8 B exscans in the VM's far mode
 * (6% in its near one; perf record -e cpu-clock). Sleepers fence there:
 *   smrun -n NP --bind-to core bench_mpi_coll -s 8 -t 0.03 -o Barrier,Bcast,
 *   Reduce,Allreduce,Reduce_scatter_block,Scan,Exscan,Gather,Gatherv,Scatter,
 *   Scatterv,Allgather,Alltoall (wakers fencing against sleepers fencing, 6
 *   rounds alternated, medians of the per-round ratios; docs/NOTES.md, coll8)
 *   8 ranks: scan, exscan 1.30x less time, reduce 1.20, barrier 1.15,
 *            bcast 1.14, allreduce 1.08; alltoall 0.94, allgather 0.96
 *   4 ranks (2 a CPU): bcast 1.20, the rest 0.89-1.05: left fencing. */
bool sm_wake_unfenced;          /* this process is registered: wakers need no fence */
static bool wakers_fence(void) { return sm_core.oversubscribed && (sm_core.per_cpu < 3 || sm_core.per_cpu > 4); }

static _Atomic uint64_t mate_waits;     /* SMARTMAP_STATS (sm_wait_mate_waits) */
void sm_wait_init(void)
{
    cpu_set_t cs;
    int cpu = 0;
    if (sched_getaffinity(0, sizeof cs, &cs) == 0 && CPU_COUNT(&cs) == 1)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &cs)) {
                cpu = c + 1;
                break;
            }
    if (sm_core.own_fd >= 0)    /* the slot is mapped (not when the job could not be joined) */
        atomic_store_explicit(&sm_ctrl_of(sm_core.rank)->cpu, cpu, memory_order_relaxed);
    long q = wakers_fence() ? 0 : syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    sm_wake_unfenced = q > 0 && (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
                       syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
}

static inline void waker_fence(void)
{
    if (SM_LIKELY(sm_wake_unfenced)) atomic_signal_fence(memory_order_seq_cst);
    else sm_full_fence();
}

/* After counting itself as a sleeper: false if a wake may be missed, and
 * the sleep must then be short. Wakers that fence cannot miss it; unfenced
 * ones cannot once membarrier has run. (That fenced wakers were treated as
 * unsure made every sleeper poll every 50 us where membarrier is denied:
 * 128 ranks on 2 cores took 100 times as long.) */
static bool sleeper_fence(void)
{
    return !sm_wake_unfenced || syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) == 0;
}

void sm_fence_peers(void)
{
    if (sm_wake_unfenced && !sleeper_fence())      /* registered, so the kernel supports it */
        sm_fatal("membarrier(GLOBAL_EXPEDITED) failed after registration");
}
void sm_wake_fence(void) { waker_fence(); }
void sm_fence_light_slow(void) { sm_full_fence(); }

#define SLEEP_MIN_NS 50000L      /* first sleep 50 us, doubling ... */
#define SLEEP_MAX_NS 5000000L    /* ... up to 5 ms: the cost of a missed wake */

/* Shared (not FUTEX_PRIVATE) futexes: the word is in a memfd mapped by
 * several processes, at different addresses in each. */
static void futex_wait(const volatile uint32_t *w, uint32_t old, long ns)
{
    struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
    syscall(SYS_futex, w, FUTEX_WAIT, old, &ts, NULL, 0);
}
static void futex_wake(volatile uint32_t *w)
{
    syscall(SYS_futex, w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Wait on *w == old or *bell == seq, whichever changes first (futex_waitv,
 * Linux 5.16): a word sleeper that the event source must be able to wake.
 * false where the kernel refuses it (the caller sleeps briefly instead). */
static bool waitv_ok = true;
static bool futex_wait2(const volatile uint32_t *w, uint32_t old, const volatile uint32_t *bell, uint32_t seq, long ns)
{
#ifdef SYS_futex_waitv
    if (waitv_ok) {
        struct futex_waitv v[2] = { { .val = old, .uaddr = (uintptr_t)w, .flags = FUTEX_32 },
                                    { .val = seq, .uaddr = (uintptr_t)bell, .flags = FUTEX_32 } };
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += ns / 1000000000L, ts.tv_nsec += ns % 1000000000L;
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        if (syscall(SYS_futex_waitv, v, 2u, 0u, &ts, CLOCK_MONOTONIC) >= 0 || errno == EAGAIN ||
            errno == ETIMEDOUT || errno == EINTR)
            return true;
        waitv_ok = false;       /* ENOSYS, or refused (seccomp): not again */
    }
#else
    (void)bell, (void)seq;
#endif
    futex_wait(w, old, SLEEP_MIN_NS);
    return false;
}

/* --- The outside source (sm_core.h) ---------------------------------------------- */
static const struct sm_wait_source *source;
static _Thread_local bool plain;      /* this thread's waits never run the source */

void sm_wait_source(const struct sm_wait_source *s) { source = s; }
bool sm_wait_has_source(void) { return source != NULL; }
void sm_wait_plain(void) { plain = true; }
static inline const struct sm_wait_source *source_here(void)
{
    return SM_UNLIKELY(source != NULL) && !plain ? source : NULL;
}

void sm_wake_self(void)
{
    struct sm_rank_ctrl *me = sm_ctrl_of(sm_core.rank);
    atomic_fetch_add(&me->doorbell, 1);
    futex_wake((volatile uint32_t *)&me->doorbell);
}

/* Before a sleep with the source: true if it will ring the doorbell for its
 * next event. It is armed only once a run of it found nothing to do (UCX
 * arms without complaint over data already in a socket: the run first);
 * otherwise the sleep is skipped and the caller looks at its condition
 * again, which what ran may have changed (the core yielded if the source
 * refuses to arm with nothing to run, so as not to spin). */
static bool source_armed(const struct sm_wait_source *src)
{
    if (src->progress()) return false;
    if (src->arm()) return true;
    sched_yield();
    return false;
}

/* How long to spin and yield before sleeping. With a core per rank spinning
 * is cheapest; oversubscribed, spinning steals the core the waker needs:
 * a turn of a collective's condition runs point-to-point progress (every
 * ring) and the schedule, and 64 turns cost 3-8 us a wait. A few turns
 * (the awaited rank may be running on another core) and then the yields
 * hand the core to the ranks that have work: 8 ranks on 2 cores, 10000
 * barriers took 86 us of CPU time each with 64 turns, 37 with none, and
 * half the time (perf stat task-clock, alternated runs; docs/NOTES.md). */
static inline int spin_iters(void) { return sm_core.oversubscribed ? 4 : 20000; }
/* Oversubscribed, 4 yields for each other rank of the CPU (at least 4): a
 * yield runs one of them, so with 4 ranks a CPU (8 on 2) the 4 yields went
 * round its other ranks about once, each of them waiting too, and the wait
 * slept, costing its waker a futex wake and itself a wake-up, while the
 * rank it waited for was about to run. 8 ranks on 2 cores, rotating-root
 * 8 B calls, bench_mpi_coll, 10 rounds alternated with main: Bcast 1.21x,
 * Scatter 1.18x, Scatterv 1.17x less time with 12 yields (docs/NOTES.md,
 * scatv). 2 a CPU (4 on 2): 4, as before. */
static inline int yield_iters(void)
{
    return sm_core.oversubscribed ? 4 * (sm_core.per_cpu > 2 ? sm_core.per_cpu - 1 : 1) : 200;
}
/* sm_wait_for's yields with the source (UCX between nodes), oversubscribed:
 * twice as many turns, as many UCX runs before a sleep as when each turn
 * ran it twice (the condition's run, then the source's; since a turn runs
 * it once, the 4 turns ended twice as soon). Fewer turns put a waiting
 * rank to sleep while its message was on the way, and each sleep costs a
 * wake by UCX's watcher and then of the rank: 4 nodes of 1 rank on 2
 * cores, a small allreduce slept 1000-3300 times in 5200 calls and took
 * 37-49 us a call, with 8 turns 30-70 times and 28-33 us (docs/NOTES.md). */
static inline int yield_iters_source(void) { return sm_core.oversubscribed ? 8 : 200; }
/* A wait for what the source alone brings (SM_WAIT_SOURCE: a receive from
 * another node), oversubscribed: no spin turns, 16 yields. Each spin turn
 * ran UCX (two epoll_waits over TCP) and held the core from the rank
 * sharing it, which may have work or be the very sender; a spin sees
 * nothing a yield's turn does not, since no store to this node's memory
 * ends such a wait (Open MPI's ranks run UCX once, then yield). 16 yields
 * rather than 8 keep it awake through a sender's turn: a sleep costs two
 * wakes and, on a VM, an idle vCPU's (a core idle 118 us in a 4-node
 * broadcast). smbench's coll, alternated, medians (docs/NOTES.md): 4 nodes
 * of 1 rank on 2 cores, allreduce 8 B 31.8 -> 29.9 us, 512 B 31.3 -> 29.5,
 * 4 KiB 35.7 -> 33.8 (Open MPI 27.3, 27.7, 30.8), 1 MiB 1434 -> 1180;
 * 2 nodes of 2, bcast 4 KiB 14.1 -> 9.9 (Open MPI 12.6). */
static inline int yield_iters_alone(void) { return 16; }

/* Oversubscribed, a yield that comes straight back found nobody else to
 * run on this core: the ranks sharing it are asleep, and a sleep now costs
 * the waker a futex wake and this rank an idle CPU's wake-up (on a 6.18
 * kernel VM, 4 ranks on 2 cores, a ping-pong while the other two ranks
 * slept in a broadcast: 30-40 us a message, where Open MPI's ranks, which
 * poll with yields throughout, took 0.9). So the yields go on while they
 * come back within YIELD_IDLE_NS, for up to IDLE_POLL_NS of the wait; a
 * yield that ran another rank counts as one of the few. Not with an event
 * source (UCX between nodes): each of those turns would run it, where its
 * watcher rings a sleeper's doorbell (net_nodes_bcast_polls_stats_4x1).
 * One yield; true: it counts for nothing (yield again). *t0: the first
 * such yield's time. */
#define YIELD_IDLE_NS 2000
#define IDLE_POLL_NS 200000
static _Atomic uint64_t idle_yields, sleeps;    /* SMARTMAP_STATS (sm_stats_report) */
static bool yield_idle(uint64_t *t0, const struct sm_wait_source *src)
{
    if (!sm_core.oversubscribed || src) {
        sched_yield();
        return false;
    }
    uint64_t a = sm_now_ns();
    sched_yield();
    if (sm_now_ns() - a > YIELD_IDLE_NS) return false;
    if (!*t0) *t0 = a;
    if (a - *t0 >= IDLE_POLL_NS) return false;
    atomic_fetch_add_explicit(&idle_yields, 1, memory_order_relaxed);
    return true;
}
void sm_wait_counts(uint64_t *idle, uint64_t *slept)
{
    *idle = atomic_load_explicit(&idle_yields, memory_order_relaxed);
    *slept = atomic_load_explicit(&sleeps, memory_order_relaxed);
}

/* After the yields, while the source is busy: each of its events would
 * otherwise cost a sleeping rank two wakes (the source's watcher, then the
 * rank) and the source's re-arming, and a message over UCX's TCP comes as
 * several events (fragments, a rendezvous's replies), each after a sleep:
 * 4 nodes of 1 rank oversubscribed, a 64 KiB allreduce woke the watchers
 * 20-24 times a call. So once the source has run an event, it is polled
 * with yields until busy_ns pass without another; before the first event,
 * for first_ns (0 by default: under load, polling for a message not yet
 * sent took the core from the ranks that had work, and a small broadcast
 * on 2 nodes of 2 was slower). Open MPI's ranks always poll with yields
 * (mpi_yield_when_idle). true if the condition was met. */
static bool source_busy_wait(const struct sm_wait_source *src, bool (*cond)(void *), void *arg)
{
    if (!src->busy || (src->busy_ns <= 0 && src->first_ns <= 0 && src->bulk_ns <= 0)) return false;
    uint64_t last = sm_now_ns();
    long budget = src->first_ns;
    while (src->busy()) {
        if (cond(arg)) return true;
        /* (the condition again only if the source ran something: each look
         * at a point-to-point condition runs UCX itself) */
        unsigned ran = src->progress();
        if (ran && cond(arg)) return true;
        uint64_t now = sm_now_ns();
        if (ran) last = now, budget = src->busy_ns;
        else if ((int64_t)(now - last) >= budget &&
                 !(src->bulk && (int64_t)(now - last) < src->bulk_ns && src->bulk()))
            break;
        sched_yield();
    }
    return cond(arg);
}
struct word_wait { const _Atomic uint32_t *w; uint32_t old; };
static bool word_changed(void *a)
{
    const struct word_wait *x = a;
    return atomic_load_explicit(x->w, memory_order_acquire) != x->old;
}

/* The count of sleepers on words of p's line (modulo the buckets), in the
 * control block of the rank whose slot holds p. By line, not by slot: a
 * rank always has sleepers somewhere (its copy-service thread), and a
 * waker must not make a system call for each of them. */
static _Atomic uint32_t *sleepers_of(const volatile void *p)
{
    uintptr_t s = (uintptr_t)p - (uintptr_t)SM_BASE;
    struct sm_rank_ctrl *owner;
    if (s < ((uintptr_t)sm_core.size << SM_SLOT_SHIFT)) owner = sm_ctrl_of((int)(s >> SM_SLOT_SHIFT));
    else if (sm_local_offset((uintptr_t)p) != UINT64_MAX) owner = sm_ctrl_of(sm_core.rank);
    else return NULL;
    return &owner->word_sleepers[(uintptr_t)p / SM_CACHELINE % SM_WORD_BUCKETS];
}

/* With the source, a word's sleeper also sleeps on its doorbell (futex_waitv),
 * which the source rings; the spin runs the source every few turns. */
uint32_t sm_wait_word(const volatile uint32_t *word, uint32_t old)
{
    const _Atomic uint32_t *w = (const _Atomic uint32_t *)word;
    const struct sm_wait_source *src = source_here();
    uint32_t v;
    for (int i = spin_iters(); i > 0; i--) {
        if ((v = atomic_load_explicit(w, memory_order_acquire)) != old) return v;
        if (src && !(i & 15)) src->progress();
        sm_cpu_relax();
    }
    uint64_t t0 = 0;
    for (int i = yield_iters(); i > 0; i--) {
        if ((v = atomic_load_explicit(w, memory_order_acquire)) != old) return v;
        if (src) src->progress();
        if (yield_idle(&t0, src)) i++;
    }
    if (src) {
        struct word_wait x = { w, old };
        if (source_busy_wait(src, word_changed, &x)) return atomic_load_explicit(w, memory_order_acquire);
    }
    _Atomic uint32_t *sleepers = sleepers_of(word);
    struct sm_rank_ctrl *me = sm_ctrl_of(sm_core.rank);
    long ns = SLEEP_MIN_NS;
    for (;;) {
        uint32_t seq = atomic_load(&me->doorbell);
        if (src && !source_armed(src)) {
            if ((v = atomic_load_explicit(w, memory_order_acquire)) != old) return v;
            continue;
        }
        if (sleepers) atomic_fetch_add(sleepers, 1);
        bool sure = sleeper_fence();
        if ((v = atomic_load(w)) == old) {
            if (!src) futex_wait(word, old, sure ? ns : SLEEP_MIN_NS);
            else if (!futex_wait2(word, old, (volatile uint32_t *)&me->doorbell, seq, sure ? ns : SLEEP_MIN_NS))
                ns = SLEEP_MIN_NS;      /* no futex_waitv: the source's ring is not seen, sleep briefly */
        }
        if (sleepers) atomic_fetch_sub(sleepers, 1);
        if (src) src->progress();
        if ((v = atomic_load_explicit(w, memory_order_acquire)) != old) return v;
        if (ns < SLEEP_MAX_NS) ns *= 2;
    }
}

void sm_wake_word(volatile uint32_t *word)
{
    _Atomic uint32_t *sleepers = sleepers_of(word);
    waker_fence();
    if (!sleepers || atomic_load_explicit(sleepers, memory_order_relaxed))
        futex_wake(word);
}

/* Leaning (sm_core.h): while the rank leant on is in its exchange between
 * nodes and not asleep, yield rather than sleep, up to LEAN_MAX_NS. On 2
 * nodes of 2 on 2 cores, a member's wait for its leader's broadcast went
 * to sleep 0.2-0.6 times a call while the leader's message was on its way
 * (docs/NOTES.md); Open MPI's ranks yield throughout. A leader that sleeps
 * itself (a slow peer node) ends it: long waits still sleep and cost no
 * CPU. */
#define LEAN_MAX_NS 1000000L
static _Thread_local int lean = -1;
static _Atomic uint64_t leans;
void sm_wait_lean(int rank) { lean = (unsigned)rank < (unsigned)sm_core.size ? rank : -1; }
void sm_wait_net_busy(bool on)
{
    atomic_store_explicit(&sm_ctrl_of(sm_core.rank)->net_busy, on, memory_order_relaxed);
}
uint64_t sm_wait_leans(void) { return atomic_load_explicit(&leans, memory_order_relaxed); }
static bool leaning(const struct sm_rank_ctrl *c)
{
    if (!atomic_load_explicit(&c->net_busy, memory_order_relaxed)) return false;
    for (int k = 0; k < SM_WAKE_KINDS; k++)
        if (atomic_load_explicit(&c->sleepers[k].n, memory_order_relaxed)) return false;
    return true;
}
/* *done: it yielded (a wait leans once). true if the condition was met. */
static bool lean_wait(bool (*cond)(void *), void *arg, bool *done)
{
    if (lean < 0) return false;
    const struct sm_rank_ctrl *c = sm_ctrl_of(lean);
    if (!leaning(c)) return false;
    *done = true;
    atomic_fetch_add_explicit(&leans, 1, memory_order_relaxed);
    uint64_t t0 = sm_now_ns();
    do {
        if (cond(arg)) return true;
        sched_yield();
    } while (leaning(c) && (int64_t)(sm_now_ns() - t0) < LEAN_MAX_NS);
    return cond(arg);
}

static void wait_yielding(unsigned kinds, bool (*cond)(void *), void *arg, const struct sm_wait_source *src,
                          bool alone);
static void wait_spun(unsigned kinds, bool (*cond)(void *), void *arg, int spins)
{
    const struct sm_wait_source *src = source_here();
    bool alone = src && (kinds & SM_WAIT_SOURCE) && sm_core.oversubscribed;
    kinds &= ~SM_WAIT_SOURCE;
    for (int i = alone ? 0 : spins; i > 0; i--) {
        if (cond(arg)) return;
        if (src && !(i & 15)) src->progress();
        sm_cpu_relax();
    }
    wait_yielding(kinds, cond, arg, src, alone);
}
void sm_wait_for(unsigned kinds, bool (*cond)(void *), void *arg) { wait_spun(kinds, cond, arg, spin_iters()); }

/* Oversubscribed, the rank waited for may share this rank's CPU: then it
 * cannot publish while this one spins, and the spins (4 turns, each running
 * point-to-point progress over every ring and the schedule) only delay the
 * yield that runs it. Small collectives with rotating roots wait so about
 * once a call (4 ranks on 2 CPUs, --bind-to core: ranks 0 and 2 share a
 * CPU, and rank 0's scatter from root 2 needs rank 2's record): the spins
 * of the waits that then found the mate not done yet cost a second switch
 * of the core every two to three calls (context switches a call, perf
 * stat: 1.24-1.58 against 1.03-1.28 once those waits yield at once, where
 * one a call is the floor; docs/NOTES.md, crowd). Polling longer for a
 * rank running on the other CPU (until it yields itself, up to 3 us) was
 * tried: no better. */
void sm_wait_on(unsigned kinds, int rank, bool (*cond)(void *), void *arg)
{
    if (SM_UNLIKELY(sm_core.oversubscribed) && (unsigned)rank < (unsigned)sm_core.size && rank != sm_core.rank &&
        sm_rank_local(rank) && !source_here()) {
        int cpu = atomic_load_explicit(&sm_ctrl_of(sm_core.rank)->cpu, memory_order_relaxed);
        if (cpu && atomic_load_explicit(&sm_ctrl_of(rank)->cpu, memory_order_relaxed) == cpu) {
            if (cond(arg)) return;
            atomic_fetch_add_explicit(&mate_waits, 1, memory_order_relaxed);
            wait_spun(kinds, cond, arg, 0);
            return;
        }
    }
    wait_spun(kinds, cond, arg, spin_iters());
}
uint64_t sm_wait_mate_waits(void) { return atomic_load_explicit(&mate_waits, memory_order_relaxed); }

/* A turn whose UCX runs ran events (a send's completion, a message for
 * another request, a fragment) looks again at once instead of yielding:
 * what ran may have brought this wait's own event next, and Open MPI's
 * ranks yield only after a progress that found nothing (opal_progress,
 * yield_when_idle). Each yield hands the core to the rank sharing it, a
 * switch there and one back: 4 nodes of 1 rank on 2 cores, 20000 8 B
 * allreduces, involuntary switches 1.47 -> 1.04 a call and rank (Open
 * MPI's 1.02-1.04), 28.0 -> 26.4 us a call (Open MPI 24.4); smbench's
 * coll, 5 rounds alternated, 8 B and 4 KiB allreduce 1.07x less time
 * (docs/NOTES.md, net5). Still a turn of the bounded count. Only in a wait
 * for what UCX alone brings (alone: a receive from another node): a wait
 * for this node's memory may need the rank sharing the core (a member's
 * for its leader's broadcast: 2 nodes of 2, bcast 4 KiB 0.97x when every
 * wait with the source looked again); and only for a rank alone on its
 * node (2 nodes of 2, the leaders' waits alone looking again: bcast 8 B
 * 0.97x, 0 of 6 rounds, where the node's other rank may have work). */
static _Atomic uint64_t ran_turns;      /* SMARTMAP_STATS (sm_wait_ran_turns) */
uint64_t sm_wait_ran_turns(void) { return atomic_load_explicit(&ran_turns, memory_order_relaxed); }

/* The yields and the sleeps, after the spins. A sleeper counts itself under each kind it waits for, so that a waker
 * of another kind (a put to a rank asleep in a barrier) reads a count of 0
 * on a line nobody writes and goes on; all sleep on the one doorbell word. */
static void wait_yielding(unsigned kinds, bool (*cond)(void *), void *arg, const struct sm_wait_source *src,
                          bool alone)
{
    uint64_t t0 = 0;
    for (int i = alone ? yield_iters_alone() : src ? yield_iters_source() : yield_iters(); i > 0; i--) {
        if (cond(arg)) return;
        if (src && src->progress() && alone && sm_core.nlocal == 1) {
            atomic_fetch_add_explicit(&ran_turns, 1, memory_order_relaxed);
            continue;
        }
        if (yield_idle(&t0, src)) i++;
    }
    if (src && source_busy_wait(src, cond, arg)) return;
    bool leant_ok = false;
    bool leant = lean_wait(cond, arg, &leant_ok);
    if (leant) return;
    struct sm_rank_ctrl *me = sm_ctrl_of(sm_core.rank);
    long ns = SLEEP_MIN_NS;
    for (;;) {
        /* once a wait at most: a member may have come before its leader
         * started the exchange, and look again after a short sleep */
        if (!leant_ok && lean_wait(cond, arg, &leant_ok)) return;
        /* The doorbell before resetting `rung`: a waker that then finds
         * `rung` set (and skips the futex) follows a ring that changed the
         * doorbell from seq, so the futex wait below returns. (Reset first,
         * a ring between the reset and this load left `rung` set and the
         * sleeper on the new value: a later waker's wake was missed, until
         * the timeout.) */
        uint32_t seq = atomic_load(&me->doorbell);
        atomic_store(&me->rung, 0);
        for (unsigned k = kinds; k; k &= k - 1) atomic_fetch_add(&me->sleepers[__builtin_ctz(k)].n, 1);
        bool sure = sleeper_fence();
        bool done = cond(arg);
        /* The source is armed after the condition was false and after seq:
         * an event after it rings past seq; one before, it refuses (and runs). */
        bool sleep = !done && (!src || source_armed(src));
        if (sleep) {
            atomic_fetch_add_explicit(&sleeps, 1, memory_order_relaxed);
            futex_wait((volatile uint32_t *)&me->doorbell, seq, sure ? ns : SLEEP_MIN_NS);
        }
        for (unsigned k = kinds; k; k &= k - 1) atomic_fetch_sub(&me->sleepers[__builtin_ctz(k)].n, 1);
        if (done || cond(arg)) return;
        if (sleep && ns < SLEEP_MAX_NS) ns *= 2;
    }
}

static _Atomic uint64_t doorbell_syscalls;
uint64_t sm_doorbell_syscalls(void) { return atomic_load_explicit(&doorbell_syscalls, memory_order_relaxed); }

void sm_wake_for(int rank, enum sm_wake_kind kind)
{
    if ((unsigned)rank >= (unsigned)sm_core.size) return;
    struct sm_rank_ctrl *c = sm_ctrl_of(rank);
    waker_fence();
    /* One futex wake per sleep: a stream of wakes to a sleeping rank would
     * otherwise make a system call each (the sleepers re-check everything
     * when they wake); a plain read first, so that those wakers share the
     * line instead of taking it in turn. */
    if (atomic_load_explicit(&c->sleepers[kind].n, memory_order_relaxed) && !atomic_load(&c->rung) &&
        !atomic_exchange(&c->rung, 1)) {
        atomic_fetch_add(&c->doorbell, 1);
        futex_wake((volatile uint32_t *)&c->doorbell);
        atomic_fetch_add_explicit(&doorbell_syscalls, 1, memory_order_relaxed);
    }
}

/* The public pair: a user's condition may depend on anything. */
void sm_wait(bool (*cond)(void *), void *arg) { sm_wait_for(SM_WAKE_ALL, cond, arg); }
void sm_wake(int rank) { sm_wake_for(rank, SM_WAKE_USER); }

void sm_wait_ready(int rank)
{
    struct sm_rank_ctrl *c = sm_ctrl_of(rank);
    while (!atomic_load_explicit(&c->ready, memory_order_acquire))
        sm_wait_word((volatile uint32_t *)&c->ready, 0);
}
