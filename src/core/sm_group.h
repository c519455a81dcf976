/* sm_group.h: a set of ranks as the core understands it, and the one barrier
 * algorithm over such a set (DESIGN.md §4, §6). The job barrier (sm_barrier)
 * and the collective engine's group barriers (MPI communicators, SHMEM
 * teams) are this one algorithm with different state. */
#ifndef SM_GROUP_H
#define SM_GROUP_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Member i (0 <= i < size) is job rank ranks[i], or start + i * stride
 * when ranks is NULL (a negative stride lists ranks downwards). */
struct sm_group {
    int size;
    int me;                     /* the caller's index, -1 if it is not a member */
    int start, stride;
    const int *ranks;
};
static inline int sm_group_rank(const struct sm_group *g, int i)
{
    return g->ranks ? g->ranks[i] : g->start + i * g->stride;
}

/* Up to SM_BARRIER_FANIN members: one word holding the arrival count and
 * the generation, in member 0's cell (one atomic add per member, the
 * release is a store to the word every waiter watches). More: a combining
 * tree of such counters, FANIN arrivals per counter, and a generation word
 * of its own that every member watches (one futex wake for all sleepers). */
#define SM_BARRIER_FANIN_LOG 3
#define SM_BARRIER_LEVELS    3   /* 8^3 >= SM_NMAX ranks */

/* A member's barrier state. Member i's cell is at the same offset of
 * every member's slot; member 0's holds the generation (or the one word),
 * and the members whose index is a multiple of 8^(L+1) own the counter of
 * level L for the members up to the next multiple. Counts are zero when
 * no barrier is in progress. */
struct sm_barrier_cell {
    struct { alignas(64) _Atomic uint32_t n; } arrived[SM_BARRIER_LEVELS];
    alignas(64) _Atomic uint32_t gen;
};

/* The barrier over g: returns when every member has entered it; memory
 * operations before it in any member happen before those after it in all.
 * cell_off: where the cells live in each member's slot. flat: one word
 * whatever the size, in member 0's cell (for groups whose other members'
 * cells may be shared with other groups). Waiters spin, yield, then sleep
 * (sm_wait_word), so the core goes to members that have not arrived. */
void sm_barrier_run(const struct sm_group *g, uint64_t cell_off, bool flat);

#endif
