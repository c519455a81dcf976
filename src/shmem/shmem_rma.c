/* shmem_rma.c: OpenSHMEM RMA (typed, sized, mem; blocking, _nbi, strided),
 * signals, atomics, ordering, point-to-point waits and locks, generated from
 * the type tables in shmem.h. Every operation completes before it returns
 * (a copy or a CPU atomic on the target's memory), so _nbi forms are the
 * blocking ones and quiet only has to order (see rma.h). */
#include <stdbool.h>

#include "shmem_internal.h"

/* --- RMA --------------------------------------------------------------------
 * Small puts and gets of symmetric heap or globals inline (rma.h), the rest
 * (and every error) in one function out of line. */
/* Across nodes the fast paths are off (rma.h: fast_npes) and every access
 * comes here: a PE on another node is reached through UCX (rma_remote). */
static _Noreturn __attribute__((cold, noinline)) void remote_failed(const char *routine)
{
    shmem_fail("%s: %s", routine, sm_fail_reason());
}
static inline void remote_check(sm_status_t st, const char *routine)
{
    if (SM_UNLIKELY(st)) remote_failed(routine);
}
static __attribute__((noinline)) void put_general(void *dest, const void *source, size_t len, int pe,
                                                  const char *routine)
{
    void *at = shmem_xlate(pe, dest, len, routine);
    if (rma_remote(pe)) {
        if (len) remote_check(rma_remote_put(pe, at, source, len), routine);
        return;
    }
    rma_copy(at, source, len);
    rma_wake(pe);
}
static __attribute__((noinline)) void get_general(void *dest, const void *source, size_t len, int pe,
                                                  const char *routine)
{
    void *at = shmem_xlate(pe, source, len, routine);
    if (rma_remote(pe)) {
        if (len) remote_check(rma_remote_get(pe, dest, at, len), routine);
        return;
    }
    rma_copy(dest, at, len);
}
static inline __attribute__((always_inline)) void put_bytes(void *dest, const void *source, size_t len, int pe,
                                                            const char *routine)
{
    if (SM_UNLIKELY(!rma_sym_put_small(&shmem_sym, pe, dest, source, len))) put_general(dest, source, len, pe, routine);
}
static inline __attribute__((always_inline)) void get_bytes(void *dest, const void *source, size_t len, int pe,
                                                            const char *routine)
{
    if (SM_UNLIKELY(!rma_sym_get_small(&shmem_sym, pe, dest, source, len))) get_general(dest, source, len, pe, routine);
}

static inline void signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, const char *routine)
{
    _Atomic uint64_t *s = shmem_xlate(pe, sig_addr, sizeof *sig_addr, routine);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmem_fail("%s: sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", routine, sig_op);
    if (rma_remote(pe)) {
        uint64_t old;
        remote_check(rma_remote_amo(pe, (void *)s, sig_op == SHMEM_SIGNAL_SET ? RMA_AMO_SWAP : RMA_AMO_ADD, 8,
                                    signal, 0, sig_op == SHMEM_SIGNAL_SET ? &old : NULL), routine);
        return;
    }
    if (sig_op == SHMEM_SIGNAL_SET) atomic_store_explicit(s, signal, memory_order_release);
    else atomic_fetch_add_explicit(s, signal, memory_order_seq_cst);
    rma_wake(pe);
}
static inline void put_signal(void *dest, const void *source, size_t len, uint64_t *sig_addr,
                              uint64_t signal, int sig_op, int pe, const char *routine)
{
    void *at = shmem_xlate(pe, dest, len, routine);
    if (rma_remote(pe)) {   /* the data, a fence, then the signal */
        if (len) remote_check(rma_remote_put(pe, at, source, len), routine);
        remote_check(rma_remote_fence(), routine);
    } else {
        rma_copy(at, source, len);   /* the data, then the signal (release) */
    }
    signal_op(sig_addr, signal, sig_op, pe, routine);
}

static _Noreturn __attribute__((cold)) void bad_nelems(size_t nelems, const char *routine)
{
    if ((ptrdiff_t)nelems < 0) shmem_fail("%s: nelems %td is negative", routine, (ptrdiff_t)nelems);
    shmem_fail("%s: %zu elements overflow", routine, nelems);
}
static inline size_t nbytes(size_t nelems, size_t elem, const char *routine)
{
    size_t n;
    if (SM_UNLIKELY(__builtin_mul_overflow(nelems, elem, &n))) bad_nelems(nelems, routine);
    return n;
}

/* Strided transfers (shmem_internal.h). */
void shmem_strided(bool put, int pe, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                    size_t elem, size_t nelems, const char *routine)
{
    if (!nelems) {
        shmem_xlate(pe, put ? dest : source, 0, routine);   /* the PE (and init) still checked */
        return;
    }
    if (dst < 1 || sst < 1) shmem_fail("%s: stride %td must be positive", routine, dst < 1 ? dst : sst);
    size_t count[2] = {elem, nelems}, dspan, sspan;
    ptrdiff_t ds, ss;
    if (__builtin_mul_overflow(dst, (ptrdiff_t)elem, &ds) || __builtin_mul_overflow(sst, (ptrdiff_t)elem, &ss) ||
        rma_strided_span(count, &ds, 1, &dspan) || rma_strided_span(count, &ss, 1, &sspan))
        shmem_fail("%s: %zu elements at strides %td and %td overflow the address space", routine, nelems, dst, sst);
    if (rma_remote(pe)) {
        void *at = shmem_xlate(pe, put ? dest : source, put ? dspan : sspan, routine);
        if (put) remote_check(rma_remote_strided(true, pe, at, &ds, (void *)source, &ss, count, 1), routine);
        else remote_check(rma_remote_strided(false, pe, at, &ss, dest, &ds, count, 1), routine);
        return;
    }
    if (put) {
        rma_strided_copy(shmem_xlate(pe, dest, dspan, routine), &ds, source, &ss, count, 1);
        rma_wake(pe);
    } else {
        rma_strided_copy(dest, &ds, shmem_xlate(pe, source, sspan, routine), &ss, count, 1);
    }
}

/* Every routine is generated twice from one body: plain (PFX shmem_, the PE
 * as given) and context form (PFX shmem_ctx_, a context first, the PE
 * translated from the context's team), so both name themselves in errors.
 * CTX is NOCTX_ or WITHCTX_, pasted onto CTX_ only in the parameter list (a
 * comma must not travel through nested macros); PE maps (pe, routine) to the
 * world PE. */
#define CTX_NOCTX_
#define CTX_WITHCTX_ shmem_ctx_t ctx,
#define PE_WORLD_(routine) pe
#define PE_CTX_(routine) shmem_ctx_pe(ctx, pe, routine)
#define NM(PFX, N, op) #PFX #N "_" #op

#define DEF_RMA_(PFX, CTX, PE, N, T) \
void PFX##N##_put(CTX_##CTX T *dest, const T *source, size_t nelems, int pe) \
{ const char *r = NM(PFX, N, put); put_bytes(dest, source, nbytes(nelems, sizeof(T), r), PE(r), r); } \
void PFX##N##_put_nbi(CTX_##CTX T *dest, const T *source, size_t nelems, int pe) \
{ const char *r = NM(PFX, N, put_nbi); put_bytes(dest, source, nbytes(nelems, sizeof(T), r), PE(r), r); } \
void PFX##N##_get(CTX_##CTX T *dest, const T *source, size_t nelems, int pe) \
{ const char *r = NM(PFX, N, get); get_bytes(dest, source, nbytes(nelems, sizeof(T), r), PE(r), r); } \
void PFX##N##_get_nbi(CTX_##CTX T *dest, const T *source, size_t nelems, int pe) \
{ const char *r = NM(PFX, N, get_nbi); get_bytes(dest, source, nbytes(nelems, sizeof(T), r), PE(r), r); } \
void PFX##N##_p(CTX_##CTX T *dest, T value, int pe) \
{ const char *r = NM(PFX, N, p); int w = PE(r); void *at; \
  if (SM_LIKELY(rma_sym_fast_small(&shmem_sym, w, dest, sizeof(T), &at))) *(T *)at = value, rma_wake(w); \
  else { T v = value; put_general(dest, &v, sizeof(T), w, r); } } \
T PFX##N##_g(CTX_##CTX const T *source, int pe) \
{ const char *r = NM(PFX, N, g); int w = PE(r); void *at; \
  if (SM_LIKELY(rma_sym_fast_small(&shmem_sym, w, source, sizeof(T), &at))) return *(const T *)at; \
  T v; get_general(&v, source, sizeof(T), w, r); return v; } \
void PFX##N##_iput(CTX_##CTX T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
{ const char *r = NM(PFX, N, iput); shmem_strided(true, PE(r), dest, source, dst, sst, sizeof(T), nelems, r); } \
void PFX##N##_iget(CTX_##CTX T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
{ const char *r = NM(PFX, N, iget); shmem_strided(false, PE(r), dest, source, dst, sst, sizeof(T), nelems, r); } \
void PFX##N##_put_signal(CTX_##CTX T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
{ const char *r = NM(PFX, N, put_signal); put_signal(dest, source, nbytes(nelems, sizeof(T), r), sig_addr, signal, sig_op, PE(r), r); } \
void PFX##N##_put_signal_nbi(CTX_##CTX T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
{ const char *r = NM(PFX, N, put_signal_nbi); put_signal(dest, source, nbytes(nelems, sizeof(T), r), sig_addr, signal, sig_op, PE(r), r); }
#define DEF_RMA(N, T) DEF_RMA_(shmem_, NOCTX_, PE_WORLD_, N, T) DEF_RMA_(shmem_ctx_, WITHCTX_, PE_CTX_, N, T)
SHMEM_RMA_TYPES(DEF_RMA)

#define SNM(PFX, op, S, sfx) #PFX #op #S sfx
#define DEF_SIZE_(PFX, CTX, PE, S) \
void PFX##put##S(CTX_##CTX void *dest, const void *source, size_t nelems, int pe) \
{ const char *r = SNM(PFX, put, S, ""); put_bytes(dest, source, nbytes(nelems, S / 8, r), PE(r), r); } \
void PFX##put##S##_nbi(CTX_##CTX void *dest, const void *source, size_t nelems, int pe) \
{ const char *r = SNM(PFX, put, S, "_nbi"); put_bytes(dest, source, nbytes(nelems, S / 8, r), PE(r), r); } \
void PFX##get##S(CTX_##CTX void *dest, const void *source, size_t nelems, int pe) \
{ const char *r = SNM(PFX, get, S, ""); get_bytes(dest, source, nbytes(nelems, S / 8, r), PE(r), r); } \
void PFX##get##S##_nbi(CTX_##CTX void *dest, const void *source, size_t nelems, int pe) \
{ const char *r = SNM(PFX, get, S, "_nbi"); get_bytes(dest, source, nbytes(nelems, S / 8, r), PE(r), r); } \
void PFX##iput##S(CTX_##CTX void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
{ const char *r = SNM(PFX, iput, S, ""); shmem_strided(true, PE(r), dest, source, dst, sst, S / 8, nelems, r); } \
void PFX##iget##S(CTX_##CTX void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
{ const char *r = SNM(PFX, iget, S, ""); shmem_strided(false, PE(r), dest, source, dst, sst, S / 8, nelems, r); } \
void PFX##put##S##_signal(CTX_##CTX void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
{ const char *r = SNM(PFX, put, S, "_signal"); put_signal(dest, source, nbytes(nelems, S / 8, r), sig_addr, signal, sig_op, PE(r), r); } \
void PFX##put##S##_signal_nbi(CTX_##CTX void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
{ const char *r = SNM(PFX, put, S, "_signal_nbi"); put_signal(dest, source, nbytes(nelems, S / 8, r), sig_addr, signal, sig_op, PE(r), r); }
#define DEF_SIZE(S, T) DEF_SIZE_(shmem_, NOCTX_, PE_WORLD_, S) DEF_SIZE_(shmem_ctx_, WITHCTX_, PE_CTX_, S)
SHMEM_SIZES(DEF_SIZE)

#define DEF_MEM_(PFX, CTX, PE) \
void PFX##putmem(CTX_##CTX void *dest, const void *source, size_t nelems, int pe) \
{ const char *r = #PFX "putmem"; put_bytes(dest, source, nelems, PE(r), r); } \
void PFX##putmem_nbi(CTX_##CTX void *dest, const void *source, size_t nelems, int pe) \
{ const char *r = #PFX "putmem_nbi"; put_bytes(dest, source, nelems, PE(r), r); } \
void PFX##getmem(CTX_##CTX void *dest, const void *source, size_t nelems, int pe) \
{ const char *r = #PFX "getmem"; get_bytes(dest, source, nelems, PE(r), r); } \
void PFX##getmem_nbi(CTX_##CTX void *dest, const void *source, size_t nelems, int pe) \
{ const char *r = #PFX "getmem_nbi"; get_bytes(dest, source, nelems, PE(r), r); } \
void PFX##putmem_signal(CTX_##CTX void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
{ const char *r = #PFX "putmem_signal"; put_signal(dest, source, nelems, sig_addr, signal, sig_op, PE(r), r); } \
void PFX##putmem_signal_nbi(CTX_##CTX void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
{ const char *r = #PFX "putmem_signal_nbi"; put_signal(dest, source, nelems, sig_addr, signal, sig_op, PE(r), r); }
DEF_MEM_(shmem_, NOCTX_, PE_WORLD_)
DEF_MEM_(shmem_ctx_, WITHCTX_, PE_CTX_)

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    const _Atomic uint64_t *s = shmem_xlate(sm_core.rank, sig_addr, sizeof *sig_addr, "shmem_signal_fetch");
    rma_polled();   /* polled in loops: the signal may be a put from another node */
    return atomic_load_explicit(s, memory_order_acquire);
}

void shmem_fence(void) { shmem_require_init("shmem_fence"); shmem_order(false, "shmem_fence"); }
void shmem_quiet(void) { shmem_require_init("shmem_quiet"); shmem_order(true, "shmem_quiet"); }

/* --- Atomics: seq_cst CPU atomics on the target's memory (rma.h) ------------------
 * The _nbi forms complete at once too: the fetched value is stored before
 * they return. AT: pe's instance of *p. */
#define AT(pe, p, routine) ((__typeof__(p))shmem_xlate(pe, p, sizeof *(p), routine))
#define ANM(PFX, N, op) #PFX #N "_atomic_" #op
/* A PE on another node: the same operations through UCX, on the value's
 * bits (4 or 8 bytes; a fetch is a fetch-add of 0, a set a swap). */
static uint64_t amo_remote(int pe, const void *at, enum rma_amo_op op, size_t width, uint64_t v, uint64_t cmp,
                           bool fetch, const char *routine)
{
    uint64_t old = 0;
    remote_check(rma_remote_amo(pe, (void *)at, op, width, v, cmp, fetch ? &old : NULL), routine);
    return old;
}
#define BITS(T, x) ({ T x_ = (x); uint64_t b_ = 0; memcpy(&b_, &x_, sizeof(T)); b_; })
#define UNBITS(T, b) ({ uint64_t b_ = (b); T x_; memcpy(&x_, &b_, sizeof(T)); x_; })
#define RAMO(T, w, a, op, v, cmp, fetch, r) \
    UNBITS(T, amo_remote(w, a, RMA_AMO_##op, sizeof(T), BITS(T, v), BITS(T, cmp), fetch, r))
/* The fetching read-modify-write op (add, and, or, xor) at w's *a: its old value. */
#define FOP(T, w, a, op, OP, v, r) \
    (rma_remote(w) ? RAMO(T, w, a, OP, v, (T)0, true, r) : ({ T o_ = RMA_FETCH_OP(op, a, v); rma_wake(w); o_; }))
#define POP(T, w, a, op, OP, v, r) \
    do { if (rma_remote(w)) RAMO(T, w, a, OP, v, (T)0, false, r); else { RMA_FETCH_OP(op, a, v); rma_wake(w); } } while (0)
#define LOADV(T, w, a, r) (rma_remote(w) ? RAMO(T, w, a, ADD, (T)0, (T)0, true, r) : ({ T o_; RMA_LOAD(a, &o_); o_; }))
#define SWAPV(T, w, a, v, r) \
    (rma_remote(w) ? RAMO(T, w, a, SWAP, v, (T)0, true, r) : ({ T o_, v_ = (v); RMA_SWAP(a, &v_, &o_); rma_wake(w); o_; }))
#define CSWAPV(T, w, a, c, v, r) \
    (rma_remote(w) ? RAMO(T, w, a, CSWAP, v, c, true, r) : ({ T c_ = (c); RMA_CSWAP(a, &c_, v); rma_wake(w); c_; }))
#define DEF_AMO_EXT_(PFX, CTX, PE, N, T) \
T PFX##N##_atomic_fetch(CTX_##CTX const T *source, int pe) \
{ const char *r = ANM(PFX, N, fetch); int w = PE(r); const T *a = AT(w, source, r); return LOADV(T, w, a, r); } \
void PFX##N##_atomic_set(CTX_##CTX T *dest, T value, int pe) \
{ const char *r = ANM(PFX, N, set); int w = PE(r); T *a = AT(w, dest, r); \
  if (rma_remote(w)) RAMO(T, w, a, SWAP, value, (T)0, true, r); else { RMA_STORE(a, &value); rma_wake(w); } } \
T PFX##N##_atomic_swap(CTX_##CTX T *dest, T value, int pe) \
{ const char *r = ANM(PFX, N, swap); int w = PE(r); T *a = AT(w, dest, r); return SWAPV(T, w, a, value, r); } \
void PFX##N##_atomic_fetch_nbi(CTX_##CTX T *fetch, const T *source, int pe) \
{ const char *r = ANM(PFX, N, fetch_nbi); int w = PE(r); const T *a = AT(w, source, r); *fetch = LOADV(T, w, a, r); } \
void PFX##N##_atomic_swap_nbi(CTX_##CTX T *fetch, T *dest, T value, int pe) \
{ const char *r = ANM(PFX, N, swap_nbi); int w = PE(r); T *a = AT(w, dest, r); *fetch = SWAPV(T, w, a, value, r); }
#define DEF_AMO_STD_(PFX, CTX, PE, N, T) \
T PFX##N##_atomic_compare_swap(CTX_##CTX T *dest, T cond, T value, int pe) \
{ const char *r = ANM(PFX, N, compare_swap); int w = PE(r); T *a = AT(w, dest, r); return CSWAPV(T, w, a, cond, value, r); } \
T PFX##N##_atomic_fetch_inc(CTX_##CTX T *dest, int pe) \
{ const char *r = ANM(PFX, N, fetch_inc); int w = PE(r); T *a = AT(w, dest, r); return FOP(T, w, a, add, ADD, (T)1, r); } \
void PFX##N##_atomic_inc(CTX_##CTX T *dest, int pe) \
{ const char *r = ANM(PFX, N, inc); int w = PE(r); T *a = AT(w, dest, r); POP(T, w, a, add, ADD, (T)1, r); } \
T PFX##N##_atomic_fetch_add(CTX_##CTX T *dest, T value, int pe) \
{ const char *r = ANM(PFX, N, fetch_add); int w = PE(r); T *a = AT(w, dest, r); return FOP(T, w, a, add, ADD, value, r); } \
void PFX##N##_atomic_add(CTX_##CTX T *dest, T value, int pe) \
{ const char *r = ANM(PFX, N, add); int w = PE(r); T *a = AT(w, dest, r); POP(T, w, a, add, ADD, value, r); } \
void PFX##N##_atomic_compare_swap_nbi(CTX_##CTX T *fetch, T *dest, T cond, T value, int pe) \
{ const char *r = ANM(PFX, N, compare_swap_nbi); int w = PE(r); T *a = AT(w, dest, r); *fetch = CSWAPV(T, w, a, cond, value, r); } \
void PFX##N##_atomic_fetch_inc_nbi(CTX_##CTX T *fetch, T *dest, int pe) \
{ const char *r = ANM(PFX, N, fetch_inc_nbi); int w = PE(r); T *a = AT(w, dest, r); *fetch = FOP(T, w, a, add, ADD, (T)1, r); } \
void PFX##N##_atomic_fetch_add_nbi(CTX_##CTX T *fetch, T *dest, T value, int pe) \
{ const char *r = ANM(PFX, N, fetch_add_nbi); int w = PE(r); T *a = AT(w, dest, r); *fetch = FOP(T, w, a, add, ADD, value, r); }
#define DEF_AMO_BIT1_(PFX, CTX, PE, N, T, op, OP) \
T PFX##N##_atomic_fetch_##op(CTX_##CTX T *dest, T value, int pe) \
{ const char *r = ANM(PFX, N, fetch_##op); int w = PE(r); T *a = AT(w, dest, r); return FOP(T, w, a, op, OP, value, r); } \
void PFX##N##_atomic_##op(CTX_##CTX T *dest, T value, int pe) \
{ const char *r = ANM(PFX, N, op); int w = PE(r); T *a = AT(w, dest, r); POP(T, w, a, op, OP, value, r); } \
void PFX##N##_atomic_fetch_##op##_nbi(CTX_##CTX T *fetch, T *dest, T value, int pe) \
{ const char *r = ANM(PFX, N, fetch_##op##_nbi); int w = PE(r); T *a = AT(w, dest, r); *fetch = FOP(T, w, a, op, OP, value, r); }
#define DEF_AMO_BIT_(PFX, CTX, PE, N, T) DEF_AMO_BIT1_(PFX, CTX, PE, N, T, and, AND) \
    DEF_AMO_BIT1_(PFX, CTX, PE, N, T, or, OR) DEF_AMO_BIT1_(PFX, CTX, PE, N, T, xor, XOR)
#define DEF_AMO_EXT(N, T) DEF_AMO_EXT_(shmem_, NOCTX_, PE_WORLD_, N, T) DEF_AMO_EXT_(shmem_ctx_, WITHCTX_, PE_CTX_, N, T)
#define DEF_AMO_STD(N, T) DEF_AMO_STD_(shmem_, NOCTX_, PE_WORLD_, N, T) DEF_AMO_STD_(shmem_ctx_, WITHCTX_, PE_CTX_, N, T)
#define DEF_AMO_BIT(N, T) DEF_AMO_BIT_(shmem_, NOCTX_, PE_WORLD_, N, T) DEF_AMO_BIT_(shmem_ctx_, WITHCTX_, PE_CTX_, N, T)
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
 * Waits go through rma_wait_until (spin, yield, then sleep on the PE's
 * doorbell); every put, atomic and signal rings the target's doorbell
 * (rma_wake), which costs a load unless the target sleeps in such a wait. */
static _Noreturn void bad_cmp(const char *routine, int cmp)
{
    shmem_fail("%s: comparison %d is not one of SHMEM_CMP_EQ/NE/GT/LE/LT/GE", routine, cmp);
}
#define CMP(a, cmp, b, routine) \
    ((cmp) == SHMEM_CMP_EQ ? (a) == (b) : (cmp) == SHMEM_CMP_NE ? (a) != (b) : \
     (cmp) == SHMEM_CMP_GT ? (a) > (b) : (cmp) == SHMEM_CMP_LE ? (a) <= (b) : \
     (cmp) == SHMEM_CMP_LT ? (a) < (b) : (cmp) == SHMEM_CMP_GE ? (a) >= (b) : (bad_cmp(routine, cmp), 0))

/* The _any forms must be fair: "if an entry i satisfies the condition, a
 * series of calls must eventually return i", even while a lower entry stays
 * satisfied. So each thread remembers, for the last few ivars arrays it
 * scanned, where to start the next scan: just after the index it returned
 * last, which makes repeated calls go round the satisfied entries. */
#define ANY_SLOTS 8
static _Thread_local struct { const void *ivars; size_t next; } any_next[ANY_SLOTS];
static inline size_t any_slot(const void *ivars) { return ((uintptr_t)ivars >> 3) % ANY_SLOTS; }
static size_t any_start(const void *ivars, size_t n)
{
    size_t k = any_slot(ivars);
    return any_next[k].ivars == ivars && n ? any_next[k].next % n : 0;
}
static void any_returned(const void *ivars, size_t i)
{
    size_t k = any_slot(ivars);
    any_next[k].ivars = ivars, any_next[k].next = i + 1;
}

#define DEF_P2P(N, T) \
struct wait_##N { T *ivars; size_t n; const int *status; int cmp; T value; T *values; \
                  size_t *indices; int mode; size_t found; const char *routine; T seen; size_t start; }; \
static inline T load_##N(T *p) { T v; __atomic_load(p, &v, __ATOMIC_ACQUIRE); return v; } \
/* mode 0: all, 1: any (the first satisfied from w->start on, cyclically), \
 * 2: some (all satisfied ones). */ \
static bool test_##N(void *arg) \
{ \
    struct wait_##N *w = arg; \
    size_t hits = 0, active = 0; \
    for (size_t j = 0, i = w->start; j < w->n; j++, i = i + 1 == w->n ? 0 : i + 1) { \
        if (w->status && w->status[i]) continue; \
        active++; \
        T v = w->seen = load_##N(&w->ivars[i]); \
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
    shmem_xlate(sm_core.rank, w->ivars, nbytes(w->n, sizeof(T), w->routine), w->routine); \
    w->found = SIZE_MAX; \
    w->start = w->mode == 1 ? any_start(w->ivars, w->n) : 0; \
    if (block) rma_wait_until(test_##N, w); \
    else if (!test_##N(w)) { rma_polled(); return w->mode == 0 ? 0 : (w->mode == 1 ? SIZE_MAX : 0); } \
    if (w->mode == 1 && w->found != SIZE_MAX) any_returned(w->ivars, w->found); \
    return w->mode == 0 ? 1 : w->found; \
} \
void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value) \
{ struct wait_##N w = {ivar, 1, NULL, cmp, cmp_value, NULL, NULL, 0, 0, "shmem_" #N "_wait_until", 0, 0}; wait_##N(&w, true); } \
void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
{ struct wait_##N w = {ivars, nelems, status, cmp, cmp_value, NULL, NULL, 0, 0, "shmem_" #N "_wait_until_all", 0, 0}; wait_##N(&w, true); } \
size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
{ struct wait_##N w = {ivars, nelems, status, cmp, cmp_value, NULL, NULL, 1, 0, "shmem_" #N "_wait_until_any", 0, 0}; return wait_##N(&w, true); } \
size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value) \
{ struct wait_##N w = {ivars, nelems, status, cmp, cmp_value, NULL, indices, 2, 0, "shmem_" #N "_wait_until_some", 0, 0}; return wait_##N(&w, true); } \
void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) \
{ struct wait_##N w = {ivars, nelems, status, cmp, 0, cmp_values, NULL, 0, 0, "shmem_" #N "_wait_until_all_vector", 0, 0}; wait_##N(&w, true); } \
size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) \
{ struct wait_##N w = {ivars, nelems, status, cmp, 0, cmp_values, NULL, 1, 0, "shmem_" #N "_wait_until_any_vector", 0, 0}; return wait_##N(&w, true); } \
size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values) \
{ struct wait_##N w = {ivars, nelems, status, cmp, 0, cmp_values, indices, 2, 0, "shmem_" #N "_wait_until_some_vector", 0, 0}; return wait_##N(&w, true); } \
int shmem_##N##_test(T *ivar, int cmp, T cmp_value) \
{ struct wait_##N w = {ivar, 1, NULL, cmp, cmp_value, NULL, NULL, 0, 0, "shmem_" #N "_test", 0, 0}; return (int)wait_##N(&w, false); } \
int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
{ struct wait_##N w = {ivars, nelems, status, cmp, cmp_value, NULL, NULL, 0, 0, "shmem_" #N "_test_all", 0, 0}; return (int)wait_##N(&w, false); } \
size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
{ struct wait_##N w = {ivars, nelems, status, cmp, cmp_value, NULL, NULL, 1, 0, "shmem_" #N "_test_any", 0, 0}; return wait_##N(&w, false); } \
size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value) \
{ struct wait_##N w = {ivars, nelems, status, cmp, cmp_value, NULL, indices, 2, 0, "shmem_" #N "_test_some", 0, 0}; return wait_##N(&w, false); } \
int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) \
{ struct wait_##N w = {ivars, nelems, status, cmp, 0, cmp_values, NULL, 0, 0, "shmem_" #N "_test_all_vector", 0, 0}; return (int)wait_##N(&w, false); } \
size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) \
{ struct wait_##N w = {ivars, nelems, status, cmp, 0, cmp_values, NULL, 1, 0, "shmem_" #N "_test_any_vector", 0, 0}; return wait_##N(&w, false); } \
size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values) \
{ struct wait_##N w = {ivars, nelems, status, cmp, 0, cmp_values, indices, 2, 0, "shmem_" #N "_test_some_vector", 0, 0}; return wait_##N(&w, false); }
SHMEM_P2P_TYPES(DEF_P2P)

#define DEF_WAIT(N, T) void shmem_##N##_wait(T *ivar, T cmp_value) { shmem_##N##_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }
SHMEM_P2P_TYPES(DEF_WAIT)
void shmem_wait(long *ivar, long cmp_value) { shmem_long_wait(ivar, cmp_value); }
void (shmem_wait_until)(long *ivar, int cmp, long cmp_value) { shmem_long_wait_until(ivar, cmp, cmp_value); }

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    /* Return the value that satisfied the test, not a later reload: another
     * PE's SIGNAL_ADD may already have changed it. */
    struct wait_uint64 w = {sig_addr, 1, NULL, cmp, cmp_value, NULL, NULL, 0, 0, "shmem_signal_wait_until", 0, 0};
    wait_uint64(&w, true);
    return w.seen;
}

/* --- Locks ------------------------------------------------------------------------
 * The engine's ticket lock (rma.h) in PE 0's instance of the symmetric long
 * (zero initially, as the specification requires). */
static struct rma_lock *lock_of(long *lock, const char *routine)
{
    if ((uintptr_t)lock % sizeof(long)) shmem_fail("%s: lock %p is not aligned", routine, (void *)lock);
    return shmem_xlate(0, lock, sizeof *lock, routine);
}
_Static_assert(sizeof(struct rma_lock) == sizeof(long), "a SHMEM lock is a long");

/* PE 0 on another node: the same ticket lock through UCX atomics. */
void shmem_set_lock(long *lock)
{
    struct rma_lock *l = lock_of(lock, "shmem_set_lock");
    if (rma_remote(0)) remote_check(rma_remote_lock_acquire(0, l), "shmem_set_lock");
    else rma_lock_acquire(l);
}

void shmem_clear_lock(long *lock)
{
    struct rma_lock *l = lock_of(lock, "shmem_clear_lock");
    shmem_order(true, "shmem_clear_lock");   /* the critical section's puts complete first */
    if (rma_remote(0)) remote_check(rma_remote_lock_release(0, l), "shmem_clear_lock");
    else rma_lock_release(l);
}

int shmem_test_lock(long *lock)
{
    struct rma_lock *l = lock_of(lock, "shmem_test_lock");
    bool taken;
    if (rma_remote(0)) remote_check(rma_remote_lock_try(0, l, &taken), "shmem_test_lock");
    else if (!(taken = rma_lock_try(l))) rma_polled();
    return taken ? 0 : 1;
}
