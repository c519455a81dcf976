/* Every (type, op) kernel of the engine against the serial reference: the
 * table defines exactly the pairs the standards do, each kernel is right
 * for every length (the vector loops' tails) and with its output on either
 * operand or apart, the pair types keep their C layout (MINLOC/MAXLOC ties
 * to the smaller index), and coll_fn_predefined applies the same. */
#include <stdlib.h>

#include "check.h"
#include "ref.h"

static const size_t lens[] = { 0, 1, 3, 17, 64, 1001 };
#define MAXN 1001

static void check_kernel(enum coll_dtype t, enum coll_redop op, coll_kernel_fn k)
{
    size_t es = coll_dtype_size(t);
    CHECK(es == ref_size(t), "%s: size %zu, C says %zu", coll_dtype_name(t), es, ref_size(t));
    char *a = malloc(MAXN * es), *b = malloc(MAXN * es), *o = malloc(MAXN * es), *want = malloc(MAXN * es);
    char sa[80], sb[80];
    for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
        size_t n = lens[li];
        for (size_t i = 0; i < n; i++) {
            ref_value(t, a + i * es, 1 + (int)(i % 5), i);
            ref_value(t, b + i * es, 2 + (int)(i % 3), i * 7);
            ref_apply(t, op, want + i * es, a + i * es, b + i * es);
        }
        /* out apart, out on a, out on b: the three loops of every kernel */
        for (int v = 0; v < 3; v++) {
            char *x = a, *y = b;
            if (v == 1) x = o;
            if (v == 2) y = o;
            memcpy(o, v == 2 ? b : a, n * es);
            k(o, x, y, n);
            for (size_t i = 0; i < n; i++)
                CHECK(ref_equal(t, o + i * es, want + i * es), "%s %s (variant %d, n %zu) [%zu]: got %s, want %s",
                      coll_redop_name(op), coll_dtype_name(t), v, n, i, ref_show(t, o + i * es, sa, sizeof sa),
                      ref_show(t, want + i * es, sb, sizeof sb));
        }
        /* the function form: inout = in op inout */
        struct coll_fn f;
        CHECK(coll_fn_predefined(&f, t, op) == SM_OK && f.elem == es, "coll_fn_predefined %s %s",
              coll_redop_name(op), coll_dtype_name(t));
        memcpy(o, b, n * es);
        f.fn(a, o, n, f.ctx);
        for (size_t i = 0; i < n; i++)
            CHECK(ref_equal(t, o + i * es, want + i * es), "coll_fn %s %s [%zu]", coll_redop_name(op), coll_dtype_name(t), i);
    }
    free(a), free(b), free(o), free(want);
}

/* Ties and the pair layouts, spelled out: the smaller index wins whichever
 * operand it is in; the index sits where C puts it (after padding). */
static void check_pairs(void)
{
    struct r_short_int s[2] = { { 3, 9 }, { 3, 4 } }, so;
    coll_kernel(COLL_SHORT_INT, COLL_MINLOC)(&so, &s[0], &s[1], 1);
    CHECK(so.v == 3 && so.i == 4, "short_int minloc tie: %d at %d", so.v, so.i);
    coll_kernel(COLL_SHORT_INT, COLL_MAXLOC)(&so, &s[1], &s[0], 1);
    CHECK(so.v == 3 && so.i == 4, "short_int maxloc tie: %d at %d", so.v, so.i);
    struct r_long_int l[4] = { { -5, 2 }, { 7, 1 }, { 7, 0 }, { -5, 3 } }, lo[2];
    coll_kernel(COLL_LONG_INT, COLL_MAXLOC)(lo, l, l + 2, 2);
    CHECK(lo[0].v == 7 && lo[0].i == 0 && lo[1].v == 7 && lo[1].i == 1, "long_int maxloc: %ld@%d %ld@%d",
          lo[0].v, lo[0].i, lo[1].v, lo[1].i);
    coll_kernel(COLL_LONG_INT, COLL_MINLOC)(lo, l, l + 2, 2);
    CHECK(lo[0].v == -5 && lo[0].i == 2 && lo[1].v == -5 && lo[1].i == 3, "long_int minloc");
    struct r_double_int d[2] = { { 1.5, 8 }, { 1.5, -1 } }, dout;
    coll_kernel(COLL_DOUBLE_INT, COLL_MINLOC)(&dout, d, d + 1, 1);
    CHECK(dout.v == 1.5 && dout.i == -1, "double_int minloc tie %g@%d", dout.v, dout.i);
    struct r_ldouble_int q[3] = { { 2.0L, 5 }, { -1.0L, 6 }, { 2.0L, 1 } };
    coll_kernel(COLL_LDOUBLE_INT, COLL_MAXLOC)(&q[0], &q[0], &q[2], 1);
    CHECK(q[0].v == 2.0L && q[0].i == 1 && q[1].i == 6, "long_double_int maxloc in place");
    CHECK(coll_dtype_size(COLL_SHORT_INT) == 8 && coll_dtype_size(COLL_LONG_INT) == 16 &&
          coll_dtype_size(COLL_DOUBLE_INT) == 16 && coll_dtype_size(COLL_LDOUBLE_INT) == sizeof(long double) * 2,
          "pair sizes follow C");
}

int main(void)
{
    int defined = 0;
    for (int t = 0; t < COLL_DTYPE_COUNT; t++)
        for (int op = 0; op < COLL_REDOP_COUNT; op++) {
            char scratch[64] = { 0 };
            bool std_defines = ref_apply((enum coll_dtype)t, (enum coll_redop)op, scratch, scratch, scratch);
            coll_kernel_fn k = coll_kernel((enum coll_dtype)t, (enum coll_redop)op);
            CHECK(!k == !std_defines, "%s on %s: the table %s it", coll_redop_name((enum coll_redop)op),
                  coll_dtype_name((enum coll_dtype)t), k ? "defines" : "lacks");
            if (!k) {
                struct coll_fn f;
                CHECK(coll_fn_predefined(&f, (enum coll_dtype)t, (enum coll_redop)op) == SM_ERR_ARG, "undefined fn");
                continue;
            }
            defined++;
            check_kernel((enum coll_dtype)t, (enum coll_redop)op, k);
        }
    CHECK(defined == 8 * 10 + 3 * 4 + 3 * 2 + 3 + 6 * 2, "%d kernels", defined);
    CHECK(coll_kernel(COLL_DTYPE_COUNT, COLL_SUM) == NULL && coll_kernel(COLL_INT8, COLL_REDOP_COUNT) == NULL, "bounds");
    /* every C type maps where it should */
    CHECK(COLL_DTYPE_OF(long) == COLL_INT64 && COLL_DTYPE_OF(size_t) == COLL_UINT64 &&
          COLL_DTYPE_OF(unsigned short) == COLL_UINT16 && COLL_DTYPE_OF(char) == (CHAR_MIN < 0 ? COLL_INT8 : COLL_UINT8) &&
          COLL_DTYPE_OF(double _Complex) == COLL_CDOUBLE && COLL_DTYPE_OF(_Bool) == COLL_BOOL, "COLL_DTYPE_OF");
    check_pairs();
    if (sm_rank() == 0) printf("test_kernels: %d kernels ok\n", defined);
    return 0;
}
