/* winops.c: communication on windows (rma.h, "Window communication"):
 * where the target's bytes are (the epoch and range checks, a dynamic
 * window's regions), then put and get typemap to typemap, accumulate and
 * compare-and-swap element by element atomically: directly where the
 * target memory is exposed, through sm_copy where it is not, and through
 * UCX (remote.c) on the same global addresses when the target is on
 * another node. */
#include <stdalign.h>
#include <stdlib.h>

#include "rma.h"
#include "rma_area.h"

/* The target's bytes: the address the target type is relative to, and how
 * to reach it. */
struct where {
    char *addr;
    int   rank;                 /* the member's job rank (for sm_copy, UCX) */
    bool  direct;               /* plain loads and stores; else sm_copy with addr as the member names it */
    bool  remote;               /* on another node: UCX at addr (a global address), not direct */
};

static inline size_t type_size(const struct dt_type *t) { return t ? t->size : 1; }
static inline bool contig(const struct dt_type *t, size_t count) { return !t || dt_is_contig(t, count); }
static inline ptrdiff_t first_byte(const struct dt_type *t) { return t ? t->true_lb : 0; }

/* A dynamic window's region of member t that holds [lo, hi), read under
 * the member's sequence lock. */
static sm_status_t region_of(const struct rma_win *w, int t, uint64_t lo, uint64_t hi, struct rma_win_region *out)
{
    const struct rma_win_regions *tab = (const struct rma_win_regions *)w->peer[t].base;
    struct rma_win_region r = { 0, 0, 0 };
    bool found;
    for (;;) {
        uint32_t s0 = atomic_load_explicit(&tab->seq, memory_order_acquire);
        if (s0 & 1) {
            sm_cpu_relax();
            continue;
        }
        uint32_t n = __atomic_load_n(&tab->n, __ATOMIC_RELAXED), a = 0, b;
        b = n < RMA_WIN_ATTACH_MAX ? n : RMA_WIN_ATTACH_MAX;
        while (a < b) {   /* the first region starting above lo */
            uint32_t m = (a + b) / 2;
            if (__atomic_load_n(&tab->r[m].lo, __ATOMIC_RELAXED) <= lo) a = m + 1; else b = m;
        }
        found = a > 0;
        if (found) {
            r.lo = __atomic_load_n(&tab->r[a - 1].lo, __ATOMIC_RELAXED);
            r.len = __atomic_load_n(&tab->r[a - 1].len, __ATOMIC_RELAXED);
            r.global = __atomic_load_n(&tab->r[a - 1].global, __ATOMIC_RELAXED);
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&tab->seq, memory_order_relaxed) == s0) break;
    }
    if (!found || hi - r.lo > r.len)
        return sm_fail(SM_ERR_ACCESS, "target bytes [%#llx, %#llx) are not in a region rank %d attached to the "
                       "dynamic window", (unsigned long long)lo, (unsigned long long)hi, t);
    *out = r;
    return SM_OK;
}

/* The same for a member on another node: its table read with UCX gets
 * (header, entries, header again), retried while it changes. */
static sm_status_t region_of_remote(const struct rma_win *w, int t, uint64_t lo, uint64_t hi,
                                    struct rma_win_region *out)
{
    const struct rma_win_regions *tab = (const struct rma_win_regions *)w->peer[t].base;
    int pe = w->ranks[t];
    struct rma_win_region *r = NULL;
    struct { uint32_t seq, n; } h, h2;
    _Static_assert(offsetof(struct rma_win_regions, n) == sizeof(uint32_t), "seq, then n");
    sm_status_t st;
    uint32_t n;
    for (;;) {
        if ((st = rma_remote_get(pe, &h, tab, sizeof h))) break;
        if (h.seq & 1) {
            rma_remote_idle();
            continue;
        }
        n = h.n < RMA_WIN_ATTACH_MAX ? h.n : RMA_WIN_ATTACH_MAX;
        free(r);
        if (!(r = malloc(sizeof *r * (n ? n : 1)))) {
            st = sm_fail(SM_ERR_NOMEM, "no memory for rank %d's table of %u regions", t, n);
            break;
        }
        if (n && (st = rma_remote_get(pe, r, tab->r, sizeof *r * n))) break;
        if ((st = rma_remote_get(pe, &h2, tab, sizeof h2))) break;
        if (h2.seq == h.seq) break;
    }
    uint32_t a = 0;
    if (!st) {
        while (a < n && r[a].lo <= lo) a++;
        if (!a || hi - r[a - 1].lo > r[a - 1].len)
            st = sm_fail(SM_ERR_ACCESS, "target bytes [%#llx, %#llx) are not in a region rank %d attached to the "
                         "dynamic window", (unsigned long long)lo, (unsigned long long)hi, t);
        else *out = r[a - 1];
    }
    free(r);
    return st;
}

/* sm_copy, where a peer gone (SM_ERR_STATE) is SM_ERR_PEER: SM_ERR_STATE
 * is this engine's word for a call no epoch allows. */
static sm_status_t copy(int rank, bool write, void *remote, void *local, size_t len)
{
    sm_status_t st = sm_copy(rank, write, remote, local, len);
    return st == SM_ERR_STATE ? sm_fail(SM_ERR_PEER, "%s", sm_fail_reason()) : st;
}

static __attribute__((cold, noinline)) sm_status_t no_epoch(const struct rma_win *w, int t)
{
    if ((unsigned)t >= (unsigned)w->n) return sm_fail(SM_ERR_ARG, "rank %d is not in the window's group of %d", t, w->n);
    return sm_fail(SM_ERR_STATE, "no access epoch to rank %d is open (fence, start, lock or lock_all)", t);
}

static __attribute__((cold, noinline)) sm_status_t outside(const struct rma_win *w, const struct rma_target *tg,
                                                           ptrdiff_t lo, ptrdiff_t hi)
{
    const struct rma_win_peer *p = &w->peer[tg->member];
    int64_t off;
    if (__builtin_mul_overflow(tg->disp, (int64_t)p->disp_unit, &off) || __builtin_add_overflow(off, hi, &off))
        return sm_fail(SM_ERR_ACCESS, "displacement %lld x disp_unit %u is outside rank %d's window of %llu bytes",
                       (long long)tg->disp, p->disp_unit, tg->member, (unsigned long long)p->size);
    return sm_fail(SM_ERR_ACCESS, "target bytes [%lld, %lld) (displacement %lld x disp_unit %u) are outside rank %d's "
                   "window of %llu bytes", (long long)(off - hi + lo), (long long)off, (long long)tg->disp,
                   p->disp_unit, tg->member, (unsigned long long)p->size);
}

/* Check the epoch and the range of the target's bytes; *bytes: how many. */
static sm_status_t locate(struct rma_win *w, const struct rma_target *tg, size_t *bytes, struct where *at)
{
    int t = tg->member;
    if ((unsigned)t >= (unsigned)w->n || !(w->open | w->access[t])) return no_epoch(w, t);
    if (__builtin_mul_overflow(tg->count, type_size(tg->type), bytes))
        return sm_fail(SM_ERR_ARG, "%zu target elements of %zu bytes are too many", tg->count, type_size(tg->type));
    w->ops++;
    if (!*bytes) return SM_OK;
    ptrdiff_t lo = 0, hi = (ptrdiff_t)tg->count;
    if (tg->type) dt_span(tg->type, tg->count, &lo, &hi);
    const struct rma_win_peer *p = &w->peer[t];
    at->rank = w->ranks[t];
    at->remote = p->flags & RMA_PEER_REMOTE;
    if (w->kind == RMA_WIN_DYNAMIC) {
        uint64_t a = (uint64_t)tg->disp;
        struct rma_win_region r = { 0, 0, 0 };
        sm_status_t st = at->remote ? region_of_remote(w, t, a + (uint64_t)lo, a + (uint64_t)hi, &r)
                                    : region_of(w, t, a + (uint64_t)lo, a + (uint64_t)hi, &r);
        if (st) return st;
        if (at->remote && !r.global)   /* (attach refuses them in a window spanning nodes) */
            return sm_fail(SM_ERR_ACCESS, "rank %d's region at %#llx is not exposed", t, (unsigned long long)r.lo);
        at->direct = r.global != 0 && !at->remote;
        at->addr = (char *)(uintptr_t)(r.global ? r.global + (a - r.lo) : a);
        return SM_OK;
    }
    int64_t off, first, end;
    if (__builtin_mul_overflow(tg->disp, (int64_t)p->disp_unit, &off) || __builtin_add_overflow(off, lo, &first) ||
        __builtin_add_overflow(off, hi, &end) || first < 0 || end > (int64_t)p->size)
        return outside(w, tg, lo, hi);
    at->direct = p->flags & RMA_PEER_MAPPED;
    at->addr = (char *)(p->base + (uint64_t)off);
    return SM_OK;
}

/* --- Put and get ------------------------------------------------------------------------ */

struct xfer { int rank; bool put, remote; sm_status_t st; };

/* The target's bytes at remote to or from local, through sm_copy or UCX. */
static sm_status_t reach(const struct where *at, bool write, void *remote, void *local, size_t len)
{
    if (at->remote) return write ? rma_remote_put(at->rank, remote, local, len) : rma_remote_get(at->rank, local, remote, len);
    return copy(at->rank, write, remote, local, len);
}

/* A piece of a typemap-to-typemap walk through sm_copy, or UCX (started
 * only: move waits for them all; put: dst is the target's). */
static void xfer_piece(void *dst, const void *src, size_t n, void *ctx)
{
    struct xfer *x = ctx;
    if (x->st) return;
    if (x->remote)
        x->st = x->put ? rma_remote_put_nbi(x->rank, dst, src, n) : rma_remote_get_nbi(x->rank, dst, src, n);
    else
        x->st = x->put ? copy(x->rank, true, dst, (void *)src, n) : copy(x->rank, false, (void *)src, dst, n);
}

static sm_status_t move(struct rma_win *w, const struct rma_target *tg, const struct rma_buf *o, bool put)
{
    size_t bytes;
    struct where at;
    sm_status_t st = locate(w, tg, &bytes, &at);
    if (st || !bytes) return st;
    if (contig(tg->type, tg->count) && contig(o->type, o->count)) {
        char *t = at.addr + first_byte(tg->type), *l = (char *)o->addr + first_byte(o->type);
        if (!at.direct) return reach(&at, put, t, l, bytes);
        put ? memcpy(t, l, bytes) : memcpy(l, t, bytes);
        return SM_OK;
    }
    if (at.direct) {
        if (put) dt_copy(at.addr, tg->type, o->addr, o->type, 0, bytes);
        else dt_copy(o->addr, o->type, at.addr, tg->type, 0, bytes);
        return SM_OK;
    }
    struct xfer x = { at.rank, put, at.remote, SM_OK };
    if (put) dt_apply(at.addr, tg->type, o->addr, o->type, 0, bytes, xfer_piece, &x);
    else dt_apply(o->addr, o->type, at.addr, tg->type, 0, bytes, xfer_piece, &x);
    sm_status_t ws = at.remote ? rma_remote_local() : SM_OK;   /* (also after a failed start: none left in flight) */
    return x.st ? x.st : ws;
}

sm_status_t rma_win_put(struct rma_win *w, const struct rma_target *t, const struct rma_buf *origin)
{
    return move(w, t, origin, true);
}

sm_status_t rma_win_get(struct rma_win *w, const struct rma_target *t, const struct rma_buf *origin)
{
    return move(w, t, origin, false);
}

/* --- Accumulate ---------------------------------------------------------------------------
 * The origin and the result are handled as arrays of elements in elem's C
 * layout (pairs with their padding: the kernels' layout), packed there when
 * their type is not already one; the target is walked in its own typemap.
 * Elements that need a lock take the target's lock of the 4 KiB region
 * their first byte is in: the same lock for the same element whoever
 * updates it, and different locks for distant ones. */

struct rma_lock *rma_win_acc_lock(const struct rma_win *w, int t, const void *a)
{
    struct rma_win_sync *s = (struct rma_win_sync *)w->peer[t].sync;
    return &s->acc[((uintptr_t)a >> RMA_WIN_REGION_SHIFT) & (RMA_WIN_ACC_LOCKS - 1)];
}

struct acc {
    struct rma_win *w;
    int t;
    struct where at;
    const struct rma_acc_op *op;
    size_t width;               /* of one element (elem's extent) */
    const char *walk;           /* the element array the target's typemap is walked against */
    const char *eo;             /* origin elements (NULL: no operand) */
    char *er;                   /* result elements, or NULL */
    sm_status_t st;
};

/* Up to 4 KiB of elements of memory reached through sm_copy or UCX, under
 * lock: read, update here, write back. A lock on another node is taken
 * with UCX atomics, and released after a worker fence: the write is done
 * at the target before the next holder can take the lock and read. */
static sm_status_t acc_copied(struct acc *c, char *dst, const char *src, char *fetch, size_t k,
                              struct rma_lock *lock)
{
    alignas(64) char b[4096];
    struct rma_lock mine = { 0 };
    size_t bytes = k * c->width;
    sm_status_t st = SM_OK, rs = SM_OK;
    if (c->at.remote) st = rma_remote_lock_acquire(c->at.rank, lock);
    else rma_lock_acquire(lock);
    if (st) return st;
    st = reach(&c->at, false, dst, b, bytes);
    if (!st) st = rma_accumulate(b, src, fetch, k, c->op, &mine);
    if (!st && c->op->native != RMA_NATIVE_NOOP) st = reach(&c->at, true, dst, b, bytes);
    if (c->at.remote) rs = rma_remote_lock_release_to(c->at.rank, lock);
    else rma_lock_release(lock);
    return st ? st : rs;
}

/* --- Accumulates in a window spanning nodes ---
 * Elements of 4 or 8 bytes, aligned, whose op UCX's atomics do (integer
 * add, and, or, xor; replace; no-op) are done there with them, one UCX
 * atomic each, and by the CPU's on this node: both are CPU atomics at the
 * target over TCP and shared memory (UCX's software atomics). The others
 * are read, updated and written back under the target's accumulate lock of
 * their region, by every member, on this node too. */
static bool amo_kind(const struct rma_acc_op *op, size_t width, const void *a)
{
    return (width == 4 || width == 8) && !((uintptr_t)a & (width - 1)) && op->native != RMA_NATIVE_NONE;
}

/* k elements at dst on another node, one UCX atomic each. */
static sm_status_t acc_amo(struct acc *c, char *dst, const char *src, char *fetch, size_t k)
{
    static const enum rma_amo_op code[] = { [RMA_NATIVE_REPLACE] = RMA_AMO_SWAP, [RMA_NATIVE_NOOP] = RMA_AMO_ADD,
                                            [RMA_NATIVE_ADD] = RMA_AMO_ADD, [RMA_NATIVE_AND] = RMA_AMO_AND,
                                            [RMA_NATIVE_OR] = RMA_AMO_OR, [RMA_NATIVE_XOR] = RMA_AMO_XOR };
    size_t w = c->width;
    enum rma_amo_op op = code[c->op->native];
    bool want = fetch || op == RMA_AMO_SWAP;
    for (size_t i = 0; i < k; i++) {
        uint64_t v = 0, old = 0;
        uint32_t v4;
        if (src && c->op->native != RMA_NATIVE_NOOP) {
            if (w == 4) memcpy(&v4, src + i * w, 4), v = v4;
            else memcpy(&v, src + i * w, 8);
        }
        sm_status_t st = rma_remote_amo(c->at.rank, dst + i * w, op, w, v, 0, want ? &old : NULL);
        if (st) return st;
        if (fetch) {
            if (w == 4) v4 = (uint32_t)old, memcpy(fetch + i * w, &v4, 4);
            else memcpy(fetch + i * w, &old, 8);
        }
    }
    return SM_OK;
}

/* k elements at dst on this node under lock (every element, lock-free or not). */
static sm_status_t acc_locked(struct acc *c, char *dst, const char *src, char *fetch, size_t k, struct rma_lock *lock)
{
    struct rma_lock mine = { 0 };
    rma_lock_acquire(lock);
    sm_status_t st = rma_accumulate(dst, src, fetch, k, c->op, &mine);
    rma_lock_release(lock);
    return st;
}

/* k consecutive elements at target address dst, from element i of the arrays. */
static sm_status_t acc_elems(struct acc *c, char *dst, size_t i, size_t k)
{
    size_t w = c->width;
    const char *src = c->eo ? c->eo + i * w : NULL;
    char *fetch = c->er ? c->er + i * w : NULL;
    bool amo = c->w->spans && amo_kind(c->op, w, dst);   /* (elements of one op are all aligned alike) */
    if (amo && c->at.remote) return acc_amo(c, dst, src, fetch, k);
    bool locked = c->w->spans && !amo;                  /* the lock whatever the CPU could do */
    if (c->at.direct && !locked && rma_acc_lockfree(dst, w)) return rma_accumulate(dst, src, fetch, k, c->op, NULL);
    while (k) {   /* by region (and by bounce buffer for copied memory) */
        uintptr_t a = (uintptr_t)dst, end = (a | (((uintptr_t)1 << RMA_WIN_REGION_SHIFT) - 1)) + 1;
        size_t n = (end - a + w - 1) / w;
        if (!c->at.direct && n > 4096 / w) n = 4096 / w;
        if (n > k) n = k;
        struct rma_lock *lock = rma_win_acc_lock(c->w, c->t, dst);
        sm_status_t st = !c->at.direct ? acc_copied(c, dst, src, fetch, n, lock)
                         : locked      ? acc_locked(c, dst, src, fetch, n, lock)
                                       : rma_accumulate(dst, src, fetch, n, c->op, lock);
        if (st) return st;
        dst += n * w, k -= n;
        if (src) src += n * w;
        if (fetch) fetch += n * w;
    }
    return SM_OK;
}

/* A piece of the walk: n bytes of the target at dst against the element
 * array at src. Pieces hold whole elements unless elem has holes (a pair
 * with padding); then each element is done where its first byte is. */
static void acc_piece(void *dst, const void *src, size_t n, void *ctx)
{
    struct acc *c = ctx;
    size_t w = c->width, pos = (size_t)((const char *)src - c->walk);
    if (c->st) return;
    if (pos % w == 0 && n % w == 0) {
        c->st = acc_elems(c, dst, pos / w, n / w);
        return;
    }
    for (size_t e = (pos + w - 1) / w * w; e < pos + n && !c->st; e += w)
        c->st = acc_elems(c, (char *)dst + (e - pos), e / w, 1);
}

/* b as an array of elem (its C layout), packed into *tmp if it is not one. */
static char *as_elements(const struct rma_buf *b, const struct dt_type *elem, size_t bytes, bool pack, void **tmp)
{
    *tmp = NULL;
    if (elem->size == (size_t)dt_extent(elem) && contig(b->type, b->count)) return (char *)b->addr + first_byte(b->type);
    if (!(*tmp = malloc(bytes / elem->size * (size_t)dt_extent(elem)))) return NULL;
    if (pack) dt_copy(*tmp, elem, b->addr, b->type, 0, bytes);
    return *tmp;
}

sm_status_t rma_win_accumulate(struct rma_win *w, const struct rma_target *tg, const struct rma_buf *origin,
                               const struct rma_buf *result, const struct rma_acc_op *op,
                               const struct dt_type *elem)
{
    struct acc c = { .w = w, .t = tg->member, .op = op, .width = (size_t)dt_extent(elem) };
    size_t bytes;
    sm_status_t st = locate(w, tg, &bytes, &c.at);
    if (st || !bytes || (!origin && !result)) return st;
    if (bytes % elem->size) return sm_fail(SM_ERR_ARG, "%zu bytes are not whole elements of %zu", bytes, elem->size);
    void *to = NULL, *tr = NULL;
    if ((origin && !(c.eo = as_elements(origin, elem, bytes, true, &to))) ||
        (result && !(c.er = as_elements(result, elem, bytes, false, &tr)))) {
        free(to);
        return sm_fail(SM_ERR_NOMEM, "no memory to pack %zu bytes for an accumulate", bytes);
    }
    if (elem->size == c.width && contig(tg->type, tg->count)) {
        c.st = acc_elems(&c, c.at.addr + first_byte(tg->type), 0, bytes / c.width);
    } else {
        c.walk = c.eo ? c.eo : c.er;
        dt_apply(c.at.addr, tg->type, c.walk, elem, 0, bytes, acc_piece, &c);
    }
    if (tr && !c.st) dt_copy(result->addr, result->type, tr, elem, 0, bytes);
    free(to);
    free(tr);
    return c.st;
}

sm_status_t rma_win_compare_swap(struct rma_win *w, int t, int64_t disp, const void *value, const void *compare,
                                 void *result, const struct dt_type *elem)
{
    struct rma_target tg = { t, disp, 1, elem };
    struct where at;
    size_t bytes, width = elem->size;
    sm_status_t st = locate(w, &tg, &bytes, &at);
    if (st) return st;
    char *dst = at.addr + elem->true_lb;
    /* across nodes: 4 and 8 bytes by UCX's and the CPU's atomics, the rest under the lock (as accumulates) */
    bool amo = (width == 4 || width == 8) && !((uintptr_t)dst & (width - 1));
    if (at.remote && amo) {
        uint64_t v = 0, c = 0, old = 0;
        memcpy(&v, value, width), memcpy(&c, compare, width);   /* (little-endian: the low bytes) */
        if ((st = rma_remote_amo(at.rank, dst, RMA_AMO_CSWAP, width, v, c, &old))) return st;
        memcpy(result, &old, width);
        return SM_OK;
    }
    if (at.direct && (!w->spans || amo) && rma_acc_lockfree(dst, width))
        return rma_compare_swap(dst, compare, value, result, width);
    alignas(16) char old[64];
    if (width > sizeof old) return sm_fail(SM_ERR_UNSUPPORTED, "no compare-and-swap of %zu bytes", width);
    struct rma_lock *lock = rma_win_acc_lock(w, t, dst);
    sm_status_t rs = SM_OK;
    if (at.remote) st = rma_remote_lock_acquire(at.rank, lock);
    else rma_lock_acquire(lock);
    if (st) return st;
    st = at.direct ? (memcpy(old, dst, width), SM_OK) : reach(&at, false, dst, old, width);
    if (!st && !memcmp(old, compare, width))
        st = at.direct ? (memcpy(dst, value, width), SM_OK) : reach(&at, true, dst, (void *)value, width);
    if (at.remote) rs = rma_remote_lock_release_to(at.rank, lock);
    else rma_lock_release(lock);
    if (!st) memcpy(result, old, width);
    return st ? st : rs;
}
