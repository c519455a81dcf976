/* win.c: windows (rma.h, "Windows"): creation and free, the sync blocks in
 * SM_AREA_RMA, dynamic windows' attached regions, and the epochs: fence,
 * post/start/complete/wait, locks, flush. Every synchronisation is an
 * atomic on a word of a sync block plus the fences that order the window's
 * data around it; waiters sleep on that word (sm_wait_word) and whoever
 * changes it wakes them. */
#include <stdio.h>
#include <stdlib.h>

#include "rma.h"
#include "rma_area.h"

/* --- Sync blocks --------------------------------------------------------------------
 * Only the owner claims its own blocks, so the map of those in use is private. */
static bool slot_used[RMA_WIN_MAX];

static int slot_claim(void)
{
    for (int i = 0; i < RMA_WIN_MAX; i++)
        if (!slot_used[i]) {
            slot_used[i] = true;
            memset(&rma_area_of(sm_core.rank)->win[i], 0, sizeof(struct rma_win_sync));
            return i;
        }
    return -1;
}

static inline struct rma_win_sync *sync_of(const struct rma_win *w, int t)
{
    return (struct rma_win_sync *)w->peer[t].sync;
}

/* --- Across nodes ----------------------------------------------------------------------
 * A member on another node is reached by UCX (remote.c) on the same global
 * addresses: its window memory and sync block, which are in its slot. The
 * PSCW counts a member reads in its peers' blocks cannot be read from
 * another node without a round trip per look, so a member elsewhere adds
 * them into the reader's inbox instead, and the reader polls its own. */
struct rma_win_inbox { _Atomic uint32_t post, complete; };

static inline bool remote(const struct rma_win *w, int t) { return w->peer[t].flags & RMA_PEER_REMOTE; }

/* --- lock_all without the targets' locks -----------------------------------------------
 * On a window on one node, lock_all raises the caller's own word (its sync
 * block's `all`, a line no one else writes) and then holds every target's
 * shared lock as it is if no target has a writer present or waiting (a
 * ticket taken and not yet served: win != wout); else it lowers the word
 * and takes each target's PF-T lock in rank order, as before, where a
 * writer holds it up for one phase at most. A writer (exclusive lock),
 * once it holds the target's lock, waits for every member's word to fall.
 * Both sides store (the ticket, the word), then load the other's (seq_cst:
 * Dekker), so either the reader sees the writer or the writer sees the
 * reader. So with no writer lock_all and unlock_all write no line another
 * rank writes (PF-T's fetch-adds on each target's lock line, which every
 * origin writes, were 4 contended ones per rank per epoch at 2 ranks: 0.11
 * against 0.02 us here), and nobody waits holding the word, so it adds no
 * cycle to the waits for the locks. The price: an exclusive lock reads
 * every member's word (n lines). A window spanning nodes takes the locks
 * (the words would cost a writer a round trip per member). Tests:
 * mpi_rma_lockall_{2,4,8} (held, shared, mixed). */
#define ALL_FAST 0x80u   /* rma_win.all_flags: lock_all took no lock (not an RMA_* flag) */

static bool writer_at(const struct rma_win *w, int t)
{
    struct rma_rwlock *l = &sync_of(w, t)->lock;
    return atomic_load(&l->win) != atomic_load(&l->wout);
}

static bool lock_all_fast(struct rma_win *w)
{
    atomic_store(&w->sync->all, 1);
    for (int t = 0; t < w->n; t++)
        if (writer_at(w, t)) {
            atomic_store_explicit(&w->sync->all, 0, memory_order_release);
            sm_wake_word((volatile uint32_t *)&w->sync->all);   /* (a writer may have seen it) */
            return false;
        }
    return true;
}

/* Our operations complete before it (a full barrier, as the releases' fetch-adds were). */
static void unlock_all_fast(struct rma_win *w)
{
    atomic_store(&w->sync->all, 0);
    sm_wake_word((volatile uint32_t *)&w->sync->all);
}

/* A writer, holding t's lock: the lock_alls without locks end. */
static void await_readers(const struct rma_win *w)
{
    for (int o = 0; o < w->n; o++) {
        _Atomic uint32_t *a = &sync_of(w, o)->all;
        uint32_t v;
        while ((v = atomic_load(a))) sm_wait_word((volatile uint32_t *)a, v);
    }
}

static sm_status_t rw_acquire(struct rma_win *w, int t, enum rma_lock_mode mode)
{
    if (remote(w, t)) return rma_remote_rwlock_acquire(w->ranks[t], &sync_of(w, t)->lock, mode);
    rma_rwlock_acquire(&sync_of(w, t)->lock, mode);
    if (mode == RMA_LOCK_EXCLUSIVE && !w->spans) await_readers(w);
    return SM_OK;
}
static sm_status_t rw_release(struct rma_win *w, int t, enum rma_lock_mode mode)
{
    if (remote(w, t)) return rma_remote_rwlock_release(w->ranks[t], &sync_of(w, t)->lock, mode);
    rma_rwlock_release(&sync_of(w, t)->lock, mode);
    return SM_OK;
}

/* Our operations complete at their targets on other nodes (a full fence
 * orders those on this one). */
static sm_status_t complete_remote(const struct rma_win *w)
{
    sm_full_fence();
    return w->spans ? rma_remote_quiet() : SM_OK;
}

/* The global address of the caller's [p, p + len) if every byte of it is
 * exposed (one region), else 0. */
static uintptr_t exposed_global(const void *p, uint64_t len)
{
    uintptr_t a = (uintptr_t)p, s = a - (uintptr_t)SM_BASE;
    if (len == 0) return 0;
    if (s < ((uintptr_t)sm_core.size << SM_SLOT_SHIFT))   /* a slot address is global already */
        return (s & (SM_SLOT - 1)) + len <= sm_core.slot_bytes ? a : 0;
    uint64_t lo = sm_local_offset(a), hi = sm_local_offset(a + len - 1);
    return lo != UINT64_MAX && hi == lo + len - 1 ? sm_slot_base(sm_core.rank) + lo : 0;
}

/* --- Creation and free --------------------------------------------------------------- */

static void release(struct rma_win *w)
{
    if (w->slot >= 0) slot_used[w->slot] = false;
    free(w->mem);
    free(w->regions);
    free(w->inbox);
    free(w->peer);   /* (one block with the other arrays) */
    w->peer = NULL, w->slot = -1, w->mem = NULL, w->regions = NULL, w->inbox = NULL;
}

/* The member arrays in one block: peer, pscw, ranks, epoch, exposure, index, access. */
static bool arrays(struct rma_win *w, const struct sm_group *m)
{
    size_t n = (size_t)m->size, jobs = (size_t)sm_core.size;
    char *b = calloc(1, n * (sizeof(struct rma_win_peer) + sizeof(struct rma_win_pscw) + 3 * sizeof(int) + 1) +
                            jobs * sizeof(int));
    if (!b) return false;
    w->peer = (struct rma_win_peer *)b;
    w->pscw = (struct rma_win_pscw *)(w->peer + n);
    w->ranks = (int *)(w->pscw + n);
    w->epoch = w->ranks + n;
    w->exposure = w->epoch + n;
    w->index = w->exposure + n;
    w->access = (uint8_t *)(w->index + jobs);
    for (size_t r = 0; r < jobs; r++) w->index[r] = -1;
    for (int i = 0; i < m->size; i++) {
        w->ranks[i] = sm_group_rank(m, i);
        w->index[w->ranks[i]] = i;
    }
    return true;
}

/* This member's memory and entry; a status for this member's failure. */
static sm_status_t prepare(struct rma_win *w, const struct rma_win_args *a, uint64_t shared_total,
                           struct rma_win_peer *e)
{
    if ((w->slot = slot_claim()) < 0)
        return sm_fail(SM_ERR_NOMEM, "%d windows are in use already (the most a rank can be a member of)",
                       RMA_WIN_MAX);
    w->sync = &rma_area_of(sm_core.rank)->win[w->slot];
    e->sync = (uintptr_t)w->sync;   /* (the area is in the caller's slot: a global address) */
    if (w->spans) {
        if (a->kind == RMA_WIN_SHARED)
            return sm_fail(SM_ERR_ARG, "the members are on more than one node: they cannot share memory");
        if (!(w->inbox = calloc((size_t)w->n, sizeof *w->inbox)) ||
            !(e->inbox = exposed_global(w->inbox, sizeof *w->inbox * (size_t)w->n)))
            return sm_fail(SM_ERR_NOMEM, "no exposed memory for the PSCW words of a window of %d members", w->n);
    }
    if (a->kind == RMA_WIN_DYNAMIC) {
        if (!(w->regions = calloc(1, sizeof *w->regions)))
            return sm_fail(SM_ERR_NOMEM, "no memory for the table of a dynamic window's regions");
        if (!(e->base = exposed_global(w->regions, sizeof *w->regions)))
            return sm_fail(SM_ERR_NOMEM, "the engine's memory is not exposed");
        e->disp_unit = w->disp_unit = 1;
        return SM_OK;
    }
    void *base = a->base;
    uint64_t bytes = a->size;   /* what the member's entry covers */
    if (a->kind != RMA_WIN_CREATE) {
        if (a->kind == RMA_WIN_SHARED && a->contiguous) bytes = w->me == 0 ? shared_total : 0;
        if (bytes && (bytes > PTRDIFF_MAX || posix_memalign(&w->mem, SM_CACHELINE, (size_t)bytes)))
            return sm_fail(SM_ERR_NOMEM, "cannot allocate %llu bytes of window memory", (unsigned long long)bytes);
        base = w->mem;
    }
    w->base = base, w->size = a->size, w->disp_unit = a->disp_unit;
    uintptr_t g = exposed_global(base, bytes);
    if (!g && bytes && a->kind == RMA_WIN_SHARED)   /* (the engine's blocks always are) */
        return sm_fail(SM_ERR_NOMEM, "shared window memory at %p is not exposed", base);
    e->base = g ? g : (uintptr_t)base;
    e->size = a->size, e->disp_unit = a->disp_unit;
    e->flags = g || !bytes ? RMA_PEER_DIRECT | RMA_PEER_MAPPED : 0;
    if (w->spans && !g && bytes)   /* (only the slot is registered with UCX) */
        return sm_fail(SM_ERR_ARG, "window memory at %p is not in this process's heap, globals or main stack, and "
                       "the members are on more than one node: other nodes reach only those", base);
    return SM_OK;
}

sm_status_t rma_win_create(struct rma_win *w, const struct rma_win_args *a)
{
    sm_core_ensure();
    *w = (struct rma_win){ .n = a->members->size, .me = a->members->me, .kind = a->kind, .slot = -1,
                           .coll = *a->coll };
    if (a->members->me < 0 || a->members->size < 1)
        return sm_fail(SM_ERR_ARG, "the caller is not a member of the window's group");
    if (!arrays(w, a->members)) return sm_fail(SM_ERR_NOMEM, "no memory for a window of %d members", w->n);
    for (int i = 0; i < w->n; i++) w->spans |= !sm_rank_local(w->ranks[i]);
    sm_status_t st;
    /* Shared and contiguous: every member's size first, member 0 allocates the sum. */
    uint64_t total = 0, *sizes = NULL;
    bool contiguous = a->kind == RMA_WIN_SHARED && a->contiguous;
    if (contiguous) {
        if (!(sizes = malloc(sizeof *sizes * (size_t)w->n))) {
            release(w);
            return sm_fail(SM_ERR_NOMEM, "no memory for a window of %d members", w->n);
        }
        uint64_t s = a->failed ? UINT64_MAX : a->size;
        if ((st = w->coll.allgather(w->coll.ctx, sizes, &s, sizeof s))) {
            free(sizes);
            release(w);
            return st;
        }
        for (int i = 0; i < w->n; i++) total = sizes[i] > UINT64_MAX - total ? UINT64_MAX : total + sizes[i];
    }
    struct rma_win_peer e = { 0 };
    sm_status_t mine = a->failed ? sm_fail(SM_ERR_ARG, "this member's arguments were bad")
                       : total == UINT64_MAX ? sm_fail(SM_ERR_PEER, "a member's arguments were bad")
                       : prepare(w, a, total, &e);
    char why[256];
    snprintf(why, sizeof why, "%s", mine ? sm_fail_reason() : "");
    if (mine) e.flags = RMA_PEER_FAILED;
    if ((st = w->coll.allgather(w->coll.ctx, w->peer, &e, sizeof e))) {
        free(sizes);
        release(w);
        return st;
    }
    int bad = -1;
    for (int i = 0; i < w->n && bad < 0; i++)
        if (w->peer[i].flags & RMA_PEER_FAILED) bad = i;
    if (bad >= 0) {
        free(sizes);
        release(w);
        if (mine) return sm_fail(mine, "%s", why);
        return sm_fail(SM_ERR_PEER, "member %d (job rank %d) could not create its part of the window", bad,
                       sm_group_rank(a->members, bad));
    }
    if (contiguous) {   /* the members' parts of member 0's block, one after another */
        uint64_t at = 0;
        for (int i = 0; i < w->n; i++) {
            w->peer[i].base = w->peer[0].base + at, w->peer[i].size = sizes[i];
            w->peer[i].flags = w->peer[0].flags;
            at += sizes[i];
        }
        w->base = (void *)w->peer[w->me].base;
        free(sizes);
    }
    if (w->spans) {   /* no inline path (rma_win_direct) to anyone: accumulates must all see the lock */
        for (int i = 0; i < w->n; i++) {
            w->peer[i].flags &= ~RMA_PEER_DIRECT;
            if (!sm_rank_local(w->ranks[i])) w->peer[i].flags = (w->peer[i].flags & ~RMA_PEER_MAPPED) | RMA_PEER_REMOTE;
        }
        rma_remote_start();
    }
    for (int i = 0; i < w->n; i++) {   /* (the binding refuses a disp_unit of 0) */
        struct rma_win_peer *p = &w->peer[i];
        p->units = (p->flags & RMA_PEER_DIRECT) && p->disp_unit ? p->size / p->disp_unit : 0;
    }
    return SM_OK;
}

/* Close what the caller still has open (an erroneous free), so that the
 * other members do not wait for its locks. */
static sm_status_t close_epochs(struct rma_win *w)
{
    const char *what = w->nlocks ? "a lock (MPI_Win_lock)" : (w->open & RMA_OPEN_ALL) ? "MPI_Win_lock_all"
                       : w->started ? "an access epoch (MPI_Win_start)" : w->exposing ? "an exposure epoch (MPI_Win_post)"
                       : NULL;
    if (!what) return SM_OK;
    sm_status_t st = sm_fail(SM_ERR_STATE, "%s is still open; the window was freed anyway", what);
    (void)complete_remote(w);
    for (int t = 0; t < w->n; t++) {
        uint8_t acc = w->access[t];
        if (RMA_ACC_LOCKED(acc) && !(acc & RMA_ACC_NOCHECK))
            (void)rw_release(w, t, (acc & 0xf) == RMA_ACC_EXCLUSIVE ? RMA_LOCK_EXCLUSIVE : RMA_LOCK_SHARED);
        if ((w->open & RMA_OPEN_ALL) && !(w->all_flags & (RMA_NOCHECK | ALL_FAST)))
            (void)rw_release(w, t, RMA_LOCK_SHARED);
    }
    if ((w->open & RMA_OPEN_ALL) && (w->all_flags & ALL_FAST)) unlock_all_fast(w);
    if (w->started) (void)rma_win_complete(w);
    return st;
}

sm_status_t rma_win_free(struct rma_win *w)
{
    sm_status_t st = close_epochs(w);
    char why[256];
    snprintf(why, sizeof why, "%s", st ? sm_fail_reason() : "");
    sm_status_t ct = complete_remote(w);
    sm_status_t bt = w->coll.barrier(w->coll.ctx);   /* nobody reaches our memory or sync block after */
    release(w);
    if (st) return sm_fail(st, "%s", why);
    return ct ? ct : bt;
}

void *rma_win_shared(const struct rma_win *w, int t, uint64_t *size, uint32_t *disp_unit)
{
    const struct rma_win_peer *p = &w->peer[t];
    bool direct = w->kind != RMA_WIN_DYNAMIC && (p->flags & RMA_PEER_MAPPED) && p->size;
    *size = direct ? p->size : 0;
    *disp_unit = p->disp_unit;
    return direct ? (void *)p->base : NULL;
}

/* --- Dynamic windows: the caller's table of regions -------------------------------- */

static void regions_write_begin(struct rma_win_regions *t)
{
    atomic_store_explicit(&t->seq, atomic_load_explicit(&t->seq, memory_order_relaxed) + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}
static void regions_write_end(struct rma_win_regions *t)
{
    atomic_store_explicit(&t->seq, atomic_load_explicit(&t->seq, memory_order_relaxed) + 1, memory_order_release);
}

sm_status_t rma_win_attach(struct rma_win *w, void *base, uint64_t size)
{
    struct rma_win_regions *t = w->regions;
    if (w->kind != RMA_WIN_DYNAMIC) return sm_fail(SM_ERR_STATE, "the window is not dynamic");
    uint64_t lo = (uintptr_t)base;
    if (size == 0) return SM_OK;   /* (nothing can be reached through it) */
    if (lo + size < lo) return sm_fail(SM_ERR_ARG, "region %p + %llu bytes wraps around", base, (unsigned long long)size);
    uint32_t i = 0;
    while (i < t->n && t->r[i].lo < lo) i++;
    if ((i > 0 && t->r[i - 1].lo + t->r[i - 1].len > lo) || (i < t->n && lo + size > t->r[i].lo)) {
        const struct rma_win_region *o = &t->r[i > 0 && t->r[i - 1].lo + t->r[i - 1].len > lo ? i - 1 : i];
        return sm_fail(SM_ERR_ARG, "region %p + %llu bytes overlaps the region %p + %llu bytes attached already",
                       base, (unsigned long long)size, (void *)(uintptr_t)o->lo, (unsigned long long)o->len);
    }
    if (w->spans && !exposed_global(base, size))
        return sm_fail(SM_ERR_ARG, "region %p + %llu bytes is not in this process's heap, globals or main stack, and "
                       "the window's members are on more than one node: other nodes reach only those", base,
                       (unsigned long long)size);
    if (t->n == RMA_WIN_ATTACH_MAX)
        return sm_fail(SM_ERR_NOMEM, "%d regions are attached already (the most a dynamic window holds)",
                       RMA_WIN_ATTACH_MAX);
    regions_write_begin(t);
    memmove(&t->r[i + 1], &t->r[i], (t->n - i) * sizeof t->r[0]);
    t->r[i] = (struct rma_win_region){ lo, size, exposed_global(base, size) };
    t->n++;
    regions_write_end(t);
    return SM_OK;
}

sm_status_t rma_win_detach(struct rma_win *w, const void *base)
{
    struct rma_win_regions *t = w->regions;
    if (w->kind != RMA_WIN_DYNAMIC) return sm_fail(SM_ERR_STATE, "the window is not dynamic");
    for (uint32_t i = 0; i < t->n; i++)
        if (t->r[i].lo == (uintptr_t)base) {
            regions_write_begin(t);
            memmove(&t->r[i], &t->r[i + 1], (t->n - i - 1) * sizeof t->r[0]);
            t->n--;
            regions_write_end(t);
            return SM_OK;
        }
    return sm_fail(SM_ERR_ARG, "no region is attached at %p", base);
}

/* --- Epochs ---------------------------------------------------------------------------
 * The caller's epochs are private state (rma_win.open, access); the rules
 * are MPI's: an access epoch is by fence, by start, or by locks, one kind
 * at a time; a fence whose epoch saw no operation gives way to the others. */

static const char *epoch_name(const struct rma_win *w)
{
    if (w->open & RMA_OPEN_ALL) return "a passive-target epoch to every rank (lock_all)";
    if (w->nlocks) return "a passive-target epoch (lock)";
    if (w->started) return "an access epoch (start)";
    if ((w->open & RMA_OPEN_FENCE) && w->ops) return "a fence epoch with operations in it";
    return NULL;
}

/* No access epoch but an idle fence's: the caller may open another kind. */
static sm_status_t access_free(struct rma_win *w)
{
    if (SM_LIKELY(!w->open && !w->nlocks && !w->started)) return SM_OK;
    const char *e = epoch_name(w);
    if (e) return sm_fail(SM_ERR_STATE, "%s is open on this window", e);
    w->open = 0;   /* a fence epoch with no operation ends here */
    return SM_OK;
}

static sm_status_t bad_member(const struct rma_win *w, int t)
{
    return sm_fail(SM_ERR_ARG, "rank %d is not in the window's group of %d", t, w->n);
}

sm_status_t rma_win_fence(struct rma_win *w, unsigned flags)
{
    if (w->nlocks || (w->open & RMA_OPEN_ALL) || w->started || w->exposing)
        return sm_fail(SM_ERR_STATE, "%s is open on this window",
                       w->exposing && !epoch_name(w) ? "an exposure epoch (post)" : epoch_name(w));
    if ((flags & RMA_FENCE_NOPRECEDE) && w->ops)
        return sm_fail(SM_ERR_ARG, "MPI_MODE_NOPRECEDE, but %llu operations were issued since the last "
                       "synchronisation", (unsigned long long)w->ops);
    sm_status_t ct = complete_remote(w);   /* our operations are visible before anyone leaves the barrier */
    sm_status_t st = w->coll.barrier(w->coll.ctx);
    w->open = flags & RMA_FENCE_NOSUCCEED ? 0 : RMA_OPEN_FENCE;
    w->ops = 0;
    return ct ? ct : st;
}

static sm_status_t check_members(const struct rma_win *w, const int *m, int n)
{
    for (int i = 0; i < n; i++)
        if ((unsigned)m[i] >= (unsigned)w->n) return bad_member(w, m[i]);
    return SM_OK;
}

/* PSCW's words: each member counts, in its own sync block, the posts and
 * completions it has made to each peer, and the peer reads them there
 * (the writer keeps its line; a waiter's read pulls it once). A peer on
 * another node is told in its inbox instead (above). */
static inline _Atomic uint32_t *pscw_word(struct rma_win_sync *s, int peer, bool post)
{
    return post ? &s->pscw[peer].post : &s->pscw[peer].complete;
}
/* Where we read member t's count of posts (completions) to us. */
static inline _Atomic uint32_t *pscw_in(const struct rma_win *w, int t, bool post)
{
    if (remote(w, t)) return post ? &w->inbox[t].post : &w->inbox[t].complete;
    return pscw_word(sync_of(w, t), w->me, post);
}

/* Make our count *sent + 1 of posts (or completions) to member t. */
static sm_status_t signal(struct rma_win *w, int t, bool post, uint32_t *sent)
{
    ++*sent;
    if (remote(w, t)) {   /* only we add to that word: an add is the store */
        struct rma_win_inbox *in = (struct rma_win_inbox *)w->peer[t].inbox + w->me;
        uint64_t old;
        return rma_remote_amo(w->ranks[t], post ? (void *)&in->post : (void *)&in->complete, RMA_AMO_ADD, 4, 1, 0,
                              &old);
    }
    _Atomic uint32_t *p = pscw_word(w->sync, t, post);
    atomic_store_explicit(p, *sent, memory_order_release);
    sm_wake_word((volatile uint32_t *)p);
    return SM_OK;
}

/* Is member t's count of posts (completions) to us past *seen (then consume one)? */
static bool arrived(struct rma_win *w, int t, bool post, uint32_t *seen, uint32_t *v)
{
    if ((int32_t)((*v = atomic_load_explicit(pscw_in(w, t, post), memory_order_acquire)) - *seen) <= 0)
        return false;
    ++*seen;
    return true;
}
/* Wait for a count to move from v: asleep on the word; in a window
 * spanning nodes polling, running UCX (writes from there ring no doorbell,
 * and this rank's worker may have to carry out its peers' operations). */
static void await_word(struct rma_win *w, int t, bool post, uint32_t v)
{
    if (w->spans) rma_remote_idle();
    else sm_wait_word((volatile uint32_t *)pscw_in(w, t, post), v);
}
static void await(struct rma_win *w, int t, bool post, uint32_t *seen)
{
    uint32_t v;
    while (!arrived(w, t, post, seen, &v)) await_word(w, t, post, v);
}

sm_status_t rma_win_post(struct rma_win *w, const int *members, int n, unsigned flags)
{
    sm_status_t st;
    if (w->exposing) return sm_fail(SM_ERR_STATE, "an exposure epoch (post) is open already");
    if ((st = check_members(w, members, n))) return st;
    memcpy(w->exposure, members, sizeof *members * (size_t)n);
    w->nexposure = n;
    w->exposing = true;
    /* Our stores to the window come before the origins' accesses: the
     * release stores below order them (x86-TSO: stores stay in order). */
    if (flags & RMA_NOCHECK) return SM_OK;
    for (int i = 0; i < n && !st; i++) st = signal(w, members[i], true, &w->pscw[members[i]].post_sent);
    return st;
}

sm_status_t rma_win_start(struct rma_win *w, const int *members, int n, unsigned flags)
{
    sm_status_t st;
    if ((st = access_free(w)) || (st = check_members(w, members, n))) return st;
    for (int i = 0; i < n; i++) {
        if (w->access[members[i]]) {
            while (i--) w->access[members[i]] = 0;
            return sm_fail(SM_ERR_ARG, "rank %d is twice in the group of the access epoch", members[i]);
        }
        w->access[members[i]] = RMA_ACC_START;
    }
    for (int i = 0; i < n; i++) {
        w->epoch[i] = members[i];
        if (!(flags & RMA_NOCHECK)) await(w, members[i], true, &w->pscw[members[i]].post_seen);
    }
    w->nepoch = n;
    w->started = true;
    return SM_OK;
}

sm_status_t rma_win_complete(struct rma_win *w)
{
    if (!w->started) return sm_fail(SM_ERR_STATE, "no access epoch (start) is open");
    /* Our operations are visible before the completions: release stores
     * after them (plain and string stores alike: glibc's memcpy fences its
     * non-temporal ones); those to other nodes are complete there first. */
    sm_status_t st = w->spans ? rma_remote_quiet() : SM_OK;
    for (int i = 0; i < w->nepoch; i++) {
        int t = w->epoch[i];
        sm_status_t s = signal(w, t, false, &w->pscw[t].complete_sent);
        if (!st) st = s;
        w->access[t] = 0;
    }
    w->nepoch = 0;
    w->started = false;
    w->ops = 0;
    return st;
}

/* Have the origins of the exposure epoch all completed? From the first not
 * yet seen (those seen are moved past). */
static bool all_completed(struct rma_win *w, int *waiting_on, uint32_t *v)
{
    while (w->nexposure) {
        int o = w->exposure[w->nexposure - 1];
        if (!arrived(w, o, false, &w->pscw[o].complete_seen, v)) {
            *waiting_on = o;
            return false;
        }
        w->nexposure--;
    }
    return true;
}

sm_status_t rma_win_wait(struct rma_win *w)
{
    if (!w->exposing) return sm_fail(SM_ERR_STATE, "no exposure epoch (post) is open");
    int o;
    uint32_t v;
    while (!all_completed(w, &o, &v)) await_word(w, o, false, v);
    w->exposing = false;
    return SM_OK;
}

sm_status_t rma_win_test(struct rma_win *w, bool *done)
{
    if (!w->exposing) return sm_fail(SM_ERR_STATE, "no exposure epoch (post) is open");
    int o;
    uint32_t v;
    if ((*done = all_completed(w, &o, &v))) w->exposing = false;
    else if (w->spans) rma_remote_idle();   /* a caller polling here runs UCX (the origins' words come through it) */
    return SM_OK;
}

sm_status_t rma_win_lock(struct rma_win *w, int t, enum rma_lock_mode mode, unsigned flags)
{
    if ((unsigned)t >= (unsigned)w->n) return bad_member(w, t);
    if (RMA_ACC_LOCKED(w->access[t]))
        return sm_fail(SM_ERR_STATE, "rank %d is locked by this process already", t);
    if ((w->open & RMA_OPEN_ALL) || w->started || ((w->open & RMA_OPEN_FENCE) && w->ops))
        return sm_fail(SM_ERR_STATE, "%s is open on this window", epoch_name(w));
    w->open = 0;
    sm_status_t st;
    if (!(flags & RMA_NOCHECK) && (st = rw_acquire(w, t, mode))) return st;
    w->access[t] = (uint8_t)((mode == RMA_LOCK_EXCLUSIVE ? RMA_ACC_EXCLUSIVE : RMA_ACC_SHARED) |
                             (flags & RMA_NOCHECK ? RMA_ACC_NOCHECK : 0));
    w->nlocks++;
    return SM_OK;
}

sm_status_t rma_win_unlock(struct rma_win *w, int t)
{
    if ((unsigned)t >= (unsigned)w->n) return bad_member(w, t);
    uint8_t acc = w->access[t];
    if (!RMA_ACC_LOCKED(acc)) return sm_fail(SM_ERR_STATE, "rank %d is not locked by this process", t);
    sm_status_t st = complete_remote(w);   /* our operations complete before the next holder's */
    if (!st && !(acc & RMA_ACC_NOCHECK))
        st = rw_release(w, t, (acc & 0xf) == RMA_ACC_EXCLUSIVE ? RMA_LOCK_EXCLUSIVE : RMA_LOCK_SHARED);
    w->access[t] = 0;
    if (--w->nlocks == 0) w->ops = 0;
    return st;
}

sm_status_t rma_win_lock_all(struct rma_win *w, unsigned flags)
{
    sm_status_t st = access_free(w);
    if (st) return st;
    if (flags & RMA_NOCHECK) {
    } else if (!w->spans && lock_all_fast(w)) {
        flags |= ALL_FAST;
    } else {
        /* (in rank order everywhere: lock_alls that took the targets in
         * turns from their own deadlocked with exclusive locks between
         * them, net_nodes_mpi_rma_errors_2x4) */
        for (int t = 0; t < w->n; t++)
            if ((st = rw_acquire(w, t, RMA_LOCK_SHARED))) {
                while (t--) (void)rw_release(w, t, RMA_LOCK_SHARED);
                return st;
            }
    }
    w->open = RMA_OPEN_ALL;
    w->all_flags = (uint8_t)flags;
    return SM_OK;
}

sm_status_t rma_win_unlock_all(struct rma_win *w)
{
    if (!(w->open & RMA_OPEN_ALL)) return sm_fail(SM_ERR_STATE, "no passive-target epoch (lock_all) is open");
    sm_status_t st = SM_OK;
    if (w->all_flags & ALL_FAST) {
        unlock_all_fast(w);
    } else if (w->all_flags & RMA_NOCHECK) {
        st = complete_remote(w);
    } else {
        /* (each release is a fetch-add with release order: the full fence
         * complete_remote adds before them bought nothing on one node) */
        if (w->spans) st = rma_remote_quiet();
        for (int t = 0; t < w->n; t++) {
            sm_status_t s = rw_release(w, t, RMA_LOCK_SHARED);
            if (!st) st = s;
        }
    }
    w->open = 0;
    w->ops = 0;
    return st;
}

/* The flushes the inline check leaves: to every member, and the errors. */
sm_status_t rma_win_flush_slow(struct rma_win *w, int t, bool local)
{
    if (t != RMA_ALL && (unsigned)t >= (unsigned)w->n) return bad_member(w, t);
    if (t == RMA_ALL && !w->nlocks && !(w->open & RMA_OPEN_ALL))
        return sm_fail(SM_ERR_STATE, "no passive-target epoch (lock, lock_all) is open");
    if (t != RMA_ALL && !RMA_ACC_LOCKED(w->access[t]) && !(w->open & RMA_OPEN_ALL))   /* (spanning: every flush) */
        return sm_fail(SM_ERR_STATE, "rank %d is not locked by this process (no passive-target epoch to it)", t);
    rma_win_flush_order(local);
    /* Across nodes a put is complete here when it returns (local), at its
     * target only once UCX's worker is flushed. */
    return w->spans && !local ? rma_remote_quiet() : SM_OK;
}
