/* heap.c: the symmetric heap: symmetric views, the collective same-call
 * check, and a deterministic first-fit allocator over the symmetric region.
 *
 * Why a home-made allocator: every rank must hand out the same offsets for
 * the same sequence of collective calls, so that p in one rank designates
 * the same object in all. A production allocator such as mimalloc is
 * per-process and free to decide differently in each rank (thread caches,
 * timing of purges), so it cannot give that. This one is a first fit over a
 * sorted array of blocks; the array lives in the rank's private memory,
 * never inside the symmetric region, so nothing a peer writes there can
 * corrupt it. */
#include <stdio.h>
#include <stdlib.h>

#include "rma.h"
#include "rma_area.h"

#define HEAP_ALIGN_MIN 16

struct blk { size_t off, len; bool used; };
static struct {
    int opens;                /* views open in this process */
    char *base;
    size_t len;
    struct blk *blks;         /* sorted by offset, covering [0, len) */
    size_t nblk, cap;
} heap;

size_t rma_heap_size(void) { return heap.opens ? heap.len : 0; }

static bool blk_reserve(void);

/* --- The collective same-call check ----------------------------------------- */

/* _DEAD and _BAD: a pointer that is not a live block, published so that the
 * call stays collective and no rank hangs: as an offset if it is in the
 * heap (a freed block: the same in every rank), else as an address. */
enum heap_op {
    OP_NONE, OP_OPEN, OP_ALLOC, OP_CALLOC, OP_FREE, OP_FREE_DEAD, OP_FREE_BAD,
    OP_REALLOC, OP_REALLOC_DEAD, OP_REALLOC_BAD, OP_NOMEM
};

/* "alloc(size 100, align 16)": what a published call was, for the reason. */
static void describe(char *buf, size_t len, uint64_t op, uint64_t a, uint64_t b)
{
    switch (op) {
    case OP_OPEN: snprintf(buf, len, "open(%llu bytes)", (unsigned long long)a); break;
    case OP_ALLOC: case OP_CALLOC:
        snprintf(buf, len, "%s(size %llu, align %llu)", op == OP_ALLOC ? "alloc" : "calloc",
                 (unsigned long long)a, (unsigned long long)b);
        break;
    case OP_FREE:
        if (a == UINT64_MAX) snprintf(buf, len, "free(NULL)");
        else snprintf(buf, len, "free(offset %llu)", (unsigned long long)a);
        break;
    case OP_FREE_DEAD: snprintf(buf, len, "free(offset %llu, not a live block)", (unsigned long long)a); break;
    case OP_FREE_BAD: snprintf(buf, len, "free(%#llx, not in the heap)", (unsigned long long)a); break;
    case OP_REALLOC:
        snprintf(buf, len, "realloc(offset %llu, size %llu)", (unsigned long long)a, (unsigned long long)b);
        break;
    case OP_REALLOC_DEAD:
        snprintf(buf, len, "realloc(offset %llu, not a live block, size %llu)", (unsigned long long)a,
                 (unsigned long long)b);
        break;
    case OP_REALLOC_BAD:
        snprintf(buf, len, "realloc(%#llx, not in the heap, size %llu)", (unsigned long long)a, (unsigned long long)b);
        break;
    case OP_NOMEM: snprintf(buf, len, "(out of private memory for the heap's block list)"); break;
    default: snprintf(buf, len, "(no call)"); break;
    }
}

static void meet(const struct rma_sym *v) { v->barrier ? v->barrier() : sm_barrier(); }

/* Publish this rank's call, meet, and compare every rank's call with a
 * reference: rank 0's, or if that is itself invalid (a bad pointer, no
 * memory) the first valid one, so that the rank at fault is the one named.
 * Every rank reaches the same verdict: OK, or the first rank whose call
 * differs from the reference gets SM_ERR_MISMATCH and the others
 * SM_ERR_PEER, with the same reason. After OK the caller does its part,
 * then call_end; after a mismatch nobody meets again, since some ranks may
 * not be in this call at all (their records are older), so none waits for
 * them. The call's number (*seq) says which record holds it. */
static bool invalid(uint64_t op)
{
    return op == OP_FREE_DEAD || op == OP_FREE_BAD || op == OP_REALLOC_DEAD || op == OP_REALLOC_BAD || op == OP_NOMEM;
}
static struct rma_heap_call *record(int rank, uint64_t seq) { return &rma_area_of(rank)->call[seq & 1]; }
/* rank's record of call seq, or if it made another its latest (for the reason). */
static const struct rma_heap_call *record_of(int rank, uint64_t seq)
{
    const struct rma_heap_call *c = record(rank, seq), *o = record(rank, seq + 1);
    if (atomic_load_explicit(&c->seq, memory_order_acquire) == seq) return c;
    return atomic_load_explicit(&o->seq, memory_order_acquire) > atomic_load_explicit(&c->seq, memory_order_acquire) ? o : c;
}
static sm_status_t call_begin(const struct rma_sym *v, uint64_t op, uint64_t a, uint64_t b, uint64_t *seq)
{
    struct rma_area *area = rma_area_of(sm_core.rank);
    *seq = ++area->calls;
    struct rma_heap_call *me = record(sm_core.rank, *seq);
    me->op = op, me->a = a, me->b = b;
    atomic_store_explicit(&me->result, 0, memory_order_relaxed);
    atomic_store_explicit(&me->seq, *seq, memory_order_release);
    meet(v);
    /* Across nodes the records of the ranks on this node only are compared
     * (the others' are not mapped here): each node checks its own. */
    int n = (int)v->npes, first = 0, ref;
    while (first + 1 < n && !sm_rank_local(first)) first++;
    ref = first;
    while (ref + 1 < n && (!sm_rank_local(ref) || invalid(record_of(ref, *seq)->op))) ref++;
    if (!sm_rank_local(ref) || invalid(record_of(ref, *seq)->op)) ref = first;
    const struct rma_heap_call *cr = record_of(ref, *seq);
    uint64_t sr = atomic_load_explicit(&cr->seq, memory_order_acquire);
    for (int r = 0; r < n; r++) {
        if (!sm_rank_local(r)) continue;
        const struct rma_heap_call *c = record_of(r, *seq);
        uint64_t s = atomic_load_explicit(&c->seq, memory_order_acquire);
        if (s == sr && c->op == cr->op && c->a == cr->a && c->b == cr->b) continue;
        char mine[96], theirs[96];
        describe(mine, sizeof mine, s ? c->op : OP_NONE, c->a, c->b);
        describe(theirs, sizeof theirs, sr ? cr->op : OP_NONE, cr->a, cr->b);
        sm_status_t st = r == sm_core.rank ? SM_ERR_MISMATCH : SM_ERR_PEER;
        if (s == sr)
            return sm_fail(st, "rank %d's collective heap call %llu is %s, but rank %d's is %s",
                           r, (unsigned long long)s, mine, ref, theirs);
        return sm_fail(st, "rank %d's collective heap call %llu is %s, but rank %d's latest is call %llu, %s",
                       r, (unsigned long long)s, mine, ref, (unsigned long long)sr, theirs);
    }
    return SM_OK;
}
static void call_end(const struct rma_sym *v) { meet(v); }
static bool mismatch(sm_status_t st) { return st == SM_ERR_MISMATCH || st == SM_ERR_PEER; }

/* call_begin for a call that carves blocks: room for them is made first,
 * and a rank without it publishes OP_NOMEM instead (a mismatch, unless all
 * lack it). */
static sm_status_t carving_begin(const struct rma_sym *v, uint64_t op, uint64_t a, uint64_t b, uint64_t *seq)
{
    bool room = blk_reserve();
    sm_status_t st = call_begin(v, room ? op : OP_NOMEM, a, b, seq);
    if (st == SM_OK && !room) st = sm_fail(SM_ERR_NOMEM, "no private memory for the heap's block list");
    return st;
}

/* --- Blocks ------------------------------------------------------------------------
 * Room for two more blocks is made before a call is published, so the
 * carving itself cannot fail in one rank only. */
static bool blk_reserve(void)
{
    if (heap.nblk + 2 <= heap.cap) return true;
    size_t cap = heap.cap ? 2 * heap.cap : 64;
    struct blk *n = realloc(heap.blks, cap * sizeof *n);
    if (!n) return false;
    heap.blks = n, heap.cap = cap;
    return true;
}
static void blk_insert(size_t at, struct blk b)
{
    memmove(heap.blks + at + 1, heap.blks + at, (heap.nblk - at) * sizeof *heap.blks);
    heap.blks[at] = b;
    heap.nblk++;
}
static void blk_remove(size_t at)
{
    memmove(heap.blks + at, heap.blks + at + 1, (heap.nblk - at - 1) * sizeof *heap.blks);
    heap.nblk--;
}

/* First fit, aligned; an offset or SIZE_MAX. */
static size_t blk_alloc(size_t size, size_t align)
{
    for (size_t i = 0; i < heap.nblk; i++) {
        struct blk b = heap.blks[i];
        if (b.used) continue;
        size_t start = (b.off + align - 1) & ~(align - 1);
        if (start < b.off || start - b.off > b.len || b.len - (start - b.off) < size) continue;
        size_t pad = start - b.off, rest = b.len - pad - size;
        heap.blks[i] = (struct blk){start, size, true};
        if (rest) blk_insert(i + 1, (struct blk){start + size, rest, false});
        if (pad) blk_insert(i, (struct blk){b.off, pad, false});
        return start;
    }
    return SIZE_MAX;
}
/* The live block at offset off, or SIZE_MAX. */
static size_t blk_find(size_t off)
{
    size_t lo = 0, hi = heap.nblk;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (heap.blks[mid].off < off) lo = mid + 1; else hi = mid;
    }
    return lo < heap.nblk && heap.blks[lo].off == off && heap.blks[lo].used ? lo : SIZE_MAX;
}
static void blk_free(size_t i)
{
    heap.blks[i].used = false;
    if (i + 1 < heap.nblk && !heap.blks[i + 1].used) heap.blks[i].len += heap.blks[i + 1].len, blk_remove(i + 1);
    if (i > 0 && !heap.blks[i - 1].used) heap.blks[i - 1].len += heap.blks[i].len, blk_remove(i);
}
/* How p is published: *op (the first of op, its _DEAD and its _BAD form)
 * and the argument: its offset, live or not, or its address. */
static uint64_t publish(const void *p, uint64_t *op)
{
    uintptr_t d = (uintptr_t)p - (uintptr_t)heap.base;
    if (d >= heap.len) {
        *op += 2;
        return (uintptr_t)p;
    }
    if (blk_find(d) == SIZE_MAX) *op += 1;
    return d;
}

/* --- Views ------------------------------------------------------------------------- */

static uint64_t small(uint64_t len) { return len > RMA_SMALL ? len - RMA_SMALL : 0; }

static sm_status_t closed(void) { return sm_fail(SM_ERR_STATE, "the symmetric heap is not open"); }

sm_status_t rma_sym_open(struct rma_sym *v, size_t bytes, void (*barrier)(void))
{
    if (v->npes) return sm_fail(SM_ERR_STATE, "the symmetric view is open already");
    sm_core_ensure();
    struct rma_sym nv = {.npes = (unsigned)sm_core.world_size, .barrier = barrier,
                         .globals_lo = sm_core.globals_lo, .globals_len = sm_core.globals_len};
    if (!heap.opens) {
        uint64_t seq;
        sm_status_t st = carving_begin(&nv, OP_OPEN, bytes, 0, &seq);
        if (mismatch(st)) return st;
        if (st == SM_OK) st = sm_symmetric_grow(bytes);
        atomic_store_explicit(&record(sm_core.rank, seq)->result, st, memory_order_relaxed);
        call_end(&nv);
        for (int r = 0; r < (int)nv.npes && st == SM_OK; r++)   /* every rank (of the node) grew, or none opens */
            if (sm_rank_local(r) && atomic_load_explicit(&record(r, seq)->result, memory_order_relaxed) != SM_OK)
                st = sm_fail(SM_ERR_PEER, "rank %d could not make its symmetric region %zu bytes long", r, bytes);
        if (st != SM_OK) return st;
        heap.base = sm_symmetric_base(&heap.len);
        heap.len = bytes;
        heap.nblk = 0;
        blk_insert(0, (struct blk){0, bytes, false});
        if ((st = rma_remote_open())) return st;   /* across nodes: the slot, now whole, registered */
    }
    heap.opens++;
    nv.heap_lo = (uintptr_t)heap.base, nv.heap_len = heap.len;
    nv.heap_small = small(nv.heap_len), nv.globals_small = small(nv.globals_len);
    nv.fast_npes = sm_spans_nodes() ? 0 : nv.npes;
    *v = nv;
    return SM_OK;
}

void rma_sym_close(struct rma_sym *v)
{
    if (!v->npes) return;
    *v = (struct rma_sym){0};
    if (--heap.opens == 0) {
        heap.nblk = 0;   /* the blocks are forgotten; the region stays */
        rma_remote_close();
    }
}

/* --- Collective allocation ------------------------------------------------------------- */

static sm_status_t not_live(const void *p)
{
    return sm_fail(SM_ERR_ARG, "%p is not a live block of the symmetric heap (never allocated, or freed)", p);
}
static sm_status_t too_big(size_t size)
{
    return sm_fail(SM_ERR_NOMEM, "%zu bytes do not fit in the symmetric heap (%zu bytes)", size, heap.len);
}

sm_status_t rma_heap_alloc(const struct rma_sym *v, size_t size, size_t align, bool zero, void **out)
{
    *out = NULL;
    if (!v->npes) return closed();
    uint64_t seq;
    sm_status_t st = carving_begin(v, zero ? OP_CALLOC : OP_ALLOC, size, align, &seq);
    if (mismatch(st)) return st;
    if (st == SM_OK) {
        if (align == 0 || (align & (align - 1))) {
            st = sm_fail(SM_ERR_ARG, "alignment %zu is not a power of two", align);
        } else if (size) {
            size_t off = size > heap.len ? SIZE_MAX : blk_alloc(size, align < HEAP_ALIGN_MIN ? HEAP_ALIGN_MIN : align);
            if (off == SIZE_MAX) st = too_big(size);
            else *out = heap.base + off;
            if (*out && zero) memset(*out, 0, size);   /* before any peer can put into it */
        }
    }
    call_end(v);
    return st;
}

sm_status_t rma_heap_free(const struct rma_sym *v, void *p)
{
    if (!v->npes) return closed();
    uint64_t op = OP_FREE, off = p ? publish(p, &op) : UINT64_MAX;
    uint64_t seq;
    sm_status_t st = call_begin(v, op, off, 0, &seq);
    if (mismatch(st)) return st;
    if (st == SM_OK && op != OP_FREE) st = not_live(p);
    else if (st == SM_OK && p) blk_free(blk_find(off));
    call_end(v);
    return st;
}

sm_status_t rma_heap_realloc(const struct rma_sym *v, void *p, size_t size, void **out)
{
    *out = p;
    if (!v->npes) return closed();
    if (!p) return rma_heap_alloc(v, size, 1, false, out);
    uint64_t op = OP_REALLOC, off = publish(p, &op);
    uint64_t seq;
    sm_status_t st = carving_begin(v, op, off, size, &seq);
    if (mismatch(st)) return st;
    if (st == SM_OK && op != OP_REALLOC) st = not_live(p);
    if (st != SM_OK) { call_end(v); return st; }
    size_t i = blk_find(off), old = heap.blks[i].len;
    if (size == 0) {
        blk_free(i);
        *out = NULL;
    } else if (size > old && i + 1 < heap.nblk && !heap.blks[i + 1].used && heap.blks[i + 1].len >= size - old) {
        size_t grow = size - old;      /* in place, into the free block after */
        heap.blks[i].len = size;
        if (heap.blks[i + 1].len == grow) blk_remove(i + 1);
        else heap.blks[i + 1].off += grow, heap.blks[i + 1].len -= grow;
    } else if (size > old) {           /* moved; a smaller size keeps the block */
        size_t noff = blk_alloc(size, HEAP_ALIGN_MIN);
        if (noff == SIZE_MAX) {
            st = too_big(size);
        } else {
            memcpy(heap.base + noff, p, old);   /* before any peer can put into the new block */
            blk_free(blk_find(off));
            *out = heap.base + noff;
        }
    }
    call_end(v);
    return st;
}
