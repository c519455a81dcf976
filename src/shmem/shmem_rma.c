/* shmem_rma.c: OpenSHMEM RMA (typed, sized, mem; blocking, _nbi, strided),
 * signals, atomics, ordering, point-to-point waits and locks, generated from
 * the type tables in shmem.h. Every operation completes before it returns
 * (a copy or a CPU atomic on the target's memory), so _nbi forms are the
 * blocking ones and quiet only has to order (see rma.h). */
#include <stdbool.h>

#include "shmem_internal.h"

/* --- RMA -------------------------------------------------------------------- */
static inline void put_bytes(void *dest, const void *source, size_t len, int pe, const char *routine)
{
    rma_put(pe, dest, source, len, routine);
    rma_wake(pe);
}

static inline void signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, const char *routine)
{
    _Atomic uint64_t *s = rma_xlate(pe, sig_addr, sizeof *sig_addr, routine);
    if (sig_op == SHMEM_SIGNAL_SET) atomic_store_explicit(s, signal, memory_order_release);
    else if (sig_op == SHMEM_SIGNAL_ADD) atomic_fetch_add_explicit(s, signal, memory_order_seq_cst);
    else rma_fail("%s: sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", routine, sig_op);
    rma_wake(pe);
}
static inline void put_signal(void *dest, const void *source, size_t len, uint64_t *sig_addr,
                              uint64_t signal, int sig_op, int pe, const char *routine)
{
    rma_put(pe, dest, source, len, routine);   /* the data, then the signal (release) */
    signal_op(sig_addr, signal, sig_op, pe, routine);
}

static inline size_t nbytes(size_t nelems, size_t elem, const char *routine)
{
    size_t n;
    if (SM_UNLIKELY(__builtin_mul_overflow(nelems, elem, &n)))
        rma_fail("%s: %zu elements (a negative count?) overflow", routine, nelems);
    return n;
}

#define DEF_RMA(N, T) \
void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe) \
{ put_bytes(dest, source, nbytes(nelems, sizeof(T), "shmem_" #N "_put"), pe, "shmem_" #N "_put"); } \
void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe) \
{ put_bytes(dest, source, nbytes(nelems, sizeof(T), "shmem_" #N "_put_nbi"), pe, "shmem_" #N "_put_nbi"); } \
void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe) \
{ rma_get(pe, dest, source, nbytes(nelems, sizeof(T), "shmem_" #N "_get"), "shmem_" #N "_get"); } \
void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe) \
{ rma_get(pe, dest, source, nbytes(nelems, sizeof(T), "shmem_" #N "_get_nbi"), "shmem_" #N "_get_nbi"); } \
void shmem_##N##_p(T *dest, T value, int pe) \
{ *(T *)rma_xlate(pe, dest, sizeof(T), "shmem_" #N "_p") = value; rma_wake(pe); } \
T shmem_##N##_g(const T *source, int pe) \
{ return *(const T *)rma_xlate(pe, source, sizeof(T), "shmem_" #N "_g"); } \
void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
{ rma_iput(pe, dest, source, dst, sst, sizeof(T), nelems, "shmem_" #N "_iput"); rma_wake(pe); } \
void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
{ rma_iget(pe, dest, source, dst, sst, sizeof(T), nelems, "shmem_" #N "_iget"); } \
void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
{ put_signal(dest, source, nbytes(nelems, sizeof(T), "shmem_" #N "_put_signal"), sig_addr, signal, sig_op, pe, "shmem_" #N "_put_signal"); } \
void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
{ put_signal(dest, source, nbytes(nelems, sizeof(T), "shmem_" #N "_put_signal_nbi"), sig_addr, signal, sig_op, pe, "shmem_" #N "_put_signal_nbi"); }
SHMEM_RMA_TYPES(DEF_RMA)

#define DEF_SIZE(S, T) \
void shmem_put##S(void *dest, const void *source, size_t nelems, int pe) \
{ put_bytes(dest, source, nbytes(nelems, S / 8, "shmem_put" #S), pe, "shmem_put" #S); } \
void shmem_put##S##_nbi(void *dest, const void *source, size_t nelems, int pe) \
{ put_bytes(dest, source, nbytes(nelems, S / 8, "shmem_put" #S "_nbi"), pe, "shmem_put" #S "_nbi"); } \
void shmem_get##S(void *dest, const void *source, size_t nelems, int pe) \
{ rma_get(pe, dest, source, nbytes(nelems, S / 8, "shmem_get" #S), "shmem_get" #S); } \
void shmem_get##S##_nbi(void *dest, const void *source, size_t nelems, int pe) \
{ rma_get(pe, dest, source, nbytes(nelems, S / 8, "shmem_get" #S "_nbi"), "shmem_get" #S "_nbi"); } \
void shmem_iput##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
{ rma_iput(pe, dest, source, dst, sst, S / 8, nelems, "shmem_iput" #S); rma_wake(pe); } \
void shmem_iget##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
{ rma_iget(pe, dest, source, dst, sst, S / 8, nelems, "shmem_iget" #S); } \
void shmem_put##S##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
{ put_signal(dest, source, nbytes(nelems, S / 8, "shmem_put" #S "_signal"), sig_addr, signal, sig_op, pe, "shmem_put" #S "_signal"); } \
void shmem_put##S##_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
{ put_signal(dest, source, nbytes(nelems, S / 8, "shmem_put" #S "_signal_nbi"), sig_addr, signal, sig_op, pe, "shmem_put" #S "_signal_nbi"); }
SHMEM_SIZES(DEF_SIZE)

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{ put_bytes(dest, source, nelems, pe, "shmem_putmem"); }
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{ put_bytes(dest, source, nelems, pe, "shmem_putmem_nbi"); }
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{ rma_get(pe, dest, source, nelems, "shmem_getmem"); }
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{ rma_get(pe, dest, source, nelems, "shmem_getmem_nbi"); }
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{ put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe, "shmem_putmem_signal"); }
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{ put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe, "shmem_putmem_signal_nbi"); }

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    return atomic_load_explicit((const _Atomic uint64_t *)
        rma_xlate(sm_core.rank, sig_addr, sizeof *sig_addr, "shmem_signal_fetch"), memory_order_acquire);
}

void shmem_fence(void) { rma_fence(); }
void shmem_quiet(void) { rma_quiet(); }

/* --- Atomics: seq_cst CPU atomics on the target's memory (rma.h) ------------------ */
#define R(N, op) "shmem_" #N "_atomic_" #op
#define DEF_AMO_EXT(N, T) \
T shmem_##N##_atomic_fetch(const T *source, int pe) { T r; RMA_LOAD(pe, source, &r, R(N, fetch)); return r; } \
void shmem_##N##_atomic_set(T *dest, T value, int pe) { RMA_STORE(pe, dest, &value, R(N, set)); rma_wake(pe); } \
T shmem_##N##_atomic_swap(T *dest, T value, int pe) \
{ T r; RMA_SWAP(pe, dest, &value, &r, R(N, swap)); rma_wake(pe); return r; } \
void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe) { *fetch = shmem_##N##_atomic_fetch(source, pe); } \
void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) { *fetch = shmem_##N##_atomic_swap(dest, value, pe); }
#define DEF_AMO_STD(N, T) \
T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) \
{ RMA_CSWAP(pe, dest, &cond, value, R(N, compare_swap)); rma_wake(pe); return cond; } \
T shmem_##N##_atomic_fetch_inc(T *dest, int pe) \
{ T r = RMA_FETCH_OP(add, pe, dest, (T)1, R(N, fetch_inc)); rma_wake(pe); return r; } \
void shmem_##N##_atomic_inc(T *dest, int pe) { RMA_FETCH_OP(add, pe, dest, (T)1, R(N, inc)); rma_wake(pe); } \
T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe) \
{ T r = RMA_FETCH_OP(add, pe, dest, value, R(N, fetch_add)); rma_wake(pe); return r; } \
void shmem_##N##_atomic_add(T *dest, T value, int pe) { RMA_FETCH_OP(add, pe, dest, value, R(N, add)); rma_wake(pe); } \
void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) \
{ *fetch = shmem_##N##_atomic_compare_swap(dest, cond, value, pe); } \
void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) { *fetch = shmem_##N##_atomic_fetch_inc(dest, pe); } \
void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe) { *fetch = shmem_##N##_atomic_fetch_add(dest, value, pe); }
#define DEF_AMO_BIT1(N, T, op) \
T shmem_##N##_atomic_fetch_##op(T *dest, T value, int pe) \
{ T r = RMA_FETCH_OP(op, pe, dest, value, R(N, fetch_##op)); rma_wake(pe); return r; } \
void shmem_##N##_atomic_##op(T *dest, T value, int pe) { RMA_FETCH_OP(op, pe, dest, value, R(N, op)); rma_wake(pe); } \
void shmem_##N##_atomic_fetch_##op##_nbi(T *fetch, T *dest, T value, int pe) { *fetch = shmem_##N##_atomic_fetch_##op(dest, value, pe); }
#define DEF_AMO_BIT(N, T) DEF_AMO_BIT1(N, T, and) DEF_AMO_BIT1(N, T, or) DEF_AMO_BIT1(N, T, xor)
SHMEM_AMO_EXT_TYPES(DEF_AMO_EXT)
SHMEM_AMO_STD_TYPES(DEF_AMO_STD)
SHMEM_AMO_BIT_TYPES(DEF_AMO_BIT)

/* Deprecated names of the same atomics. */
#define DEF_DEPR_AMO(N, T) \
T shmem_##N##_cswap(T *dest, T cond, T value, int pe) { return shmem_##N##_atomic_compare_swap(dest, cond, value, pe); } \
T shmem_##N##_finc(T *dest, int pe) { return shmem_##N##_atomic_fetch_inc(dest, pe); } \
void shmem_##N##_inc(T *dest, int pe) { shmem_##N##_atomic_inc(dest, pe); } \
T shmem_##N##_fadd(T *dest, T value, int pe) { return shmem_##N##_atomic_fetch_add(dest, value, pe); } \
void shmem_##N##_add(T *dest, T value, int pe) { shmem_##N##_atomic_add(dest, value, pe); }
#define DEF_DEPR_AMOX(N, T) \
T shmem_##N##_swap(T *dest, T value, int pe) { return shmem_##N##_atomic_swap(dest, value, pe); } \
T shmem_##N##_fetch(const T *source, int pe) { return shmem_##N##_atomic_fetch(source, pe); } \
void shmem_##N##_set(T *dest, T value, int pe) { shmem_##N##_atomic_set(dest, value, pe); }
SHMEM_DEPR_AMO_TYPES(DEF_DEPR_AMO)
SHMEM_DEPR_AMO_TYPES(DEF_DEPR_AMOX)
DEF_DEPR_AMOX(float, float)
DEF_DEPR_AMOX(double, double)
long shmem_swap(long *dest, long value, int pe) { return shmem_long_atomic_swap(dest, value, pe); }
void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
void shmem_set_cache_line_inv(void *dest) { (void)dest; }
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest) { (void)dest; }

/* --- Point-to-point synchronisation ----------------------------------------------
 * Waits go through sm_wait (spin, yield, then sleep on the PE's doorbell);
 * every put, atomic and signal rings the target's doorbell (rma_wake). */
static _Noreturn void bad_cmp(const char *routine, int cmp)
{
    rma_fail("%s: comparison %d is not one of SHMEM_CMP_EQ/NE/GT/LE/LT/GE", routine, cmp);
}
#define CMP(a, cmp, b, routine) \
    ((cmp) == SHMEM_CMP_EQ ? (a) == (b) : (cmp) == SHMEM_CMP_NE ? (a) != (b) : \
     (cmp) == SHMEM_CMP_GT ? (a) > (b) : (cmp) == SHMEM_CMP_LE ? (a) <= (b) : \
     (cmp) == SHMEM_CMP_LT ? (a) < (b) : (cmp) == SHMEM_CMP_GE ? (a) >= (b) : (bad_cmp(routine, cmp), 0))

#define DEF_P2P(N, T) \
struct wait_##N { T *ivars; size_t n; const int *status; int cmp; T value; T *values; \
                  size_t *indices; int mode; size_t found; const char *routine; }; \
static inline T load_##N(T *p) { T v; __atomic_load(p, &v, __ATOMIC_ACQUIRE); return v; } \
/* mode 0: all, 1: any (first index), 2: some (all satisfied ones). */ \
static bool test_##N(void *arg) \
{ \
    struct wait_##N *w = arg; \
    size_t hits = 0, active = 0; \
    for (size_t i = 0; i < w->n; i++) { \
        if (w->status && w->status[i]) continue; \
        active++; \
        T v = load_##N(&w->ivars[i]); \
        if (CMP(v, w->cmp, w->values ? w->values[i] : w->value, w->routine)) { \
            if (w->mode == 1) { w->found = i; return true; } \
            if (w->mode == 2) w->indices[hits] = i; \
            hits++; \
        } else if (w->mode == 0) return false; \
    } \
    w->found = w->mode == 1 ? SIZE_MAX : hits; \
    return w->mode == 0 ? true : (w->mode == 1 ? active == 0 : (hits > 0 || active == 0)); \
} \
static size_t wait_##N(struct wait_##N *w, bool block) \
{ \
    if (w->n && !rma_lookup(sm_core.rank, w->ivars)) \
        rma_fail("%s: ivars %p is not symmetric (not exposed by smartmap)", w->routine, (void *)w->ivars); \
    w->found = SIZE_MAX; \
    if (block) sm_wait(test_##N, w); \
    else if (!test_##N(w)) return w->mode == 0 ? 0 : (w->mode == 1 ? SIZE_MAX : 0); \
    return w->mode == 0 ? 1 : w->found; \
} \
void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value) \
{ struct wait_##N w = {ivar, 1, NULL, cmp, cmp_value, NULL, NULL, 0, 0, "shmem_" #N "_wait_until"}; wait_##N(&w, true); } \
void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
{ struct wait_##N w = {ivars, nelems, status, cmp, cmp_value, NULL, NULL, 0, 0, "shmem_" #N "_wait_until_all"}; wait_##N(&w, true); } \
size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
{ struct wait_##N w = {ivars, nelems, status, cmp, cmp_value, NULL, NULL, 1, 0, "shmem_" #N "_wait_until_any"}; return wait_##N(&w, true); } \
size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value) \
{ struct wait_##N w = {ivars, nelems, status, cmp, cmp_value, NULL, indices, 2, 0, "shmem_" #N "_wait_until_some"}; return wait_##N(&w, true); } \
void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) \
{ struct wait_##N w = {ivars, nelems, status, cmp, 0, cmp_values, NULL, 0, 0, "shmem_" #N "_wait_until_all_vector"}; wait_##N(&w, true); } \
size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) \
{ struct wait_##N w = {ivars, nelems, status, cmp, 0, cmp_values, NULL, 1, 0, "shmem_" #N "_wait_until_any_vector"}; return wait_##N(&w, true); } \
size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values) \
{ struct wait_##N w = {ivars, nelems, status, cmp, 0, cmp_values, indices, 2, 0, "shmem_" #N "_wait_until_some_vector"}; return wait_##N(&w, true); } \
int shmem_##N##_test(T *ivar, int cmp, T cmp_value) \
{ struct wait_##N w = {ivar, 1, NULL, cmp, cmp_value, NULL, NULL, 0, 0, "shmem_" #N "_test"}; return (int)wait_##N(&w, false); } \
int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
{ struct wait_##N w = {ivars, nelems, status, cmp, cmp_value, NULL, NULL, 0, 0, "shmem_" #N "_test_all"}; return (int)wait_##N(&w, false); } \
size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
{ struct wait_##N w = {ivars, nelems, status, cmp, cmp_value, NULL, NULL, 1, 0, "shmem_" #N "_test_any"}; return wait_##N(&w, false); } \
size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value) \
{ struct wait_##N w = {ivars, nelems, status, cmp, cmp_value, NULL, indices, 2, 0, "shmem_" #N "_test_some"}; return wait_##N(&w, false); } \
int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) \
{ struct wait_##N w = {ivars, nelems, status, cmp, 0, cmp_values, NULL, 0, 0, "shmem_" #N "_test_all_vector"}; return (int)wait_##N(&w, false); } \
size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) \
{ struct wait_##N w = {ivars, nelems, status, cmp, 0, cmp_values, NULL, 1, 0, "shmem_" #N "_test_any_vector"}; return wait_##N(&w, false); } \
size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values) \
{ struct wait_##N w = {ivars, nelems, status, cmp, 0, cmp_values, indices, 2, 0, "shmem_" #N "_test_some_vector"}; return wait_##N(&w, false); }
SHMEM_P2P_TYPES(DEF_P2P)

#define DEF_WAIT(N, T) void shmem_##N##_wait(T *ivar, T cmp_value) { shmem_##N##_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }
DEF_WAIT(short, short) DEF_WAIT(int, int) DEF_WAIT(long, long) DEF_WAIT(longlong, long long)
void shmem_wait(long *ivar, long cmp_value) { shmem_long_wait(ivar, cmp_value); }

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    struct wait_uint64 w = {sig_addr, 1, NULL, cmp, cmp_value, NULL, NULL, 0, 0, "shmem_signal_wait_until"};
    wait_uint64(&w, true);
    return load_uint64(sig_addr);
}

/* --- Locks ------------------------------------------------------------------------
 * A ticket lock in PE 0's instance of the symmetric long (zero initially, as
 * the specification requires): the low 32 bits take tickets, the high 32 bits
 * (a separate aligned word) serve them; waiters sleep on that word. */
static _Atomic uint32_t *lock_words(long *lock, const char *routine)
{
    if ((uintptr_t)lock % sizeof(long)) rma_fail("%s: lock %p is not aligned", routine, (void *)lock);
    return rma_xlate(0, lock, sizeof *lock, routine);
}

void shmem_set_lock(long *lock)
{
    _Atomic uint32_t *w = lock_words(lock, "shmem_set_lock");
    uint32_t t = atomic_fetch_add(&w[0], 1), s;
    while ((s = atomic_load_explicit(&w[1], memory_order_acquire)) != t)
        sm_wait_word((volatile uint32_t *)&w[1], s);
}

void shmem_clear_lock(long *lock)
{
    _Atomic uint32_t *w = lock_words(lock, "shmem_clear_lock");
    rma_quiet();                      /* the critical section's puts complete first */
    atomic_fetch_add_explicit(&w[1], 1, memory_order_release);
    sm_wake_word((volatile uint32_t *)&w[1]);
}

int shmem_test_lock(long *lock)
{
    _Atomic uint32_t *w = lock_words(lock, "shmem_test_lock");
    uint32_t s = atomic_load_explicit(&w[1], memory_order_acquire);
    /* Free when the next ticket is the one being served: take it. */
    return atomic_compare_exchange_strong(&w[0], &s, s + 1) ? 0 : 1;
}
