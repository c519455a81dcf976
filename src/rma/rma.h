/* rma.h: the one-sided engine shared by OpenSHMEM, MPI RMA and ARMCI
 * (DESIGN.md §5): symmetric views and their checked translation, put/get
 * (contiguous and strided), ordering and completion, atomics and accumulate
 * on 1-16 byte elements, locks any rank can take on any rank's memory, and
 * the symmetric heap. The fast paths are inline: a few compares, then the
 * copy. The engine never prints or ends the job: translations return NULL,
 * the rest an sm_status_t, with the reason in sm_fail_reason(); each binding
 * reports its own way, naming its routine.
 *
 * Memory model (why fence and quiet are what they are):
 *  - A put is a plain copy into the target's memory through its SMARTMAP
 *    address; when it returns, the stores are issued. On x86-TSO stores become
 *    visible to all CPUs in program order and stores are not reordered with
 *    other stores; glibc's memcpy ends its non-temporal (weakly ordered) path
 *    with sfence, so this holds for large copies too.
 *  - fence (order puts to a PE) is therefore a release fence: free on x86, and
 *    what the C11 model needs for stores before it to be ordered before stores
 *    after it.
 *  - quiet (complete all puts before anything after it, loads included) is a
 *    full barrier (a locked add on x86): it drains the store buffer, so a later
 *    load (of a flag, by another PE's Dekker-style protocol) cannot pass an
 *    earlier put.
 *  - Atomics are seq_cst read-modify-writes on the target's memory (lock-
 *    prefixed: full barriers). Waiters read with acquire loads; signals are
 *    release stores / seq_cst RMWs after the data, so data put before a
 *    signal is visible to whoever sees the signal.
 *  - Whatever may be waited on (puts, atomics, signals) is followed by
 *    rma_wake(pe): one load when the target is not asleep (DESIGN.md §6).
 *
 * Next (MPI RMA, ARMCI): windows translate (rank, displacement) through a
 * table of every rank's global base and size instead of a symmetric view;
 * they use the same copies, atomics, accumulate and locks. */
#ifndef RMA_H
#define RMA_H

#include <stdatomic.h>
#include <string.h>

#include "arch.h"
#include "sm_core.h"
#include "sm_status.h"

/* --- Symmetric views ------------------------------------------------------
 * A binding's handle on symmetric memory: the symmetric heap and the
 * executable's globals, which name the same object in every rank. Open from
 * the binding's init to its finalize (rma_sym_open below); closed, npes is 0
 * and every translation fails on its first compare, so "called before init"
 * costs the fast path nothing. The fields are read-only for the binding. */
struct rma_sym {
    unsigned  npes;                 /* the ranks of the job; 0 while closed */
    void    (*barrier)(void);       /* the binding's barrier over all ranks (NULL: sm_barrier) */
    uintptr_t heap_lo;              /* the caller's symmetric heap ... */
    uint64_t  heap_len;
    uintptr_t globals_lo;           /* ... and globals, as the caller names them */
    uint64_t  globals_len;
    uint64_t  heap_small, globals_small;   /* the lengths less RMA_SMALL (0 if shorter): from an
                                            * offset below, RMA_SMALL bytes fit (one compare) */
};
#define RMA_SMALL 16

/* The slow path of rma_sym_xlate (out of line): the other exposed memory
 * (stack, global addresses), empty ranges, and the reasons for refusing. */
void *rma_sym_xlate_slow(const struct rma_sym *v, int pe, const void *addr, size_t len);

/* The fast half of rma_sym_xlate, inline: true (and *out) if [addr,
 * addr+len) is non-empty and wholly in the symmetric heap or the globals. */
static inline __attribute__((always_inline)) bool rma_sym_fast(const struct rma_sym *v, int pe, const void *addr,
                                                               size_t len, void **out)
{
    /* len - 1 < room: 1 <= len <= room, one compare (len 0 goes the slow way). */
    uintptr_t d = (uintptr_t)addr - v->heap_lo;
    if (SM_LIKELY((unsigned)pe < v->npes && d < v->heap_len && len - 1 < v->heap_len - d)) {
        *out = (void *)(sm_slot_base(pe) + SM_SYM_OFF + d);
        return true;
    }
    uintptr_t g = (uintptr_t)addr - v->globals_lo;
    if (SM_LIKELY((unsigned)pe < v->npes && g < v->globals_len && len - 1 < v->globals_len - g)) {
        *out = (void *)(sm_slot_base(pe) + SM_GLOBALS_OFF + g);
        return true;
    }
    return false;
}

/* The address at which the caller reaches pe's instance of [addr, addr+len),
 * where addr names a symmetric object as the caller sees it (symmetric heap,
 * globals) or, beyond the standards, other exposed memory:
 *  - the main thread's stack: the same place of pe's stack;
 *  - a global address (sm_global) of any rank's globals, stack or symmetric
 *    heap: the same place of pe's;
 *  - a global address of a rank's heap (malloc), its own or another's: that
 *    very object, so only that rank can be the target (heap memory is
 *    exposed, not symmetric: the same offset in another rank is unrelated).
 * An empty range needs only a valid pe (the result is then pe's slot base).
 * NULL with the reason (sm_fail_reason) for a closed view (SM_ERR_STATE), a
 * pe out of range, a range that is not wholly in one of the above. */
static inline __attribute__((always_inline)) void *rma_sym_xlate(const struct rma_sym *v, int pe,
                                                                 const void *addr, size_t len)
{
    void *p;
    return rma_sym_fast(v, pe, addr, len, &p) ? p : rma_sym_xlate_slow(v, pe, addr, len);
}

/* The same, calling fail(what) (which does not return: a binding's report)
 * where rma_sym_xlate gives NULL; the fast path has no NULL test. */
typedef void (*rma_fail_fn)(const char *what);
static inline __attribute__((always_inline)) void *rma_sym_xlate_or(const struct rma_sym *v, int pe,
                                                                    const void *addr, size_t len,
                                                                    rma_fail_fn fail, const char *what)
{
    void *p;
    if (SM_LIKELY(rma_sym_fast(v, pe, addr, len, &p))) return p;
    if (!(p = rma_sym_xlate_slow(v, pe, addr, len))) {
        fail(what);
        __builtin_unreachable();
    }
    return p;
}

/* --- Put, get, ordering -----------------------------------------------------
 * On translated addresses. Copies of up to 16 bytes are inline moves (no
 * call), the rest go through memcpy. */
static inline __attribute__((always_inline)) void rma_copy_small(void *dst, const void *src, size_t len)
{
    char *d = dst;
    const char *s = src;
    if (len >= 8) {                   /* 8..16: two overlapping 8-byte moves */
        uint64_t a, b;
        memcpy(&a, s, 8), memcpy(&b, s + len - 8, 8);
        memcpy(d, &a, 8), memcpy(d + len - 8, &b, 8);
    } else if (len >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4), memcpy(&b, s + len - 4, 4);
        memcpy(d, &a, 4), memcpy(d + len - 4, &b, 4);
    } else if (len) {
        char a = s[0], b = s[len / 2], c = s[len - 1];
        d[0] = a, d[len / 2] = b, d[len - 1] = c;
    }
}
static inline __attribute__((always_inline)) void rma_copy(void *dst, const void *src, size_t len)
{
    if (__builtin_constant_p(len) || len > 16) memcpy(dst, src, len);
    else rma_copy_small(dst, src, len);
}

static inline __attribute__((always_inline)) void rma_wake(int pe) { sm_wake_inline(pe); }

/* rma_sym_fast for 1 to RMA_SMALL bytes that do not start in the last
 * RMA_SMALL bytes of the heap or the globals: one compare per region. */
static inline __attribute__((always_inline)) bool rma_sym_fast_small(const struct rma_sym *v, int pe,
                                                                     const void *addr, size_t len, void **out)
{
    if (!(len - 1 < RMA_SMALL && (unsigned)pe < v->npes)) return false;
    uintptr_t d = (uintptr_t)addr - v->heap_lo;
    if (SM_LIKELY(d < v->heap_small)) {
        *out = (void *)(sm_slot_base(pe) + SM_SYM_OFF + d);
        return true;
    }
    uintptr_t g = (uintptr_t)addr - v->globals_lo;
    if (SM_LIKELY(g < v->globals_small)) {
        *out = (void *)(sm_slot_base(pe) + SM_GLOBALS_OFF + g);
        return true;
    }
    return false;
}

/* A put or get of up to RMA_SMALL bytes of symmetric heap or globals, whole
 * inline (translation, moves, wake): true if done; false leaves it to the
 * caller's general path (rma_sym_xlate_or, rma_copy, rma_wake), kept out of
 * line so that this path needs no stack frame. */
static inline __attribute__((always_inline)) bool rma_sym_put_small(const struct rma_sym *v, int pe, void *dst,
                                                                    const void *src, size_t len)
{
    void *p;
    if (!rma_sym_fast_small(v, pe, dst, len, &p)) return false;
    rma_copy_small(p, src, len);
    rma_wake(pe);
    return true;
}
static inline __attribute__((always_inline)) bool rma_sym_get_small(const struct rma_sym *v, int pe, void *dst,
                                                                    const void *src, size_t len)
{
    void *p;
    if (!rma_sym_fast_small(v, pe, src, len, &p)) return false;
    rma_copy_small(dst, p, len);
    return true;
}

static inline void rma_fence(void) { atomic_thread_fence(memory_order_release); }
static inline void rma_quiet(void) { sm_full_fence(); }   /* arch.h: a locked add on x86 */

/* --- Strided transfers --------------------------------------------------------
 * levels+1 counts: count[0] contiguous bytes, then count[i] blocks at byte
 * stride stride[i-1] (SHMEM iput/iget: one level, count {elem, nelems};
 * ARMCI PutS/GetS: up to RMA_STRIDE_LEVELS). Strides are positive. */
#define RMA_STRIDE_LEVELS 8
/* The bytes from the first to the end of the last block, 0 if a count is 0:
 * what the caller translates. SM_ERR_ARG for a stride below 1 (where it
 * matters) or a span beyond the address space. */
sm_status_t rma_strided_span(const size_t *count, const ptrdiff_t *stride, int levels, size_t *span);
/* Copy between two strided layouts of the same counts (spans checked). */
void rma_strided_copy(void *dst, const ptrdiff_t *dst_stride, const void *src, const ptrdiff_t *src_stride,
                      const size_t *count, int levels);

/* --- Atomics ----------------------------------------------------------------------
 * Typed, on a translated address (bindings with compile-time types: SHMEM):
 * seq_cst read-modify-writes, loads and stores on the target's memory; any
 * type the compiler does lock-free, float and double through the generic
 * builtins. */
#define RMA_FETCH_OP(op, p, v)             __atomic_fetch_##op(p, v, __ATOMIC_SEQ_CST)
#define RMA_CSWAP(p, expected_ptr, v)      __atomic_compare_exchange_n(p, expected_ptr, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define RMA_LOAD(p, out_ptr)               __atomic_load(p, out_ptr, __ATOMIC_SEQ_CST)
#define RMA_STORE(p, in_ptr)               __atomic_store(p, in_ptr, __ATOMIC_SEQ_CST)
#define RMA_SWAP(p, in_ptr, out_ptr)       __atomic_exchange(p, in_ptr, out_ptr, __ATOMIC_SEQ_CST)

/* Typed at run time (MPI_Accumulate, Get_accumulate, Fetch_and_op,
 * Compare_and_swap; ARMCI_Acc, ARMCI_Rmw). An element is atomic as the MPI
 * standard asks of accumulates (same op, same basic type, same location):
 *  - a CPU instruction where one does it (integer add/and/or/xor on 1-8
 *    bytes, replace, fetch);
 *  - otherwise a compare-and-swap loop around the (type, op) kernel, for
 *    naturally aligned elements of 1, 2, 4, 8 or 16 bytes;
 *  - otherwise (wider or misaligned elements) under the caller's lock, the
 *    same lock for every access to the same memory (MPI: one per window
 *    and target rank). */
/* The (type, op) kernel: out[i] = a[i] op b[i], i < n (out may be a or b):
 * the shape of the kernels in src/coll's (type, op) table, which the
 * bindings look up there (coll_kernel) and pass, so that this engine needs
 * no collective engine. An accumulate applies it as target = target op
 * origin (a: the target's element, b: the origin's). */
typedef void (*rma_kernel_fn)(void *out, const void *a, const void *b, size_t n);
/* What the CPU can do for (type, op) in one instruction. */
enum rma_native {
    RMA_NATIVE_NONE,      /* the kernel in a compare-and-swap loop or under the lock */
    RMA_NATIVE_REPLACE,   /* MPI_REPLACE: exchange */
    RMA_NATIVE_NOOP,      /* MPI_NO_OP: load (Get_accumulate, Fetch_and_op) */
    RMA_NATIVE_ADD,       /* integer sum, any width and signedness */
    RMA_NATIVE_AND, RMA_NATIVE_OR, RMA_NATIVE_XOR,   /* integer bitwise */
};
struct rma_acc_op {
    size_t          width;   /* bytes of one basic element */
    enum rma_native native;
    rma_kernel_fn   kernel;  /* unused for REPLACE and NOOP */
};
struct rma_lock;
/* For count elements: fetch[i] = dst[i] (if fetch), dst[i] = dst[i] op src[i],
 * each element atomically. dst is translated; src and fetch are the caller's,
 * not overlapping dst. lock serves the elements no instruction can; without
 * one, SM_ERR_UNSUPPORTED for them (nothing is changed then). */
sm_status_t rma_accumulate(void *dst, const void *src, void *fetch, size_t count,
                           const struct rma_acc_op *op, struct rma_lock *lock);
/* The same without atomics, for a caller that excludes every other access
 * to dst (an exclusive lock of its own): the kernel over aligned copies,
 * any width and alignment, at memory speed (ARMCI's large accumulates).
 * op->kernel is needed unless the op is REPLACE or NOOP. */
void rma_accumulate_excl(void *dst, const void *src, void *fetch, size_t count, const struct rma_acc_op *op);
/* Compare-and-swap of one element of width 1, 2, 4, 8 or 16 (aligned):
 * *result = *dst; if it equals *compare, *dst = *value. */
sm_status_t rma_compare_swap(void *dst, const void *compare, const void *value, void *result, size_t width);

/* --- Locks ---------------------------------------------------------------------------
 * In shared memory, on any rank's memory (a translated address), taken by
 * any rank; zero bytes are a free lock. Waiters spin, then sleep on the
 * word they wait for (sm_wait_word); whoever changes it wakes them. Both
 * are fair: FIFO for writers, and readers and writers alternate in phases.
 * Neither fails; taking a lock one already holds deadlocks (the bindings
 * check what their standard asks). */

/* Exclusive ticket lock in 8 bytes (SHMEM's long lock; ARMCI mutexes): the
 * first word hands out tickets, the second serves them. */
struct rma_lock { _Atomic uint32_t next, serving; };
void rma_lock_acquire(struct rma_lock *l);
bool rma_lock_try(struct rma_lock *l);   /* true: taken */
void rma_lock_release(struct rma_lock *l);

/* Reader-writer lock in 16 bytes (MPI_Win_lock shared/exclusive, lock_all):
 * phase-fair ticket lock (Brandenburg & Anderson, PF-T). Readers add
 * RMA_RW_READER to rin and rout; a writer takes a ticket in win, waits for
 * wout, then marks rin's low bits (present, phase) and waits for the
 * readers before it to leave. New readers wait while the mark is there, so
 * neither side starves. */
enum rma_lock_mode { RMA_LOCK_SHARED, RMA_LOCK_EXCLUSIVE };
struct rma_rwlock { _Atomic uint32_t rin, rout, win, wout; };
#define RMA_RW_READER 0x100u
void rma_rwlock_acquire(struct rma_rwlock *l, enum rma_lock_mode mode);
void rma_rwlock_release(struct rma_rwlock *l, enum rma_lock_mode mode);

/* --- The symmetric heap ------------------------------------------------------------
 * The symmetric region of every rank's slot (sm_symmetric_grow), carved by
 * a deterministic first-fit allocator so that the same sequence of
 * collective calls gives the same offsets in every rank. Every call below
 * except rma_sym_close is collective over all ranks of the job: each rank
 * publishes its call, the ranks meet, every rank compares every rank's call
 * with rank 0's (the same-call check), then they meet again. A mismatch is
 * SM_ERR_MISMATCH for the first rank whose call differs from rank 0's (the
 * reason names both calls) and SM_ERR_PEER for the others, which change
 * nothing: no rank hangs. The heap is shared by the bindings of a process
 * (SHMEM, ARMCI): the first open sizes it, the last close forgets its
 * blocks. */
/* Open v onto the symmetric heap, growing the symmetric region to bytes if
 * this is the first open. The collective calls through v meet in barrier,
 * the binding's own barrier over all ranks (NULL: sm_barrier), so that a
 * rank in another of the binding's collectives is caught by the check. */
sm_status_t rma_sym_open(struct rma_sym *v, size_t bytes, void (*barrier)(void));
void rma_sym_close(struct rma_sym *v);
/* A block of size bytes aligned to align (a power of two; at least 16) in
 * *out, zeroed if zero (before any rank returns), or NULL for size 0;
 * SM_ERR_NOMEM (*out NULL) if it does not fit. */
sm_status_t rma_heap_alloc(const struct rma_sym *v, size_t size, size_t align, bool zero, void **out);
/* p: from rma_heap_alloc/realloc, or NULL (nothing is freed). SM_ERR_ARG if
 * p is not a live block, found before any rank is met (the call is not made). */
sm_status_t rma_heap_free(const struct rma_sym *v, void *p);
/* Resize p's block to size (p NULL: alloc; size 0: free, *out NULL), in
 * place when it shrinks or the next block is free, else moved and copied
 * (before any rank returns). SM_ERR_NOMEM leaves p as it was. */
sm_status_t rma_heap_realloc(const struct rma_sym *v, void *p, size_t size, void **out);
/* The heap's size in bytes (0 if not open). */
size_t rma_heap_size(void);

#endif
