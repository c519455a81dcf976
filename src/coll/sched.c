/* sched.c: running collectives. Every collective is a schedule (struct
 * coll_op) that goes through the same sequence: wait its turn and a free
 * record, publish, the kind's body (move.c, reduce.c, group.c), note a
 * check of the next member's record for later if it read none, release
 * (say in its progress word that it is done with its peers' memory), wait
 * for those who use its buffers, finish locally (and report a deferred
 * check that failed). Blocking collectives run their schedule to the end in
 * the caller; nonblocking ones go on the engine's list, which coll_progress
 * runs (point-to-point progress calls it while the list is not empty). */
#define _GNU_SOURCE             /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "coll_internal.h"

/* --- Records, progress, peers ------------------------------------------------------ */

bool coll_finished(struct coll_group *g, int i, uint32_t seq)
{
    if ((int32_t)(g->seen[i] - seq) >= 0) return true;
    uint32_t v = atomic_load_explicit(&coll_slot_of(g, i)->progress, memory_order_acquire);
    if ((int32_t)(v - g->seen[i]) > 0) g->seen[i] = v;
    return (int32_t)(v - seq) >= 0;
}

/* Has member i done with its peers' records up to seq (its checked word)? */
static bool peer_checked(struct coll_group *g, int i, uint32_t seq)
{
    uint32_t *sc = g->seen + g->m.size;
    if ((int32_t)(sc[i] - seq) >= 0) return true;
    uint32_t v = atomic_load_explicit(&coll_slot_of(g, i)->checked, memory_order_acquire);
    if ((int32_t)(v - sc[i]) > 0) sc[i] = v;
    if ((int32_t)(v - g->seen[i]) > 0) g->seen[i] = v;     /* checked <= progress */
    return (int32_t)(v - seq) >= 0;
}

void coll_wake_all(const struct coll_group *g)
{
    sm_wake_fence();
    for (int i = 0; i < g->m.size; i++)
        if (i != g->m.me) sm_wake_fenced(sm_group_rank(&g->m, i), SM_WAKE_COLL);
}

static void set_reason(struct coll_op *o, const char *why)
{
    if (o->why) return;
    o->why = strdup(why && *why ? why : "the collective failed");
}

void coll_fail(struct coll_op *o, sm_status_t st)
{
    if (o->st) return;
    o->st = st;
    set_reason(o, sm_fail_reason());
}

static const char *const kind_names[COLL_KINDS] = {
    [COLL_BARRIER] = "a barrier", [COLL_BCAST] = "a broadcast", [COLL_GATHER] = "a gather",
    [COLL_SCATTER] = "a scatter", [COLL_ALLGATHER] = "an allgather", [COLL_ALLTOALL] = "an alltoall",
    [COLL_REDUCE] = "a reduce", [COLL_ALLREDUCE] = "an allreduce", [COLL_REDUCE_SCATTER] = "a reduce-scatter",
    [COLL_SCAN] = "a scan", [COLL_EXSCAN] = "an exscan", [COLL_COLLECT] = "a collect",
    [COLL_KIND_CREATE] = "a group creation",
};

const struct coll_kind_ops *const coll_kinds[COLL_KINDS] = {
    [COLL_BARRIER] = &coll_barrier_ops, [COLL_BCAST] = &coll_bcast_ops, [COLL_GATHER] = &coll_gather_ops,
    [COLL_SCATTER] = &coll_scatter_ops, [COLL_ALLGATHER] = &coll_allgather_ops, [COLL_COLLECT] = &coll_allgather_ops,
    [COLL_ALLTOALL] = &coll_alltoall_ops, [COLL_REDUCE] = &coll_reduce_ops, [COLL_ALLREDUCE] = &coll_reduce_ops,
    [COLL_REDUCE_SCATTER] = &coll_reduce_ops, [COLL_SCAN] = &coll_reduce_ops, [COLL_EXSCAN] = &coll_reduce_ops,
    [COLL_KIND_CREATE] = &coll_create_ops,
};

static int describe(char *buf, size_t cap, uint32_t sig, uint64_t len, bool with_len)
{
    unsigned kind = sig >> 24, root = sig >> 12 & 0xfff, t = sig >> 6 & 63, op = sig & 63;
    int w = snprintf(buf, cap, "%s", kind < COLL_KINDS && kind_names[kind] ? kind_names[kind] : "an unknown collective");
    if (with_len && w >= 0 && (size_t)w < cap) w += snprintf(buf + w, cap - (size_t)w, " of %llu bytes", (unsigned long long)len);
    if (kind >= COLL_REDUCE && kind <= COLL_EXSCAN && w >= 0 && (size_t)w < cap)
        w += op == COLL_USER ? snprintf(buf + w, cap - (size_t)w, " (a user operation)")
                             : snprintf(buf + w, cap - (size_t)w, " (%s on %s)", coll_redop_name(op), coll_dtype_name(t));
    if (root && w >= 0 && (size_t)w < cap) w += snprintf(buf + w, cap - (size_t)w, " with root %u", root - 1);
    return w;
}

static __attribute__((noinline, cold)) void mismatch(struct coll_op *o, int i, const struct coll_rec *p, bool with_len)
{
    char theirs[160], mine[160];
    uint32_t sig = coll_rec_sig(p);
    describe(theirs, sizeof theirs, sig, p->len, with_len);
    describe(mine, sizeof mine, o->sig, o->len, with_len);
    /* the same collective with other sizes: as a message longer than its buffer */
    coll_fail(o, sm_fail(sig == o->sig ? SM_ERR_TRUNCATE : SM_ERR_MISMATCH,
                         "member %d of the group (rank %d) called %s, this member (%d) %s", i, coll_rank(o, i), theirs,
                         o->me, mine));
}

bool coll_check(struct coll_op *o, int i, const struct coll_rec *p, bool same_len)
{
    uint32_t sig = coll_rec_sig(p);
    if (SM_LIKELY(sig == o->sig && (!same_len || p->len == o->len))) return true;
    mismatch(o, i, p, same_len && sig == o->sig);
    return false;
}

struct coll_rec *coll_await(struct coll_op *o, int i)
{
    struct coll_rec *p = coll_rec_of(o->g, i, o->seq);
    if (SM_UNLIKELY(coll_aset(o->g))) return p;        /* current: a barrier came before */
    uint32_t at = coll_tag_seq(atomic_load_explicit(&p->tag, memory_order_acquire));
    if (SM_UNLIKELY(at != o->seq)) {
        if ((int32_t)(at - o->seq) < 0) return NULL;
        /* Rewritten for a later collective: its owner saw no reader in this
         * member for this one (note_readers), so the two called different
         * collectives. Failed rather than waited for. */
        if (!o->st)
            coll_fail(o, sm_fail(SM_ERR_MISMATCH, "member %d of the group (rank %d) called another collective than "
                                 "%s (this member, %d): it went on past it", i, coll_rank(o, i),
                                 kind_names[o->a->kind], o->me));
        o->read_any = true;
        return p;
    }
    if (i == o->me) return p;
    o->read_any = true;
    /* fin is its checked word, a lower bound of its progress too */
    uint32_t *seen = o->g->seen, *sc = seen + o->g->m.size;
    if ((int32_t)(p->fin - sc[i]) > 0) sc[i] = p->fin;
    if ((int32_t)(p->fin - seen[i]) > 0) seen[i] = p->fin;
    if (SM_UNLIKELY(p->flags & REC_FAILED) && !o->st)
        coll_fail(o, sm_fail(SM_ERR_PEER, "member %d of the group (rank %d) could not take part in %s", i,
                             coll_rank(o, i), kind_names[o->a->kind]));
    return p;
}

/* --- Memory the op owns ----------------------------------------------------------- */

void *coll_alloc(struct coll_op *o, size_t bytes)
{
    void *p = NULL;
    if (o->nowned == (int)(sizeof o->owned / sizeof *o->owned))
        coll_fail(o, sm_fail(SM_ERR_INTERN, "a collective needs more scratch than it may own"));
    else if (!(p = malloc(bytes ? bytes : 1)))
        coll_fail(o, sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes of a collective's scratch", bytes));
    else
        o->owned[o->nowned++] = p;
    return p;
}

void *coll_carrier(struct coll_op *o, size_t span, bool src_ok)
{
    struct coll_group *g = o->g;
    if (coll_aset(g) || span > COLL_BOUNCE) return NULL;
    if (span <= COLL_INLINE) return coll_rec_of(g, o->me, o->seq)->data;
    if (src_ok && span > COLL_CARRY_MAX_2 && o->n == 2 && !sm_core.oversubscribed) return NULL;
    if (!g->bounce) {
        void *b = malloc(COLL_BOUNCES * COLL_BOUNCE);
        if (!b || !coll_global(b) || !coll_global((char *)b + COLL_BOUNCES * COLL_BOUNCE - 1)) {   /* peers could not read it */
            free(b);
            return NULL;
        }
        g->bounce = b;
    }
    /* The part was last used by collective seq - COLL_BOUNCES at the latest:
     * free once every peer has finished that one; else the caller publishes
     * in place and waits for its readers. */
    uint32_t last = o->seq - COLL_BOUNCES;
    for (int i = 0; i < o->n; i++)
        if (i != o->me && !coll_finished(g, i, last)) return NULL;
    return (char *)g->bounce + (o->seq % COLL_BOUNCES) * COLL_BOUNCE;
}

/* --- Layouts: buffers as peers see them ---------------------------------------------- */

static size_t type_bytes(const struct dt_type *t)
{
    return sizeof *t + (size_t)t->nruns * sizeof(struct dt_run) + (size_t)t->nblk * sizeof(struct dt_blk);
}

/* Static types (the bindings' predefined ones, refs 0) live in memory peers
 * may not reach: each gets an exposed copy, once, kept for the process. */
#define STATIC_TYPES 128
static struct { const struct dt_type *local; uint64_t global; } statics[STATIC_TYPES];
static _Atomic int nstatics;
static _Atomic int statics_lock;

static uint64_t global_type(struct coll_op *o, const struct dt_type *t)
{
    if (!t) return 0;
    void *g = coll_global(t);
    if (SM_LIKELY(g)) return (uint64_t)(uintptr_t)g;
    int n = atomic_load_explicit(&nstatics, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (statics[i].local == t) return statics[i].global;
    void *copy = NULL;
    if (t->refs == 0) {
        while (atomic_exchange_explicit(&statics_lock, 1, memory_order_acquire)) sm_cpu_relax();
        n = atomic_load_explicit(&nstatics, memory_order_relaxed);
        for (int i = 0; i < n && !copy; i++)
            if (statics[i].local == t) copy = (void *)(uintptr_t)statics[i].global;
        if (!copy && n < STATIC_TYPES && (copy = malloc(type_bytes(t))) && coll_global(copy)) {
            memcpy(copy, t, type_bytes(t));
            ((struct dt_type *)copy)->refs = 0;
            statics[n].local = t, statics[n].global = (uint64_t)(uintptr_t)coll_global(copy);
            atomic_store_explicit(&nstatics, n + 1, memory_order_release);
            copy = (void *)(uintptr_t)statics[n].global;
        }
        atomic_store_explicit(&statics_lock, 0, memory_order_release);
        if (copy) return (uint64_t)(uintptr_t)copy;
    }
    if (!(copy = coll_alloc(o, type_bytes(t)))) return 0;
    memcpy(copy, t, type_bytes(t));
    ((struct dt_type *)copy)->refs = 0;
    return (uint64_t)(uintptr_t)coll_global(copy);
}

/* An array of n ints peers can read: the caller's, or a copy. */
static uint64_t global_ints(struct coll_op *o, const int *a, int n)
{
    if (!a) return 0;
    void *g = coll_global(a), *h = coll_global(a + n - 1);
    if (g && h && (char *)h - (char *)g == (ptrdiff_t)((size_t)(n - 1) * sizeof *a)) return (uint64_t)(uintptr_t)g;
    int *c = coll_alloc(o, sizeof *a * (size_t)n);
    if (!c) return 0;
    memcpy(c, a, sizeof *a * (size_t)n);
    return (uint64_t)(uintptr_t)coll_global(c);
}

/* The bytes the blocks' data spans, from the buffer's base: [lo, hi). */
static void span_of(const struct coll_lay *l, int nblocks, ptrdiff_t *lo, ptrdiff_t *hi)
{
    *lo = PTRDIFF_MAX, *hi = PTRDIFF_MIN;
    for (int i = 0; i < nblocks; i++) {
        struct coll_blk k = coll_block(l, i, nblocks);
        if (!k.bytes) continue;
        ptrdiff_t a = 0, b = (ptrdiff_t)k.bytes, off = k.base - (char *)(uintptr_t)l->base;
        if (k.type) dt_span(k.type, k.count, &a, &b);
        if (off + a < *lo) *lo = off + a;
        if (off + b > *hi) *hi = off + b;
        if (!l->counts) {           /* fixed blocks: the last one bounds them */
            struct coll_blk e = coll_block(l, nblocks - 1, nblocks);
            off = e.base - (char *)(uintptr_t)l->base;
            if (off + b > *hi) *hi = off + b;
            if (off + a < *lo) *lo = off + a;
            break;
        }
    }
}

/* Bytes of every block, packed one after the other. */
static size_t total_bytes(const struct coll_lay *l, int nblocks)
{
    if (!l->counts) return (size_t)nblocks * l->count * l->size;
    size_t t = 0;
    for (int i = 0; i < nblocks; i++) t += coll_block(l, i, nblocks).bytes;
    return t;
}

/* A staged copy: every block packed (as `as`, or plain bytes) one after
 * the other in exposed memory, with the arrays that say where. */
static sm_status_t stage(struct coll_op *o, struct coll_lay *g, const struct coll_lay *loc, int nblocks,
                         const struct dt_type *as, bool fill)
{
    size_t total = total_bytes(loc, nblocks), per = as ? as->size : 1, ext = as ? (size_t)dt_extent(as) : 1;
    size_t room = total / per * ext;
    bool fixed = !loc->counts;
    char *buf = coll_alloc(o, room + (fixed ? 0 : 2 * sizeof(int) * (size_t)nblocks));
    if (!buf) return o->st;
    int *counts = (int *)(buf + room), *displs = counts + nblocks;
    size_t at = 0;
    for (int i = 0; i < nblocks; i++) {
        struct coll_blk k = coll_block(loc, i, nblocks);
        if (!fixed) counts[i] = (int)(k.bytes / per), displs[i] = (int)(at / per);
        /* the block's stream into the stage's, at its position there */
        if (fill && k.bytes) {
            struct coll_blk s = { buf + at / per * ext, k.bytes / per, as, k.bytes };
            coll_copy(&s, &k, 0, k.bytes);
        }
        at += k.bytes;
    }
    *g = (struct coll_lay){ (uint64_t)(uintptr_t)coll_global(buf), as ? global_type(o, as) : 0,
                            fixed ? loc->count * loc->size / per : 0,
                            fixed ? 0 : (uint64_t)(uintptr_t)coll_global(counts),
                            fixed ? 0 : (uint64_t)(uintptr_t)coll_global(displs), 0, per, ext };
    return o->st;
}

static sm_status_t lay(struct coll_op *o, struct coll_lay *g, const struct coll_buf *b, int nblocks,
                       const struct dt_type *as, bool dst)
{
    struct coll_lay loc;
    coll_lay_local(&loc, b);
    *g = loc;
    g->type = global_type(o, b->type);
    if (loc.counts) {       /* peers read the arrays even where every block is empty */
        g->counts = global_ints(o, b->counts, o->n);
        g->displs = global_ints(o, b->displs, o->n);
        if (b->types) {
            uint64_t *t = coll_alloc(o, sizeof *t * (size_t)o->n);
            for (int i = 0; t && i < o->n; i++) t[i] = global_type(o, b->types[i]);
            g->types = t ? (uint64_t)(uintptr_t)coll_global(t) : 0;
        }
    }
    /* No buffer: in place, or no bytes. A base of 0 with bytes is a buffer
     * (MPI_BOTTOM with absolute addresses), translated like any other;
     * readers tell "none" by the bytes they expect, never by the base. */
    if (o->st || b->base == COLL_IN_PLACE || !total_bytes(&loc, nblocks)) {
        g->base = 0;
        return o->st;
    }
    ptrdiff_t lo, hi;
    span_of(&loc, nblocks, &lo, &hi);
    char *glo = coll_global((char *)b->base + lo), *ghi = coll_global((char *)b->base + hi - 1);
    if (glo && ghi && ghi - glo == hi - 1 - lo) {
        g->base = (uint64_t)(uintptr_t)(glo - lo);
        return SM_OK;
    }
    sm_status_t st = stage(o, g, &loc, nblocks, as, true);   /* dst too: blocks nobody writes keep their bytes */
    if (!st && dst) {   /* received there; unpacked at the end */
        o->staged = *g;
        o->staged_buf = *b;
        o->staged_nb = nblocks;
    }
    return st;
}

sm_status_t coll_lay_src(struct coll_op *o, struct coll_lay *l, const struct coll_buf *b, int nblocks)
{
    return lay(o, l, b, nblocks, NULL, false);
}
sm_status_t coll_lay_dst(struct coll_op *o, struct coll_lay *l, const struct coll_buf *b, int nblocks)
{
    return lay(o, l, b, nblocks, NULL, true);
}
sm_status_t coll_lay_as(struct coll_op *o, struct coll_lay *l, const struct coll_buf *b, int nblocks,
                        const struct dt_type *as, bool dst)
{
    return lay(o, l, b, nblocks, as, dst);
}

/* A staged destination back into the caller's buffer. */
static void unstage(struct coll_op *o)
{
    struct coll_lay loc;
    coll_lay_local(&loc, &o->staged_buf);
    for (int i = 0; i < o->staged_nb; i++) {
        struct coll_blk d = coll_block(&loc, i, o->staged_nb), k = coll_block(&o->staged, i, o->staged_nb);
        coll_copy(&d, &k, 0, d.bytes < k.bytes ? d.bytes : k.bytes);
    }
}

/* --- The sequence every collective goes through ------------------------------------- */

static struct {
    struct coll_op *head, *tail;
    bool busy;                  /* coll_progress is running (no re-entry) */
    bool mt;                    /* threads: the list is under lock */
    pthread_mutex_t lock;       /* recursive: a callback may start another */
} L = { .lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP };
static bool poll_p2p;

void coll_threads(void) { L.mt = true; }
bool coll_threaded(void) { return L.mt; }
static void list_lock(void) { if (SM_UNLIKELY(L.mt)) pthread_mutex_lock(&L.lock); }
static void list_unlock(void) { if (SM_UNLIKELY(L.mt)) pthread_mutex_unlock(&L.lock); }

void coll_poll_p2p(bool on) { poll_p2p = on; }

static void list_add(struct coll_op *o)
{
    o->listed = true;
    o->next = NULL, o->prev = L.tail;
    if (L.tail) L.tail->next = o; else L.head = o;
    L.tail = o;
    o->g->active++;
    p2p_progress_hook = coll_progress;
}
static void list_del(struct coll_op *o)
{
    if (o->prev) o->prev->next = o->next; else L.head = o->next;
    if (o->next) o->next->prev = o->prev; else L.tail = o->prev;
    o->listed = false;
    o->g->active--;
    if (!L.head && !coll_span_busy() && !coll_hier_busy()) p2p_progress_hook = NULL;
}

_Static_assert(COLL_RECS <= 64, "a deferred check's bit per record");

/* --- Deferred checks -----------------------------------------------------------------
 * A member that read no record of a collective (a broadcast's or scatter's
 * root, a small gather's or reduce's other members) has seen nobody's call:
 * if every member thinks itself the root, nobody would. So it checks the
 * next member's record, but later: waiting for it there tied every member
 * to its neighbour on every call, a context switch a call when ranks
 * outnumber cores. The collective's bit in g->pend stays set (with what
 * this member called) until the next member's record of it shows up; it is
 * looked for whenever the member's words are published (advance, and
 * record_free when the member needs a record back; not in every turn of a
 * wait, which would poll a second line and wake every member for each
 * check done), and a mismatch is the
 * error of the member's next collective on g to complete (report_late).
 *
 * What keeps the records to be checked there: a member rewrites its record
 * for seq + COLL_RECS only once every member's checked word is at least
 * seq (record_free), and a member's checked word stays below every
 * collective whose check it still owes (and at or below its progress word,
 * which stays below every collective still reading its peers' memory).
 * So the next member's record of a pending collective, once stamped, keeps
 * its tag until the check is done (what this member called is kept in
 * g->pend_sig). Only a new group at the number, after the next member has
 * destroyed this one (which waits for progress, not for checks), rewrites
 * it: the tag, seq and signature in one word, is then newer, never torn,
 * and the check is dropped. The progress word is not held back: peers waiting for this
 * member to be done with their buffers (readers_done, the bounce buffer)
 * never wait for a check that this member might not run while it is
 * outside the engine. The bits are distinct: a pending collective was
 * published with checked >= its seq - COLL_RECS, so every one is within
 * COLL_RECS after checked. */

static __attribute__((noinline, cold)) void late_mismatch(struct coll_group *g, int j, uint32_t seq, uint32_t theirs)
{
    if (g->late_st) return;                 /* the first is reported; the rest follow from it */
    char a[160], b[160], *why = malloc(400);
    describe(a, sizeof a, theirs, 0, false);
    describe(b, sizeof b, g->pend_sig[seq % COLL_RECS], 0, false);
    if (why)
        snprintf(why, 400, "member %d of the group (rank %d) called %s, this member (%d) %s", j,
                 sm_group_rank(&g->m, j), a, g->m.me, b);
    g->late_st = SM_ERR_MISMATCH, g->late_seq = seq, g->late_why = why;
}

/* Do the deferred checks whose records are there; the checked word's
 * value: the progress word, or just below the first check still owed. */
static __attribute__((noinline)) uint32_t settle_pending(struct coll_group *g)
{
    int j = g->m.me + 1 < g->m.size ? g->m.me + 1 : 0;
    for (uint32_t k = 1, u = g->checked + 1; g->pend && k <= COLL_RECS; k++, u++) {
        uint64_t bit = 1ull << (u % COLL_RECS);
        if (!(g->pend & bit)) continue;
        uint64_t t = atomic_load_explicit(&coll_rec_of(g, j, u)->tag, memory_order_acquire);
        int32_t d = (int32_t)(coll_tag_seq(t) - u);
        if (d < 0) break;                   /* not published yet, nor any later one (stamps go in order) */
        /* d > 0: rewritten, which only a new group at the number does after
         * the next member destroyed this one: nothing left to check */
        if (d == 0 && coll_tag_sig(t) != g->pend_sig[u % COLL_RECS]) late_mismatch(g, j, u, coll_tag_sig(t));
        g->pend &= ~bit;
    }
    uint32_t ck = g->progress;
    for (uint32_t u = g->checked + 1; g->pend && (int32_t)(u - ck) <= 0; u++)
        if (g->pend & 1ull << (u % COLL_RECS)) return u - 1;
    return ck;
}

/* Say in the checked word how far this member is done with its peers'
 * records (the deferred checks done first). True if the word moved. The
 * checks out of line: their loops kept callee-saved registers pushed and
 * popped on every collective's release, 20 of settle's 30 instructions a
 * call with nothing owed (callgrind, 2-rank 8 B exscans). */
static inline bool settle(struct coll_group *g)
{
    uint32_t ck = g->pend ? settle_pending(g) : g->progress;
    if (ck == g->checked) return false;
    g->checked = ck;
    atomic_store_explicit(&coll_slot_of(g, g->m.me)->checked, ck, memory_order_release);
    return true;
}

/* o read no record: check the next member's later. */
static void defer_check(struct coll_op *o)
{
    o->g->pend |= 1ull << (o->seq % COLL_RECS);
    o->g->pend_sig[o->seq % COLL_RECS] = o->sig;
}

/* A deferred check failed: o (a later collective) says so, naming the
 * earlier one; o itself did its part. */
static __attribute__((noinline, cold)) void report_late(struct coll_op *o)
{
    struct coll_group *g = o->g;
    if (o->st || (int32_t)(o->seq - g->late_seq) <= 0) return;   /* its own error first; the next one then */
    uint32_t back = o->seq - g->late_seq;
    const char *why = g->late_why ? g->late_why : "the members called different collectives";
    coll_fail(o, back == 1 ? sm_fail(g->late_st, "the collective before this one on the group: %s", why)
                           : sm_fail(g->late_st, "the collective %u before this one on the group: %s", back, why));
    free(g->late_why);
    g->late_why = NULL, g->late_st = SM_OK;
}

sm_status_t coll_late(struct coll_group *g)
{
    if (SM_LIKELY(g->late_st == SM_OK)) return SM_OK;
    sm_status_t st = sm_fail(g->late_st, "an earlier collective: %s",
                             g->late_why ? g->late_why : "the members called different collectives");
    free(g->late_why);
    g->late_why = NULL, g->late_st = SM_OK;
    return st;
}

/* This member's progress: every collective of g up to the first one still
 * using its peers' memory; and its checked word. */
static void advance_owing(struct coll_group *g, bool owed)
{
    uint32_t wm = g->seq;
    if (g->active)
        for (struct coll_op *p = L.head; p; p = p->next)
            if (p->g == g && !p->released && (int32_t)(p->seq - 1 - wm) < 0) wm = p->seq - 1;
    bool moved = wm != g->progress;
    if (moved) {
        g->progress = wm;
        atomic_store_explicit(&coll_slot_of(g, g->m.me)->progress, wm, memory_order_release);
    }
    if (settle(g) || moved || owed) coll_wake_all(g);
}
static void advance(struct coll_group *g) { advance_owing(g, false); }

/* May this member write the record for o: has everyone (itself too) done
 * with the collective that last used it, its checks included? */
static bool record_free(struct coll_op *o)
{
    struct coll_group *g = o->g;
    uint32_t last = o->seq - COLL_RECS;
    if ((int32_t)(g->checked - last) < 0) {
        if (!g->pend || !settle(g)) return false;
        coll_wake_all(g);
        if ((int32_t)(g->checked - last) < 0) return false;
    }
    int rd = g->rd[o->seq % COLL_RECS];
    if (rd) return rd < 0 || peer_checked(g, rd - 1, last);
    /* every peer's checked word was seen past last already: the loop below
     * ran for every call, n - 1 peers' words (about 22 instructions a peer
     * and call); with the least of them kept it runs once in several */
    if ((int32_t)(g->all_checked - last) >= 0) return true;
    uint32_t *sc = g->seen + g->m.size, least = o->seq;
    for (int i = 0; i < o->n; i++) {
        if (i == o->me) continue;
        if (!peer_checked(g, i, last)) return false;
        if ((int32_t)(sc[i] - least) < 0) least = sc[i];
    }
    g->all_checked = least;
    return true;
}

/* Who reads this member's record of o (record_free waits for them alone
 * before it rewrites the record): a small scan's chain is read by the next
 * member only, and the last member's by nobody. Waiting for every member
 * there held the first member of the chain within COLL_RECS calls of the
 * last, all in flight at once: with 8 ranks on 2 cores each member ran two
 * or three scans per turn on its core; now it may run COLL_RECS ahead of
 * its reader, and so on down the chain (Open MPI's eager linear scan runs
 * ahead as far as its queues let it). Every member decides the same (the
 * same kind, type signature and count); where members called different
 * collectives, a reader can find a record rewritten for a later
 * collective, which coll_await reports as the mismatch it is. */
static void note_readers(struct coll_op *o)
{
    int16_t rd = 0;
    if (o->r.chain && !o->st) rd = o->me + 1 < o->n ? (int16_t)(o->me + 2) : -1;
    o->g->rd[o->seq % COLL_RECS] = rd;
}

static void publish(struct coll_op *o)
{
    struct coll_group *g = o->g;
    struct coll_rec *r = coll_rec_of(g, o->me, o->seq);
    r->fin = g->checked;
    o->flags = 0, o->len = 0;
    atomic_store_explicit(&r->claim, 0, memory_order_relaxed);
    atomic_store_explicit(&r->done, 0, memory_order_relaxed);
    atomic_store_explicit(&r->vote, 0, memory_order_relaxed);
    sm_status_t st = o->st ? o->st : coll_kinds[o->a->kind]->prepare(o, r);
    if (st) {
        coll_fail(o, st);
        o->flags = REC_FAILED;
        o->readers = COLL_NONE;
    }
    r->flags = o->flags, r->len = o->len;
    /* Only the stamp's line for a carried contribution: the others are
     * cached by the readers of its last use, and invalidating them would
     * hold up the stamp (stores become visible in order). */
    if (o->flags & REC_CARRIED) r->aux = o->src.base;
    else r->src = o->src, r->dst = o->dst;
    if (coll_aset(g)) {
        atomic_store_explicit(&r->tag, (uint64_t)o->sig << 32 | o->seq, memory_order_relaxed);  /* read after the barrier */
        sm_barrier_run(&g->m, (uintptr_t)&coll_area_of(0)->aset_bar[g->aset] - sm_slot_base(0), true);
        return;
    }
    if (o->late && !st) return;
    coll_stamp(o, false);
}

void coll_stamp(struct coll_op *o, bool last)
{
    struct coll_group *g = o->g;
    struct coll_rec *r = coll_rec_of(g, o->me, o->seq);
    if (o->st) r->flags = o->flags | REC_FAILED;     /* its readers fail too, not wait */
    o->late = false;
    atomic_store_explicit(&r->tag, (uint64_t)o->sig << 32 | o->seq, memory_order_release);
    g->pub = o->seq;
    if (last) o->owe_wake = true;
    else coll_wake_all(g);
}

/* Those who use this member's buffers have finished with them. */
static bool readers_done(struct coll_op *o)
{
    if (o->readers >= 0) return coll_finished(o->g, o->readers, o->seq);
    for (int i = 0; i < o->n; i++)
        if (i != o->me && !coll_finished(o->g, i, o->seq)) return false;
    return true;
}

static __attribute__((noinline, cold)) void failed_before(struct coll_op *o)
{
    coll_fail(o, sm_fail(SM_ERR_PEER, "%s failed before its part on the node", kind_names[o->a->kind]));
}

static bool step(struct coll_op *o)
{
    struct coll_group *g = o->g;
    bool aset = coll_aset(g);
    CO_BEGIN(o->pc);
    if (!aset) CO_WAIT(o->pc, g->pub + 1 == o->seq && record_free(o) && (!o->gate || o->gate(o->gate_ctx)));
    /* A scan's member reads the previous member's record after publishing
     * its own: both lines asked for now travel together, instead of the
     * read waiting until the stores of the publication are out (which wait
     * for this record's line from its last readers). */
    if (SM_UNLIKELY(o->a->kind == COLL_SCAN || o->a->kind == COLL_EXSCAN) && o->me > 0 && !aset) {
        sm_prefetch_write(coll_rec_of(g, o->me, o->seq));
        __builtin_prefetch(coll_rec_of(g, o->me - 1, o->seq), 0, 3);
    }
    if (SM_UNLIKELY(o->a->failed) && !o->st) failed_before(o);
    publish(o);
    if (!aset) note_readers(o);
    CO_WAIT(o->pc, coll_kinds[o->a->kind]->body(o));
    if (o->n > 1 && !o->read_any && !aset) defer_check(o);
    o->released = true;
    if (aset) {
        sm_barrier_run(&g->m, (uintptr_t)&coll_area_of(0)->aset_bar[g->aset] - sm_slot_base(0), true);
    } else {
        advance_owing(o->g, o->owe_wake);
        o->owe_wake = false;
        if (o->n > 1 && o->readers != COLL_NONE) CO_WAIT(o->pc, readers_done(o));
    }
    if (o->finish && !o->st) o->finish(o);
    if (o->staged_nb && !o->st) unstage(o);
    if (SM_UNLIKELY(g->late_st != SM_OK) && !aset && !o->a->quiet && o->a->kind != COLL_KIND_CREATE)
        report_late(o);        /* (a creation that failed here alone would leave its peers a group it lacks) */
    CO_END(o->pc);
}

/* --- Starting, ending, waiting ------------------------------------------------------ */

static bool rooted(enum coll_kind k)
{
    return k == COLL_BCAST || k == COLL_GATHER || k == COLL_SCATTER || k == COLL_REDUCE;
}

sm_status_t coll_op_init(struct coll_op *o, struct coll_group *g, const struct coll_args *a)
{
    /* what every schedule reads before writing; the rest is the kinds' (no
     * 700-byte clear on a small collective's path) */
    o->g = g, o->a = a, o->n = g->m.size, o->me = g->m.me;
    o->pc = o->bpc = 0, o->i = o->k = 0, o->x = o->y = 0;
    o->readers = COLL_NONE, o->listed = o->read_any = o->released = o->late = o->owe_wake = false;
    o->flags = 0, o->len = 0, o->st = SM_OK, o->why = NULL, o->done = NULL, o->ctx = NULL;
    o->nowned = 0, o->staged_nb = 0, o->finish = NULL, o->kctx = NULL, o->gate = NULL, o->gate_ctx = NULL;
    o->r.bstart = NULL, o->r.k = NULL, o->r.cstart = NULL, o->r.same = NULL, o->r.sliced = o->r.chain = o->r.direct = false, o->r.N = o->r.nchunks = 0;
    if (g->num == -1 || g->m.me < 0) return sm_fail(SM_ERR_ARG, "this rank is not a member of the group");
    if ((unsigned)a->kind >= COLL_KINDS || !coll_kinds[a->kind])
        return sm_fail(SM_ERR_ARG, "no collective of kind %d", (int)a->kind);
    int root = rooted(a->kind) ? a->root : -1;
    if (rooted(a->kind) && (unsigned)root >= (unsigned)o->n)
        return sm_fail(SM_ERR_ARG, "root %d is not a member of the group of %d", root, o->n);
    bool red = a->kind >= COLL_REDUCE && a->kind <= COLL_EXSCAN;
    if (red && a->red.op != COLL_USER && !(o->r.k = coll_kernel(a->red.t, a->red.op)))   /* (setup's, kept) */
        return sm_fail(SM_ERR_ARG, "reduction %s is not defined on %s", coll_redop_name(a->red.op),
                       coll_dtype_name(a->red.t));
    if (red && a->red.op == COLL_USER && !a->red.fn.fn) return sm_fail(SM_ERR_ARG, "the user operation is NULL");
    o->sig = COLL_SIG(a->kind, root, red && a->red.op != COLL_USER ? a->red.t : 0, red ? a->red.op : 0);
    return SM_OK;
}

/* Free what the op owned; its status, the reason recorded again for the caller. */
static sm_status_t end(struct coll_op *o)
{
    for (int i = 0; i < o->nowned; i++) free(o->owned[i]);
    o->nowned = 0;
    sm_status_t st = o->st;
    if (st) sm_fail(st, "%s", o->why ? o->why : "the collective failed");
    free(o->why);
    o->why = NULL;
    return st;
}

void coll_progress(void)
{
    if (SM_UNLIKELY(coll_span_busy())) coll_span_progress();
    /* after span.c's: a leaders' stage that just ended opens its node stage's gate below */
    if (SM_UNLIKELY(coll_hier_busy())) coll_hier_progress();
    if (SM_UNLIKELY(p2p_progress_hook != NULL) && !L.head && !coll_span_busy() && !coll_hier_busy())
        p2p_progress_hook = NULL;
    /* With threads, one runs the list for all (another holding it: go on) */
    if (SM_UNLIKELY(L.mt) && pthread_mutex_trylock(&L.lock)) return;
    if (L.busy) {
        list_unlock();
        return;
    }
    L.busy = true;
    for (struct coll_op *o = L.head, *next; o; o = next) {
        next = o->next;
        if (o->pc == -1 || !step(o) || !o->done) continue;   /* a blocking one: its caller ends it */
        list_del(o);
        advance(o->g);
        char reason[256] = "";
        if (o->st) snprintf(reason, sizeof reason, "%s", o->why ? o->why : "");
        sm_status_t st = end(o);
        o->done(o->ctx, st, reason);         /* marks a request: the list stays as it is */
        free(o);
    }
    L.busy = false;
    list_unlock();
}

/* What ends a collective's sleep: a member's progress (coll_wake_all), and
 * with p2p polled a message (never a put: a rank asleep in a collective
 * costs puts to it nothing). */
#define BLOCK_KINDS (SM_WAKE_ON(SM_WAKE_COLL) | (poll_p2p ? SM_WAKE_ON(SM_WAKE_P2P) : 0))
static void block_on(bool (*cond)(void *), void *arg) { sm_wait_for(BLOCK_KINDS, cond, arg); }

static bool wait_cond(void *arg)
{
    struct coll_op *o = arg;
    if (poll_p2p) p2p_progress();            /* and the list, through the hook */
    else if (L.head) coll_progress();
    return o->listed ? o->pc == -1 : step(o);
}

/* Start o (initialised): a new sequence number; nonblocking ones join the
 * list, blocking ones run here to the end (on the list only behind
 * nonblocking ones of the same group, which must publish first). */
sm_status_t coll_launch(struct coll_op *o, bool blocking)
{
    struct coll_group *g = o->g;
    o->seq = g->seq = g->seq + 1 ? g->seq + 1 : 1;   /* never 0: a record never written */
    list_lock();
    if (!blocking || g->active) list_add(o);
    list_unlock();
    if (!blocking) {
        coll_progress();
        return SM_OK;
    }
    if (o->listed) {
        coll_progress();
        if (o->pc != -1) block_on(wait_cond, o);
        list_lock();
        list_del(o);
        advance(o->g);
        list_unlock();
    } else if (!step(o)) {
        block_on(wait_cond, o);
    }
    return end(o);
}

struct until { bool (*cond)(void *); void *arg; };
static bool until_cond(void *arg)
{
    struct until *u = arg;
    if (poll_p2p) p2p_progress();
    else if (L.head) coll_progress();
    return u->cond(u->arg);
}
void coll_wait(bool (*cond)(void *), void *arg)
{
    struct until u = { cond, arg };
    block_on(until_cond, &u);
}

/* --- The lean path ------------------------------------------------------------------
 * A small blocking collective run inline by its kind (reduce.c
 * coll_red_lean, move.c coll_move_lean): the same record, stamp, progress
 * word and deferred check as step() gives it, without coll_op_init, the
 * coroutine, publish()'s clears and the kinds' prepare; only the op's
 * fields that the shared helpers read are set (coll_lean_open). */
static bool lean_free_cond(void *arg) { return record_free(arg); }

struct coll_rec *coll_lean_open(struct coll_op *o, struct coll_group *g, const struct coll_args *a, uint32_t sig)
{
    o->g = g, o->a = a, o->n = g->m.size, o->me = g->m.me, o->sig = sig;
    o->st = SM_OK, o->why = NULL, o->read_any = o->owe_wake = false, o->nowned = 0, o->readers = COLL_NONE;
    o->seq = g->seq = g->seq + 1 ? g->seq + 1 : 1;       /* as coll_launch */
    g->lean++;
    if (SM_UNLIKELY(!record_free(o))) coll_wait(lean_free_cond, o);
    struct coll_rec *r = coll_rec_of(g, o->me, o->seq);
    r->fin = g->checked;
    g->rd[o->seq % COLL_RECS] = 0;                      /* note_readers: every member (a chain sets its own) */
    return r;
}

struct lean_wait { struct coll_op *o; int i; };
static bool lean_rec_cond(void *arg)
{
    struct lean_wait *w = arg;
    return coll_await(w->o, w->i) != NULL;
}

/* A reader asks for its peer's record COLL_PF_READ collectives on each time
 * it reads one: the peer wrote it already if it runs ahead (a scan's
 * member 0, a reduce's non-roots), and the reader missed on its stamp's
 * line and its data a call each, the pace of the whole pipeline (perf: 2
 * ranks, 64-byte exscans, member 1 in coll_await's load of the tag 40% of
 * its time, in the memmove of the data 28%). If the peer has not written
 * it yet, this member still holds the lines from their last use and the
 * hint costs nothing (COLL_PF_READ, not 1: the peer of a member in step is
 * not writing it yet). 2 ranks, bench_mpi_coll, 16 rounds alternated,
 * medians of the per-round ratios, without / with: Scan 8 B 1.43x, 64 B
 * 1.71x, Exscan 8 B 1.45x, 64 B 1.98x (docs/NOTES.md, scan2). */
static inline void prefetch_ahead(const struct coll_op *o, int i)
{
    const char *q = (const char *)coll_rec_of(o->g, i, o->seq + COLL_PF_READ);
    sm_prefetch_read(q);
    if (o->len > COLL_INLINE - SM_CACHELINE) sm_prefetch_read(q + SM_CACHELINE);
}

struct coll_rec *coll_lean_await(struct coll_op *o, int i)
{
    struct coll_rec *p = coll_await(o, i);
    prefetch_ahead(o, i);
    if (SM_LIKELY(p != NULL)) return p;
    if (o->owe_wake) coll_wake_all(o->g), o->owe_wake = false;   /* its reader may be asleep while this one waits */
    struct lean_wait w = { o, i };
    struct until u = { lean_rec_cond, &w };
    /* member i's stamp ends it (unless schedules on the list run in the
     * condition too, on anyone's progress) */
    if (!L.head) sm_wait_on(BLOCK_KINDS, coll_rank(o, i), until_cond, &u);
    else block_on(until_cond, &u);
    return coll_rec_of(o->g, i, o->seq);
}

static bool lean_readers_cond(void *arg) { return readers_done(arg); }

sm_status_t coll_lean_end(struct coll_op *o)
{
    struct coll_group *g = o->g;
    if (o->n > 1 && !o->read_any) defer_check(o);
    advance_owing(g, o->owe_wake);
    if (SM_UNLIKELY(o->readers != COLL_NONE) && o->n > 1 && !readers_done(o)) coll_wait(lean_readers_cond, o);
    if (SM_UNLIKELY(g->late_st != SM_OK) && !o->a->quiet) report_late(o);
    /* This member's next record, its stamp's line and the next: asked for
     * now, exclusive, so that the next call's stores find them here instead
     * of waiting for the peers that read them COLL_RECS calls ago (a small
     * mover's next call is its critical path: a reader that has just copied
     * is the next root; a scan's member 0 stores its next contribution
     * there). Both lines: with only the stamp's, a call that writes the
     * next line too (64 B) was slower than with neither (move2, in
     * move.c's lean mover alone: Bcast 8 B 0.326 -> 0.278 us in the VM's
     * slow state, 0.125 -> 0.098 in its fast one). Here for the lean
     * reductions too (scan2): 2 ranks, 16 rounds, against the hint at the
     * start of the call for the record 4 on, Bcast and Allreduce 8 B 0.87x
     * the time, Scan 8-64 B 1.09x (docs/NOTES.md). */
    char *next = (char *)coll_rec_of(g, o->me, g->seq + 1);
    sm_prefetch_write(next);
    sm_prefetch_write(next + SM_CACHELINE);
    return SM_UNLIKELY(o->st != SM_OK) ? end(o) : SM_OK;
}

sm_status_t coll_run(struct coll_group *g, const struct coll_args *a)
{
    if (SM_UNLIKELY(g->net != NULL)) return coll_hier_run(g, a);
    /* The lean path: a member of a group (not an active set) with no
     * schedule of its own listed there (which must publish first) and no
     * late failure to report; the kinds decide the rest. */
    sm_status_t lst;
    if (g->num >= 0 && g->m.me >= 0 && !g->active && SM_LIKELY(g->late_st == SM_OK) && !a->failed &&
        (a->kind >= COLL_REDUCE && a->kind <= COLL_EXSCAN ? coll_red_lean(g, a, &lst) : coll_move_lean(g, a, &lst)))
        return lst;
    struct coll_op o;
    sm_status_t st = coll_op_init(&o, g, a);
    return st ? st : coll_launch(&o, true);
}

sm_status_t coll_start_gated(struct coll_op *o, struct coll_group *g, const struct coll_args *a,
                             bool (*gate)(void *), void *gctx, coll_done_fn done, void *ctx)
{
    sm_status_t st = coll_op_init(o, g, a);
    if (st) return st;
    o->gate = gate, o->gate_ctx = gctx;
    o->done = done, o->ctx = ctx;
    return coll_launch(o, false);
}

sm_status_t coll_start(struct coll_group *g, const struct coll_args *a, coll_done_fn done, void *ctx)
{
    if (SM_UNLIKELY(g->net != NULL)) return coll_hier_start(g, a, done, ctx);
    struct coll_op *o = malloc(sizeof *o + sizeof *a);   /* the arguments live after the op */
    if (!o) return sm_fail(SM_ERR_NOMEM, "no memory for a nonblocking collective");
    struct coll_args *copy = (struct coll_args *)(o + 1);
    *copy = *a;
    sm_status_t st = coll_op_init(o, g, copy);
    if (st) {
        free(o);
        return st;
    }
    o->done = done, o->ctx = ctx;
    return coll_launch(o, false);
}
