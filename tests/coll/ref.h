/* ref.h: a serial reference for the engine's reductions, written from the
 * standards (MPI-3.1 §5.9.2, OpenSHMEM 1.5 §9.9.7), one element at a time,
 * with test inputs that have ties, negatives, zeros and wrap-around. */
#ifndef COLL_REF_H
#define COLL_REF_H

#include <complex.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"

struct r_float_int { float v; int i; };
struct r_double_int { double v; int i; };
struct r_long_int { long v; int i; };
struct r_2int { int v; int i; };
struct r_short_int { short v; int i; };
struct r_ldouble_int { long double v; int i; };

/* X(dtype, C type, unsigned type for wrapping arithmetic) */
#define REF_INTS(X) X(COLL_INT8, int8_t, uint32_t) X(COLL_INT16, int16_t, uint32_t) X(COLL_INT32, int32_t, uint32_t) \
    X(COLL_INT64, int64_t, uint64_t) X(COLL_UINT8, uint8_t, uint32_t) X(COLL_UINT16, uint16_t, uint32_t)           \
    X(COLL_UINT32, uint32_t, uint32_t) X(COLL_UINT64, uint64_t, uint64_t)
#define REF_FLOATS(X) X(COLL_FLOAT, float) X(COLL_DOUBLE, double) X(COLL_LDOUBLE, long double)
#define REF_COMPLEX(X) X(COLL_CFLOAT, float _Complex) X(COLL_CDOUBLE, double _Complex) X(COLL_CLDOUBLE, long double _Complex)
#define REF_PAIRS(X) X(COLL_FLOAT_INT, struct r_float_int) X(COLL_DOUBLE_INT, struct r_double_int)           \
    X(COLL_LONG_INT, struct r_long_int) X(COLL_2INT, struct r_2int) X(COLL_SHORT_INT, struct r_short_int) \
    X(COLL_LDOUBLE_INT, struct r_ldouble_int)

/* The C size of an element (pairs with their padding). */
static inline size_t ref_size(enum coll_dtype t)
{
    switch (t) {
#define S2(D, T, ...) case D: return sizeof(T);
    REF_INTS(S2) REF_FLOATS(S2) REF_COMPLEX(S2) REF_PAIRS(S2)
#undef S2
    case COLL_BOOL: return sizeof(_Bool);
    default: return 0;
    }
}

/* out = a op b for one element; false if op is not defined on t. */
static inline bool ref_apply(enum coll_dtype t, enum coll_redop op, void *out, const void *a, const void *b)
{
    switch (t) {
#define INT_CASE(D, T, U)                                                                      \
    case D: {                                                                                  \
        T x = *(const T *)a, y = *(const T *)b, r;                                             \
        switch (op) {                                                                          \
        case COLL_SUM: r = (T)((U)x + (U)y); break;                                            \
        case COLL_PROD: r = (T)((U)x * (U)y); break;                                           \
        case COLL_MIN: r = x < y ? x : y; break;                                               \
        case COLL_MAX: r = x > y ? x : y; break;                                               \
        case COLL_LAND: r = x && y; break;                                                     \
        case COLL_LOR: r = x || y; break;                                                      \
        case COLL_LXOR: r = !x != !y; break;                                                   \
        case COLL_BAND: r = (T)(x & y); break;                                                 \
        case COLL_BOR: r = (T)(x | y); break;                                                  \
        case COLL_BXOR: r = (T)(x ^ y); break;                                                 \
        default: return false;                                                                 \
        }                                                                                      \
        memcpy(out, &r, sizeof r);                                                             \
        return true;                                                                           \
    }
    REF_INTS(INT_CASE)
#define FLOAT_CASE(D, T)                                                                       \
    case D: {                                                                                  \
        T x = *(const T *)a, y = *(const T *)b, r;                                             \
        switch (op) {                                                                          \
        case COLL_SUM: r = x + y; break;                                                       \
        case COLL_PROD: r = x * y; break;                                                      \
        case COLL_MIN: r = x < y ? x : y; break;                                               \
        case COLL_MAX: r = x > y ? x : y; break;                                               \
        default: return false;                                                                 \
        }                                                                                      \
        memcpy(out, &r, sizeof r);                                                             \
        return true;                                                                           \
    }
    REF_FLOATS(FLOAT_CASE)
#define COMPLEX_CASE(D, T)                                                                     \
    case D: {                                                                                  \
        T x = *(const T *)a, y = *(const T *)b, r;                                             \
        if (op == COLL_SUM) r = x + y;                                                         \
        else if (op == COLL_PROD) r = x * y;                                                   \
        else return false;                                                                     \
        memcpy(out, &r, sizeof r);                                                             \
        return true;                                                                           \
    }
    REF_COMPLEX(COMPLEX_CASE)
    case COLL_BOOL: {
        _Bool x = *(const _Bool *)a, y = *(const _Bool *)b, r;
        if (op == COLL_LAND) r = x && y;
        else if (op == COLL_LOR) r = x || y;
        else if (op == COLL_LXOR) r = x != y;
        else return false;
        memcpy(out, &r, sizeof r);
        return true;
    }
    /* MINLOC/MAXLOC (MPI-3.1 §5.9.4): the extreme value; on a tie the smaller index. */
#define PAIR_CASE(D, T)                                                                        \
    case D: {                                                                                  \
        T x = *(const T *)a, y = *(const T *)b, r;                                             \
        if (op != COLL_MINLOC && op != COLL_MAXLOC) return false;                              \
        bool yx = op == COLL_MINLOC ? y.v < x.v : y.v > x.v;                                   \
        r = yx || (y.v == x.v && y.i < x.i) ? y : x;                                           \
        memcpy(out, &r, sizeof r);                                                             \
        return true;                                                                           \
    }
    REF_PAIRS(PAIR_CASE)
    default: return false;
    }
}

/* The test input of member m, element i: small values with ties, zeros,
 * negatives (signed types), and products that wrap. */
static inline void ref_value(enum coll_dtype t, void *x, int m, size_t i)
{
    int v = (int)((m * 37 + (int)(i % 1009) * 11) % 23) - 7;    /* -7 .. 15 */
    int loc = (m * 5 + 3) % 11;                                 /* ties do not follow member order */
    switch (t) {
#define VI(D, T, U) case D: *(T *)x = (T)v; return;
    REF_INTS(VI)
#define VF(D, T) case D: *(T *)x = (T)v; return;
    REF_FLOATS(VF)
#define VC(D, T) case D: *(T *)x = (T)v + (T)((m + (int)i) % 3) * (T)_Complex_I; return;
    REF_COMPLEX(VC)
    case COLL_BOOL: *(_Bool *)x = (m + (int)i) % 3 == 0; return;
#define VP(D, T) case D: memset(x, 0x5a, sizeof(T)); ((T *)x)->v = (v % 4); ((T *)x)->i = loc; return;
    REF_PAIRS(VP)
    default: return;
    }
}

/* Equal values (pairs: value and index, not the padding). */
static inline bool ref_equal(enum coll_dtype t, const void *a, const void *b)
{
    switch (t) {
#define EP(D, T) case D: return ((const T *)a)->v == ((const T *)b)->v && ((const T *)a)->i == ((const T *)b)->i;
    REF_PAIRS(EP)
    case COLL_BOOL: return !*(const _Bool *)a == !*(const _Bool *)b;
    default: return memcmp(a, b, ref_size(t)) == 0 || (t == COLL_LDOUBLE && *(const long double *)a == *(const long double *)b) ||
                    (t == COLL_CLDOUBLE && *(const long double _Complex *)a == *(const long double _Complex *)b);
    }
}

/* For messages: the element's bytes in hex. */
static inline const char *ref_show(enum coll_dtype t, const void *x, char *buf, size_t cap)
{
    size_t n = ref_size(t), w = 0;
    for (size_t k = 0; k < n && w + 3 < cap; k++) w += (size_t)snprintf(buf + w, cap - w, "%02x", ((const unsigned char *)x)[k]);
    return buf;
}

#endif
