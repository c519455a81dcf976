/* Every predefined operation on every predefined C datatype, against a
 * reference computed here in rank order: the operations MPI-3.1 §5.9.2
 * defines for the type's category work (MPI_Allreduce small and large,
 * MPI_Reduce to the last rank, MPI_Reduce_local), the others fail with
 * MPI_ERR_OP. MINLOC/MAXLOC on every pair type, with ties, in their C
 * layout (padding included: MPI_SHORT_INT, MPI_LONG_INT, MPI_DOUBLE_INT,
 * MPI_LONG_DOUBLE_INT), and on derived types made of pair types. */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "mcheck.h"

static int me, n;
static MPI_Comm rc_comm;                 /* MPI_ERRORS_RETURN */

enum cat { INT, MULTI, FLOAT, COMPLEX, LOGICAL, BYTE };
static const MPI_Op ops[] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR,
                              MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC };
static const char *const op_names[] = { "MAX", "MIN", "SUM", "PROD", "LAND", "BAND", "LOR", "BOR", "LXOR", "BXOR",
                                        "MINLOC", "MAXLOC" };
#define NOPS 12

/* MPI-3.1 §5.9.2: which categories each operation takes. */
static bool defined(int op, enum cat c)
{
    switch (op) {
    case 0: case 1: return c == INT || c == MULTI || c == FLOAT;                     /* MAX MIN */
    case 2: case 3: return c == INT || c == MULTI || c == FLOAT || c == COMPLEX;     /* SUM PROD */
    case 4: case 6: case 8: return c == INT || c == LOGICAL;                         /* LAND LOR LXOR */
    case 5: case 7: case 9: return c == INT || c == MULTI || c == BYTE;              /* BAND BOR BXOR */
    default: return false;                                                           /* *LOC: pairs only */
    }
}

/* Inputs: small values with negatives; for PROD only 1, -1 and one 2 per element. */
static int value(int op, int r, int e)
{
    if (op == 3) return r == e % n ? 2 : (r + e) % 2 ? -1 : 1;
    return (r * 37 + e * 11) % 23 - 7;
}

/* MPI_C_BOOL's elements are held as unsigned char 0 or 1 (C's _Bool, without
 * the compiler's opinions on arithmetic in a boolean context). */
#define VALUE(T, CAT, o, r, e) (CAT == LOGICAL ? (T)(value(o, r, e) != 0) : (T)value(o, r, e))

/* One type: every operation, against the reference (computed in T;
 * comparisons on the real part, as complex types never reach them;
 * integer products wrap, computed unsigned). */
#define RUN_TYPE(DT, T, CAT) do {                                                              \
    for (int o = 0; o < NOPS; o++) {                                                           \
        enum { CNT = 5, BIG = 3000 };                                                          \
        static T in[BIG], out[BIG], want[BIG];                                                 \
        if (!defined(o, CAT)) {                                                                \
            int rc = MPI_Allreduce(in, out, CNT, DT, ops[o], rc_comm), cls;                    \
            MPI_Error_class(rc, &cls);                                                         \
            CHECK(cls == MPI_ERR_OP, "%s on " #DT ": error class %d", op_names[o], cls);       \
            continue;                                                                          \
        }                                                                                      \
        for (int e = 0; e < BIG; e++) {                                                        \
            in[e] = VALUE(T, CAT, o, me, e);                                                   \
            for (int r = 0; r < n; r++) {                                                      \
                T x = VALUE(T, CAT, o, r, e), w = want[e];                                     \
                if (CAT == COMPLEX) { x += (T)((r + e) % 3) * (T)I; }                          \
                if (r == 0) { want[e] = x; continue; }                                         \
                switch (o) {                                                                   \
                case 0: want[e] = creall(x) > creall(w) ? x : w; break;                        \
                case 1: want[e] = creall(x) < creall(w) ? x : w; break;                        \
                case 2: want[e] = (T)(w + x); break;                                           \
                case 3:                                                                        \
                    if (CAT == FLOAT || CAT == COMPLEX) want[e] *= x;                          \
                    else want[e] = (T)((unsigned long long)w * (unsigned long long)x);         \
                    break;                                                                     \
                case 4: want[e] = (T)(w && x); break;                                          \
                case 6: want[e] = (T)(w || x); break;                                          \
                case 8: want[e] = (T)(!w != !x); break;                                        \
                default: want[e] = BITOP(o, w, x); break;                                      \
                }                                                                              \
            }                                                                                  \
            if (CAT == COMPLEX) in[e] += (T)((me + e) % 3) * (T)I;                             \
        }                                                                                      \
        for (int big = 0; big < 2; big++) {                                                    \
            int cnt = big ? BIG : CNT;                                                         \
            memset(out, 0, sizeof out);                                                        \
            OK(MPI_Allreduce(in, out, cnt, DT, ops[o], MPI_COMM_WORLD));                       \
            for (int e = 0; e < cnt; e++)                                                      \
                CHECK(out[e] == want[e], "Allreduce %s on " #DT " count %d [%d]", op_names[o], cnt, e); \
        }                                                                                      \
        memset(out, 0, sizeof out);                                                            \
        OK(MPI_Reduce(in, out, CNT, DT, ops[o], n - 1, MPI_COMM_WORLD));                       \
        if (me == n - 1)                                                                       \
            for (int e = 0; e < CNT; e++) CHECK(out[e] == want[e], "Reduce %s on " #DT " [%d]", op_names[o], e); \
        /* local: out = in op out, with out holding the value of rank 1 */                     \
        for (int e = 0; e < CNT; e++) {                                                        \
            out[e] = VALUE(T, CAT, o, 1, e);                                                   \
            if (CAT == COMPLEX) out[e] += (T)((1 + e) % 3) * (T)I;                             \
        }                                                                                      \
        OK(MPI_Reduce_local(in, out, CNT, DT, ops[o]));                                        \
    }                                                                                          \
} while (0)
/* Bitwise operations: only integer types get here (the casts compile for all). */
#define BITOP(o, w, x) (o == 5 ? (__typeof__(w))((long long)(w) & (long long)(x)) :                      \
                       o == 7 ? (__typeof__(w))((long long)(w) | (long long)(x)) :                       \
                                (__typeof__(w))((long long)(w) ^ (long long)(x)))

/* MINLOC / MAXLOC on a pair type, in rank order, with ties (the value
 * repeats, the index does not follow rank order); large counts too. */
#define RUN_PAIR(DT, V) do {                                                                   \
    struct p { V v; int i; };                                                                  \
    enum { BIG = 3000 };                                                                       \
    static struct p in[BIG], out[BIG], want[2][BIG];                                           \
    for (int e = 0; e < BIG; e++) {                                                            \
        in[e].v = (V)((me * 7 + e) % 5 - 2), in[e].i = (me * 5 + 3 + e) % 11;                  \
        for (int r = 0; r < n; r++) {                                                          \
            struct p x = { (V)((r * 7 + e) % 5 - 2), (r * 5 + 3 + e) % 11 };                   \
            for (int m = 0; m < 2; m++) {                                                      \
                struct p *w = &want[m][e];                                                     \
                bool better = m ? x.v > w->v : x.v < w->v;                                     \
                if (r == 0 || better || (x.v == w->v && x.i < w->i)) *w = x;                   \
            }                                                                                  \
        }                                                                                      \
    }                                                                                          \
    for (int m = 0; m < 2; m++)                                                                \
        for (int cnt = 1; cnt <= BIG; cnt += BIG - 1) {                                        \
            memset(out, 0, sizeof out);                                                        \
            OK(MPI_Allreduce(in, out, cnt, DT, m ? MPI_MAXLOC : MPI_MINLOC, MPI_COMM_WORLD));  \
            for (int e = 0; e < cnt; e++)                                                      \
                CHECK(out[e].v == want[m][e].v && out[e].i == want[m][e].i, "%s on " #DT " count %d [%d]: %g at %d, want %g at %d", \
                      m ? "MAXLOC" : "MINLOC", cnt, e, (double)out[e].v, out[e].i, (double)want[m][e].v, want[m][e].i); \
            memset(out, 0, sizeof out);                                                        \
            OK(MPI_Reduce(in, out, cnt, DT, m ? MPI_MAXLOC : MPI_MINLOC, 0, MPI_COMM_WORLD));  \
            if (me == 0)                                                                       \
                for (int e = 0; e < cnt; e++)                                                  \
                    CHECK(out[e].v == want[m][e].v && out[e].i == want[m][e].i, "Reduce %s on " #DT, m ? "MAXLOC" : "MINLOC"); \
        }                                                                                      \
    /* in place, and through a derived type of three pairs (packed, then in C layout again) */ \
    memcpy(out, in, sizeof out);                                                               \
    OK(MPI_Allreduce(MPI_IN_PLACE, out, 30, DT, MPI_MAXLOC, MPI_COMM_WORLD));                  \
    for (int e = 0; e < 30; e++) CHECK(out[e].v == want[1][e].v && out[e].i == want[1][e].i, "in place " #DT); \
    MPI_Datatype three;                                                                        \
    OK(MPI_Type_contiguous(3, DT, &three));                                                    \
    OK(MPI_Type_commit(&three));                                                               \
    memset(out, 0, sizeof out);                                                                \
    OK(MPI_Allreduce(in, out, 10, three, MPI_MINLOC, MPI_COMM_WORLD));                         \
    for (int e = 0; e < 30; e++) CHECK(out[e].v == want[0][e].v && out[e].i == want[0][e].i, "derived " #DT " [%d]", e); \
    OK(MPI_Type_free(&three));                                                                 \
    int rc = MPI_Allreduce(in, out, 1, DT, MPI_SUM, rc_comm), cls;                             \
    MPI_Error_class(rc, &cls);                                                                 \
    CHECK(cls == MPI_ERR_OP, "SUM on " #DT ": error class %d", cls);                           \
} while (0)

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &rc_comm));
    OK(MPI_Comm_set_errhandler(rc_comm, MPI_ERRORS_RETURN));
    RUN_TYPE(MPI_CHAR, char, INT);
    RUN_TYPE(MPI_SIGNED_CHAR, signed char, INT);
    RUN_TYPE(MPI_UNSIGNED_CHAR, unsigned char, INT);
    RUN_TYPE(MPI_BYTE, unsigned char, BYTE);
    RUN_TYPE(MPI_WCHAR, wchar_t, INT);
    RUN_TYPE(MPI_SHORT, short, INT);
    RUN_TYPE(MPI_UNSIGNED_SHORT, unsigned short, INT);
    RUN_TYPE(MPI_INT, int, INT);
    RUN_TYPE(MPI_UNSIGNED, unsigned, INT);
    RUN_TYPE(MPI_LONG, long, INT);
    RUN_TYPE(MPI_UNSIGNED_LONG, unsigned long, INT);
    RUN_TYPE(MPI_LONG_LONG, long long, INT);
    RUN_TYPE(MPI_UNSIGNED_LONG_LONG, unsigned long long, INT);
    RUN_TYPE(MPI_INT8_T, int8_t, INT);
    RUN_TYPE(MPI_INT16_T, int16_t, INT);
    RUN_TYPE(MPI_INT32_T, int32_t, INT);
    RUN_TYPE(MPI_INT64_T, int64_t, INT);
    RUN_TYPE(MPI_UINT8_T, uint8_t, INT);
    RUN_TYPE(MPI_UINT16_T, uint16_t, INT);
    RUN_TYPE(MPI_UINT32_T, uint32_t, INT);
    RUN_TYPE(MPI_UINT64_T, uint64_t, INT);
    RUN_TYPE(MPI_AINT, MPI_Aint, MULTI);
    RUN_TYPE(MPI_OFFSET, MPI_Offset, MULTI);
    RUN_TYPE(MPI_COUNT, MPI_Count, MULTI);
    RUN_TYPE(MPI_FLOAT, float, FLOAT);
    RUN_TYPE(MPI_DOUBLE, double, FLOAT);
    RUN_TYPE(MPI_LONG_DOUBLE, long double, FLOAT);
    RUN_TYPE(MPI_C_BOOL, unsigned char, LOGICAL);
    RUN_TYPE(MPI_C_FLOAT_COMPLEX, float _Complex, COMPLEX);
    RUN_TYPE(MPI_C_DOUBLE_COMPLEX, double _Complex, COMPLEX);
    RUN_TYPE(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, COMPLEX);
    RUN_PAIR(MPI_FLOAT_INT, float);
    RUN_PAIR(MPI_DOUBLE_INT, double);
    RUN_PAIR(MPI_LONG_INT, long);
    RUN_PAIR(MPI_2INT, int);
    RUN_PAIR(MPI_SHORT_INT, short);
    RUN_PAIR(MPI_LONG_DOUBLE_INT, long double);
    /* MPI_REPLACE and MPI_NO_OP are for accumulate only */
    int x = 1, y, rc = MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_REPLACE, rc_comm), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OP, "MPI_REPLACE in a reduction: %d", cls);
    OK(MPI_Comm_free(&rc_comm));
    OK(MPI_Finalize());
    if (me == 0) printf("test_ops: %d ranks ok\n", n);
    return 0;
}
