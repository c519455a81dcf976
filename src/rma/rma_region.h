/* rma_region.h: exposed regions of many ranks, found by (rank, address): the
 * translation of one-sided bindings whose targets name memory by their own
 * addresses in an allocation of the binding's (ARMCI_Malloc; MPI's dynamic
 * windows would fit too) rather than by symmetric offsets (rma.h's views).
 *
 * A region is [lo, lo + len) as its rank names it, reached by every rank at
 * lo + delta (0 for the heap, whose local addresses are global ones; the
 * sm_global offset for globals and the stack). A set's regions are sorted by
 * (rank, lo) in an immutable table; adding or removing regions publishes a
 * new table, so a lookup never takes a lock and may run in any thread while
 * another changes the set. The fast path is one remembered region (the last
 * one found), checked with three compares; the slow path searches the table
 * and says why an address is refused. */
#ifndef RMA_REGION_H
#define RMA_REGION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sm_core.h"
#include "sm_status.h"

struct rma_region {
    uintptr_t lo;       /* the first byte, as its rank names it */
    size_t    len;      /* > 0 */
    intptr_t  delta;    /* the caller reaches lo at lo + delta */
    int       rank;     /* job rank */
    void     *data;     /* the binding's: what the region belongs to */
};

struct rma_region_table {
    size_t n;
    _Atomic size_t last;          /* the region found last (a hint; 0 when empty) */
    struct rma_region e[];        /* n regions, at least one slot (a len-0 sentinel when empty) */
};

struct rma_regions {
    _Atomic(struct rma_region_table *) cur;   /* never NULL once initialised */
    const char *what;             /* what a region is, for the reasons ("ARMCI_Malloc memory") */
    bool keep_old;                /* threads may look up while the set changes: old tables
                                   * are kept until rma_regions_clear (else freed at once) */
    struct rma_region_table **old;
    size_t nold;
};

/* The empty table: one sentinel region that matches nothing (rank -1). An
 * empty set points to it, before rma_regions_init (a static set initialised
 * with RMA_REGIONS_INIT) and after rma_regions_clear, so that a lookup then
 * fails the ordinary way. */
extern struct rma_region_table rma_regions_empty;
#define RMA_REGIONS_INIT(what_) { .cur = &rma_regions_empty, .what = (what_) }

/* An empty set; what names a region in the reasons; keep_old: see above
 * (ARMCI_Init_thread with MPI_THREAD_MULTIPLE). */
sm_status_t rma_regions_init(struct rma_regions *s, const char *what, bool keep_old);
/* Forget every region and free the tables. */
void rma_regions_clear(struct rma_regions *s);
/* Add n regions (len 0 ones are skipped). SM_ERR_ARG if one overlaps another
 * region of its rank (nothing is added then), SM_ERR_NOMEM. */
sm_status_t rma_regions_add(struct rma_regions *s, const struct rma_region *r, size_t n);
/* Remove every region whose data is data; the count removed in *removed. */
sm_status_t rma_regions_remove(struct rma_regions *s, const void *data, size_t *removed);

/* The region of rank that holds [addr, addr + len), or NULL with the reason
 * (sm_fail): SM_ERR_ACCESS for an address in no region of rank, in another
 * rank's region, or a range beyond the end of the region it starts in; SM_ERR_ARG for len 0
 * or a negative length (a huge size_t), which the caller decides about. */
const struct rma_region *rma_regions_find_slow(struct rma_regions *s, int rank, const void *addr, size_t len);

static inline __attribute__((always_inline)) const struct rma_region *
rma_regions_find(struct rma_regions *s, int rank, const void *addr, size_t len)
{
    struct rma_region_table *t = atomic_load_explicit(&s->cur, memory_order_acquire);
    const struct rma_region *e = &t->e[atomic_load_explicit(&t->last, memory_order_relaxed)];
    uintptr_t off = (uintptr_t)addr - e->lo;
    /* len - 1 < room: 1 <= len <= room (len 0 and a huge size_t from a negative size go the slow way) */
    if (SM_LIKELY(e->rank == rank && off < e->len && len - 1 < e->len - off)) return e;
    return rma_regions_find_slow(s, rank, addr, len);
}

#endif
