/* group.c: groups and their numbers. A new group takes the lowest number
 * that no rank taking part in its creation is using: every member then
 * finds the group's state at that number in every other member's area, and
 * no live group of any member is there. A member marks the number in its
 * own published set (coll_area.used) and frees it when the group is
 * destroyed and its peers are done with its records, so numbers are taken
 * again: a program may create and free groups without end. What an earlier
 * group left at the number (records, progress) is never cleared: the new
 * group's sequence numbers start past the creators' progress.
 *
 * Over a parent group, creation is one collective (so MPI_Comm_idup is
 * nonblocking): in rounds, every creator publishes its used set (with the
 * numbers its other creations in flight have reserved), all take the lowest
 * number free in the union, each reserves it locally and votes whether it
 * could; a round that all approve makes the group, else all release and try
 * again with the sets as they are now. */
#include <stdlib.h>
#include <string.h>

#include "coll_internal.h"

#define USED_WORDS (COLL_GROUPS_MAX / 64)

/* Numbers this process's creations in flight hold (set atomically: two
 * threads may create teams at once). */
static uint64_t reserved[USED_WORDS];

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

static uint64_t *used_word(int num) { return &coll_area_of(sm_core.rank)->used[num / 64]; }
static void mark(int num, bool on)
{
    uint64_t *w = used_word(num), bit = 1ULL << (num % 64);
    if (on) __atomic_fetch_or(w, bit, __ATOMIC_RELEASE);   /* only this rank writes its set */
    else __atomic_fetch_and(w, ~bit, __ATOMIC_RELEASE);
}

/* This rank's set as it contributes it: used or reserved. */
static void my_set(uint64_t *set)
{
    for (int w = 0; w < USED_WORDS; w++)
        set[w] = __atomic_load_n(&coll_area_of(sm_core.rank)->used[w], __ATOMIC_ACQUIRE) |
                 __atomic_load_n(&reserved[w], __ATOMIC_ACQUIRE);
}

/* Reserve num for a creation: false if it is used or reserved here already. */
static bool reserve(int num)
{
    uint64_t bit = 1ULL << (num % 64);
    if (__atomic_load_n(used_word(num), __ATOMIC_ACQUIRE) & bit) return false;
    return !(__atomic_fetch_or(&reserved[num / 64], bit, __ATOMIC_ACQ_REL) & bit);
}
static void unreserve(int num) { __atomic_fetch_and(&reserved[num / 64], ~(1ULL << (num % 64)), __ATOMIC_RELEASE); }

static int lowest_free(const uint64_t *set)
{
    for (int w = 0; w < USED_WORDS; w++)
        if (~set[w]) return w * 64 + __builtin_ctzll(~set[w]);
    return -1;
}

/* The number a creation tries in a round: the lowest free one first; after
 * a round some creator could not reserve (another creation in its process
 * holds the number), the first free one from a place that this creation's
 * identity (the same for all its creators) and the round choose. Two
 * creations that took the lowest number in turn on different ranks would
 * otherwise both fail again, round after round (seen with threads
 * creating communicators at once). */
static int round_free(const uint64_t *set, uint64_t id, int round)
{
    if (round == 0) return lowest_free(set);
    uint64_t h = (id + (uint64_t)round) * 0x9e3779b97f4a7c15ULL;
    int start = (int)((h >> 32) % COLL_GROUPS_MAX);
    for (int k = 0; k < COLL_GROUPS_MAX; k++) {
        int num = (start + k) % COLL_GROUPS_MAX;
        if (!(set[num / 64] >> (num % 64) & 1)) return num;
    }
    return -1;
}

/* g as a member (or not) of the group at num whose sequence starts at base. */
static sm_status_t set_group(struct coll_group *g, const struct sm_group *m, int num, uint32_t base)
{
    bool member = m && m->me >= 0 && num >= 0;
    *g = (struct coll_group){ .num = -1, .aset = -1 };
    if (m) g->m = *m;
    if (!member) return SM_OK;
    /* progress, then checked, then pend_sig, then slots (8-byte aligned:
     * 2 * size + COLL_RECS words before them) */
    _Static_assert(COLL_RECS % 2 == 0, "slots after an even number of words");
    size_t words = 2 * (size_t)m->size + COLL_RECS;
    if (!(g->seen = malloc(sizeof *g->seen * words + sizeof *g->slots * (size_t)m->size)))
        return sm_fail(SM_ERR_NOMEM, "no memory for a group of %d", m->size);
    g->pend_sig = g->seen + 2 * m->size;
    g->slots = (struct coll_slot **)(void *)(g->seen + words);
    for (int i = 0; i < m->size; i++) g->slots[i] = &coll_area_of(sm_group_rank(m, i))->slot[num];
    for (int i = 0; i < 2 * m->size; i++) g->seen[i] = base - 1;   /* nothing of this group to finish */
    g->num = num;
    g->seq = g->pub = g->progress = g->checked = g->all_checked = base - 1;
    mark(num, true);
    return SM_OK;
}

/* --- Over point-to-point ----------------------------------------------------------------
 * Every rank of over takes part: the union of their sets gives the lowest
 * free number, and a second round says whether each could reserve it. For
 * MPI_Comm_create_group (over: the new members), and for every group whose
 * creators span nodes (over: the job, or the parent's own communicator), which
 * then runs its collectives over point-to-point (span.c). */
static sm_status_t create_over(struct coll_group *g, const struct sm_group *m, const struct p2p_comm *over)
{
    uint64_t mine[USED_WORDS], all[USED_WORDS];
    struct coll_fn bor, max;
    coll_fn_predefined(&bor, COLL_UINT64, COLL_BOR);
    coll_fn_predefined(&max, COLL_UINT32, COLL_MAX);
    for (int round = 0;; round++) {
        my_set(mine);
        sm_status_t st = coll_p2p_allreduce(mine, all, USED_WORDS, &bor, over);
        if (st) return st;
        int num = round_free(all, (uint64_t)over->ctx << 32 | (uint32_t)over->coll_tag, round);
        if (num < 0) {
            set_group(g, m, -1, 0);
            return sm_fail(SM_ERR_NOMEM, "more than %d communicators or teams at once", COLL_GROUPS_MAX);
        }
        bool held = reserve(num);
        uint32_t v[2] = { !held, progress_at(sm_core.rank, num) }, r[2];
        st = coll_p2p_allreduce(v, r, 2, &max, over);
        if (!st && !r[0]) st = set_group(g, m, num, r[1] + 1);
        /* Only now (marked): released first, another thread's creation
         * here could take the number too, and two groups share a context. */
        if (held) unreserve(num);
        if (st || r[0]) {
            if (st) return st;
            continue;
        }
        if (g->num < 0 || !coll_spans(m)) return SM_OK;
        if ((st = coll_span_attach(g))) coll_group_destroy(g);
        return st;
    }
}

/* --- Over the whole job (start-up: nothing else in flight) ------------------------ */
static sm_status_t create_job(struct coll_group *g, const struct sm_group *m)
{
    if (SM_UNLIKELY(coll_spans(m))) {
        /* A program without MPI (OpenSHMEM) starts the point-to-point
         * engine here: groups spanning nodes run over it. */
        sm_status_t st = p2p_started() ? SM_OK : p2p_init(P2P_REQ_SIZE_ANY);
        if (st) return st;
        /* A rank waiting in any collective, its node's too, runs UCX: peers'
         * puts and atomics to it over TCP are carried out by its worker (a
         * node barrier that slept without it left the other node's quiet
         * waiting for ever: test_amo on 2x4). */
        coll_poll_p2p(true);
        return create_over(g, m, coll_span_job());
    }
    uint64_t all[USED_WORDS] = { 0 };
    /* Every rank's set is current (it has finished its earlier creations) ... */
    sm_barrier();
    int lo = sm_core.world_base, hi = lo + sm_core.world_size;     /* the caller's world */
    for (int r = lo; r < hi; r++)
        for (int w = 0; w < USED_WORDS; w++) all[w] |= __atomic_load_n(&coll_area_of(r)->used[w], __ATOMIC_ACQUIRE);
    int num = lowest_free(all);
    uint32_t base = 0;
    for (int r = lo; r < hi && num >= 0; r++) {
        uint32_t p = progress_at(r, num);
        if (p > base) base = p;     /* (a number wraps after 2^32 collectives on it) */
    }
    /* ... and all have read the sets before any marks the new number. */
    sm_barrier();
    if (num < 0) {
        set_group(g, m, -1, 0);
        return sm_fail(SM_ERR_NOMEM, "more than %d communicators or teams at once", COLL_GROUPS_MAX);
    }
    return set_group(g, m, num, base + 1);
}

/* --- Over a parent group: one collective ------------------------------------------
 * Record words: aux, the global address of the creator's set; claim, the
 * round whose set is there (+1); vote, (round + 1) << 40 | ok << 32 |
 * its progress at the candidate number. */
struct create {
    struct coll_op op;
    struct coll_args args;
    struct coll_group *g;
    struct sm_group m;
    uint64_t set[USED_WORDS], all[USED_WORDS];
    int round, num;
    bool held;                          /* this rank reserved num */
    uint32_t base;
    bool ok;
};

static sm_status_t create_prepare(struct coll_op *o, struct coll_rec *mine)
{
    struct create *c = o->kctx;
    mine->aux = (uint64_t)(uintptr_t)coll_global(c->set);
    return mine->aux ? SM_OK : sm_fail(SM_ERR_INTERN, "a creation's state is not in exposed memory");
}

static bool create_body(struct coll_op *o)
{
    struct create *c = o->kctx;
    struct coll_rec *mine = coll_rec_of(o->g, o->me, o->seq);
    CO_BEGIN(o->bpc);
    for (;;) {
        my_set(c->set);
        atomic_store_explicit(&mine->claim, (uint32_t)c->round + 1, memory_order_release);
        coll_wake_all(o->g);
        for (o->i = 0; o->i < o->n; o->i++) {
            CO_WAIT(o->bpc, coll_await(o, o->i) &&
                    atomic_load_explicit(&coll_rec_of(o->g, o->i, o->seq)->claim, memory_order_acquire) ==
                        (uint32_t)c->round + 1);
            struct coll_rec *p = coll_rec_of(o->g, o->i, o->seq);
            if (o->i != o->me && !coll_check(o, o->i, p, false)) return true;
            const uint64_t *s = (const uint64_t *)(uintptr_t)p->aux;
            for (int w = 0; w < USED_WORDS; w++) c->all[w] = (o->i ? c->all[w] : 0) | s[w];
        }
        c->num = round_free(c->all, (uint64_t)o->g->num << 32 | o->seq, c->round);
        if (c->num < 0) {
            coll_fail(o, sm_fail(SM_ERR_NOMEM, "more than %d communicators or teams at once", COLL_GROUPS_MAX));
            return true;                /* every creator sees the same union */
        }
        c->held = reserve(c->num);
        atomic_store_explicit(&mine->vote,
                              ((uint64_t)c->round + 1) << 40 | (uint64_t)c->held << 32 | progress_at(sm_core.rank, c->num),
                              memory_order_release);
        coll_wake_all(o->g);
        c->ok = true, c->base = 0;
        for (o->i = 0; o->i < o->n; o->i++) {
            CO_WAIT(o->bpc, atomic_load_explicit(&coll_rec_of(o->g, o->i, o->seq)->vote, memory_order_acquire) >> 40 ==
                                (uint64_t)c->round + 1);
            uint64_t v = atomic_load_explicit(&coll_rec_of(o->g, o->i, o->seq)->vote, memory_order_acquire);
            c->ok &= (v >> 32 & 1) != 0;
            if ((uint32_t)v > c->base) c->base = (uint32_t)v;
        }
        if (c->ok) return true;
        if (c->held) unreserve(c->num), c->held = false;
        c->round++;
    }
    CO_END(o->bpc);
}

static void create_finish(struct coll_op *o)
{
    struct create *c = o->kctx;
    sm_status_t st = set_group(c->g, &c->m, c->num, c->base + 1);
    if (st) coll_fail(o, st);
}

/* Runs last in every case: the reservation goes (the group's mark took over). */
static void create_release(struct create *c)
{
    if (c->held) unreserve(c->num);
    c->held = false;
}

static struct create *create_new(struct coll_group *g, const struct sm_group *m, struct coll_group *parent,
                                 sm_status_t *st)
{
    struct create *c = calloc(1, sizeof *c);
    if (!c) {
        *st = sm_fail(SM_ERR_NOMEM, "no memory to create a group");
        return NULL;
    }
    c->args = (struct coll_args){ .kind = COLL_KIND_CREATE };
    if ((*st = coll_op_init(&c->op, parent, &c->args))) {
        free(c);
        return NULL;
    }
    c->g = g;
    if (m) c->m = *m;
    else c->m = (struct sm_group){ 0, -1, 0, 1, NULL };
    c->op.kctx = c;
    c->op.finish = create_finish;
    *g = (struct coll_group){ .m = c->m, .num = -1, .aset = -1 };
    return c;
}

sm_status_t coll_group_create(struct coll_group *g, const struct sm_group *m, const struct coll_group *parent)
{
    if (!parent) return create_job(g, m);
    if (SM_UNLIKELY(parent->net != NULL)) return create_over(g, m, parent->net);
    sm_status_t st;
    struct create *c = create_new(g, m, (struct coll_group *)parent, &st);
    if (!c) return st;
    st = coll_launch(&c->op, true);
    create_release(c);
    if (st && g->num >= 0) coll_group_destroy(g);
    if (st) set_group(g, m, -1, 0);
    free(c);
    return st;
}

/* A nonblocking creation: its op is the first member of struct create. */
struct icreate { coll_done_fn done; void *ctx; };
static void icreate_done(void *arg, sm_status_t st, const char *why)
{
    struct create *c = arg;
    struct icreate *ic = (struct icreate *)(c + 1);
    create_release(c);
    if (st) set_group(c->g, &c->m, -1, 0);
    ic->done(ic->ctx, st, why);
    /* c itself is freed by the engine (it is the op) */
}

sm_status_t coll_group_icreate(struct coll_group *g, const struct sm_group *m, struct coll_group *parent,
                               coll_done_fn done, void *ctx)
{
    sm_status_t st;
    if (SM_UNLIKELY(parent->net != NULL)) {    /* across nodes: made before it returns */
        st = create_over(g, m, parent->net);
        done(ctx, st, st ? sm_fail_reason() : "");
        return SM_OK;
    }
    struct create *c = create_new(g, m, parent, &st);
    if (!c) return st;
    struct create *big = realloc(c, sizeof *c + sizeof(struct icreate));
    if (!big) {
        free(c);
        return sm_fail(SM_ERR_NOMEM, "no memory to create a group");
    }
    c = big;
    c->op.kctx = c;
    c->op.a = &c->args;
    *(struct icreate *)(c + 1) = (struct icreate){ done, ctx };
    c->op.done = icreate_done, c->op.ctx = c;
    return coll_launch(&c->op, false);
}

/* --- Over point-to-point (the new members only) ------------------------------------ */
sm_status_t coll_group_create_p2p(struct coll_group *g, const struct sm_group *m, const struct p2p_comm *over)
{
    return create_over(g, m, over);
}

/* --- Destruction ----------------------------------------------------------------------
 * Peers may still read this member's last records and bounce buffer: once
 * they have finished what it has (which they do without it), nothing of
 * the group is read again, and the number may serve another. Nothing
 * waits for checks deferred (sched.c): this member's are dropped with a
 * failure not yet reported (no collective is left to report them), and a
 * peer's check of this member's record that a new group at the number has
 * rewritten sees the newer tag and is dropped too (waiting for the peers'
 * checked words here could wait for ever on one that runs no collective). */
static bool peers_done(void *arg)
{
    struct coll_group *g = arg;
    for (int i = 0; i < g->m.size; i++)
        if (i != g->m.me && !coll_finished(g, i, g->seq)) return false;
    return true;
}

void coll_group_destroy(struct coll_group *g)
{
    if (g->num < 0) return;
    if (SM_UNLIKELY(g->net != NULL)) {     /* nothing of it in the areas: nobody to wait for */
        coll_hier_free(g);
        free(g->net), free(g->seen), free(g->late_why);
        g->late_why = NULL;
        mark(g->num, false);
        g->net = NULL, g->seen = NULL, g->slots = NULL, g->num = -1;
        return;
    }
    if (!peers_done(g)) coll_wait(peers_done, g);
    free(g->seen);
    free(g->bounce);
    free(g->late_why);
    g->late_why = NULL, g->late_st = SM_OK, g->pend = 0;
    mark(g->num, false);
    g->seen = NULL, g->slots = NULL, g->bounce = NULL, g->num = -1;
}

void coll_group_aset(struct coll_group *g, int start, int logstride, int size)
{
    *g = (struct coll_group){ .m = { size, -1, start, 1 << logstride, NULL }, .num = COLL_NUM_ASET,
                              .aset = logstride * (SM_NMAX + 1) + size };
    g->m.me = coll_group_index(g, sm_core.rank);
}

bool coll_aset_spans(const struct coll_group *g) { return coll_spans(&g->m); }

/* Made over a communicator of the set's members on a context of the set's
 * own (no other set's, no group's: P2P_CTX_COLL_ASET and the set), as
 * MPI_Comm_create_group's groups are. */
sm_status_t coll_group_aset_span(struct coll_group *g, int start, int logstride, int size)
{
    if (start < 0 || start >= SM_NMAX || logstride < 0 || logstride > 15 || size < 1 || size > SM_NMAX)
        return sm_fail(SM_ERR_ARG, "active set PE_start %d, logPE_stride %d, PE_size %d", start, logstride, size);
    struct coll_group set;
    coll_group_aset(&set, start, logstride, size);
    if (set.m.me < 0) return sm_fail(SM_ERR_ARG, "this rank is not in the active set");
    int *w = malloc(sizeof *w * (size_t)size);
    if (!w) return sm_fail(SM_ERR_NOMEM, "no memory for an active set of %d", size);
    for (int i = 0; i < size; i++) w[i] = sm_group_rank(&set.m, i);
    struct p2p_comm over = { P2P_CTX_COLL | P2P_CTX_COLL_ASET | (uint32_t)logstride << 16 | (uint32_t)start << 8 |
                             (uint32_t)(size - 1), set.m.me, size, w, 0 };
    sm_status_t st = p2p_started() ? SM_OK : p2p_init(P2P_REQ_SIZE_ANY);
    if (!st) st = create_over(g, &set.m, &over);
    free(w);
    return st;
}

const struct coll_kind_ops coll_create_ops = { "a group creation", create_prepare, create_body };
