/* region.c: sets of exposed regions found by (rank, address) (rma_region.h):
 * copy-on-write sorted tables, the search, and the reasons for refusing. */
#include <stdlib.h>
#include <string.h>

#include "rma_region.h"

/* Sorted by (rank, lo). */
static int before(const struct rma_region *a, int rank, uintptr_t lo)
{
    return a->rank != rank ? a->rank < rank : a->lo < lo;
}
static int cmp(const void *x, const void *y)
{
    const struct rma_region *a = x, *b = y;
    return before(a, b->rank, b->lo) ? -1 : before(b, a->rank, a->lo) ? 1 : 0;
}

struct rma_region_table rma_regions_empty = { .n = 0, .e = { { .rank = -1 } } };
#define empty rma_regions_empty

static struct rma_region_table *table_new(size_t n)
{
    if (!n) return &empty;
    struct rma_region_table *t = malloc(sizeof *t + n * sizeof t->e[0]);
    if (!t) return NULL;
    t->n = n;
    atomic_init(&t->last, 0);
    return t;
}
static void table_free(struct rma_region_table *t)
{
    if (t != &empty) free(t);
}

/* Publish t; the table it replaces is freed, or kept for threads that may still read it. */
static sm_status_t publish(struct rma_regions *s, struct rma_region_table *t)
{
    struct rma_region_table *prev = atomic_load_explicit(&s->cur, memory_order_relaxed);
    if (s->keep_old && prev) {
        struct rma_region_table **o = realloc(s->old, (s->nold + 1) * sizeof *o);
        if (!o) {
            table_free(t);
            return sm_fail(SM_ERR_NOMEM, "no memory for the table of regions");
        }
        s->old = o;
        s->old[s->nold++] = prev;
        prev = NULL;
    }
    atomic_store_explicit(&s->cur, t, memory_order_release);
    if (prev) table_free(prev);
    return SM_OK;
}

sm_status_t rma_regions_init(struct rma_regions *s, const char *what, bool keep_old)
{
    *s = (struct rma_regions){ .what = what, .keep_old = keep_old };
    atomic_init(&s->cur, &empty);
    return SM_OK;
}

void rma_regions_clear(struct rma_regions *s)
{
    for (size_t i = 0; i < s->nold; i++) table_free(s->old[i]);
    free(s->old);
    table_free(atomic_load_explicit(&s->cur, memory_order_relaxed));
    s->old = NULL, s->nold = 0;
    atomic_store_explicit(&s->cur, &empty, memory_order_release);
}

sm_status_t rma_regions_add(struct rma_regions *s, const struct rma_region *r, size_t n)
{
    struct rma_region_table *cur = atomic_load_explicit(&s->cur, memory_order_relaxed);
    size_t add = 0;
    for (size_t i = 0; i < n; i++) add += r[i].len > 0;
    struct rma_region_table *t = table_new(cur->n + add);
    if (!t) return sm_fail(SM_ERR_NOMEM, "no memory for the table of regions");
    memcpy(t->e, cur->e, cur->n * sizeof t->e[0]);
    for (size_t i = 0, k = cur->n; i < n; i++)
        if (r[i].len) t->e[k++] = r[i];
    qsort(t->e, t->n, sizeof t->e[0], cmp);
    for (size_t i = 1; i < t->n; i++) {
        const struct rma_region *a = &t->e[i - 1], *b = &t->e[i];
        if (a->rank == b->rank && b->lo - a->lo < a->len) {
            sm_fail(SM_ERR_ARG, "region %#lx + %zu bytes of rank %d overlaps region %#lx + %zu bytes",
                    (unsigned long)b->lo, b->len, b->rank, (unsigned long)a->lo, a->len);
            table_free(t);
            return SM_ERR_ARG;
        }
    }
    return publish(s, t);
}

sm_status_t rma_regions_remove(struct rma_regions *s, const void *data, size_t *removed)
{
    struct rma_region_table *cur = atomic_load_explicit(&s->cur, memory_order_relaxed);
    size_t keep = 0;
    for (size_t i = 0; i < cur->n; i++) keep += cur->e[i].data != data;
    *removed = cur->n - keep;
    if (keep == cur->n) return SM_OK;
    struct rma_region_table *t = table_new(keep);
    if (!t) return sm_fail(SM_ERR_NOMEM, "no memory for the table of regions");
    for (size_t i = 0, k = 0; i < cur->n; i++)
        if (cur->e[i].data != data) t->e[k++] = cur->e[i];
    return publish(s, t);
}

/* The index of the last region at or before (rank, a) in t, or -1. */
static ptrdiff_t search(const struct rma_region_table *t, int rank, uintptr_t a)
{
    size_t lo = 0, hi = t->n;   /* the answer is below hi: e[hi-1] is the last at or before */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (before(&t->e[mid], rank, a + 1)) lo = mid + 1;
        else hi = mid;
    }
    return (ptrdiff_t)lo - 1;
}

const struct rma_region *rma_regions_find_slow(struct rma_regions *s, int rank, const void *addr, size_t len)
{
    struct rma_region_table *t = atomic_load_explicit(&s->cur, memory_order_acquire);
    uintptr_t a = (uintptr_t)addr;
    if (len == 0 || (ptrdiff_t)len < 0) {
        sm_fail(SM_ERR_ARG, "length %td is not positive", (ptrdiff_t)len);
        return NULL;
    }
    ptrdiff_t i = search(t, rank, a);
    if (i >= 0 && t->e[i].rank == rank && a - t->e[i].lo < t->e[i].len) {
        const struct rma_region *e = &t->e[i];
        if (len <= e->len - (a - e->lo)) {
            atomic_store_explicit(&t->last, (size_t)i, memory_order_relaxed);
            return e;
        }
        sm_fail(SM_ERR_ACCESS, "address %p + %zu bytes extends beyond its %s (%zu bytes from %#lx) on rank %d",
                addr, len, s->what, e->len, (unsigned long)e->lo, rank);
        return NULL;
    }
    /* Another rank's region? (regions of different ranks may share addresses,
     * so this names one of them: the error path may scan) */
    for (size_t k = 0; k < t->n; k++)
        if (t->e[k].rank != rank && a - t->e[k].lo < t->e[k].len) {
            sm_fail(SM_ERR_ACCESS, "address %p is %s on rank %d, not on rank %d", addr, s->what, t->e[k].rank, rank);
            return NULL;
        }
    sm_fail(SM_ERR_ACCESS, "address %p is not %s on rank %d", addr, s->what, rank);
    return NULL;
}
