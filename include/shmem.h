/* shmem.h: OpenSHMEM 1.5 on SMARTMAP. Every PE's symmetric data (globals,
 * statics, the symmetric heap) is directly addressable by every other PE, so
 * put/get are memcpy, atomics are CPU atomics, collectives work in place.
 * The typed routines are declared from the type tables below (X-macros). */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEM_API __attribute__((visibility("default")))

/* --- Constants ------------------------------------------------------------ */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "smartmap OpenSHMEM (SMARTMAP on Linux)"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE     0
#define SHMEM_THREAD_FUNNELED   1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE   3

#define SHMEM_CMP_EQ 1
#define SHMEM_CMP_NE 2
#define SHMEM_CMP_GT 3
#define SHMEM_CMP_LE 4
#define SHMEM_CMP_LT 5
#define SHMEM_CMP_GE 6
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_GE SHMEM_CMP_GE

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* The deprecated active-set collectives take pSync/pWrk arrays; this
 * implementation keeps its own state, so the sizes are nominal. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_SYNC_SIZE SHMEM_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE

/* --- Teams ---------------------------------------------------------------- */
typedef struct shmem_team_s *shmem_team_t;
typedef struct { int num_contexts; } shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS 1L
SHMEM_API extern struct shmem_team_s shmem_team_world_s, shmem_team_shared_s;
#define SHMEM_TEAM_WORLD   (&shmem_team_world_s)
#define SHMEM_TEAM_SHARED  (&shmem_team_shared_s)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

/* --- Contexts: every operation here completes before it returns, so a
 * context is only a PE numbering (its team's) and an ordering domain. ------ */
typedef struct shmem_ctx_s *shmem_ctx_t;
SHMEM_API extern struct shmem_ctx_s shmem_ctx_default_s;
#define SHMEM_CTX_DEFAULT (&shmem_ctx_default_s)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_CTX_SERIALIZED 1L
#define SHMEM_CTX_PRIVATE    2L
#define SHMEM_CTX_NOSTORE    4L

/* --- Type tables (OpenSHMEM 1.5 tables 5, 6, 9, 11) ------------------------- */
#define SHMEM_RMA_TYPES(X) \
    X(float, float) X(double, double) X(longdouble, long double) X(char, char) \
    X(schar, signed char) X(short, short) X(int, int) X(long, long) \
    X(longlong, long long) X(uchar, unsigned char) X(ushort, unsigned short) \
    X(uint, unsigned int) X(ulong, unsigned long) X(ulonglong, unsigned long long) \
    X(int8, int8_t) X(int16, int16_t) X(int32, int32_t) X(int64, int64_t) \
    X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) \
    X(size, size_t) X(ptrdiff, ptrdiff_t)
#define SHMEM_AMO_STD_TYPES(X) \
    X(int, int) X(long, long) X(longlong, long long) X(uint, unsigned int) \
    X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int32, int32_t) \
    X(int64, int64_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t) \
    X(ptrdiff, ptrdiff_t)
#define SHMEM_AMO_EXT_TYPES(X) X(float, float) X(double, double) SHMEM_AMO_STD_TYPES(X)
#define SHMEM_AMO_BIT_TYPES(X) \
    X(uint, unsigned int) X(ulong, unsigned long) X(ulonglong, unsigned long long) \
    X(int32, int32_t) X(int64, int64_t) X(uint32, uint32_t) X(uint64, uint64_t)
#define SHMEM_P2P_TYPES(X) \
    X(short, short) X(int, int) X(long, long) X(longlong, long long) \
    X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long) \
    X(ulonglong, unsigned long long) X(int32, int32_t) X(int64, int64_t) \
    X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t) X(ptrdiff, ptrdiff_t)
#define SHMEM_REDUCE_BIT_TYPES(X) \
    X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int) \
    X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int8, int8_t) \
    X(int16, int16_t) X(int32, int32_t) X(int64, int64_t) X(uint8, uint8_t) \
    X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t)
#define SHMEM_REDUCE_MINMAX_TYPES(X) \
    X(char, char) X(schar, signed char) X(short, short) X(int, int) X(long, long) \
    X(longlong, long long) X(ptrdiff, ptrdiff_t) X(uchar, unsigned char) \
    X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long) \
    X(ulonglong, unsigned long long) X(int8, int8_t) X(int16, int16_t) \
    X(int32, int32_t) X(int64, int64_t) X(uint8, uint8_t) X(uint16, uint16_t) \
    X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t) X(float, float) \
    X(double, double) X(longdouble, long double)
#define SHMEM_REDUCE_ARITH_TYPES(X) SHMEM_REDUCE_MINMAX_TYPES(X) \
    X(complexd, double _Complex) X(complexf, float _Complex)
/* Deprecated active-set reductions (*_to_all). */
#define SHMEM_TOALL_BIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(longlong, long long)
#define SHMEM_TOALL_MINMAX_TYPES(X) SHMEM_TOALL_BIT_TYPES(X) \
    X(float, float) X(double, double) X(longdouble, long double)
#define SHMEM_TOALL_ARITH_TYPES(X) SHMEM_TOALL_MINMAX_TYPES(X) \
    X(complexd, double _Complex) X(complexf, float _Complex)
#define SHMEM_SIZES(X) X(8, uint8_t) X(16, uint16_t) X(32, uint32_t) X(64, uint64_t) X(128, __uint128_t)

/* --- Routines ------------------------------------------------------------------
 * Every routine's name goes through SHMEM_N_, so that the declarations below
 * can be read a second time under other names: pshmem.h declares the
 * profiling interface's pshmem_* names that way (specification section 10). */
#ifndef SHMEM_N_
#define SHMEM_N_(name) name
#endif
#define SHMEM_DECLARE_NOW_
#ifdef __cplusplus
}
#endif
#endif /* SHMEM_H: constants and types */

#ifdef SHMEM_DECLARE_NOW_
#undef SHMEM_DECLARE_NOW_
#ifdef __cplusplus
extern "C" {
#endif

/* --- Library setup, exit, query -------------------------------------------- */
SHMEM_API void SHMEM_N_(shmem_init)(void);
SHMEM_API int  SHMEM_N_(shmem_init_thread)(int requested, int *provided);
SHMEM_API void SHMEM_N_(shmem_query_thread)(int *provided);
SHMEM_API void SHMEM_N_(shmem_finalize)(void);
SHMEM_API void SHMEM_N_(shmem_global_exit)(int status) __attribute__((noreturn));
SHMEM_API int  SHMEM_N_(shmem_my_pe)(void);
SHMEM_API int  SHMEM_N_(shmem_n_pes)(void);
SHMEM_API int  SHMEM_N_(shmem_pe_accessible)(int pe);
SHMEM_API int  SHMEM_N_(shmem_addr_accessible)(const void *addr, int pe);
SHMEM_API void *SHMEM_N_(shmem_ptr)(const void *dest, int pe);
SHMEM_API void SHMEM_N_(shmem_info_get_version)(int *major, int *minor);
SHMEM_API void SHMEM_N_(shmem_info_get_name)(char *name);
/* Profiling control: a no-op here; profilers that intercept shmem_* (and
 * call pshmem_*) give it meaning. */
SHMEM_API void SHMEM_N_(shmem_pcontrol)(const int level, ...);
/* Deprecated. */
SHMEM_API void SHMEM_N_(start_pes)(int npes);
SHMEM_API int  SHMEM_N_(_my_pe)(void);
SHMEM_API int  SHMEM_N_(_num_pes)(void);

/* --- Memory management (collective over all PEs) ---------------------------- */
SHMEM_API void *SHMEM_N_(shmem_malloc)(size_t size);
SHMEM_API void *SHMEM_N_(shmem_calloc)(size_t count, size_t size);
SHMEM_API void *SHMEM_N_(shmem_align)(size_t alignment, size_t size);
SHMEM_API void *SHMEM_N_(shmem_realloc)(void *ptr, size_t size);
SHMEM_API void  SHMEM_N_(shmem_free)(void *ptr);
#define SHMEM_MALLOC_ATOMICS_REMOTE 1L
#define SHMEM_MALLOC_SIGNAL_REMOTE  2L
SHMEM_API void *SHMEM_N_(shmem_malloc_with_hints)(size_t size, long hints);   /* hints change nothing here */
SHMEM_API void *SHMEM_N_(shmalloc)(size_t size);                 /* deprecated */
SHMEM_API void  SHMEM_N_(shfree)(void *ptr);
SHMEM_API void *SHMEM_N_(shrealloc)(void *ptr, size_t size);
SHMEM_API void *SHMEM_N_(shmemalign)(size_t alignment, size_t size);

/* --- RMA ---------------------------------------------------------------------- */
#define SHMEM_DECL_RMA_(N, T) \
    SHMEM_API void SHMEM_N_(shmem_##N##_put)(T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_get)(T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_put_nbi)(T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_get_nbi)(T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_p)(T *dest, T value, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_##N##_g)(const T *source, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_iput)(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_iget)(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_put_signal)(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_put_signal_nbi)(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_RMA_TYPES(SHMEM_DECL_RMA_)
#define SHMEM_DECL_SIZE_(S, T) \
    SHMEM_API void SHMEM_N_(shmem_put##S)(void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_get##S)(void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_put##S##_nbi)(void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_get##S##_nbi)(void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_iput##S)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_iget##S)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_put##S##_signal)(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    SHMEM_API void SHMEM_N_(shmem_put##S##_signal_nbi)(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_SIZES(SHMEM_DECL_SIZE_)
SHMEM_API void SHMEM_N_(shmem_putmem)(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void SHMEM_N_(shmem_getmem)(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void SHMEM_N_(shmem_putmem_nbi)(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void SHMEM_N_(shmem_getmem_nbi)(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void SHMEM_N_(shmem_putmem_signal)(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_API void SHMEM_N_(shmem_putmem_signal_nbi)(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_API uint64_t SHMEM_N_(shmem_signal_fetch)(const uint64_t *sig_addr);
SHMEM_API uint64_t SHMEM_N_(shmem_signal_wait_until)(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* --- Atomics ------------------------------------------------------------------ */
#define SHMEM_DECL_AMO_EXT_(N, T) \
    SHMEM_API T    SHMEM_N_(shmem_##N##_atomic_fetch)(const T *source, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_atomic_set)(T *dest, T value, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_##N##_atomic_swap)(T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_atomic_fetch_nbi)(T *fetch, const T *source, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_atomic_swap_nbi)(T *fetch, T *dest, T value, int pe);
#define SHMEM_DECL_AMO_STD_(N, T) \
    SHMEM_API T    SHMEM_N_(shmem_##N##_atomic_compare_swap)(T *dest, T cond, T value, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_##N##_atomic_fetch_inc)(T *dest, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_atomic_inc)(T *dest, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_##N##_atomic_fetch_add)(T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_atomic_add)(T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_atomic_compare_swap_nbi)(T *fetch, T *dest, T cond, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_atomic_fetch_inc_nbi)(T *fetch, T *dest, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_atomic_fetch_add_nbi)(T *fetch, T *dest, T value, int pe);
#define SHMEM_DECL_AMO_BIT_(N, T) \
    SHMEM_API T    SHMEM_N_(shmem_##N##_atomic_fetch_and)(T *dest, T value, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_##N##_atomic_fetch_or)(T *dest, T value, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_##N##_atomic_fetch_xor)(T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_atomic_and)(T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_atomic_or)(T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_atomic_xor)(T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_atomic_fetch_and_nbi)(T *fetch, T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_atomic_fetch_or_nbi)(T *fetch, T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_atomic_fetch_xor_nbi)(T *fetch, T *dest, T value, int pe);
SHMEM_AMO_EXT_TYPES(SHMEM_DECL_AMO_EXT_)
SHMEM_AMO_STD_TYPES(SHMEM_DECL_AMO_STD_)
SHMEM_AMO_BIT_TYPES(SHMEM_DECL_AMO_BIT_)

/* --- Context forms (the generic RMA and atomic names below take a context too) */
SHMEM_API int  SHMEM_N_(shmem_ctx_create)(long options, shmem_ctx_t *ctx);
SHMEM_API int  SHMEM_N_(shmem_team_create_ctx)(shmem_team_t team, long options, shmem_ctx_t *ctx);
SHMEM_API void SHMEM_N_(shmem_ctx_destroy)(shmem_ctx_t ctx);
SHMEM_API int  SHMEM_N_(shmem_ctx_get_team)(shmem_ctx_t ctx, shmem_team_t *team);
SHMEM_API void SHMEM_N_(shmem_ctx_fence)(shmem_ctx_t ctx);
SHMEM_API void SHMEM_N_(shmem_ctx_quiet)(shmem_ctx_t ctx);
#define SHMEM_DECL_CTX_RMA_(N, T) \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_put)(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_get)(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_put_nbi)(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_get_nbi)(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_p)(shmem_ctx_t ctx, T *dest, T value, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_ctx_##N##_g)(shmem_ctx_t ctx, const T *source, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_iput)(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_iget)(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_put_signal)(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_put_signal_nbi)(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_RMA_TYPES(SHMEM_DECL_CTX_RMA_)
SHMEM_API void SHMEM_N_(shmem_ctx_putmem)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void SHMEM_N_(shmem_ctx_getmem)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void SHMEM_N_(shmem_ctx_putmem_nbi)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void SHMEM_N_(shmem_ctx_getmem_nbi)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void SHMEM_N_(shmem_ctx_putmem_signal)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_API void SHMEM_N_(shmem_ctx_putmem_signal_nbi)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
#define SHMEM_DECL_CTX_SIZE_(S, T) \
    SHMEM_API void SHMEM_N_(shmem_ctx_put##S)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_get##S)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_put##S##_nbi)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_get##S##_nbi)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_iput##S)(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_iget##S)(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_put##S##_signal)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_put##S##_signal_nbi)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_SIZES(SHMEM_DECL_CTX_SIZE_)
#define SHMEM_DECL_CTX_AMO_EXT_(N, T) \
    SHMEM_API T    SHMEM_N_(shmem_ctx_##N##_atomic_fetch)(shmem_ctx_t ctx, const T *source, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_atomic_set)(shmem_ctx_t ctx, T *dest, T value, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_ctx_##N##_atomic_swap)(shmem_ctx_t ctx, T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_atomic_fetch_nbi)(shmem_ctx_t ctx, T *fetch, const T *source, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_atomic_swap_nbi)(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
#define SHMEM_DECL_CTX_AMO_STD_(N, T) \
    SHMEM_API T    SHMEM_N_(shmem_ctx_##N##_atomic_compare_swap)(shmem_ctx_t ctx, T *dest, T cond, T value, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_ctx_##N##_atomic_fetch_inc)(shmem_ctx_t ctx, T *dest, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_atomic_inc)(shmem_ctx_t ctx, T *dest, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_ctx_##N##_atomic_fetch_add)(shmem_ctx_t ctx, T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_atomic_add)(shmem_ctx_t ctx, T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_atomic_compare_swap_nbi)(shmem_ctx_t ctx, T *fetch, T *dest, T cond, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_atomic_fetch_inc_nbi)(shmem_ctx_t ctx, T *fetch, T *dest, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_atomic_fetch_add_nbi)(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
#define SHMEM_DECL_CTX_AMO_BIT_(N, T) \
    SHMEM_API T    SHMEM_N_(shmem_ctx_##N##_atomic_fetch_and)(shmem_ctx_t ctx, T *dest, T value, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_ctx_##N##_atomic_fetch_or)(shmem_ctx_t ctx, T *dest, T value, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_ctx_##N##_atomic_fetch_xor)(shmem_ctx_t ctx, T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_atomic_and)(shmem_ctx_t ctx, T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_atomic_or)(shmem_ctx_t ctx, T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_atomic_xor)(shmem_ctx_t ctx, T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_atomic_fetch_and_nbi)(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_atomic_fetch_or_nbi)(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_ctx_##N##_atomic_fetch_xor_nbi)(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
SHMEM_AMO_EXT_TYPES(SHMEM_DECL_CTX_AMO_EXT_)
SHMEM_AMO_STD_TYPES(SHMEM_DECL_CTX_AMO_STD_)
SHMEM_AMO_BIT_TYPES(SHMEM_DECL_CTX_AMO_BIT_)

/* Deprecated atomics (OpenSHMEM 1.3 names). */
#define SHMEM_DEPR_AMO_TYPES(X) X(int, int) X(long, long) X(longlong, long long)
#define SHMEM_DECL_DEPR_AMO_(N, T) \
    SHMEM_API T    SHMEM_N_(shmem_##N##_cswap)(T *dest, T cond, T value, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_##N##_finc)(T *dest, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_inc)(T *dest, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_##N##_fadd)(T *dest, T value, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_add)(T *dest, T value, int pe);
#define SHMEM_DECL_DEPR_AMOX_(N, T) \
    SHMEM_API T    SHMEM_N_(shmem_##N##_swap)(T *dest, T value, int pe); \
    SHMEM_API T    SHMEM_N_(shmem_##N##_fetch)(const T *source, int pe); \
    SHMEM_API void SHMEM_N_(shmem_##N##_set)(T *dest, T value, int pe);
SHMEM_DEPR_AMO_TYPES(SHMEM_DECL_DEPR_AMO_)
SHMEM_DEPR_AMO_TYPES(SHMEM_DECL_DEPR_AMOX_)
SHMEM_DECL_DEPR_AMOX_(float, float)
SHMEM_DECL_DEPR_AMOX_(double, double)
SHMEM_API long SHMEM_N_(shmem_swap)(long *dest, long value, int pe);
/* Deprecated cache management: no-ops (memory is coherent). */
SHMEM_API void SHMEM_N_(shmem_clear_cache_inv)(void);
SHMEM_API void SHMEM_N_(shmem_set_cache_inv)(void);
SHMEM_API void SHMEM_N_(shmem_clear_cache_line_inv)(void *dest);
SHMEM_API void SHMEM_N_(shmem_set_cache_line_inv)(void *dest);
SHMEM_API void SHMEM_N_(shmem_udcflush)(void);
SHMEM_API void SHMEM_N_(shmem_udcflush_line)(void *dest);

/* --- Ordering, completion, point-to-point synchronisation ---------------------- */
SHMEM_API void SHMEM_N_(shmem_fence)(void);
SHMEM_API void SHMEM_N_(shmem_quiet)(void);
#define SHMEM_DECL_P2P_(N, T) \
    SHMEM_API void   SHMEM_N_(shmem_##N##_wait_until)(T *ivar, int cmp, T cmp_value); \
    SHMEM_API void   SHMEM_N_(shmem_##N##_wait_until_all)(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    SHMEM_API size_t SHMEM_N_(shmem_##N##_wait_until_any)(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    SHMEM_API size_t SHMEM_N_(shmem_##N##_wait_until_some)(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value); \
    SHMEM_API void   SHMEM_N_(shmem_##N##_wait_until_all_vector)(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values); \
    SHMEM_API size_t SHMEM_N_(shmem_##N##_wait_until_any_vector)(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values); \
    SHMEM_API size_t SHMEM_N_(shmem_##N##_wait_until_some_vector)(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values); \
    SHMEM_API int    SHMEM_N_(shmem_##N##_test)(T *ivar, int cmp, T cmp_value); \
    SHMEM_API int    SHMEM_N_(shmem_##N##_test_all)(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    SHMEM_API size_t SHMEM_N_(shmem_##N##_test_any)(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    SHMEM_API size_t SHMEM_N_(shmem_##N##_test_some)(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value); \
    SHMEM_API int    SHMEM_N_(shmem_##N##_test_all_vector)(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values); \
    SHMEM_API size_t SHMEM_N_(shmem_##N##_test_any_vector)(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values); \
    SHMEM_API size_t SHMEM_N_(shmem_##N##_test_some_vector)(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values);
SHMEM_P2P_TYPES(SHMEM_DECL_P2P_)
/* Deprecated: shmem_TYPE_wait(ivar, value) waits until *ivar != value; the
 * untyped shmem_wait and shmem_wait_until are the long forms (C11 programs
 * get the generic shmem_wait_until below). */
#define SHMEM_DECL_WAIT_(N, T) SHMEM_API void SHMEM_N_(shmem_##N##_wait)(T *ivar, T cmp_value);
SHMEM_P2P_TYPES(SHMEM_DECL_WAIT_)
SHMEM_API void SHMEM_N_(shmem_wait)(long *ivar, long cmp_value);
SHMEM_API void SHMEM_N_(shmem_wait_until)(long *ivar, int cmp, long cmp_value);

/* --- Locks ----------------------------------------------------------------- */
SHMEM_API void SHMEM_N_(shmem_set_lock)(long *lock);
SHMEM_API void SHMEM_N_(shmem_clear_lock)(long *lock);
SHMEM_API int  SHMEM_N_(shmem_test_lock)(long *lock);

/* --- Teams ------------------------------------------------------------------ */
SHMEM_API int SHMEM_N_(shmem_team_my_pe)(shmem_team_t team);
SHMEM_API int SHMEM_N_(shmem_team_n_pes)(shmem_team_t team);
SHMEM_API int SHMEM_N_(shmem_team_get_config)(shmem_team_t team, long config_mask, shmem_team_config_t *config);
SHMEM_API int SHMEM_N_(shmem_team_translate_pe)(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
SHMEM_API int SHMEM_N_(shmem_team_split_strided)(shmem_team_t parent_team, int start, int stride, int size,
                                       const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
SHMEM_API int SHMEM_N_(shmem_team_split_2d)(shmem_team_t parent_team, int xrange,
                                  const shmem_team_config_t *xaxis_config, long xaxis_mask, shmem_team_t *xaxis_team,
                                  const shmem_team_config_t *yaxis_config, long yaxis_mask, shmem_team_t *yaxis_team);
SHMEM_API void SHMEM_N_(shmem_team_destroy)(shmem_team_t team);
SHMEM_API void *SHMEM_N_(shmem_team_ptr)(shmem_team_t team, const void *dest, int pe);

/* --- Collectives ---------------------------------------------------------------- */
SHMEM_API void SHMEM_N_(shmem_barrier_all)(void);
SHMEM_API void SHMEM_N_(shmem_sync_all)(void);
SHMEM_API int  SHMEM_N_(shmem_team_sync)(shmem_team_t team);
SHMEM_API int  SHMEM_N_(shmem_broadcastmem)(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
SHMEM_API int  SHMEM_N_(shmem_collectmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHMEM_API int  SHMEM_N_(shmem_fcollectmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHMEM_API int  SHMEM_N_(shmem_alltoallmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHMEM_API int  SHMEM_N_(shmem_alltoallsmem)(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
#define SHMEM_DECL_COLL_(N, T) \
    SHMEM_API int SHMEM_N_(shmem_##N##_broadcast)(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root); \
    SHMEM_API int SHMEM_N_(shmem_##N##_collect)(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    SHMEM_API int SHMEM_N_(shmem_##N##_fcollect)(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    SHMEM_API int SHMEM_N_(shmem_##N##_alltoall)(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    SHMEM_API int SHMEM_N_(shmem_##N##_alltoalls)(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
SHMEM_RMA_TYPES(SHMEM_DECL_COLL_)
#define SHMEM_DECL_RED_(N, T, OP) \
    SHMEM_API int SHMEM_N_(shmem_##N##_##OP##_reduce)(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define SHMEM_DECL_RED_BIT_(N, T) SHMEM_DECL_RED_(N, T, and) SHMEM_DECL_RED_(N, T, or) SHMEM_DECL_RED_(N, T, xor)
#define SHMEM_DECL_RED_MM_(N, T) SHMEM_DECL_RED_(N, T, max) SHMEM_DECL_RED_(N, T, min)
#define SHMEM_DECL_RED_AR_(N, T) SHMEM_DECL_RED_(N, T, sum) SHMEM_DECL_RED_(N, T, prod)
SHMEM_REDUCE_BIT_TYPES(SHMEM_DECL_RED_BIT_)
SHMEM_REDUCE_MINMAX_TYPES(SHMEM_DECL_RED_MM_)
SHMEM_REDUCE_ARITH_TYPES(SHMEM_DECL_RED_AR_)

/* Deprecated active-set collectives: PE_start, 2^logPE_stride, PE_size name
 * the set; pSync and pWrk are accepted and not used. */
SHMEM_API void SHMEM_N_(shmem_barrier)(int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_API void SHMEM_N_(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_API void SHMEM_N_(shmem_alltoalls32)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_API void SHMEM_N_(shmem_alltoalls64)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_API void SHMEM_N_(shmem_broadcast32)(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_API void SHMEM_N_(shmem_broadcast64)(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_API void SHMEM_N_(shmem_collect32)(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_API void SHMEM_N_(shmem_collect64)(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_API void SHMEM_N_(shmem_fcollect32)(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_API void SHMEM_N_(shmem_fcollect64)(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_API void SHMEM_N_(shmem_alltoall32)(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_API void SHMEM_N_(shmem_alltoall64)(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
#define SHMEM_DECL_TOALL_(N, T, OP) \
    SHMEM_API void SHMEM_N_(shmem_##N##_##OP##_to_all)(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define SHMEM_DECL_TOALL_BIT_(N, T) SHMEM_DECL_TOALL_(N, T, and) SHMEM_DECL_TOALL_(N, T, or) SHMEM_DECL_TOALL_(N, T, xor)
#define SHMEM_DECL_TOALL_MM_(N, T) SHMEM_DECL_TOALL_(N, T, max) SHMEM_DECL_TOALL_(N, T, min)
#define SHMEM_DECL_TOALL_AR_(N, T) SHMEM_DECL_TOALL_(N, T, sum) SHMEM_DECL_TOALL_(N, T, prod)
SHMEM_TOALL_BIT_TYPES(SHMEM_DECL_TOALL_BIT_)
SHMEM_TOALL_MINMAX_TYPES(SHMEM_DECL_TOALL_MM_)
SHMEM_TOALL_ARITH_TYPES(SHMEM_DECL_TOALL_AR_)

#ifdef __cplusplus
}
#endif
#endif /* SHMEM_DECLARE_NOW_ */

#ifndef SHMEM_H_GENERIC_
#define SHMEM_H_GENERIC_
#ifdef __cplusplus
extern "C" {
#endif
/* --- Beyond the specification (SMARTMAP) -------------------------------------------
 * The symmetric addresses are those of the symmetric heap (shmem_malloc and
 * friends, SHMEM_SYMMETRIC_SIZE bytes per PE) and of the executable's
 * globals and statics. Every RMA, atomic, signal, wait and lock routine, and
 * shmem_ptr and shmem_addr_accessible, also accept these exposed addresses
 * (smartmap.h):
 *  - the main thread's stack: an address designates the same place of the
 *    target PE's main stack (symmetric only if the PEs' stacks are laid out
 *    alike: the same program at the same depth);
 *  - global addresses, as sm_global() gives them: that of a global, of the
 *    main stack or of the symmetric heap designates the same place in the
 *    target PE; that of heap memory (malloc) designates that very object of
 *    the PE it belongs to, which must then be the target. So a PE may publish
 *    sm_global(p) of a malloc buffer p, and peers may shmem_putmem() into it
 *    on that PE.
 * Heap memory (malloc) is exposed but not symmetric: named by its own PE for
 * another PE it is rejected (the same offset of another PE's heap is
 * unrelated memory), and shmem_addr_accessible() says 0, shmem_ptr() NULL.
 * Rejected too, each with one line naming the routine and the address:
 * memory that is not exposed (private mmaps, other threads' stacks, shared
 * libraries' data), control regions, ranges that run off the end of one of
 * the above. RMA, atomics, signals, waits, locks, ordering, the heap, teams
 * and collectives report a call before shmem_init or after shmem_finalize. */

/* --- C11 generic selection -------------------------------------------------------------- */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* The RMA and atomic names take an optional context first, as in the
 * specification: the first argument's type picks the context form, then
 * the destination's (or source's) pointer type picks the typed routine. A
 * type with no routine selects shmem_generic_unsupported_type_, whose call
 * then fails to compile. */
SHMEM_API void shmem_generic_unsupported_type_(void);
#define SHMEM_A0_(a, ...) a
#define SHMEM_A1_(a, b, ...) b
#define SHMEM_CTXSEL_(G, op, ...) _Generic((SHMEM_A0_(__VA_ARGS__, 0)), \
    shmem_ctx_t: G(SHMEM_A1_(__VA_ARGS__, 0, 0), shmem_ctx_, op), \
    default: G(SHMEM_A0_(__VA_ARGS__, 0), shmem_, op))(__VA_ARGS__)
#define SHMEM_G_RMA_(p, pre, op) _Generic((p), \
    float *: pre##float_##op, double *: pre##double_##op, long double *: pre##longdouble_##op, \
    char *: pre##char_##op, signed char *: pre##schar_##op, short *: pre##short_##op, \
    int *: pre##int_##op, long *: pre##long_##op, long long *: pre##longlong_##op, \
    unsigned char *: pre##uchar_##op, unsigned short *: pre##ushort_##op, \
    unsigned int *: pre##uint_##op, unsigned long *: pre##ulong_##op, \
    unsigned long long *: pre##ulonglong_##op, \
    const float *: pre##float_##op, const double *: pre##double_##op, const long double *: pre##longdouble_##op, \
    const char *: pre##char_##op, const signed char *: pre##schar_##op, const short *: pre##short_##op, \
    const int *: pre##int_##op, const long *: pre##long_##op, const long long *: pre##longlong_##op, \
    const unsigned char *: pre##uchar_##op, const unsigned short *: pre##ushort_##op, \
    const unsigned int *: pre##uint_##op, const unsigned long *: pre##ulong_##op, \
    const unsigned long long *: pre##ulonglong_##op, default: shmem_generic_unsupported_type_)
#define shmem_put(...)            SHMEM_CTXSEL_(SHMEM_G_RMA_, put, __VA_ARGS__)
#define shmem_get(...)            SHMEM_CTXSEL_(SHMEM_G_RMA_, get, __VA_ARGS__)
#define shmem_put_nbi(...)        SHMEM_CTXSEL_(SHMEM_G_RMA_, put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...)        SHMEM_CTXSEL_(SHMEM_G_RMA_, get_nbi, __VA_ARGS__)
#define shmem_p(...)              SHMEM_CTXSEL_(SHMEM_G_RMA_, p, __VA_ARGS__)
#define shmem_g(...)              SHMEM_CTXSEL_(SHMEM_G_RMA_, g, __VA_ARGS__)
#define shmem_iput(...)           SHMEM_CTXSEL_(SHMEM_G_RMA_, iput, __VA_ARGS__)
#define shmem_iget(...)           SHMEM_CTXSEL_(SHMEM_G_RMA_, iget, __VA_ARGS__)
#define shmem_put_signal(...)     SHMEM_CTXSEL_(SHMEM_G_RMA_, put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) SHMEM_CTXSEL_(SHMEM_G_RMA_, put_signal_nbi, __VA_ARGS__)
/* Collectives take a team first: selection on the destination only. */
#define shmem_broadcast(team, dest, ...) SHMEM_G_RMA_(dest, shmem_, broadcast)(team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...)   SHMEM_G_RMA_(dest, shmem_, collect)(team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...)  SHMEM_G_RMA_(dest, shmem_, fcollect)(team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...)  SHMEM_G_RMA_(dest, shmem_, alltoall)(team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...) SHMEM_G_RMA_(dest, shmem_, alltoalls)(team, dest, __VA_ARGS__)

#define SHMEM_G_AMO_(p, pre, op) _Generic((p), \
    int *: pre##int_##op, long *: pre##long_##op, long long *: pre##longlong_##op, \
    unsigned int *: pre##uint_##op, unsigned long *: pre##ulong_##op, \
    unsigned long long *: pre##ulonglong_##op, default: shmem_generic_unsupported_type_)
#define SHMEM_G_AMOX_(p, pre, op) _Generic((p), \
    float *: pre##float_##op, double *: pre##double_##op, \
    int *: pre##int_##op, long *: pre##long_##op, long long *: pre##longlong_##op, \
    unsigned int *: pre##uint_##op, unsigned long *: pre##ulong_##op, \
    unsigned long long *: pre##ulonglong_##op, \
    const float *: pre##float_##op, const double *: pre##double_##op, \
    const int *: pre##int_##op, const long *: pre##long_##op, const long long *: pre##longlong_##op, \
    const unsigned int *: pre##uint_##op, const unsigned long *: pre##ulong_##op, \
    const unsigned long long *: pre##ulonglong_##op, default: shmem_generic_unsupported_type_)
#define SHMEM_G_AMOB_(p, pre, op) _Generic((p), \
    unsigned int *: pre##uint_##op, unsigned long *: pre##ulong_##op, \
    unsigned long long *: pre##ulonglong_##op, int *: pre##int32_##op, long *: pre##int64_##op, \
    default: shmem_generic_unsupported_type_)
#define shmem_atomic_fetch(...)         SHMEM_CTXSEL_(SHMEM_G_AMOX_, atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...)           SHMEM_CTXSEL_(SHMEM_G_AMOX_, atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...)          SHMEM_CTXSEL_(SHMEM_G_AMOX_, atomic_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap(...)  SHMEM_CTXSEL_(SHMEM_G_AMO_, atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...)     SHMEM_CTXSEL_(SHMEM_G_AMO_, atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...)           SHMEM_CTXSEL_(SHMEM_G_AMO_, atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...)     SHMEM_CTXSEL_(SHMEM_G_AMO_, atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...)           SHMEM_CTXSEL_(SHMEM_G_AMO_, atomic_add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...)     SHMEM_CTXSEL_(SHMEM_G_AMOB_, atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...)      SHMEM_CTXSEL_(SHMEM_G_AMOB_, atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...)     SHMEM_CTXSEL_(SHMEM_G_AMOB_, atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_and(...)           SHMEM_CTXSEL_(SHMEM_G_AMOB_, atomic_and, __VA_ARGS__)
#define shmem_atomic_or(...)            SHMEM_CTXSEL_(SHMEM_G_AMOB_, atomic_or, __VA_ARGS__)
#define shmem_atomic_xor(...)           SHMEM_CTXSEL_(SHMEM_G_AMOB_, atomic_xor, __VA_ARGS__)
/* The _nbi atomics select on the fetch buffer (after the optional context). */
#define shmem_atomic_fetch_nbi(...)         SHMEM_CTXSEL_(SHMEM_G_AMOX_, atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...)          SHMEM_CTXSEL_(SHMEM_G_AMOX_, atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)  SHMEM_CTXSEL_(SHMEM_G_AMO_, atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...)     SHMEM_CTXSEL_(SHMEM_G_AMO_, atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...)     SHMEM_CTXSEL_(SHMEM_G_AMO_, atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)     SHMEM_CTXSEL_(SHMEM_G_AMOB_, atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)      SHMEM_CTXSEL_(SHMEM_G_AMOB_, atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)     SHMEM_CTXSEL_(SHMEM_G_AMOB_, atomic_fetch_xor_nbi, __VA_ARGS__)

#define SHMEM_G_P2P_(x, op) _Generic((x), \
    short: shmem_short_##op, int: shmem_int_##op, long: shmem_long_##op, \
    long long: shmem_longlong_##op, unsigned short: shmem_ushort_##op, \
    unsigned int: shmem_uint_##op, unsigned long: shmem_ulong_##op, \
    unsigned long long: shmem_ulonglong_##op)
#define shmem_wait_until(ivar, ...)             SHMEM_G_P2P_(*(ivar), wait_until)(ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivars, ...)        SHMEM_G_P2P_(*(ivars), wait_until_all)(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...)        SHMEM_G_P2P_(*(ivars), wait_until_any)(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...)       SHMEM_G_P2P_(*(ivars), wait_until_some)(ivars, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivars, ...) SHMEM_G_P2P_(*(ivars), wait_until_all_vector)(ivars, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivars, ...) SHMEM_G_P2P_(*(ivars), wait_until_any_vector)(ivars, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivars, ...) SHMEM_G_P2P_(*(ivars), wait_until_some_vector)(ivars, __VA_ARGS__)
#define shmem_test(ivar, ...)                   SHMEM_G_P2P_(*(ivar), test)(ivar, __VA_ARGS__)
#define shmem_test_all(ivars, ...)              SHMEM_G_P2P_(*(ivars), test_all)(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...)              SHMEM_G_P2P_(*(ivars), test_any)(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...)             SHMEM_G_P2P_(*(ivars), test_some)(ivars, __VA_ARGS__)
#define shmem_test_all_vector(ivars, ...)       SHMEM_G_P2P_(*(ivars), test_all_vector)(ivars, __VA_ARGS__)
#define shmem_test_any_vector(ivars, ...)       SHMEM_G_P2P_(*(ivars), test_any_vector)(ivars, __VA_ARGS__)
#define shmem_test_some_vector(ivars, ...)      SHMEM_G_P2P_(*(ivars), test_some_vector)(ivars, __VA_ARGS__)

#define SHMEM_G_RED_(x, op) _Generic((x), \
    char: shmem_char_##op, signed char: shmem_schar_##op, short: shmem_short_##op, \
    int: shmem_int_##op, long: shmem_long_##op, long long: shmem_longlong_##op, \
    unsigned char: shmem_uchar_##op, unsigned short: shmem_ushort_##op, \
    unsigned int: shmem_uint_##op, unsigned long: shmem_ulong_##op, \
    unsigned long long: shmem_ulonglong_##op, float: shmem_float_##op, \
    double: shmem_double_##op, long double: shmem_longdouble_##op)
#define SHMEM_G_REDB_(x, op) _Generic((x), \
    unsigned char: shmem_uchar_##op, unsigned short: shmem_ushort_##op, \
    unsigned int: shmem_uint_##op, unsigned long: shmem_ulong_##op, \
    unsigned long long: shmem_ulonglong_##op, signed char: shmem_int8_##op, \
    short: shmem_int16_##op, int: shmem_int32_##op, long: shmem_int64_##op)
#define shmem_and_reduce(team, dest, ...)  SHMEM_G_REDB_(*(dest), and_reduce)(team, dest, __VA_ARGS__)
#define shmem_or_reduce(team, dest, ...)   SHMEM_G_REDB_(*(dest), or_reduce)(team, dest, __VA_ARGS__)
#define shmem_xor_reduce(team, dest, ...)  SHMEM_G_REDB_(*(dest), xor_reduce)(team, dest, __VA_ARGS__)
#define shmem_max_reduce(team, dest, ...)  SHMEM_G_RED_(*(dest), max_reduce)(team, dest, __VA_ARGS__)
#define shmem_min_reduce(team, dest, ...)  SHMEM_G_RED_(*(dest), min_reduce)(team, dest, __VA_ARGS__)
/* sum and prod also take the complex types; max and min do not. */
#define SHMEM_G_REDA_(x, op) _Generic((x), \
    char: shmem_char_##op, signed char: shmem_schar_##op, short: shmem_short_##op, \
    int: shmem_int_##op, long: shmem_long_##op, long long: shmem_longlong_##op, \
    unsigned char: shmem_uchar_##op, unsigned short: shmem_ushort_##op, \
    unsigned int: shmem_uint_##op, unsigned long: shmem_ulong_##op, \
    unsigned long long: shmem_ulonglong_##op, float: shmem_float_##op, \
    double: shmem_double_##op, long double: shmem_longdouble_##op, \
    double _Complex: shmem_complexd_##op, float _Complex: shmem_complexf_##op)
#define shmem_sum_reduce(team, dest, ...)  SHMEM_G_REDA_(*(dest), sum_reduce)(team, dest, __VA_ARGS__)
#define shmem_prod_reduce(team, dest, ...) SHMEM_G_REDA_(*(dest), prod_reduce)(team, dest, __VA_ARGS__)
/* shmem_sync(team) is shmem_team_sync; with four arguments it is the
 * deprecated active-set routine (the parenthesised name is the function). */
#define SHMEM_SYNC_SEL_(a, b, c, d, f, ...) f
#define shmem_sync(...) SHMEM_SYNC_SEL_(__VA_ARGS__, (shmem_sync), (shmem_sync), (shmem_sync), shmem_team_sync, 0)(__VA_ARGS__)
#endif

#ifdef __cplusplus
}
#endif
#endif
