/* barrier.c: the one barrier algorithm (sm_group.h) and the job barrier. */
#include <stddef.h>

#include "sm_core.h"

_Static_assert(SM_CACHELINE == 64, "barrier cells are laid out in 64-byte lines");
_Static_assert(1 << (SM_BARRIER_FANIN_LOG * SM_BARRIER_LEVELS) >= SM_NMAX, "levels cover the largest job");

static inline struct sm_barrier_cell *cell_of(const struct sm_group *g, int i, uint64_t off)
{
    return (struct sm_barrier_cell *)(sm_slot_base(sm_group_rank(g, i)) + off);
}

/* Up to FANIN members (and flat barriers) share one word in member 0's
 * cell: the arrivals in its low bits, the generation above. An arrival is
 * one atomic add; the last one bumps the generation and clears the count
 * in one store, which every waiter is watching: about one line transfer
 * per member, and no second line for the release. */
#define COUNT_BITS 10u                        /* up to 1023 members */
#define COUNT_MASK ((1u << COUNT_BITS) - 1)

static void barrier_one_word(_Atomic uint32_t *w, uint32_t n, bool wait)
{
    uint32_t v = atomic_fetch_add_explicit(w, 1, memory_order_acq_rel);
    if ((v & COUNT_MASK) + 1 == n) {
        atomic_store_explicit(w, (v & ~COUNT_MASK) + (1u << COUNT_BITS), memory_order_release);
        sm_wake_word((volatile uint32_t *)w);
        return;
    }
    if (!wait) return;
    uint32_t gen = v & ~COUNT_MASK;
    while (((v = atomic_load_explicit(w, memory_order_acquire)) & ~COUNT_MASK) == gen)
        sm_wait_word((volatile uint32_t *)w, v);
}

/* More members: each climbs the tree from its leaf: it adds itself to the
 * counter of its node; the last to arrive at a node resets the counter
 * (nobody can arrive there again before the release) and climbs on for the
 * node; the last at the root releases everyone by bumping the generation,
 * which has its own line (so that the many waiters' reads do not slow the
 * arrivals). Arrivals are acq_rel read-modify-writes, so the release carries
 * every member's earlier writes (a release sequence per counter, chained
 * level by level). Counters count in their low bits only: the high ones may
 * hold a generation from a small group that had the same state before.
 * Without wait, a member arrives and leaves (a rank that exits without
 * having joined the job is counted in the start-up barrier so). */
static void barrier(const struct sm_group *g, uint64_t off, bool flat, bool wait)
{
    int n = g->size, i = g->me;
    if (n <= 1) return;
    if (flat || n <= 1 << SM_BARRIER_FANIN_LOG) {
        barrier_one_word(&cell_of(g, 0, off)->arrived[0].n, (uint32_t)n, wait);
        return;
    }
    _Atomic uint32_t *gen = &cell_of(g, 0, off)->gen;
    /* Read before arriving: it cannot move until this member has arrived. */
    uint32_t seen = atomic_load_explicit(gen, memory_order_acquire);
    const int lg = SM_BARRIER_FANIN_LOG;
    for (int lv = 0, child = 0; lv < SM_BARRIER_LEVELS; lv++, child += lg) {
        int span = child + lg;                       /* log2 of the members under the node */
        int owner = i >> span << span;
        int end = owner + (1 << span) < n ? owner + (1 << span) : n;
        uint32_t children = (uint32_t)((end - owner + (1 << child) - 1) >> child);
        _Atomic uint32_t *ctr = &cell_of(g, owner, off)->arrived[lv].n;
        uint32_t v = atomic_fetch_add_explicit(ctr, 1, memory_order_acq_rel);
        if ((v & COUNT_MASK) + 1 != children) break;
        atomic_store_explicit(ctr, v & ~COUNT_MASK, memory_order_relaxed);
        if (owner == 0 && end == n) {                /* the root: everyone has arrived */
            atomic_fetch_add_explicit(gen, 1, memory_order_acq_rel);
            sm_wake_word((volatile uint32_t *)gen);
            return;
        }
    }
    while (wait && atomic_load_explicit(gen, memory_order_acquire) == seen)
        sm_wait_word((volatile uint32_t *)gen, seen);
}

void sm_barrier_run(const struct sm_group *g, uint64_t off, bool flat)
{
    barrier(g, off, flat, true);
}

/* The job barrier: every rank of the caller's world on this node, cells in
 * the control blocks. One node: the caller's world (a spawned world starts
 * at world_base); across nodes (no spawn there), the job's ranks here. */
static struct sm_group node_group(void)
{
    static int ranks[SM_NMAX];
    if (sm_core.nlocal == sm_core.size)
        return (struct sm_group){ sm_core.world_size, sm_core.rank - sm_core.world_base, sm_core.world_base, 1, NULL };
    int n = 0, me = 0;
    for (int r = 0; r < sm_core.size; r++)
        if (sm_rank_local(r)) {
            if (r == sm_core.rank) me = n;
            ranks[n++] = r;
        }
    return (struct sm_group){ n, me, 0, 0, ranks };
}

void sm_job_barrier(void)
{
    struct sm_group job = node_group();
    barrier(&job, offsetof(struct sm_rank_ctrl, bar), false, true);
}

void sm_job_barrier_leave(void)
{
    struct sm_group job = node_group();
    barrier(&job, offsetof(struct sm_rank_ctrl, bar), false, false);
}
