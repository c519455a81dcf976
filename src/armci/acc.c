/* acc.c: ARMCI accumulate, dst += scale * src: the origin's elements are
 * scaled into a buffer of the caller's, then added to the target's memory
 * by the one-sided engine (rma.h) in one of two ways, under a reader-writer
 * lock of the target process that keeps them apart:
 *  - small ones (up to ACC_ATOMIC_MAX bytes, aligned), holding the lock
 *    shared, element by element atomically: a locked add for int and long,
 *    a compare-and-swap loop around the collective engine's sum kernel for
 *    the floating types (double complex with cmpxchg16b); many processes
 *    update the same memory at once;
 *  - large or misaligned ones holding it exclusive, with the plain kernel
 *    at memory speed (a compare-and-swap per element moves about 0.5 GB/s
 *    here, the kernel tens), each then atomic as a whole.
 * So concurrent accumulates to the same elements from any processes all
 * take effect. A target on another node: its lock taken exclusive with
 * UCX atomics, the elements read, added to here and written back
 * (acc_remote), which the holders of the shared lock there wait for. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "armci_internal.h"

struct acc_type {
    const char *name;
    struct rma_acc_op op;
};
static struct acc_type types[ARMCI_ACC_DCP + 1];

#define ACC_ATOMIC_MAX 256

/* One lock per process, in its memory; every process knows every one. */
struct padded_lock { alignas(SM_CACHELINE) struct rma_rwlock l; };
static struct padded_lock *my_lock;
static struct padded_lock **locks;

sm_status_t armci_acc_init(void)
{
    const struct { const char *name; enum coll_dtype t; bool integer; } def[] = {
        [ARMCI_ACC_INT] = { "ARMCI_ACC_INT", COLL_DTYPE_OF(int), true },
        [ARMCI_ACC_LNG] = { "ARMCI_ACC_LNG", COLL_DTYPE_OF(long), true },
        [ARMCI_ACC_FLT] = { "ARMCI_ACC_FLT", COLL_FLOAT, false },
        [ARMCI_ACC_DBL] = { "ARMCI_ACC_DBL", COLL_DOUBLE, false },
        [ARMCI_ACC_CPL] = { "ARMCI_ACC_CPL", COLL_CFLOAT, false },
        [ARMCI_ACC_DCP] = { "ARMCI_ACC_DCP", COLL_CDOUBLE, false },
    };
    for (int i = 0; i <= ARMCI_ACC_DCP; i++)
        types[i] = (struct acc_type){ def[i].name, { coll_dtype_size(def[i].t),
                                                     def[i].integer ? RMA_NATIVE_ADD : RMA_NATIVE_NONE,
                                                     coll_kernel(def[i].t, COLL_SUM) } };
    if (posix_memalign((void **)&my_lock, SM_CACHELINE, sizeof *my_lock) ||
        !(locks = malloc(sizeof *locks * (size_t)armci_nproc)))
        return sm_fail(SM_ERR_NOMEM, "no memory for the accumulate locks");
    memset(my_lock, 0, sizeof *my_lock);
    return coll_allgather(&armci_world.impl->cg, locks, &my_lock, sizeof my_lock);
}

void armci_acc_finalize(void)
{
    free(locks), free(my_lock);
    locks = NULL, my_lock = NULL;
}

/* The origin's elements times scale, k of them, into out (aligned). Origin
 * elements are read through memcpy: the caller's buffer may be misaligned. */
#define SCALE(T, expr)                                                     \
    do {                                                                   \
        T s_, x_;                                                          \
        memcpy(&s_, scale, sizeof s_);                                     \
        for (size_t i = 0; i < k; i++) {                                   \
            memcpy(&x_, src + i * sizeof(T), sizeof x_);                   \
            ((T *)out)[i] = (expr);                                        \
        }                                                                  \
    } while (0)
static void scaled(int type, const void *scale, const char *src, void *out, size_t k)
{
    switch (type) {
    case ARMCI_ACC_INT: SCALE(int, (int)((unsigned)s_ * (unsigned)x_)); break;   /* wraps, as the add does */
    case ARMCI_ACC_LNG: SCALE(long, (long)((unsigned long)s_ * (unsigned long)x_)); break;
    case ARMCI_ACC_FLT: SCALE(float, s_ * x_); break;
    case ARMCI_ACC_DBL: SCALE(double, s_ * x_); break;
    case ARMCI_ACC_CPL: SCALE(float complex, s_ * x_); break;
    default: SCALE(double complex, s_ * x_); break;
    }
}
#undef SCALE

/* scale is 1 (1 + 0i): the origin's elements go as they are. */
static bool unit(int type, const void *scale)
{
    switch (type) {
    case ARMCI_ACC_INT: { int s; memcpy(&s, scale, sizeof s); return s == 1; }
    case ARMCI_ACC_LNG: { long s; memcpy(&s, scale, sizeof s); return s == 1; }
    case ARMCI_ACC_FLT: { float s; memcpy(&s, scale, sizeof s); return s == 1; }
    case ARMCI_ACC_DBL: { double s; memcpy(&s, scale, sizeof s); return s == 1; }
    case ARMCI_ACC_CPL: { float complex s; memcpy(&s, scale, sizeof s); return s == 1; }
    default: { double complex s; memcpy(&s, scale, sizeof s); return s == 1; }
    }
}

/* n elements of t at dst in proc on another node under its lock held exclusive. */
static __attribute__((noinline)) void acc_remote(int datatype, const struct acc_type *t, const void *scale,
                                                 const char *src, char *dst, size_t n, bool as_is, int proc,
                                                 const char *routine)
{
    struct rma_rwlock *lock = &locks[proc]->l;
    alignas(64) char in[4096], b[4096];
    size_t w = t->op.width, per = sizeof b / w;
    sm_status_t st = rma_remote_rwlock_acquire(proc, lock, RMA_LOCK_EXCLUSIVE), rs;
    for (size_t i = 0; i < n && !st; i += per) {
        size_t k = n - i < per ? n - i : per;
        if (!as_is) scaled(datatype, scale, src + i * w, in, k);
        if ((st = rma_remote_get(proc, b, dst + i * w, k * w))) break;
        rma_accumulate_excl(b, as_is ? src + i * w : in, NULL, k, &t->op);
        st = rma_remote_put(proc, dst + i * w, b, k * w);
    }
    rs = rma_remote_rwlock_release(proc, lock, RMA_LOCK_EXCLUSIVE);   /* (the writes complete first) */
    if (st || rs) armci_fail("%s: %s", routine, sm_fail_reason());
}

void armci_acc(int datatype, const void *scale, const void *src, void *dst, size_t bytes, int proc, const char *routine)
{
    if (SM_UNLIKELY(datatype < ARMCI_ACC_INT || datatype > ARMCI_ACC_DCP))
        armci_fail("%s: datatype %d is not one of ARMCI_ACC_INT .. ARMCI_ACC_DCP", routine, datatype);
    const struct acc_type *t = &types[datatype];
    size_t w = t->op.width;
    if (SM_UNLIKELY(bytes % w))
        armci_fail("%s: %zu bytes are not a whole number of %s elements (%zu bytes)", routine, bytes, t->name, w);
    if (SM_UNLIKELY(!scale)) armci_fail("%s: scale is NULL", routine);
    size_t n = bytes / w;
    if (!n) return;
    bool as_is = unit(datatype, scale);
    if (SM_UNLIKELY(rma_remote(proc))) return acc_remote(datatype, t, scale, src, dst, n, as_is, proc, routine);
    alignas(64) char buf[ACC_ATOMIC_MAX];
    struct rma_rwlock *lock = &locks[proc]->l;
    if (bytes <= ACC_ATOMIC_MAX && (uintptr_t)dst % w == 0) {
        if (!as_is) scaled(datatype, scale, src, buf, n);
        rma_rwlock_acquire(lock, RMA_LOCK_SHARED);
        sm_status_t st = rma_accumulate(dst, as_is ? src : buf, NULL, n, &t->op, NULL);
        rma_rwlock_release(lock, RMA_LOCK_SHARED);
        if (SM_LIKELY(st == SM_OK)) return;   /* else no CPU atomic for it: exclusively, below */
    }
    rma_rwlock_acquire(lock, RMA_LOCK_EXCLUSIVE);
    if (as_is) {
        rma_accumulate_excl(dst, src, NULL, n, &t->op);
    } else {
        alignas(64) char big[4096];
        for (size_t i = 0, per = sizeof big / w; i < n; i += per) {
            size_t k = n - i < per ? n - i : per;
            scaled(datatype, scale, (const char *)src + i * w, big, k);
            rma_accumulate_excl((char *)dst + i * w, big, NULL, k, &t->op);
        }
    }
    rma_rwlock_release(lock, RMA_LOCK_EXCLUSIVE);
}
