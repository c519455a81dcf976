/* kernels.c: the one (type, op) reduction table, for MPI's and OpenSHMEM's
 * reductions alike. Each kernel is three plain loops over restrict
 * pointers (out = a op b, out op= b, out = a op out), so the compiler
 * vectorises them without run-time alias checks; this file is compiled
 * with -O3 for that (src/coll/CMakeLists.txt; -fopt-info-vec shows which). */
#include <complex.h>

#include "coll.h"

/* x and y are a[i] and b[i]. Operand order is kept in every variant, so a
 * result does not depend on which operand the output overlays. */
#define KERNEL(NAME, T, EXPR)                                                                  \
    static void NAME##_3(T *restrict o, const T *restrict a, const T *restrict b, size_t n)    \
    { for (size_t i = 0; i < n; i++) { T x = a[i], y = b[i]; o[i] = (EXPR); } }                \
    static void NAME##_a(T *restrict o, const T *restrict b, size_t n)                         \
    { for (size_t i = 0; i < n; i++) { T x = o[i], y = b[i]; o[i] = (EXPR); } }                \
    static void NAME##_b(T *restrict o, const T *restrict a, size_t n)                         \
    { for (size_t i = 0; i < n; i++) { T x = a[i], y = o[i]; o[i] = (EXPR); } }                \
    static void NAME(void *o, const void *a, const void *b, size_t n)                          \
    {                                                                                          \
        if (o == a) NAME##_a(o, b, n);                                                         \
        else if (o == b) NAME##_b(o, a, n);                                                    \
        else NAME##_3(o, a, b, n);                                                             \
    }

/* Integers: sums and products wrap (computed unsigned, U at least as wide
 * as int, so no signed overflow and no promotion to signed int). */
#define INT_KERNELS(N, T, U)                                                                   \
    KERNEL(N##_sum, T, (T)((U)x + (U)y))                                                       \
    KERNEL(N##_prod, T, (T)((U)x * (U)y))                                                      \
    KERNEL(N##_min, T, y < x ? y : x)                                                          \
    KERNEL(N##_max, T, y > x ? y : x)                                                          \
    KERNEL(N##_land, T, (T)((x != 0) & (y != 0)))                                              \
    KERNEL(N##_lor, T, (T)((x != 0) | (y != 0)))                                               \
    KERNEL(N##_lxor, T, (T)((x != 0) ^ (y != 0)))                                              \
    KERNEL(N##_band, T, (T)(x & y))                                                            \
    KERNEL(N##_bor, T, (T)(x | y))                                                             \
    KERNEL(N##_bxor, T, (T)(x ^ y))
#define FLOAT_KERNELS(N, T)                                                                    \
    KERNEL(N##_sum, T, x + y)                                                                  \
    KERNEL(N##_prod, T, x * y)                                                                 \
    KERNEL(N##_min, T, y < x ? y : x)                                                          \
    KERNEL(N##_max, T, y > x ? y : x)
#define COMPLEX_KERNELS(N, T)                                                                  \
    KERNEL(N##_sum, T, x + y)                                                                  \
    KERNEL(N##_prod, T, x * y)
/* MINLOC/MAXLOC: the extreme value; on a tie the smaller index. */
#define PAIR_KERNELS(N, T)                                                                     \
    KERNEL(N##_minloc, T, (y.v < x.v || (y.v == x.v && y.i < x.i)) ? y : x)                    \
    KERNEL(N##_maxloc, T, (y.v > x.v || (y.v == x.v && y.i < x.i)) ? y : x)

INT_KERNELS(i8, int8_t, uint32_t)
INT_KERNELS(i16, int16_t, uint32_t)
INT_KERNELS(i32, int32_t, uint32_t)
INT_KERNELS(i64, int64_t, uint64_t)
INT_KERNELS(u8, uint8_t, uint32_t)
INT_KERNELS(u16, uint16_t, uint32_t)
INT_KERNELS(u32, uint32_t, uint32_t)
INT_KERNELS(u64, uint64_t, uint64_t)
FLOAT_KERNELS(f, float)
FLOAT_KERNELS(d, double)
FLOAT_KERNELS(ld, long double)
COMPLEX_KERNELS(cf, float _Complex)
COMPLEX_KERNELS(cd, double _Complex)
COMPLEX_KERNELS(cld, long double _Complex)
KERNEL(b_land, _Bool, x & y)
KERNEL(b_lor, _Bool, x | y)
KERNEL(b_lxor, _Bool, x ^ y)
PAIR_KERNELS(fi, struct coll_float_int)
PAIR_KERNELS(di, struct coll_double_int)
PAIR_KERNELS(li, struct coll_long_int)
PAIR_KERNELS(ii, struct coll_2int)
PAIR_KERNELS(si, struct coll_short_int)
PAIR_KERNELS(ldi, struct coll_ldouble_int)

#define INT_ROW(N) { [COLL_SUM] = N##_sum, [COLL_PROD] = N##_prod, [COLL_MIN] = N##_min, [COLL_MAX] = N##_max, \
    [COLL_LAND] = N##_land, [COLL_LOR] = N##_lor, [COLL_LXOR] = N##_lxor, \
    [COLL_BAND] = N##_band, [COLL_BOR] = N##_bor, [COLL_BXOR] = N##_bxor }
#define FLOAT_ROW(N) { [COLL_SUM] = N##_sum, [COLL_PROD] = N##_prod, [COLL_MIN] = N##_min, [COLL_MAX] = N##_max }
#define COMPLEX_ROW(N) { [COLL_SUM] = N##_sum, [COLL_PROD] = N##_prod }
#define PAIR_ROW(N) { [COLL_MINLOC] = N##_minloc, [COLL_MAXLOC] = N##_maxloc }

static const coll_kernel_fn table[COLL_DTYPE_COUNT][COLL_REDOP_COUNT] = {
    [COLL_INT8] = INT_ROW(i8), [COLL_INT16] = INT_ROW(i16), [COLL_INT32] = INT_ROW(i32), [COLL_INT64] = INT_ROW(i64),
    [COLL_UINT8] = INT_ROW(u8), [COLL_UINT16] = INT_ROW(u16), [COLL_UINT32] = INT_ROW(u32), [COLL_UINT64] = INT_ROW(u64),
    [COLL_FLOAT] = FLOAT_ROW(f), [COLL_DOUBLE] = FLOAT_ROW(d), [COLL_LDOUBLE] = FLOAT_ROW(ld),
    [COLL_CFLOAT] = COMPLEX_ROW(cf), [COLL_CDOUBLE] = COMPLEX_ROW(cd), [COLL_CLDOUBLE] = COMPLEX_ROW(cld),
    [COLL_BOOL] = { [COLL_LAND] = b_land, [COLL_LOR] = b_lor, [COLL_LXOR] = b_lxor },
    [COLL_FLOAT_INT] = PAIR_ROW(fi), [COLL_DOUBLE_INT] = PAIR_ROW(di), [COLL_LONG_INT] = PAIR_ROW(li),
    [COLL_2INT] = PAIR_ROW(ii), [COLL_SHORT_INT] = PAIR_ROW(si), [COLL_LDOUBLE_INT] = PAIR_ROW(ldi),
};

static const struct { const char *name; size_t size; } dtypes[COLL_DTYPE_COUNT] = {
    [COLL_INT8] = { "int8", 1 }, [COLL_INT16] = { "int16", 2 }, [COLL_INT32] = { "int32", 4 },
    [COLL_INT64] = { "int64", 8 }, [COLL_UINT8] = { "uint8", 1 }, [COLL_UINT16] = { "uint16", 2 },
    [COLL_UINT32] = { "uint32", 4 }, [COLL_UINT64] = { "uint64", 8 },
    [COLL_FLOAT] = { "float", sizeof(float) }, [COLL_DOUBLE] = { "double", sizeof(double) },
    [COLL_LDOUBLE] = { "long double", sizeof(long double) },
    [COLL_CFLOAT] = { "float complex", sizeof(float _Complex) },
    [COLL_CDOUBLE] = { "double complex", sizeof(double _Complex) },
    [COLL_CLDOUBLE] = { "long double complex", sizeof(long double _Complex) },
    [COLL_BOOL] = { "bool", sizeof(_Bool) },
    [COLL_FLOAT_INT] = { "float_int", sizeof(struct coll_float_int) },
    [COLL_DOUBLE_INT] = { "double_int", sizeof(struct coll_double_int) },
    [COLL_LONG_INT] = { "long_int", sizeof(struct coll_long_int) },
    [COLL_2INT] = { "2int", sizeof(struct coll_2int) },
    [COLL_SHORT_INT] = { "short_int", sizeof(struct coll_short_int) },
    [COLL_LDOUBLE_INT] = { "long_double_int", sizeof(struct coll_ldouble_int) },
};
static const char *const redops[COLL_REDOP_COUNT] = {
    "sum", "prod", "min", "max", "land", "lor", "lxor", "band", "bor", "bxor", "minloc", "maxloc",
};

coll_kernel_fn coll_kernel(enum coll_dtype t, enum coll_redop op)
{
    return (unsigned)t < COLL_DTYPE_COUNT && (unsigned)op < COLL_REDOP_COUNT ? table[t][op] : NULL;
}
size_t coll_dtype_size(enum coll_dtype t) { return (unsigned)t < COLL_DTYPE_COUNT ? dtypes[t].size : 0; }
const char *coll_dtype_name(enum coll_dtype t) { return (unsigned)t < COLL_DTYPE_COUNT ? dtypes[t].name : "?"; }
const char *coll_redop_name(enum coll_redop op) { return (unsigned)op < COLL_REDOP_COUNT ? redops[op] : "?"; }

/* inout = in op inout: the kernel with out on its second operand. */
static void apply_kernel(const void *in, void *inout, size_t n, const void *ctx)
{
    (*(const coll_kernel_fn *)ctx)(inout, in, inout, n);
}

sm_status_t coll_fn_predefined(struct coll_fn *f, enum coll_dtype t, enum coll_redop op)
{
    if (!coll_kernel(t, op))
        return sm_fail(SM_ERR_ARG, "reduction %s is not defined on %s", coll_redop_name(op), coll_dtype_name(t));
    *f = (struct coll_fn){ apply_kernel, &table[t][op], dtypes[t].size };
    return SM_OK;
}
