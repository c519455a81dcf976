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
 *    rma_wake(pe): one load when the target is not asleep in rma_wait_until
 *    (DESIGN.md §6).
 *
 * Windows (MPI RMA, ARMCI; the last section) translate (member,
 * displacement) through a table of every member's base and size instead of
 * a symmetric view, and use the same copies, atomics, accumulate and locks. */
#ifndef RMA_H
#define RMA_H

#include <stdatomic.h>
#include <string.h>

#include "arch.h"
#include "dt.h"
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
    unsigned  fast_npes;            /* npes on one node; 0 across nodes, where every access takes
                                     * the slow translation and the caller tests rma_remote(pe) */
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
    if (SM_LIKELY((unsigned)pe < v->fast_npes && d < v->heap_len && len - 1 < v->heap_len - d)) {
        *out = (void *)(sm_slot_base(pe) + SM_SYM_OFF + d);
        return true;
    }
    uintptr_t g = (uintptr_t)addr - v->globals_lo;
    if (SM_LIKELY((unsigned)pe < v->fast_npes && g < v->globals_len && len - 1 < v->globals_len - g)) {
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

static inline __attribute__((always_inline)) void rma_wake(int pe) { sm_wake_inline(pe, SM_WAKE_RMA); }
/* Wait until cond(arg) (a test of words in this PE's memory that puts,
 * atomics and signals change): only rma_wake ends its sleeps, and only its
 * sleeps make rma_wake pay more than one load (a PE asleep in a collective
 * costs a put nothing). */
extern bool rma_remote_up;
void rma_remote_wait(bool (*cond)(void *), void *arg);
void rma_remote_poll(void);   /* UCX run once (rma_polled) */
static inline void rma_wait_until(bool (*cond)(void *), void *arg)
{
    if (SM_UNLIKELY(rma_remote_up)) rma_remote_wait(cond, arg);   /* remote.c: UCX progressed */
    else sm_wait_for(SM_WAKE_ON(SM_WAKE_RMA), cond, arg);
}

/* A test that found nothing (a failed shmem_test*, shmem_test_lock, a
 * signal fetched): programs call them in loops, and across nodes over TCP a
 * peer's put into this PE, and a peer's flush waiting for one (its quiet
 * before shmem_clear_lock), is done by this PE's worker. Without a run here
 * such a loop hung (test_lock on 2 nodes: a PE polling the lock on its node
 * while the holder's quiet waited on it). */
static inline void rma_polled(void)
{
    if (SM_UNLIKELY(rma_remote_up)) rma_remote_poll();
}

/* rma_sym_fast for 1 to RMA_SMALL bytes that do not start in the last
 * RMA_SMALL bytes of the heap or the globals: one compare per region. */
static inline __attribute__((always_inline)) bool rma_sym_fast_small(const struct rma_sym *v, int pe,
                                                                     const void *addr, size_t len, void **out)
{
    if (!(len - 1 < RMA_SMALL && (unsigned)pe < v->fast_npes)) return false;
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

/* --- Ranks on other nodes (remote.c) ---------------------------------------------
 * Across nodes (a job launched by PMIx over several nodes) a translated
 * address of a rank elsewhere is not mapped here: it is where that rank has
 * the memory in its own address space, and the operations below reach it
 * through UCX. Whether pe is elsewhere: rma_remote(pe), for a pe in range
 * (a translation succeeded). rma_remote_up: the path is open (some rank is
 * elsewhere and rma_sym_open or a window set it up); waits then poll. */
static inline __attribute__((always_inline)) bool rma_remote(int pe) { return SM_UNLIKELY(!sm_rank_local(pe)); }
/* Collective over the job (rma_sym_open calls it): register this rank's
 * slot and exchange keys; nothing on one node. */
sm_status_t rma_remote_open(void);
/* Collective: flush, and a fence over the job (the last rma_sym_close). */
sm_status_t rma_remote_close(void);
/* Waits poll from now on (a window spanning nodes was made: the slot below
 * the symmetric region was registered at the start, net_init). */
void rma_remote_start(void);
/* Complete locally before they return (the source reusable, the data here). */
sm_status_t rma_remote_put(int pe, void *raddr, const void *src, size_t len);
sm_status_t rma_remote_get(int pe, void *dst, const void *raddr, size_t len);
/* The same, started only (many in flight: the pieces of a typemap), all
 * complete locally at rma_remote_local. */
sm_status_t rma_remote_put_nbi(int pe, void *raddr, const void *src, size_t len);
sm_status_t rma_remote_get_nbi(int pe, void *dst, const void *raddr, size_t len);
sm_status_t rma_remote_local(void);
/* rma_strided_copy's layout, raddr at pe, local here; put: local -> raddr. */
sm_status_t rma_remote_strided(bool put, int pe, void *raddr, const ptrdiff_t *rstride, void *local,
                               const ptrdiff_t *lstride, const size_t *count, int levels);
/* An atomic of width 4 or 8 on raddr at pe: value the operand (the new
 * value of SWAP and CSWAP), with result the old value (required for SWAP,
 * CSWAP); without, it completes at rma_remote_quiet. */
enum rma_amo_op { RMA_AMO_ADD, RMA_AMO_AND, RMA_AMO_OR, RMA_AMO_XOR, RMA_AMO_SWAP, RMA_AMO_CSWAP };
sm_status_t rma_remote_amo(int pe, void *raddr, enum rma_amo_op op, size_t width, uint64_t value, uint64_t compare,
                           uint64_t *result);
/* Order (fence) or complete (quiet) every remote operation started. */
sm_status_t rma_remote_fence(void);
sm_status_t rma_remote_quiet(void);
/* One round of a poll: UCX progressed, or the CPU yielded. */
void rma_remote_idle(void);
void rma_remote_wait_word(_Atomic uint32_t *w, uint32_t seen);
struct rma_lock;
/* The ticket lock (below) at raddr in pe's memory; release quiets first. */
sm_status_t rma_remote_lock_acquire(int pe, struct rma_lock *l);
sm_status_t rma_remote_lock_try(int pe, struct rma_lock *l, bool *taken);
sm_status_t rma_remote_lock_release(int pe, struct rma_lock *l);
/* Release ordered after the caller's operations to pe only (a worker fence,
 * then the add, not waited for): what a lock guarding memory of pe's needs,
 * without a round trip (the window's accumulate locks; epochs flush). */
sm_status_t rma_remote_lock_release_to(int pe, struct rma_lock *l);

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
/* The same lock at l in pe's memory on another node (rma_remote): the same
 * protocol on UCX atomics; release completes every remote operation first. */
sm_status_t rma_remote_rwlock_acquire(int pe, struct rma_rwlock *l, enum rma_lock_mode mode);
sm_status_t rma_remote_rwlock_release(int pe, struct rma_rwlock *l, enum rma_lock_mode mode);

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

/* --- Windows (MPI RMA; ARMCI) ------------------------------------------------------
 * A window is memory that each member of a group exposes to the others:
 * member i's [base_i, base_i + size_i), addressed by (i, displacement in
 * units of disp_unit_i), or, for a dynamic window, the regions member i
 * attaches, addressed by their addresses in member i. Every member reaches
 * every other's window memory with plain loads and stores where it is
 * exposed (heap, globals, main stack: DESIGN.md §1), else through the
 * core's fallback paths (sm_copy: kernel, staged), so any memory can be a
 * window. Each member also has a sync block in its own SM_AREA_RMA (the
 * passive-target lock, the accumulate locks, the PSCW counters) and, for a
 * dynamic window, a table of its attached regions that the others read, so
 * that every synchronisation is memory ordering plus words there: no
 * operation needs the target to take part.
 *
 * The struct below is the caller's view: the table of members, and the
 * epochs the caller has open (private memory; MPI_THREAD_SERIALIZED use).
 * Creation and free are collective over the members through the binding's
 * allgather and barrier (rma_win_coll), so the engine needs no collective
 * engine. Errors (the binding names its routine and maps the kind):
 *  SM_ERR_STATE  no epoch allows the call, or one that conflicts is open;
 *  SM_ERR_ACCESS the target bytes are outside the target's window;
 *  SM_ERR_ARG    a bad member, size, assertion (the reason says which);
 *  SM_ERR_NOMEM, SM_ERR_PEER (a member could not create the window), and
 *  the fallback path's own (sm_copy). */

enum rma_win_kind { RMA_WIN_CREATE = 1, RMA_WIN_ALLOCATE, RMA_WIN_DYNAMIC, RMA_WIN_SHARED };

/* What each member publishes at creation, and every member keeps. */
struct rma_win_peer {
    uintptr_t base;        /* RMA_PEER_DIRECT: a global address; else the member's own address (sm_copy);
                            * dynamic: the global address of its table of attached regions */
    uint64_t  size;        /* bytes (0 for a dynamic window) */
    uint32_t  disp_unit;
    uint32_t  flags;       /* RMA_PEER_* */
    uintptr_t sync;        /* its sync block (rma_area.h), global address */
    uintptr_t inbox;       /* a window spanning nodes: its PSCW words written from other nodes (win.c) */
    uint64_t  units;       /* RMA_PEER_DIRECT: the whole disp_units in size, else 0 (rma_win_direct's bound,
                            * divided once at creation) */
};
#define RMA_PEER_DIRECT 1u  /* the inline path may load and store it (RMA_PEER_MAPPED, the window on one node) */
#define RMA_PEER_FAILED 2u  /* the member could not create the window: all fail */
#define RMA_PEER_MAPPED 4u  /* plain loads and stores reach it */
#define RMA_PEER_REMOTE 8u  /* on another node: UCX reaches it at base, a global address (remote.c) */

/* Per member, for post/start/complete/wait: the posts and completions it
 * has made that we have seen, and those we have made to it. */
struct rma_win_pscw { uint32_t post_seen, complete_seen, post_sent, complete_sent; };

/* The binding's collectives over the members (in member order). */
struct rma_win_coll {
    sm_status_t (*allgather)(void *ctx, void *dst, const void *src, size_t len);
    sm_status_t (*barrier)(void *ctx);
    void *ctx;
};

/* How the caller's access epoch to a member was opened (rma_win.access). */
enum { RMA_ACC_START = 1, RMA_ACC_SHARED, RMA_ACC_EXCLUSIVE };
#define RMA_ACC_NOCHECK 0x10u   /* a lock not taken (the caller asserted nobody conflicts) */
#define RMA_ACC_LOCKED(a) (((a) & 0xfu) >= RMA_ACC_SHARED)
/* rma_win.open: every member is a target */
#define RMA_OPEN_FENCE 1u       /* a fence opened an epoch (its operations complete at the next) */
#define RMA_OPEN_ALL   2u       /* rma_win_lock_all */

struct rma_win {
    int       n, me;             /* members, the caller's index */
    struct rma_win_peer *peer;   /* per member */
    uint8_t  *access;            /* per member: RMA_ACC_* of the caller's epoch to it, 0: none */
    uint8_t   open;              /* RMA_OPEN_*: every member accessible */
    uint64_t  ops;               /* operations issued since the last epoch ended */
    /* the rest is the engine's */
    enum rma_win_kind kind;
    void     *base;              /* the caller's memory as it names it (allocated: what it got) */
    uint64_t  size;
    uint32_t  disp_unit;
    int      *ranks;             /* job rank of each member */
    int      *index;             /* member of each job rank, -1 */
    struct rma_win_sync *sync;   /* the caller's sync block */
    int       slot;              /* its number in the area */
    void     *mem;               /* what the engine allocated (freed with the window) */
    struct rma_win_coll coll;
    struct rma_win_pscw *pscw;   /* PSCW, per member: the counts of the words we and it write */
    int      *epoch, nepoch;     /* the members of the access epoch begun by rma_win_start ... */
    bool      started;           /* ... while it is open */
    int      *exposure, nexposure;   /* the members of the exposure epoch (rma_win_post) ... */
    struct rma_win_regions *regions;   /* dynamic: the caller's attached regions (rma_area.h) */
    bool      exposing;          /* ... while it is open */
    int       nlocks;            /* members locked by rma_win_lock */
    uint8_t   all_flags;         /* rma_win_lock_all's */
    bool      spans;             /* some member is on another node (then no member is RMA_PEER_DIRECT) */
    struct rma_win_inbox *inbox; /* spanning: the caller's PSCW words that members elsewhere write */
};

/* Creation, collective over the members. base/size/disp_unit: the caller's
 * memory (CREATE), the bytes to allocate (ALLOCATE; SHARED: contiguous
 * puts the members' memory one after another, in one allocation at member
 * 0, as MPI_Win_allocate_shared does by default), nothing (DYNAMIC). A
 * member with failed set takes part without creating anything (its
 * arguments were bad): every member then fails, none hangs. SM_ERR_NOMEM:
 * no memory, or RMA_WIN_MAX windows in use; SM_ERR_PEER: another member
 * failed. */
#define RMA_WIN_MAX 1024        /* windows a rank may be a member of at once */
struct rma_win_args {
    const struct sm_group *members;   /* me: the caller's index */
    const struct rma_win_coll *coll;
    enum rma_win_kind kind;
    void     *base;
    uint64_t  size;
    uint32_t  disp_unit;
    bool      contiguous;
    bool      failed;
};
sm_status_t rma_win_create(struct rma_win *w, const struct rma_win_args *a);
/* Collective. Epochs still open are an error (SM_ERR_STATE), but the
 * window is freed anyway (its locks released first), since the other
 * members are freeing it: nobody hangs. */
sm_status_t rma_win_free(struct rma_win *w);
/* The member of job rank r, or -1. */
static inline int rma_win_member(const struct rma_win *w, int r)
{
    return (unsigned)r < (unsigned)sm_core.size ? w->index[r] : -1;
}
/* Where the caller can load and store member t's window memory, its size
 * and disp_unit; NULL and size 0 if it cannot (memory reached through the
 * fallback, or a dynamic window). Every exposed window qualifies, not only
 * shared ones. */
void *rma_win_shared(const struct rma_win *w, int t, uint64_t *size, uint32_t *disp_unit);
/* Dynamic windows: the caller's [base, base + size) becomes reachable at
 * the addresses it has in the caller (SM_ERR_ARG: overlaps a region
 * attached already; SM_ERR_NOMEM: RMA_WIN_ATTACH_MAX regions); detach
 * takes the region attached at base (SM_ERR_ARG if none). */
#define RMA_WIN_ATTACH_MAX 1024
sm_status_t rma_win_attach(struct rma_win *w, void *base, uint64_t size);
sm_status_t rma_win_detach(struct rma_win *w, const void *base);

/* --- Window communication ---
 * count elements of type at addr (type NULL: count bytes) on the caller's
 * side; the same number of bytes at the target: (member, displacement)
 * with count elements of type. Every call completes before it returns (the
 * bytes are in the target's memory, or read from it); the epochs order
 * them for others. */
struct rma_buf { void *addr; size_t count; const struct dt_type *type; };
struct rma_target { int member; int64_t disp; size_t count; const struct dt_type *type; };

/* The fast path, inline: true and *out, the target address of len bytes
 * at disp in member t, when an epoch allows it and plain stores reach it;
 * false otherwise (then the general call below says why, or takes the
 * fallback path). disp < units puts disp x disp_unit below size with no
 * overflow test (a displacement in the last partial unit goes the general
 * way). */
static inline __attribute__((always_inline)) bool rma_win_direct(struct rma_win *w, int t, int64_t disp, size_t len,
                                                                  void **out)
{
    size_t u = (unsigned)t;
    if (SM_UNLIKELY(u >= (unsigned)w->n || !(w->open | w->access[u]))) return false;
    const struct rma_win_peer *p = &w->peer[u];
    if (SM_UNLIKELY((uint64_t)disp >= p->units)) return false;
    uint64_t off = (uint64_t)disp * p->disp_unit;
    if (SM_UNLIKELY(len > p->size - off)) return false;
    w->ops++;
    *out = (void *)(p->base + off);
    return true;
}
sm_status_t rma_win_put(struct rma_win *w, const struct rma_target *t, const struct rma_buf *origin);
sm_status_t rma_win_get(struct rma_win *w, const struct rma_target *t, const struct rma_buf *origin);
/* Accumulate, element by element atomically (rma_accumulate): target =
 * target op origin, the old target elements into result if not NULL
 * (MPI_Get_accumulate). The elements are elem's (a basic type, pairs
 * included), of which every type given is made; origin NULL: op is
 * RMA_NATIVE_NOOP. Elements no CPU instruction can update are updated
 * under the target's lock of their address region, as are all elements of
 * memory reached through the fallback. */
sm_status_t rma_win_accumulate(struct rma_win *w, const struct rma_target *t, const struct rma_buf *origin,
                               const struct rma_buf *result, const struct rma_acc_op *op,
                               const struct dt_type *elem);
/* Compare-and-swap of one element of elem at the target. */
sm_status_t rma_win_compare_swap(struct rma_win *w, int t, int64_t disp, const void *value, const void *compare,
                                 void *result, const struct dt_type *elem);
/* The lock that guards target address a of member t for accumulates (a is
 * what rma_win_direct gave), and whether an element of width bytes at a
 * needs it (no instruction updates it). */
struct rma_lock *rma_win_acc_lock(const struct rma_win *w, int t, const void *a);
bool rma_acc_lockfree(const void *a, size_t width);

/* --- Window synchronisation ---
 * Active target: fence (collective: the binding's barrier), and post,
 * start, complete, wait/test on lists of members. Passive target: locks
 * in the target's sync block, taken and released by the caller alone. */
#define RMA_NOCHECK        1u   /* start, post, lock: no conflicting epoch exists (nothing is waited for) */
#define RMA_FENCE_NOPRECEDE 2u  /* fence: no operation of the caller's to complete (checked) */
#define RMA_FENCE_NOSUCCEED 4u  /* fence: no epoch follows */
sm_status_t rma_win_fence(struct rma_win *w, unsigned flags);
sm_status_t rma_win_post(struct rma_win *w, const int *members, int n, unsigned flags);
sm_status_t rma_win_start(struct rma_win *w, const int *members, int n, unsigned flags);
sm_status_t rma_win_complete(struct rma_win *w);
sm_status_t rma_win_wait(struct rma_win *w);
sm_status_t rma_win_test(struct rma_win *w, bool *done);
sm_status_t rma_win_lock(struct rma_win *w, int t, enum rma_lock_mode mode, unsigned flags);
sm_status_t rma_win_unlock(struct rma_win *w, int t);
sm_status_t rma_win_lock_all(struct rma_win *w, unsigned flags);
sm_status_t rma_win_unlock_all(struct rma_win *w);
/* Complete the caller's operations to member t (RMA_ALL: every member), at
 * the target (flush) or only at the caller (local): in a passive-target
 * epoch. Operations complete as they are issued, so these order memory. */
#define RMA_ALL (-1)
/* The inline checks: a passive-target epoch to member t, a valid member
 * (negative: no) ... */
static inline __attribute__((always_inline)) bool rma_win_locked(const struct rma_win *w, int t)
{
    return (unsigned)t < (unsigned)w->n && ((w->open & RMA_OPEN_ALL) || RMA_ACC_LOCKED(w->access[t]));
}
/* ... or, t RMA_ALL, to any. */
static inline __attribute__((always_inline)) bool rma_win_flush_ready(const struct rma_win *w, int t)
{
    if (t == RMA_ALL) return (w->open & RMA_OPEN_ALL) || w->nlocks;
    return rma_win_locked(w, t);
}
/* Our operations are complete when issued: what remains is their order
 * with what follows (a flag put after them, a load that the target's
 * Dekker-style protocol depends on): a full barrier, or for a local
 * flush a release one. */
static inline __attribute__((always_inline)) void rma_win_flush_order(bool local)
{
    if (local) atomic_thread_fence(memory_order_release);
    else sm_full_fence();
}
sm_status_t rma_win_flush_slow(struct rma_win *w, int t, bool local);
static inline __attribute__((always_inline)) sm_status_t rma_win_flush(struct rma_win *w, int t, bool local)
{
    if (SM_UNLIKELY(!rma_win_flush_ready(w, t) || w->spans)) return rma_win_flush_slow(w, t, local);
    rma_win_flush_order(local);
    return SM_OK;
}
/* Order the caller's loads and stores of window memory with others' (MPI_Win_sync). */
static inline void rma_win_sync(void) { sm_full_fence(); }

#endif
