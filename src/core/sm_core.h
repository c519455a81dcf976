/* The core's contract with the engines above it (p2p, coll, rma, shmem, mpi):
 * rank control blocks, engine areas, the process-wide core state, and the
 * core's internal routines.
 *
 * Inside the core, calls flow one way: api.c, fork.c and spawn.c (entry points) ->
 * init.c (bootstrap) -> pmix.c (ranks of a PMIx launcher), alloc.c, copy.c,
 * dump.c, memlimit.c -> wait.c -> maps.c, log.c, settings.c, status.c,
 * state.c. The one exception is the lazy-init upcall:
 * the first malloc (alloc.c), which may come before the constructor, calls
 * sm_core_init(). tests/tools/check_core_deps.py keeps it so. */
#ifndef SM_CORE_H
#define SM_CORE_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "smartmap.h"
#include "sm_group.h"
#include "sm_job.h"
#include "sm_settings.h"
#include "sm_status.h"

#define SM_LIKELY(x)   __builtin_expect(!!(x), 1)
#define SM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SM_CACHELINE   64
#define SM_WORD_BUCKETS 64       /* sleeper counts per slot (wait.c) */

/* Engine areas: fixed places in every rank's control region that an engine
 * may lay out as it likes (rings, flags, locks). Zero when the job starts. */
enum sm_area {
    SM_AREA_P2P, SM_AREA_RMA,
    SM_AREA_MPI,                 /* the MPI binding's (dynamic processes: ports, names) */
    SM_AREA_COLL,                /* last: larger than the others (SM_AREA_COLL_SIZE) */
    SM_AREA_COUNT
};
#define SM_AREA_OFF  (1ULL << 20)
#define SM_AREA_SIZE (4ULL << 20)
/* The collective records of every group a rank may belong to; untouched
 * pages of the control region cost nothing. */
#define SM_AREA_COLL_SIZE (44ULL << 20)
_Static_assert(SM_AREA_OFF + SM_AREA_COLL * SM_AREA_SIZE + SM_AREA_COLL_SIZE <= SM_CTRL_SIZE, "areas fit");

/* The staged copy path: an initiator asks the owner's service thread to copy
 * between the owner's private memory and a global (exposed) buffer. */
enum sm_svc_op { SM_SVC_WRITE = 1, SM_SVC_READ = 2 };
struct sm_svc {
    _Atomic uint32_t lock;       /* one initiator at a time: 0 free, 1 held, 2 contended */
    _Atomic uint32_t req;        /* bumped by the initiator to post a request */
    _Atomic uint32_t done;       /* set to req by the service thread when finished */
    _Atomic uint32_t running;    /* the owner has a service thread */
    uint32_t op;                 /* enum sm_svc_op */
    int32_t  result;             /* 0 or an errno */
    uint64_t local;              /* address in the owner's space */
    uint64_t global;             /* exposed buffer, global address */
    uint64_t len;
};

/* The events that end a sleep on a rank's doorbell (wait.c). A sleeper
 * names the kinds its condition depends on; a waker names its event's kind
 * and makes a system call only for sleepers of that kind. */
enum sm_wake_kind {
    SM_WAKE_P2P,        /* a message or a send's progress for the rank (p2p) */
    SM_WAKE_RMA,        /* a put, atomic or signal into the rank's memory (rma) */
    SM_WAKE_COLL,       /* a member's progress in a collective of the rank's (coll) */
    SM_WAKE_USER,       /* the public sm_wake */
    SM_WAKE_KINDS
};
#define SM_WAKE_ON(kind) (1u << (kind))
#define SM_WAKE_ALL ((1u << SM_WAKE_KINDS) - 1)
/* With sm_wait_for's kinds: what the caller waits for comes through the
 * wait source alone (a receive from another node), never from this node's
 * memory (wait.c: oversubscribed, it yields from its first turn). */
#define SM_WAIT_SOURCE (1u << 31)

/* A rank's control block, at offset 0 of its slot. */
struct sm_rank_ctrl {
    struct sm_ctrl job;                          /* ABI with smrun: first */
    alignas(SM_CACHELINE) _Atomic uint32_t ready; /* layout below published */
    uint64_t globals_lo, globals_len;            /* where the rank's exposed regions */
    uint64_t stack_lo, stack_len;                /* live in its own address space */
    alignas(SM_CACHELINE) _Atomic uint32_t doorbell;   /* sm_wait_for / sm_wake_for */
    _Atomic uint32_t rung;       /* the doorbell rang since a sleeper last armed it: later wakers skip the futex */
    /* Sleepers on the doorbell by the events they wait for, a line each: a
     * waker reads only its event's count, which sleepers for other events
     * never write (a put to a rank asleep in a barrier reads a clean line). */
    struct { alignas(SM_CACHELINE) _Atomic uint32_t n; } sleepers[SM_WAKE_KINDS];
    /* sleepers in sm_wait_word on words in this slot, by the word's line modulo the buckets */
    alignas(SM_CACHELINE) _Atomic uint32_t word_sleepers[SM_WORD_BUCKETS];
    /* the rank is in an exchange between nodes for its node (sm_wait_net_busy) */
    alignas(SM_CACHELINE) _Atomic uint32_t net_busy;
    /* the CPU the rank is pinned to, + 1 (0: not pinned to one): sm_wait_on */
    alignas(SM_CACHELINE) _Atomic int32_t cpu;
    struct sm_barrier_cell bar;                   /* the job barrier's (sm_barrier) */
    alignas(SM_CACHELINE) struct sm_svc svc;
};
_Static_assert(sizeof(struct sm_rank_ctrl) <= SM_AREA_OFF, "control block fits");

struct sm_core {
    int      joined;              /* set (release) when sm_core_join has finished */
    int      rank, size;          /* the caller's slot; the slots of the job (the universe) */
    int      world_base, world_size; /* the caller's world: ranks [world_base, +world_size), the
                                   * first -n, or the processes one spawn started (MPI_COMM_WORLD,
                                   * the job barrier, SHMEM); the other slots are free or other worlds */
    pid_t    pid;
    bool     singleton;           /* not started by smrun: a job of one */
    bool     pmix;                /* started by a PMIx launcher (pmix.c) */
    int      nlocal;              /* ranks on this node (all of them under smrun) */
    uint64_t local[SM_NMAX / 64]; /* bit r: rank r is on this node, its slot mapped */
    bool     oversubscribed;      /* more ranks than CPUs: wait politely (sm_cpus_settle) */
    int      cpus;                /* CPUs the ranks on this machine may run on (sm_cpus_settle) */
    bool     huge_pages;
    uint16_t per_cpu;             /* ranks on this machine a CPU, rounded up (sm_cpus_settle; in
                                   * the padding after huge_pages) */
    int      own_fd;              /* the rank's memfd (close-on-exec) */
    uint64_t slot_bytes;          /* valid bytes of every rank's slot: SM_SYM_OFF + sym_bytes */
    uint64_t heap_bytes;          /* malloc arena at SM_HEAP_OFF */
    uint64_t sym_bytes;           /* symmetric region at SM_SYM_OFF, same in every rank */
    uintptr_t globals_lo, globals_len;
    uintptr_t stack_lo, stack_len;
    uint64_t setting[SM_SET_COUNT]; /* the SMARTMAP_* settings, read once by init */
};
extern struct sm_core sm_core;

/* A setting's value (sm_settings.h): read at start-up, never changes. */
static inline uint64_t sm_setting(enum sm_setting_id id) { return sm_core.setting[id]; }
/* Monotonic time in ns, for waits with a budget. */
static inline uint64_t sm_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline uintptr_t sm_slot_base(int rank)
{
    return (uintptr_t)SM_BASE + ((uintptr_t)rank << SM_SLOT_SHIFT);
}
static inline struct sm_rank_ctrl *sm_ctrl_of(int rank)
{
    return (struct sm_rank_ctrl *)sm_slot_base(rank);
}
/* Rank r shares this node (its slot is mapped here): decided once at
 * start, so engines choose a transport per peer once. */
static inline bool sm_rank_local(int r)
{
    return sm_core.local[(unsigned)r / 64] >> ((unsigned)r % 64) & 1;
}
/* The caller's node as every rank on it names it: its lowest job rank
 * (hier.c's node groups, MPI_Comm_split_type's colour). */
static inline int sm_node_id(void)
{
    for (int r = 0; r < sm_core.size; r++)
        if (sm_rank_local(r)) return r;
    return sm_core.rank;
}
/* The job spans nodes (launched by PMIx, some ranks elsewhere). */
static inline bool sm_spans_nodes(void) { return sm_core.nlocal != sm_core.size; }
/* SM_OK on one node; else SM_ERR_UNSUPPORTED, the reason saying that what
 * (a routine, or a feature) is not supported across nodes yet. */
sm_status_t sm_one_node(const char *what);
/* An engine's area in rank's control region. */
static inline void *sm_area(int rank, enum sm_area a)
{
    return (void *)(sm_slot_base(rank) + SM_AREA_OFF + (uintptr_t)a * SM_AREA_SIZE);
}
/* The symmetric region: [SM_SYM_OFF, +sym_bytes) of every rank's slot, empty
 * until an engine asks for it. sm_symmetric_grow(bytes) makes the caller's
 * own region at least that long (its memfd grows; peers see it at once);
 * the engine that manages the region (src/rma) has every rank call it with
 * the same size, and touches a peer's region only after all have. */
sm_status_t sm_symmetric_grow(uint64_t bytes);
static inline void *sm_symmetric_base(size_t *len)
{
    *len = sm_core.sym_bytes;
    return (void *)(sm_slot_base(sm_core.rank) + SM_SYM_OFF);
}
/* Whether [p, p+len) lies in the rank's malloc heap, where libsmartmap's own
 * blocks are: the bindings check a handle so before reading it. */
static inline bool sm_heap_holds(const void *p, size_t len)
{
    uintptr_t off = (uintptr_t)p - (sm_slot_base(sm_core.rank) + SM_HEAP_OFF);
    return off < sm_core.heap_bytes && len <= sm_core.heap_bytes - off;
}

/* Offset inside a slot of local address a, or UINT64_MAX if not exposed. */
static inline uint64_t sm_local_offset(uintptr_t a)
{
    uintptr_t s = a - (uintptr_t)SM_BASE;
    if (s < ((uintptr_t)sm_core.size << SM_SLOT_SHIFT)) {
        uint64_t off = s & (SM_SLOT - 1);
        return off < sm_core.slot_bytes ? off : UINT64_MAX;
    }
    if (a - sm_core.globals_lo < sm_core.globals_len)
        return SM_GLOBALS_OFF + (a - sm_core.globals_lo);
    if (a - sm_core.stack_lo < sm_core.stack_len)
        return SM_STACK_OFF + (a - sm_core.stack_lo);
    return UINT64_MAX;
}

/* init.c. Initialise the core once (claim the rank, map the slots, expose
 * the globals and the stack, attach the heap): called by the constructor,
 * and first by the first malloc if that comes earlier (the lazy-init upcall). */
void sm_core_init(void);
/* Join the job once, at the program's first use of it (sm_core_ensure): the
 * start-up barrier. A process that could not take its rank ends here, with
 * one line saying why. */
void sm_core_join(void);
/* The cheap check for entry points (api.c, the bindings): a plain load once
 * joined. */
static inline void sm_core_ensure(void)
{
    if (SM_UNLIKELY(!__atomic_load_n(&sm_core.joined, __ATOMIC_ACQUIRE))) sm_core_join();
}
/* Run fn on a private stack in libsmartmap's own (never exposed) memory;
 * callers serialise (init runs once; fork holds its lock). */
void sm_on_private_stack(void (*fn)(void));

/* dump.c. Leave the slots' untouched memory and the peers' slots out of
 * core dumps (init has marked every slot MADV_DONTDUMP): install the crash
 * handler that puts the rank's own touched memory back. */
void sm_dump_init(void);

/* wait.c. Choose how wakers and sleepers fence; once per process, before
 * its first wake (and again if sm_cpus_settle changed the ranks a CPU). */
void sm_wait_init(void);

/* state.c. How many CPUs the ranks on this machine may run on, and whether
 * they outnumber them: the one place sm_core.cpus and oversubscribed are
 * set, which the waits (wait.c, p2p's spins) and the engines' crowded rules
 * (sm_per_cpu) read. The CPUs are the union of the affinity masks of the
 * processes in pids (n of them; none: every CPU online), not the caller's
 * own: a launcher that binds each rank to a core leaves each rank one CPU
 * and the node's ranks all of theirs, while taskset, a cgroup's cpuset or
 * a binding to a subset confines them all. ranks: the ranks on the
 * machine. smrun's ranks settle once all are up (sm_core_join), a PMIx
 * rank at its node's exchange (sm_pmix_join); until then, every CPU. */
void sm_cpus_settle(const pid_t *pids, int n, int ranks);
/* Members of a group of n to each of those CPUs (rounded down), when the
 * machine is oversubscribed; else 1. */
static inline int sm_per_cpu(int n)
{
    return sm_core.oversubscribed && sm_core.cpus > 0 ? n / sm_core.cpus : 1;
}
/* Wait until cond(arg) is true, sleeping on the caller's doorbell until a
 * waker of one of the kinds (SM_WAKE_ON bits) rings it; whoever makes cond
 * true for rank r calls sm_wake_for(r, kind) with a kind in that set. The
 * public sm_wait is sm_wait_for(SM_WAKE_ALL, ...), sm_wake an SM_WAKE_USER
 * wake. */
void sm_wait_for(unsigned kinds, bool (*cond)(void *), void *arg);
/* sm_wait_for where what makes cond true is a store of `rank`'s (a
 * collective's record): oversubscribed, with both pinned to the same CPU,
 * it yields from its first turn (spinning holds the core that rank needs).
 * sm_wait_mate_waits: how many waits did (SMARTMAP_STATS, tests). */
void sm_wait_on(unsigned kinds, int rank, bool (*cond)(void *), void *arg);
uint64_t sm_wait_mate_waits(void);
void sm_wake_for(int rank, enum sm_wake_kind kind);
/* sm_wake_for for a valid rank, its check inline (the one-sided fast path):
 * a compiler barrier and one load of the rank's count of sleepers for kind
 * where this process needs no waker fence (wait.c); sm_wake_for does the
 * rest. */
extern bool sm_wake_unfenced;
static inline __attribute__((always_inline)) void sm_wake_inline(int rank, enum sm_wake_kind kind)
{
    atomic_signal_fence(memory_order_seq_cst);
    if (SM_UNLIKELY(!sm_wake_unfenced ||
                    atomic_load_explicit(&sm_ctrl_of(rank)->sleepers[kind].n, memory_order_relaxed)))
        sm_wake_for(rank, kind);
}
/* Waking several ranks at once (a collective's progress): one waker fence
 * for all of them (sm_wake_fence), then sm_wake_fenced for each, one load
 * of its count of sleepers. Oversubscribed, wakers fence (wait.c), and a
 * fence each made a member of 8 wake its 7 peers with 7 locked
 * instructions, each waiting for the stores to peers' lines before it. */
void sm_wake_fence(void);
static inline __attribute__((always_inline)) void sm_wake_fenced(int rank, enum sm_wake_kind kind)
{
    if (SM_UNLIKELY(atomic_load_explicit(&sm_ctrl_of(rank)->sleepers[kind].n, memory_order_relaxed)))
        sm_wake_for(rank, kind);
}
/* An outside source of events that rings no doorbell: UCX between nodes
 * (src/net), whose worker must run for messages to reach this rank and for
 * peers' puts and atomics to it to happen (software RMA over TCP).
 * Installed, every wait (sm_wait_for, sm_wait_word) of the program's
 * threads runs progress while it polls and calls arm before it sleeps:
 * false, events are pending (they are run, the condition looked at again);
 * true, the source rings this rank's doorbell (sm_wake_self) at its next
 * event, which ends the sleep (a word's sleeper waits on both futexes). */
struct sm_wait_source {
    unsigned (*progress)(void);     /* the events it ran */
    bool (*arm)(void);
    /* Optional: operations of this rank are under way in the source (a
     * message coming in fragments, a rendezvous's steps): a wait then polls
     * it, yielding, before it sleeps: up to first_ns for a first event, and
     * while events come, until busy_ns pass without one. */
    bool (*busy)(void);
    long busy_ns, first_ns;
    /* Optional: a large transfer of this rank is under way (a rendezvous,
     * whose data moves only while both sides run the source): the poll
     * goes on, from the start, until bulk_ns pass without an event. */
    bool (*bulk)(void);
    long bulk_ns;
};
void sm_wait_source(const struct sm_wait_source *s);
/* A node's leader marks its exchange with the other nodes (on: true), and
 * the calling thread's later waits lean on rank (-1: none): while that rank
 * is so marked and not asleep, they yield instead of sleeping (a member
 * whose leader is busy with the network will be woken by it within
 * microseconds, and a sleep then costs both sides a futex call). */
void sm_wait_net_busy(bool on);
void sm_wait_lean(int rank);
/* Waits of this process that yielded on a leaning rank rather than sleep
 * (SMARTMAP_STATS, tests). */
uint64_t sm_wait_leans(void);
/* Waits' sleeps (sm_wait_for) and the yields that found the core idle and went on (oversubscribed). */
void sm_wait_counts(uint64_t *idle_yields, uint64_t *sleeps);
uint64_t sm_wait_ran_turns(void);     /* waits' turns that ran the source's events and did not yield */
bool sm_wait_has_source(void);
/* End the sleeps of this rank's waits (of every thread): the source's ring. */
void sm_wake_self(void);
/* The calling thread's waits never run the source (the copy service). */
void sm_wait_plain(void);
/* Futex wakes this process has made on doorbells (sm_wake_for), for tests:
 * a waker whose event no sleeper waits for makes none. */
uint64_t sm_doorbell_syscalls(void);
/* The rare side of an asymmetric store-then-load handshake (p2p's send
 * cancel), after its own full fence: a full barrier on every CPU running a
 * process of the job, so the frequent side needs only sm_fence_light()
 * (where membarrier is missing, the frequent side fences itself). */
void sm_fence_peers(void);
/* The frequent side: a compiler barrier where sm_fence_peers works on this
 * process, else a full fence. */
void sm_fence_light_slow(void);
static inline void sm_fence_light(void)
{
    atomic_signal_fence(memory_order_seq_cst);
    if (SM_UNLIKELY(!sm_wake_unfenced)) sm_fence_light_slow();
}
/* Wait until a peer has published its layout (sm_rank_ctrl.ready). */
void sm_wait_ready(int rank);
/* The job-wide barrier (sm_barrier without the initialisation check). */
void sm_job_barrier(void);
/* Count the caller in the job barrier without waiting (a rank that exits
 * without having joined the job). */
void sm_job_barrier_leave(void);

/* copy.c. Start the staged-copy service thread (after init, outside malloc). */
sm_status_t sm_copy_start_service(void);
/* Copy len bytes between the caller's local buffer and rank's remote
 * address (as rank names it): write copies local -> remote. Directly where
 * exposed, else through the kernel or staged. SM_ERR_ARG (bad rank,
 * pointer, length), SM_ERR_ACCESS (not mapped so in rank), SM_ERR_STATE
 * (rank unreachable), with the reason recorded. */
sm_status_t sm_copy(int rank, bool write, void *remote, void *local, size_t len);
/* sm_put/sm_get's body: sm_copy's result as smartmap.h's code, with one
 * line naming routine on failure. */
int sm_copy_api(const char *routine, int rank, bool write, void *remote, void *local, size_t len);
/* Copy on one given path (no fallback); SM_ERR_ACCESS if the path cannot
 * reach it. */
sm_status_t sm_copy_via(enum sm_path path, int rank, bool write, void *remote, void *local, size_t len);
/* With SMARTMAP_STATS: print the bytes each path carried. */
void sm_stats_report(void);

/* pmix.c. Started by a PMIx launcher (PMIX_RANK set, and this process the
 * rank, not a program it started): the rank. No malloc. */
bool sm_pmix_launched(int *rank);
/* PMIx support was built in. */
bool sm_pmix_available(void);
/* Re-execute once with address-space randomisation off, if it is on. */
void sm_pmix_norandomize(void);
/* After the rank's own slot is up: PMIx_Init, the job's size and node, and
 * the node's memfds exchanged into fd[] (all -1 on entry): fd[r] >= 0 for
 * every other rank on the node (the caller maps and closes them). Sets size, nlocal, local and
 * oversubscribed (from the ranks on this machine, fake nodes included). */
sm_status_t sm_pmix_join(int fd[SM_NMAX]);
/* A PMIx fence over the whole job, data collected. */
sm_status_t sm_pmix_fence(void);
void sm_pmix_finalize(void);
/* Publish len bytes under key for every rank (visible after the next
 * sm_pmix_fence) / fetch rank's, into a malloc'd *data. SM_ERR_UNSUPPORTED
 * without PMIx. */
sm_status_t sm_pmix_put(const char *key, const void *data, size_t len);
sm_status_t sm_pmix_get(int rank, const char *key, void **data, size_t *len);
/* The launcher's name service (MPI's names and ports across nodes): a
 * string under a key. SM_ERR_ARG: published already (publish), not
 * published (lookup, unpublish). */
sm_status_t sm_pmix_publish(const char *key, const char *value);
sm_status_t sm_pmix_lookup(const char *key, char *value, size_t cap);
sm_status_t sm_pmix_unpublish(const char *key);

/* spawn.c. Ask smrun to start processes in free slots, as one new world:
 * napps commands, cmd[i] with the NULL-terminated arguments argv[i] (NULL:
 * none), nprocs[i] processes; each gets parent as sm_spawn_parent(). On
 * success *base is the first slot (they follow in order). SM_ERR_NOMEM: too
 * few free slots; SM_ERR_ARG: a command that cannot be run or a request
 * too large; SM_ERR_UNSUPPORTED: not started by smrun; the reason recorded. */
sm_status_t sm_spawn(int napps, const char *const cmd[], char *const *const argv[], const int nprocs[],
                     const char *parent, int *base);
/* SM_OK if sm_spawn can start processes here (smrun started the job);
 * else SM_ERR_UNSUPPORTED, the reason recorded (a PMIx launcher's job). */
sm_status_t sm_spawn_able(void);
/* A spawned process's parent text (NULL if it was not spawned). */
const char *sm_spawn_parent(void);
/* The caller depends on slot's process: links connections more (or fewer,
 * if negative), handshakes more under way (sm_job.h's sm_ctrl.link/hand,
 * which the smrun of a job sharing its universe with others watches). */
void sm_link(int slot, int links, int handshakes);
/* Slot's process has been started and has exited (or is a zombie). */
bool sm_slot_gone(int slot);

/* log.c. Print one line "smartmap: [rank R: ]<message>" on stderr, without
 * malloc. sm_fatal then ends the process: only for start-up failures that
 * leave nothing to return to. */
void sm_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void sm_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A smartmap.h function's failure: one line "routine: reason" (sm_fail's),
 * and st as a public code (the internal kinds become SM_ERR_STATE). */
int sm_public_error(const char *routine, sm_status_t st);

/* maps.c. Call fn for each mapping of the process, in address order, until
 * it returns false. */
struct sm_mapping {
    uintptr_t   lo, hi;
    char        perm[5];    /* "rw-p" */
    const char *path;       /* "" if anonymous; valid during the call only */
};
typedef bool (*sm_mapping_fn)(const struct sm_mapping *m, void *arg);
sm_status_t sm_maps_each(sm_mapping_fn fn, void *arg);

#endif
