/* inplace.c: the SMARTMAP collectives (DESIGN.md §4, seed 000 §3.3-3.7):
 * members publish their buffers in their records (coll_internal.h), peers
 * copy and reduce straight between user buffers, and say in their progress
 * words when they are done. Broadcast: readers copy from the root (which
 * takes a share of large copies). Allgather, collect, alltoall(s): each
 * member pulls its blocks from every peer. Reduce and allreduce: small
 * vectors serially (the root, or every member, combines all sources); large
 * ones sliced: each member combines its slice of every source and writes it
 * straight into the destination(s). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_internal.h"

/* --- Published buffers ------------------------------------------------------------
 * The global address of the buffer, or, for memory peers cannot reach
 * directly (a private mapping, another thread's stack), COLL_PRIVATE | the
 * owner's own address, which the copy engine reaches (sm_get/sm_put). */
#define COLL_PRIVATE (1ULL << 63)

static uint64_t pub(const void *p, size_t len)
{
    uint64_t off = sm_local_offset((uintptr_t)p);
    if (off != UINT64_MAX && (len == 0 || sm_local_offset((uintptr_t)p + len - 1) == off + len - 1))
        return sm_slot_base(sm_core.rank) + off;
    return COLL_PRIVATE | (uintptr_t)p;
}

static __attribute__((noinline)) sm_status_t private_copy(int rank, bool write, char *remote, void *local, size_t len)
{
    int rc;
    if (rank == sm_core.rank) {
        memcpy(write ? (void *)remote : local, write ? local : (void *)remote, len);
        return SM_OK;
    }
    rc = write ? sm_put(rank, remote, local, len) : sm_get(rank, local, remote, len);
    return rc ? sm_fail(rc, "rank %d's buffer at %p (%zu bytes) cannot be %s", rank, (void *)remote, len,
                        write ? "written" : "read") : SM_OK;
}

/* Copy len bytes at off of job rank's published buffer p into dst / from src. */
static inline sm_status_t pull(int rank, uint64_t p, size_t off, void *dst, size_t len)
{
    if (SM_UNLIKELY(p & COLL_PRIVATE)) return len ? private_copy(rank, false, (char *)(uintptr_t)(p & ~COLL_PRIVATE) + off, dst, len) : SM_OK;
    memcpy(dst, (const char *)(uintptr_t)p + off, len);
    return SM_OK;
}
static inline sm_status_t push(int rank, uint64_t p, size_t off, const void *src, size_t len)
{
    if (SM_UNLIKELY(p & COLL_PRIVATE)) return len ? private_copy(rank, true, (char *)(uintptr_t)(p & ~COLL_PRIVATE) + off, (void *)src, len) : SM_OK;
    memcpy((char *)(uintptr_t)p + off, src, len);
    return SM_OK;
}
/* The bytes themselves where they can be read in place, else a copy in scratch. */
static inline const void *view(int rank, uint64_t p, size_t off, size_t len, void *scratch, sm_status_t *st)
{
    if (SM_LIKELY(!(p & COLL_PRIVATE)) || rank == sm_core.rank) return (const char *)(uintptr_t)(p & ~COLL_PRIVATE) + off;
    sm_status_t s = pull(rank, p, off, scratch, len);
    if (s && !*st) *st = s;
    return scratch;
}

/* --- One collective in progress -------------------------------------------------------- */
enum kind { K_BCAST = 1, K_ALLGATHER, K_COLLECT, K_ALLTOALL, K_REDUCE };
static const char *const kind_name[] = { "", "a broadcast", "an allgather", "a collect", "an alltoall", "a reduction" };
/* What every member must agree on: kind, root (+1: COLL_ALL is 0), and for reductions type and op. */
#define SIG(kind, root, t, op) ((uint32_t)(kind) << 24 | (uint32_t)((root) + 1) << 12 | (uint32_t)(t) << 6 | (uint32_t)(op))

struct run {
    struct coll_group *g;
    uint32_t seq, sig;
    int n, me;
    int readers;                /* who reads this member's record and buffers: COLL_ALL, or one member */
    bool published;             /* peers may use this member's buffers ... */
    bool lazy;                  /* ... or only its record, where its contribution travels */
};

static inline bool aset(const struct coll_group *g) { return g->num < 0; }
static inline struct coll_slot *slot_of(const struct coll_group *g, int i)
{
    return &coll_area_of(sm_group_rank(&g->m, i))->slot[g->num];
}
/* Member i's record for collective seq. */
static inline struct coll_rec *rec_of(const struct coll_group *g, int i, uint32_t seq)
{
    return aset(g) ? &coll_area_of(sm_group_rank(&g->m, i))->aset_rec : &slot_of(g, i)->rec[seq & 1];
}

static uint64_t barrier_off(const struct coll_group *g)
{
    struct coll_area *a = coll_area_of(0);     /* the same offset in every slot */
    void *cell = aset(g) ? (void *)&a->aset_bar[g->aset] : (void *)&a->slot[g->num].bar;
    return (uintptr_t)cell - sm_slot_base(0);
}

/* Has member i finished collective seq? What this member saw tells it
 * often (i published a later record); else i's progress word does.
 * coll_wait_finished: every member (only < 0), or just one (this member:
 * none). */
static void wait_finished(struct coll_group *g, int i, uint32_t seq)
{
    if ((int32_t)(g->seen[i] - seq) >= 0) return;
    _Atomic uint32_t *p = &slot_of(g, i)->progress;
    uint32_t v;
    while ((int32_t)((v = atomic_load_explicit(p, memory_order_acquire)) - seq) < 0)
        sm_wait_word((volatile uint32_t *)p, v);
    g->seen[i] = v;
}
void coll_wait_finished(struct coll_group *g, uint32_t seq, int only)
{
    for (int i = 0; i < g->m.size; i++)
        if (i != g->m.me && (only < 0 || i == only)) wait_finished(g, i, seq);
}

/* The sequence number of g's next collective. */
static inline uint32_t next_seq(const struct coll_group *g) { return g->seq + 1 ? g->seq + 1 : 1; }

/* Where a contribution of span bytes to collective seq travels when its
 * member does not wait for its readers: the record, the bounce buffer
 * (allocated on first use), or nowhere (NULL: peers read it in place). */
static void *carrier(struct coll_group *g, uint32_t seq, size_t span)
{
    if (aset(g) || span > COLL_BOUNCE) return NULL;
    if (span <= COLL_INLINE) return rec_of(g, g->m.me, seq)->data;
    if (!g->bounce) {
        void *b = malloc(2 * COLL_BOUNCE);
        if (!b || pub(b, 2 * COLL_BOUNCE) & COLL_PRIVATE) {   /* peers could not read it */
            free(b);
            return NULL;
        }
        g->bounce = b;
    }
    return (char *)g->bounce + (seq & 1) * COLL_BOUNCE;
}

/* Start a collective: a new sequence number; publish this member's record
 * (if peers are to read it) and stamp it. The record is the one this member
 * wrote two collectives ago (and the bounce buffer half): its readers then
 * must have finished with it. The contribution (span bytes at src) travels
 * in the record or the bounce buffer when it fits: then this member returns
 * without waiting for its readers at all. readers: who will read them (every
 * member, COLL_ALL, or one). An active set has no sequence and one record:
 * every member publishes, then a barrier makes all records current (and
 * another ends the call). */
static void begin(struct run *r, struct coll_group *g, uint32_t sig, bool publish, uint64_t len, const void *src,
                  size_t span, uint64_t dst, int readers)
{
    *r = (struct run){ g, 0, sig, g->m.size, g->m.me, readers, publish || aset(g), false };
    if (!aset(g)) r->seq = g->seq = next_seq(g);   /* never 0: a record never written */
    if (!publish && !aset(g)) return;
    struct coll_rec *m = rec_of(g, g->m.me, r->seq);
    int k = r->seq & 1;
    if (!aset(g)) coll_wait_finished(g, g->last_pub[k], g->last_readers[k]);
    void *copy = carrier(g, r->seq, span);
    r->lazy = copy != NULL;
    if (copy && span) memcpy(copy, src, span);
    m->sig = sig, m->len = len, m->dst = dst;
    m->src = pub(copy ? copy : src, span);
    if (aset(g)) {
        sm_barrier_run(&g->m, barrier_off(g), true);
        return;
    }
    g->last_pub[k] = r->seq, g->last_readers[k] = readers;
    atomic_store_explicit(&m->stamp, r->seq, memory_order_release);
    sm_wake_word((volatile uint32_t *)&m->stamp);
}

/* Member i's record, once it is published for this collective (which says
 * that i has finished the collective before); NULL if i has gone on past
 * it, which it does only when it did not count this member among its
 * readers: the members disagree on the collective (its kind or root). */
static struct coll_rec *await(const struct run *r, int i)
{
    struct coll_rec *p = rec_of(r->g, i, r->seq);
    if (!aset(r->g)) {
        uint32_t v;
        while ((v = atomic_load_explicit(&p->stamp, memory_order_acquire)) != r->seq) {
            if ((int32_t)(v - r->seq) > 0) return NULL;
            sm_wait_word((volatile uint32_t *)&p->stamp, v);
        }
        if ((int32_t)(r->g->seen[i] - (r->seq - 1)) < 0) r->g->seen[i] = r->seq - 1;
    }
    return p;
}

/* The end of a collective: this member has finished with every peer's
 * record and buffers (it says so first, so that members waiting for each
 * other cannot wait forever); then, unless its contribution travelled in
 * its record, it waits for those who use its buffers. After an error it
 * waits anyway: its buffers were published. An active set ends with a
 * barrier. */
static sm_status_t finish(const struct run *r, sm_status_t st)
{
    struct coll_group *g = r->g;
    if (aset(g)) {
        sm_barrier_run(&g->m, barrier_off(g), true);
        return st;
    }
    _Atomic uint32_t *p = &slot_of(g, r->me)->progress;
    atomic_store_explicit(p, r->seq, memory_order_release);
    sm_wake_word((volatile uint32_t *)p);
    if (r->published && (!r->lazy || st)) coll_wait_finished(g, r->seq, r->readers);
    return st;
}

static int describe(char *buf, size_t cap, uint32_t sig, uint64_t len)
{
    unsigned kind = sig >> 24, root = (sig >> 12 & 0xfff), t = sig >> 6 & 63, op = sig & 63;
    int w = snprintf(buf, cap, "%s of %llu bytes", kind < sizeof kind_name / sizeof *kind_name ? kind_name[kind] : "?",
                     (unsigned long long)len);
    if (kind == K_REDUCE && w >= 0 && (size_t)w < cap)
        w += snprintf(buf + w, cap - (size_t)w, " (%s on %s)", coll_redop_name(op), coll_dtype_name(t));
    if (root && w >= 0 && (size_t)w < cap) w += snprintf(buf + w, cap - (size_t)w, " with root %u", root - 1);
    return w;
}

/* The reason when member i's record disagrees with this member's call. */
static __attribute__((noinline)) sm_status_t mismatch(const struct run *r, int i, const struct coll_rec *p, uint64_t len)
{
    char theirs[128], mine[128];
    describe(theirs, sizeof theirs, p->sig, p->len);
    describe(mine, sizeof mine, r->sig, len);
    return sm_fail(SM_ERR_MISMATCH, "member %d of the group (rank %d) called %s, this member (%d) %s", i,
                   sm_group_rank(&r->g->m, i), theirs, r->me, mine);
}
static __attribute__((noinline)) sm_status_t gone(const struct run *r, int i)
{
    return sm_fail(SM_ERR_MISMATCH, "member %d of the group (rank %d) has gone on past this collective without "
                   "this member (%d): they disagree on the collective or its root", i, sm_group_rank(&r->g->m, i), r->me);
}
/* A record (await's) against this member's call. */
static inline sm_status_t check(const struct run *r, int i, const struct coll_rec *p, uint64_t len, bool same_len)
{
    if (SM_LIKELY(p && p->sig == r->sig && (!same_len || p->len == len))) return SM_OK;
    return p ? mismatch(r, i, p, len) : gone(r, i);
}

static inline int rank_of(const struct run *r, int i) { return sm_group_rank(&r->g->m, i); }
static inline bool overlap(const void *a, const void *b, size_t len)
{
    return len && (uintptr_t)a < (uintptr_t)b + len && (uintptr_t)b < (uintptr_t)a + len;
}

/* --- Barrier, broadcast ------------------------------------------------------------- */
sm_status_t coll_barrier(struct coll_group *g)
{
    sm_barrier_run(&g->m, barrier_off(g), g->num < 0);
    return SM_OK;
}

/* A large broadcast's copies are shared: a reader that publishes its dst
 * copies the head, and the tail (a 1/n share, so that the root, copying
 * the tails of n - 1 readers, does as much as one reader) goes to whoever
 * claims it first in the reader's share word: the root, once it has
 * published, or the reader itself. Neither waits for the other to come. */
#define BCAST_SHARE_MIN (64 << 10)   /* bytes; below, each reader copies alone */
enum { SHARE_ROOT = 1, SHARE_ROOT_DONE = 2, SHARE_READER = 3 };
static inline uint32_t share_word(uint32_t seq, uint32_t state) { return seq << 2 | state; }
static inline bool share_now(uint32_t v, uint32_t seq) { return (v ^ seq << 2) >> 2 == 0; }
static inline size_t share_at(size_t len, int n) { return (len - len / (size_t)n) & ~(size_t)(SM_CACHELINE - 1); }

/* Reader i has published for this collective, or finished it without. */
struct arrival { struct run *r; int i; };
static bool arrived(void *arg)
{
    struct arrival *a = arg;
    struct coll_slot *s = slot_of(a->r->g, a->i);
    return atomic_load_explicit(&s->rec[a->r->seq & 1].stamp, memory_order_acquire) == a->r->seq ||
           (int32_t)(atomic_load_explicit(&s->progress, memory_order_acquire) - a->r->seq) >= 0;
}

/* The root, which would wait for its readers anyway: the tail of every
 * reader it can claim, as they come (they ring its doorbell). */
static void bcast_share(struct run *r, const void *src, size_t len)
{
    size_t lo = share_at(len, r->n);
    for (int k = 1; k < r->n; k++) {
        int i = r->me + k < r->n ? r->me + k : r->me + k - r->n;
        struct arrival a = { r, i };
        sm_wait(arrived, &a);
        struct coll_rec *p = rec_of(r->g, i, r->seq);
        if (atomic_load_explicit(&p->stamp, memory_order_acquire) != r->seq || p->sig != r->sig || p->len != len) continue;
        _Atomic uint32_t *w = &slot_of(r->g, i)->share[r->seq & 1];
        uint32_t v = atomic_load_explicit(w, memory_order_relaxed);
        if (share_now(v, r->seq) || !atomic_compare_exchange_strong(w, &v, share_word(r->seq, SHARE_ROOT))) continue;
        push(rank_of(r, i), p->dst, lo, (const char *)src + lo, len - lo);
        atomic_store_explicit(w, share_word(r->seq, SHARE_ROOT_DONE), memory_order_release);
        sm_wake_word((volatile uint32_t *)w);
    }
}

/* A reader: claim its own tail, or wait for the root to finish it. */
static sm_status_t bcast_tail(struct run *r, int root, uint64_t src, void *dst, size_t len)
{
    size_t lo = share_at(len, r->n);
    _Atomic uint32_t *w = &slot_of(r->g, r->me)->share[r->seq & 1];
    uint32_t v = atomic_load_explicit(w, memory_order_relaxed);
    if (!share_now(v, r->seq) && atomic_compare_exchange_strong(w, &v, share_word(r->seq, SHARE_READER)))
        return pull(rank_of(r, root), src, lo, (char *)dst + lo, len - lo);
    while ((v = atomic_load_explicit(w, memory_order_acquire)) != share_word(r->seq, SHARE_ROOT_DONE))
        sm_wait_word((volatile uint32_t *)w, v);
    return SM_OK;
}

sm_status_t coll_bcast(struct coll_group *g, void *dst, const void *src, size_t len, int root)
{
    int n = g->m.size;
    if ((unsigned)root >= (unsigned)n) return sm_fail(SM_ERR_ARG, "root %d is not a member of the group of %d", root, n);
    bool root_copies = g->m.me == root && dst && dst != src && len, shared = len >= BCAST_SHARE_MIN;
    if (n == 1) {
        if (root_copies) memmove(dst, src, len);
        return SM_OK;
    }
    struct run r;
    uint32_t sig = SIG(K_BCAST, root, 0, 0);
    if (g->m.me == root) {
        begin(&r, g, sig, true, len, src, len, 0, COLL_ALL);
        if (shared && !aset(g)) bcast_share(&r, src, len);
        if (root_copies) memmove(dst, src, len);
        return finish(&r, SM_OK);
    }
    /* A reader publishes (its dst) only to share a large copy. */
    begin(&r, g, sig, shared, len, NULL, 0, shared ? pub(dst, len) : 0, root);
    if (shared) sm_wake(sm_group_rank(&g->m, root));
    struct coll_rec *p = await(&r, root);
    sm_status_t st = check(&r, root, p, len, true);
    shared &= !aset(g);
    if (!st) st = pull(rank_of(&r, root), p->src, 0, dst, shared ? share_at(len, n) : len);
    if (!st && shared) st = bcast_tail(&r, root, p->src, dst, len);
    return finish(&r, st);
}

/* --- Allgather, collect, alltoall(s) --------------------------------------------------- */
static sm_status_t gather_all(struct coll_group *g, void *dst, const void *src, size_t len, bool fixed)
{
    int n = g->m.size, me = g->m.me;
    size_t off[n];                       /* where each member's block goes */
    if (n == 1) {
        if (dst != src && len) memmove(dst, src, len);
        return SM_OK;
    }
    struct run r;
    begin(&r, g, SIG(fixed ? K_ALLGATHER : K_COLLECT, COLL_ALL, 0, 0), true, len, src, len, 0, COLL_ALL);
    /* Every record checked before any data moves: a mismatch is everyone's. */
    sm_status_t st = SM_OK;
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        struct coll_rec *p = await(&r, i);
        if (!st && i != me) st = check(&r, i, p, len, fixed);
        if (st) break;
        off[i] = o, o += p->len;
    }
    /* From the next member on, so that readers spread over the sources. */
    for (int k = 1; k < n && !st; k++) {
        int i = me + k < n ? me + k : me + k - n;
        struct coll_rec *p = rec_of(g, i, r.seq);
        st = pull(rank_of(&r, i), p->src, 0, (char *)dst + off[i], p->len);
    }
    if (!st && (char *)dst + off[me] != src && len) memmove((char *)dst + off[me], src, len);
    return finish(&r, st);
}
sm_status_t coll_allgather(struct coll_group *g, void *dst, const void *src, size_t len)
{
    return gather_all(g, dst, src, len, true);
}
sm_status_t coll_collect(struct coll_group *g, void *dst, const void *src, size_t len)
{
    return gather_all(g, dst, src, len, false);
}

/* nelems elements of elem bytes, sst / dstr bytes apart, from member rank's
 * buffer p (at byte off) to dst. */
static sm_status_t pull_strided(int rank, uint64_t p, size_t off, size_t sst, char *dst, size_t dstr, size_t elem,
                                size_t nelems)
{
    if (sst == elem && dstr == elem) return pull(rank, p, off, dst, elem * nelems);
    if (SM_UNLIKELY(p & COLL_PRIVATE)) {
        for (size_t i = 0; i < nelems; i++) {
            sm_status_t st = pull(rank, p, off + i * sst, dst + i * dstr, elem);
            if (st) return st;
        }
        return SM_OK;
    }
    const char *s = (const char *)(uintptr_t)p + off;
#define STRIDED(SZ) for (size_t i = 0; i < nelems; i++) memcpy(dst + i * dstr, s + i * sst, SZ); break
    switch (elem) {                      /* fixed sizes: a load and a store each */
    case 1: STRIDED(1);
    case 2: STRIDED(2);
    case 4: STRIDED(4);
    case 8: STRIDED(8);
    case 16: STRIDED(16);
    default: STRIDED(elem);
    }
#undef STRIDED
    return SM_OK;
}

sm_status_t coll_alltoalls(struct coll_group *g, void *dst, const void *src, ptrdiff_t dst_stride,
                           ptrdiff_t src_stride, size_t elem, size_t nelems)
{
    int n = g->m.size, me = g->m.me;
    size_t len, sst, dstr, sblk, dblk, span;
    if (nelems && (src_stride < 1 || dst_stride < 1))
        return sm_fail(SM_ERR_ARG, "strides %td and %td must be positive", dst_stride, src_stride);
    /* bytes: element strides, block strides, and the whole source array */
    if (__builtin_mul_overflow(elem, nelems, &len) || __builtin_mul_overflow((size_t)src_stride, elem, &sst) ||
        __builtin_mul_overflow((size_t)dst_stride, elem, &dstr) || __builtin_mul_overflow(sst, nelems, &sblk) ||
        __builtin_mul_overflow(dstr, nelems, &dblk) || __builtin_mul_overflow(sblk, (size_t)n, &span))
        return sm_fail(SM_ERR_ARG, "%zu elements of %zu bytes at strides %td and %td overflow the address space",
                       nelems, elem, dst_stride, src_stride);
    if (!len) span = 0;
    struct run r;
    sm_status_t st = SM_OK;
    if (n > 1) {
        begin(&r, g, SIG(K_ALLTOALL, COLL_ALL, 0, 0), true, len, src, span, 0, COLL_ALL);
        for (int i = 0; i < n; i++)          /* all checked first, as in gather_all */
            if (!st && i != me) st = check(&r, i, await(&r, i), len, true);
    }
    for (int k = 1; k < n && !st; k++) {
        int i = me + k < n ? me + k : me + k - n;
        st = pull_strided(rank_of(&r, i), rec_of(g, i, r.seq)->src, (size_t)me * sblk, sst,
                          (char *)dst + (size_t)i * dblk, dstr, elem, nelems);
    }
    if (len && !st)
        pull_strided(sm_core.rank, pub(src, span), (size_t)me * sblk, sst, (char *)dst + (size_t)me * dblk, dstr,
                     elem, nelems);
    return n > 1 ? finish(&r, st) : st;
}

/* --- Reductions ---------------------------------------------------------------------- */
#define RED_SLICE_MIN 8192   /* bytes; below, a serial pass is cheaper (bench/shmem coll) */
#define RED_BLOCK     4096   /* bytes combined at a time: the sources' blocks stay in L1/L2 */

/* Elements [lo, hi) of the reduction into buf, block by block, each block
 * handed to out(): s0 op s1 op ... in member order. */
struct red {
    struct run *r;
    struct coll_rec **recs;
    const void *src;             /* this member's own source */
    coll_kernel_fn k;
    size_t es;
};
static sm_status_t combine(const struct red *d, size_t lo, size_t hi,
                           sm_status_t (*out)(const struct red *, size_t at, const void *buf, size_t m, void *arg),
                           void *arg)
{
    _Alignas(64) char buf[RED_BLOCK], s0[RED_BLOCK], s1[RED_BLOCK];
    size_t per = RED_BLOCK / d->es, es = d->es;
    sm_status_t st = SM_OK;
    for (size_t b = lo; b < hi; b += per) {
        size_t m = hi - b < per ? hi - b : per, off = b * es, bytes = m * es;
        const void *x[2];
        for (int j = 0; j < d->r->n; j++) {
            const void *s = j == d->r->me ? (const char *)d->src + off
                                          : view(rank_of(d->r, j), d->recs[j]->src, off, bytes, j ? s1 : s0, &st);
            if (j < 2) x[j] = s;
            if (j == 1) d->k(buf, x[0], x[1], m);
            else if (j > 1) d->k(buf, buf, s, m);
        }
        sm_status_t s = out(d, b, buf, bytes, arg);
        if (s && !st) st = s;
    }
    return st;
}

/* Outputs: into this member's own buffer, or into members' published dsts. */
static sm_status_t to_local(const struct red *d, size_t b, const void *buf, size_t bytes, void *arg)
{
    memcpy((char *)arg + b * d->es, buf, bytes);
    return SM_OK;
}
static sm_status_t to_members(const struct red *d, size_t b, const void *buf, size_t bytes, void *arg)
{
    int root = *(const int *)arg, n = d->r->n, me = d->r->me;
    sm_status_t st = SM_OK;
    for (int k = 1; k <= n; k++) {       /* from the next member on: writers spread over targets */
        int i = me + k < n ? me + k : me + k - n;
        if (root != COLL_ALL && i != root) continue;
        sm_status_t s = push(rank_of(d->r, i), d->recs[i]->dst, b * d->es, buf, bytes);
        if (s && !st) st = s;
    }
    return st;
}

sm_status_t coll_reduce(struct coll_group *g, void *dst, const void *src, size_t count, enum coll_dtype t,
                        enum coll_redop op, int root)
{
    coll_kernel_fn k = coll_kernel(t, op);
    int n = g->m.size, me = g->m.me;
    size_t es = coll_dtype_size(t), len;
    if (!k) return sm_fail(SM_ERR_ARG, "reduction %s is not defined on %s", coll_redop_name(op), coll_dtype_name(t));
    if (root != COLL_ALL && (unsigned)root >= (unsigned)n)
        return sm_fail(SM_ERR_ARG, "root %d is not a member of the group of %d", root, n);
    if (__builtin_mul_overflow(count, es, &len))
        return sm_fail(SM_ERR_ARG, "%zu elements of %zu bytes overflow the address space", count, es);
    bool at_root = root == COLL_ALL || root == me;
    if (n == 1) {
        if (dst != src && len) memmove(dst, src, len);
        return SM_OK;
    }
    bool rooted = root != COLL_ALL, sliced = len >= RED_SLICE_MIN;   /* the same in every member */
    /* A source that this member's own writes to dst would spoil before
     * every reader has it is read from a copy: one that dst overlaps in part,
     * or, under a serial allreduce, dst itself (peers read it meanwhile;
     * a source that travels in the record or bounce buffer is a copy already). */
    void *tmp = NULL;
    bool carried = !sliced && carrier(g, next_seq(g), len);   /* as begin() will decide */
    if (at_root && overlap(dst, src, len) && (dst != src || (!rooted && !sliced && !carried))) {
        if (!(tmp = malloc(len))) return sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes", len);
        src = memcpy(tmp, src, len);
    }
    /* Serial: the root alone (every member, under an allreduce) reads the
     * sources, and the root's own is not published. Sliced: every member
     * reads its slice of every source and writes it into the dsts. */
    bool reads = !rooted || sliced || at_root, shares = !rooted || sliced || !at_root;
    struct run r;
    begin(&r, g, SIG(K_REDUCE, root, t, op), true, len, src, shares ? len : 0,
          sliced && at_root ? pub(dst, len) : 0, !rooted || sliced ? COLL_ALL : at_root ? me : root);
    struct coll_rec *recs[n];
    sm_status_t st = SM_OK;
    for (int i = 0; i < n && reads; i++) {
        recs[i] = await(&r, i);
        if (!st && i != me) st = check(&r, i, recs[i], len, true);
        if (st) break;
    }
    struct red d = { &r, recs, src, k, es };
    if (!st && sliced) {
        /* Slices in whole cache lines, so no two members write one line of a dst. */
        size_t per = es >= SM_CACHELINE ? 1 : SM_CACHELINE / es, chunks = (count + per - 1) / per;
        size_t lo = chunks * (size_t)me / (size_t)n * per, hi = chunks * (size_t)(me + 1) / (size_t)n * per;
        st = combine(&d, lo, hi < count ? hi : count, to_members, &root);
    } else if (!st && at_root) {
        st = combine(&d, 0, count, to_local, dst);
    }
    st = finish(&r, st);
    free(tmp);
    return st;
}
