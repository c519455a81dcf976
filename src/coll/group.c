/* group.c: groups and their numbers. A new group takes the lowest number
 * that no rank taking part in its creation is using: every member then
 * finds the group's state at that number in every other member's area, and
 * no live group of any member is there. A member marks the number in its
 * own published set (coll_area.used) and frees it at destroy, so numbers
 * are taken again: a program may create and free groups without end. What
 * an earlier group left at the number (records, progress) is never cleared:
 * the new group's sequence numbers start past the creators' progress. */
#include <stdlib.h>
#include <string.h>

#include "coll_internal.h"

#define USED_WORDS (COLL_GROUPS_MAX / 64)

int coll_group_index(const struct coll_group *g, int rank)
{
    const struct sm_group *m = &g->m;
    if (m->ranks) {
        for (int i = 0; i < m->size; i++)
            if (m->ranks[i] == rank) return i;
        return -1;
    }
    int d = rank - m->start;
    if (m->stride == 0) return d == 0 && m->size > 0 ? 0 : -1;
    return d % m->stride == 0 && d / m->stride >= 0 && d / m->stride < m->size ? d / m->stride : -1;
}

/* The last collective job rank r has finished on the group at number num
 * (any group that had the number). */
static uint32_t progress_at(int r, int num)
{
    return atomic_load_explicit(&coll_area_of(r)->slot[num].progress, memory_order_acquire);
}

/* g as a member (or not) of the group at num whose sequence starts at base. */
static sm_status_t set_group(struct coll_group *g, const struct sm_group *m, int num, uint32_t base)
{
    bool member = m && m->me >= 0 && num >= 0;
    *g = (struct coll_group){ .num = -1, .aset = -1 };
    if (m) g->m = *m;
    if (!member) return SM_OK;
    if (m->size > 1 && !(g->seen = malloc(sizeof *g->seen * (size_t)m->size)))
        return sm_fail(SM_ERR_NOMEM, "no memory for a group of %d", m->size);
    for (int i = 0; i < m->size && g->seen; i++) g->seen[i] = base - 1;   /* nothing of this group to finish */
    g->num = num;
    g->seq = g->last_pub[0] = g->last_pub[1] = base - 1;
    g->last_readers[0] = g->last_readers[1] = m->me;   /* nobody */
    uint64_t *w = &coll_area_of(sm_core.rank)->used[num / 64];
    __atomic_store_n(w, *w | 1ULL << (num % 64), __ATOMIC_RELAXED);   /* only this rank writes its set */
    return SM_OK;
}

/* The lowest number whose bit is clear in every word(w) of the creators' union. */
static int lowest_free(uint64_t (*word)(int w, const void *arg), const void *arg)
{
    for (int w = 0; w < USED_WORDS; w++) {
        uint64_t used = word(w, arg);
        if (~used) return w * 64 + __builtin_ctzll(~used);
    }
    return -1;
}

/* Word w of the union of the used sets of the ranks of `over`. */
static uint64_t union_word(int w, const void *arg)
{
    const struct sm_group *over = arg;
    uint64_t u = 0;
    for (int i = 0; i < over->size; i++)
        u |= __atomic_load_n(&coll_area_of(sm_group_rank(over, i))->used[w], __ATOMIC_RELAXED);
    return u;
}

static sm_status_t creators_sync(const struct coll_group *parent)
{
    if (parent) return coll_barrier((struct coll_group *)parent);
    sm_barrier();
    return SM_OK;
}

sm_status_t coll_group_create(struct coll_group *g, const struct sm_group *m, const struct coll_group *parent)
{
    struct sm_group job = { sm_core.size, sm_core.rank, 0, 1, NULL };
    const struct sm_group *over = parent ? &parent->m : &job;
    sm_status_t st;
    /* Every creator's set is current (it has finished its earlier creations) ... */
    if (over->size > 1 && (st = creators_sync(parent))) return st;
    int num = lowest_free(union_word, over);
    uint32_t base = 0;
    for (int i = 0; i < over->size && num >= 0; i++) {
        uint32_t p = progress_at(sm_group_rank(over, i), num);
        if (p > base) base = p;     /* (a number wraps after 2^32 collectives on it) */
    }
    /* ... and all have read the sets before any marks the new number. */
    if (over->size > 1 && (st = creators_sync(parent))) return st;
    if (num < 0) {
        set_group(g, m, -1, 0);
        return sm_fail(SM_ERR_NOMEM, "more than %d communicators or teams at once", COLL_GROUPS_MAX);
    }
    return set_group(g, m, num, base + 1);
}

static uint64_t copied_word(int w, const void *arg) { return ((const uint64_t *)arg)[w]; }

sm_status_t coll_group_create_p2p(struct coll_group *g, const struct sm_group *m, const struct p2p_comm *over)
{
    uint64_t mine[USED_WORDS], all[USED_WORDS];
    for (int w = 0; w < USED_WORDS; w++)
        mine[w] = __atomic_load_n(&coll_area_of(sm_core.rank)->used[w], __ATOMIC_RELAXED);
    /* Each rank contributes its set before it can learn the result, so no
     * mark of this creation is in any set that is combined. */
    struct coll_fn bor, max;
    coll_fn_predefined(&bor, COLL_UINT64, COLL_BOR);
    coll_fn_predefined(&max, COLL_UINT32, COLL_MAX);
    sm_status_t st = coll_p2p_allreduce(mine, all, USED_WORDS, &bor, over);
    if (st) return st;
    int num = lowest_free(copied_word, all);
    if (num < 0) {
        set_group(g, m, -1, 0);
        return sm_fail(SM_ERR_NOMEM, "more than %d communicators or teams at once", COLL_GROUPS_MAX);
    }
    uint32_t p = progress_at(sm_core.rank, num), base;
    if ((st = coll_p2p_allreduce(&p, &base, 1, &max, over))) return st;
    return set_group(g, m, num, base + 1);
}

/* Peers may still read this member's last records (or wait for its
 * progress, which stays): once they have finished what it has, nothing of
 * this group is read again, and the number may serve another. */
void coll_group_destroy(struct coll_group *g)
{
    if (g->num < 0) return;
    coll_wait_finished(g, g->seq, -1);
    free(g->seen);
    free(g->bounce);
    g->seen = NULL, g->bounce = NULL;
    uint64_t *w = &coll_area_of(sm_core.rank)->used[g->num / 64];
    __atomic_store_n(w, *w & ~(1ULL << (g->num % 64)), __ATOMIC_RELEASE);
    g->num = -1;
}

void coll_group_aset(struct coll_group *g, int start, int logstride, int size)
{
    *g = (struct coll_group){ .m = { size, -1, start, 1 << logstride, NULL }, .num = COLL_NUM_ASET,
                              .aset = logstride * (SM_NMAX + 1) + size };
    g->m.me = coll_group_index(g, sm_core.rank);
}
