/* rma.h: the one-sided engine shared by OpenSHMEM, MPI RMA and ARMCI: address
 * translation with checks, put/get (contiguous and strided), ordering and
 * completion. The fast path is inline: a few compares, then memcpy.
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
 *    full barrier (a locked add on x86): it drains the store buffer, so a later load (of a flag, by
 *    another PE's Dekker-style protocol) cannot pass an earlier put.
 *  - Atomics are seq_cst read-modify-writes on the target's memory (lock-
 *    prefixed: full barriers). Waiters read with acquire loads; signals are
 *    release stores / seq_cst RMWs after the data, so data put before a
 *    signal is visible to whoever sees the signal.
 *  - Whatever may be waited on (puts, atomics, signals) is followed by
 *    rma_wake(pe): one load when the target is not asleep (DESIGN.md §6). */
#ifndef RMA_H
#define RMA_H

#include <stdatomic.h>
#include <string.h>

#include "arch.h"
#include "sm_core.h"

/* Failure reporting: one line naming the routine and the value, then the job
 * ends through the binding's exit path (set by the binding; default sm_abort). */
typedef void (*rma_exit_fn)(int code);
void rma_set_exit(rma_exit_fn fn);
_Noreturn void rma_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void rma_bad_pe(const char *routine, int pe);
_Noreturn void rma_bad_addr(const char *routine, const void *addr, size_t len, int pe);

/* The address at which the caller reaches [addr, addr+len) of pe, where addr
 * names the caller's own (symmetric or otherwise exposed) object, or a global
 * (slot) address. Ends the job with a message if pe or the range is bad;
 * an empty range needs only a valid pe. */
static inline __attribute__((always_inline)) void *rma_xlate(int pe, const void *addr, size_t len, const char *routine)
{
    if (SM_UNLIKELY((unsigned)pe >= (unsigned)sm_core.size)) rma_bad_pe(routine, pe);
    if (SM_UNLIKELY(len == 0)) return (void *)(uintptr_t)addr;   /* nothing is accessed */
    uint64_t off = sm_local_offset((uintptr_t)addr);
    if (SM_UNLIKELY(off == UINT64_MAX || len > sm_core.slot_bytes - off ||
                    sm_local_offset((uintptr_t)addr + len - 1) != off + len - 1))
        rma_bad_addr(routine, addr, len, pe);
    return (void *)(sm_slot_base(pe) + off);
}

/* Same, without ending the job: NULL if unreachable (shmem_ptr, accessibility queries). */
static inline void *rma_lookup(int pe, const void *addr)
{
    if ((unsigned)pe >= (unsigned)sm_core.size) return NULL;
    uint64_t off = sm_local_offset((uintptr_t)addr);
    return off == UINT64_MAX ? NULL : (void *)(sm_slot_base(pe) + off);
}

static inline void rma_wake(int pe) { sm_wake(pe); }

/* (No memcpy of 0 bytes: its pointers may be NULL then, which memcpy's are not allowed to be.) */
static inline __attribute__((always_inline)) void rma_put(int pe, void *dst, const void *src, size_t len, const char *routine)
{
    void *d = rma_xlate(pe, dst, len, routine);
    if (SM_LIKELY(len)) memcpy(d, src, len);
}
static inline __attribute__((always_inline)) void rma_get(int pe, void *dst, const void *src, size_t len, const char *routine)
{
    const void *s = rma_xlate(pe, src, len, routine);
    if (SM_LIKELY(len)) memcpy(dst, s, len);
}

/* Strided: nelems elements of elem bytes; strides in elements (as SHMEM's
 * iput/iget), positive. */
void rma_iput(int pe, void *dst, const void *src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
              size_t elem, size_t nelems, const char *routine);
void rma_iget(int pe, void *dst, const void *src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
              size_t elem, size_t nelems, const char *routine);

/* Atomics on pe's instance of *p (any 1-16 byte type the CPU can do
 * lock-free; float and double through the generic builtins): seq_cst
 * read-modify-writes, loads and stores on the target's memory. */
#define RMA_AT_(pe, p, routine) ((__typeof__(p))rma_xlate(pe, p, sizeof *(p), routine))
#define RMA_FETCH_OP(op, pe, p, v, routine) __atomic_fetch_##op(RMA_AT_(pe, p, routine), v, __ATOMIC_SEQ_CST)
#define RMA_CSWAP(pe, p, expected_ptr, v, routine) \
    __atomic_compare_exchange_n(RMA_AT_(pe, p, routine), expected_ptr, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define RMA_LOAD(pe, p, out_ptr, routine)     __atomic_load(RMA_AT_(pe, p, routine), out_ptr, __ATOMIC_SEQ_CST)
#define RMA_STORE(pe, p, in_ptr, routine)     __atomic_store(RMA_AT_(pe, p, routine), in_ptr, __ATOMIC_SEQ_CST)
#define RMA_SWAP(pe, p, in_ptr, out_ptr, routine) \
    __atomic_exchange(RMA_AT_(pe, p, routine), in_ptr, out_ptr, __ATOMIC_SEQ_CST)

static inline void rma_fence(void) { atomic_thread_fence(memory_order_release); }
static inline void rma_quiet(void) { sm_full_fence(); }   /* arch.h: a locked add on x86 */

#endif
