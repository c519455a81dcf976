/* amo.c: atomics typed at run time (rma.h): accumulate with fetch, element
 * by element atomically (a CPU instruction, a compare-and-swap loop around
 * the (type, op) kernel, or the caller's lock), and compare-and-swap. */
#include <stdalign.h>

#include "rma.h"

typedef unsigned __int128 rma_u128;

/* --- 16 bytes: cmpxchg16b where the CPU has it (x86-64; aligned) ------------------ */
#if defined(__x86_64__)
#define RMA_HAVE_CAS16 1
/* *p == *expected ? (*p = desired, true) : (*expected = *p, false), atomically. */
static inline bool cas16(rma_u128 *p, rma_u128 *expected, rma_u128 desired)
{
    bool ok;
    uint64_t lo = (uint64_t)*expected, hi = (uint64_t)(*expected >> 64);
    __asm__ __volatile__("lock cmpxchg16b %1"
                         : "=@ccz"(ok), "+m"(*p), "+a"(lo), "+d"(hi)
                         : "b"((uint64_t)desired), "c"((uint64_t)(desired >> 64))
                         : "memory");
    *expected = (rma_u128)hi << 64 | lo;
    return ok;
}
#else
#define RMA_HAVE_CAS16 0
static inline bool cas16(rma_u128 *p, rma_u128 *expected, rma_u128 desired)
{
    (void)p, (void)expected, (void)desired;
    __builtin_unreachable();
}
#endif

/* --- The instruction paths, per width --------------------------------------------
 * src and fetch are the caller's buffers, maybe unaligned: elements are
 * moved through locals. */
#define RMA_NATIVE_FN(T)                                                                      \
static void native_##T(T *d, const char *src, char *fetch, size_t n, enum rma_native op)      \
{                                                                                             \
    for (size_t i = 0; i < n; i++) {                                                          \
        T v = 0, old;                                                                         \
        if (op != RMA_NATIVE_NOOP) memcpy(&v, src + i * sizeof(T), sizeof(T));                \
        switch (op) {                                                                         \
        case RMA_NATIVE_REPLACE: old = __atomic_exchange_n(d + i, v, __ATOMIC_SEQ_CST); break; \
        case RMA_NATIVE_ADD: old = __atomic_fetch_add(d + i, v, __ATOMIC_SEQ_CST); break;     \
        case RMA_NATIVE_AND: old = __atomic_fetch_and(d + i, v, __ATOMIC_SEQ_CST); break;     \
        case RMA_NATIVE_OR: old = __atomic_fetch_or(d + i, v, __ATOMIC_SEQ_CST); break;       \
        case RMA_NATIVE_XOR: old = __atomic_fetch_xor(d + i, v, __ATOMIC_SEQ_CST); break;     \
        default: old = __atomic_load_n(d + i, __ATOMIC_SEQ_CST); break;                       \
        }                                                                                     \
        if (fetch) memcpy(fetch + i * sizeof(T), &old, sizeof(T));                            \
    }                                                                                         \
}                                                                                             \
static void cas_loop_##T(T *d, const char *src, char *fetch, size_t n, rma_kernel_fn k)       \
{                                                                                             \
    for (size_t i = 0; i < n; i++) {                                                          \
        T in, old = __atomic_load_n(d + i, __ATOMIC_RELAXED), nv;                             \
        memcpy(&in, src + i * sizeof(T), sizeof(T));                                          \
        do {                                                                                  \
            k(&nv, &old, &in, 1);                                                             \
        } while (!__atomic_compare_exchange_n(d + i, &old, nv, false, __ATOMIC_SEQ_CST,       \
                                              __ATOMIC_RELAXED));                             \
        if (fetch) memcpy(fetch + i * sizeof(T), &old, sizeof(T));                            \
    }                                                                                         \
}
RMA_NATIVE_FN(uint8_t)
RMA_NATIVE_FN(uint16_t)
RMA_NATIVE_FN(uint32_t)
RMA_NATIVE_FN(uint64_t)

/* 16 bytes: replace, fetch and every op through cmpxchg16b (a failed one
 * reads the element atomically, so a torn first guess only costs a retry). */
static void cas_loop_u128(rma_u128 *d, const char *src, char *fetch, size_t n, const struct rma_acc_op *op)
{
    for (size_t i = 0; i < n; i++) {
        rma_u128 in = 0, old, nv;
        if (op->native != RMA_NATIVE_NOOP) memcpy(&in, src + i * 16, 16);
        memcpy(&old, d + i, 16);
        do {
            nv = old;
            if (op->native == RMA_NATIVE_REPLACE) nv = in;
            else if (op->native != RMA_NATIVE_NOOP) op->kernel(&nv, &old, &in, 1);   /* no 16-byte instruction */
        } while (!cas16(d + i, &old, nv));
        if (fetch) memcpy(fetch + i * 16, &old, 16);
    }
}

/* --- Under the caller's lock ------------------------------------------------------
 * The kernel runs on aligned copies of the elements: their type may need
 * more alignment than the target or the origin has (a misaligned element
 * is why this path was taken). */
#define RMA_BOUNCE 4096
static void locked(char *d, const char *src, char *fetch, size_t count, const struct rma_acc_op *op,
                   struct rma_lock *lock)
{
    rma_lock_acquire(lock);
    rma_accumulate_excl(d, src, fetch, count, op);
    rma_lock_release(lock);
}

void rma_accumulate_excl(void *dst, const void *src, void *fetch, size_t count, const struct rma_acc_op *op)
{
    char *d = dst;
    size_t w = op->width, bytes = count * w;
    if (fetch) memcpy(fetch, d, bytes);
    if (op->native == RMA_NATIVE_REPLACE) {
        memcpy(d, src, bytes);
    } else if (op->native != RMA_NATIVE_NOOP && w > RMA_BOUNCE) {
        op->kernel(d, d, src, count);   /* (elements this large are the caller's to align) */
    } else if (op->native != RMA_NATIVE_NOOP) {
        alignas(64) char a[RMA_BOUNCE], b[RMA_BOUNCE];
        for (size_t i = 0, per = RMA_BOUNCE / w; i < count; i += per) {
            size_t k = count - i < per ? count - i : per;
            memcpy(a, d + i * w, k * w), memcpy(b, src + i * w, k * w);
            op->kernel(a, a, b, k);
            memcpy(d + i * w, a, k * w);
        }
    }
}

bool rma_acc_lockfree(const void *a, size_t w)
{
    bool aligned = w && !(w & (w - 1)) && ((uintptr_t)a & (w - 1)) == 0;
    return aligned && (w <= 8 || (w == 16 && RMA_HAVE_CAS16));
}

sm_status_t rma_accumulate(void *dst, const void *src, void *fetch, size_t count,
                           const struct rma_acc_op *op, struct rma_lock *lock)
{
    size_t w = op->width;
    if (w == 0) return sm_fail(SM_ERR_ARG, "elements of 0 bytes");
    bool aligned = !(w & (w - 1)) && ((uintptr_t)dst & (w - 1)) == 0;
    bool moves = op->native == RMA_NATIVE_REPLACE || op->native == RMA_NATIVE_NOOP;
    bool instruction = aligned && w <= 8 && op->native != RMA_NATIVE_NONE;
    bool cas = rma_acc_lockfree(dst, w);
    if (!instruction && !moves && !op->kernel) return sm_fail(SM_ERR_ARG, "no kernel for elements of %zu bytes", w);
    if (!cas && !lock)
        return sm_fail(SM_ERR_UNSUPPORTED, "%s elements of %zu bytes need a lock to be updated atomically",
                       aligned ? "the CPU has no atomics for" : "misaligned", w);
    if (count == 0) return SM_OK;
    const char *s = src;
    char *f = fetch;
    if (instruction || (cas && w <= 8)) {
#define RMA_DISPATCH(T) instruction ? native_##T(dst, s, f, count, op->native) : cas_loop_##T(dst, s, f, count, op->kernel)
        switch (w) {
        case 1: RMA_DISPATCH(uint8_t); break;
        case 2: RMA_DISPATCH(uint16_t); break;
        case 4: RMA_DISPATCH(uint32_t); break;
        default: RMA_DISPATCH(uint64_t); break;
        }
#undef RMA_DISPATCH
    } else if (cas) {
        cas_loop_u128(dst, s, f, count, op);
    } else {
        locked(dst, s, f, count, op, lock);
    }
    return SM_OK;
}

sm_status_t rma_compare_swap(void *dst, const void *compare, const void *value, void *result, size_t width)
{
    if ((width & (width - 1)) || width == 0 || width > 16 || (width == 16 && !RMA_HAVE_CAS16))
        return sm_fail(SM_ERR_UNSUPPORTED, "no compare-and-swap for elements of %zu bytes", width);
    if ((uintptr_t)dst & (width - 1))
        return sm_fail(SM_ERR_ARG, "compare-and-swap target %p is not aligned to its %zu bytes", dst, width);
#define RMA_CSWAP_T(T) {                                                                       \
        T c, v;                                                                                \
        memcpy(&c, compare, sizeof c), memcpy(&v, value, sizeof v);                            \
        __atomic_compare_exchange_n((T *)dst, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        memcpy(result, &c, sizeof c);                                                          \
    } break
    switch (width) {
    case 1: RMA_CSWAP_T(uint8_t);
    case 2: RMA_CSWAP_T(uint16_t);
    case 4: RMA_CSWAP_T(uint32_t);
    case 8: RMA_CSWAP_T(uint64_t);
    default: {
        rma_u128 c, v;
        memcpy(&c, compare, 16), memcpy(&v, value, 16);
        cas16(dst, &c, v);
        memcpy(result, &c, 16);
    }
    }
#undef RMA_CSWAP_T
    return SM_OK;
}
