/* src/dt's data representations (dt_repr_*, external32's machinery) and the
 * basic type each run records: repeated elements stay one run, sizes from
 * the runs, big-endian bytes, integers changing size with sign extension
 * and range checks, long double as binary128, holes left alone on unpack,
 * a basic type with no representation. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "dt.h"

enum { CHAR = 1, SHORT, LONG, ULONG, DOUBLE, PAIR, LDOUBLE, NOREP, NTYPES };
static struct dt_predef pre[NTYPES];
static const struct dt_xrep reps[NTYPES] = {
    [CHAR] = { 1, { { DT_X_UINT, 1, 1 } } },
    [SHORT] = { 1, { { DT_X_SINT, 2, 2 } } },
    [LONG] = { 1, { { DT_X_SINT, 8, 4 } } },
    [ULONG] = { 1, { { DT_X_UINT, 8, 4 } } },
    [DOUBLE] = { 1, { { DT_X_UINT, 8, 8 } } },
    [PAIR] = { 2, { { DT_X_UINT, 8, 8 }, { DT_X_SINT, 4, 4 } } },   /* {double, int} */
    [LDOUBLE] = { 1, { { DT_X_LDOUBLE, sizeof(long double), 16 } } },
};
static const struct dt_xtab tab = { reps, NTYPES };
#define T(id) (&pre[id].t)

static size_t xsize(const struct dt_type *t, size_t count)
{
    size_t n = 0;
    CHECK(dt_repr_size(t, count, &tab, &n) == SM_OK, "dt_repr_size: %s", sm_fail_reason());
    return n;
}

int main(void)
{
    dt_predef_init(&pre[CHAR], CHAR, 1, 1, 1, 0, 0);
    dt_predef_init(&pre[SHORT], SHORT, 2, 2, 2, 0, 0);
    dt_predef_init(&pre[LONG], LONG, 8, 8, 8, 0, 0);
    dt_predef_init(&pre[ULONG], ULONG, 8, 8, 8, 0, 0);
    dt_predef_init(&pre[DOUBLE], DOUBLE, 8, 8, 8, 0, 0);
    dt_predef_init(&pre[PAIR], PAIR, 12, 8, 16, 8, 4);
    dt_predef_init(&pre[LDOUBLE], LDOUBLE, sizeof(long double), _Alignof(long double), sizeof(long double), 0, 0);
    dt_predef_init(&pre[NOREP], NOREP, 4, 4, 4, 0, 0);

    /* 100000 longs: one run, 4 external bytes each */
    struct dt_type *big, *two, *nested;
    CHECK(!dt_contiguous(100000, T(LONG), &big), "contiguous");
    CHECK(big->nruns == 1 && dt_runs(big)[0].count == 100000 && dt_runs(big)[0].basic == LONG, "runs of a long array");
    CHECK(xsize(big, 3) == 1200000, "external size of 3 x 100000 longs");
    /* a struct of two longs, repeated: still one run */
    const struct dt_type *tl[2] = { T(LONG), T(LONG) };
    CHECK(!dt_struct(2, (int[]){ 1, 1 }, (ptrdiff_t[]){ 0, 16 }, tl, &two), "struct");
    CHECK(!dt_hvector(50, 2, 64, two, &nested), "hvector");
    CHECK(nested->nruns == 1 && dt_runs(nested)[0].count == 200, "runs: %d, first %zu", nested->nruns,
          dt_runs(nested)[0].count);
    /* same size, different basic types: separate runs */
    struct dt_type *mix;
    const struct dt_type *tm[4] = { T(LONG), T(ULONG), T(DOUBLE), T(DOUBLE) };
    CHECK(!dt_struct(4, (int[]){ 2, 1, 1, 2 }, (ptrdiff_t[]){ 0, 16, 24, 32 }, tm, &mix), "struct of mixed");
    CHECK(mix->nruns == 3 && dt_runs(mix)[0].count == 2 && dt_runs(mix)[1].basic == ULONG &&
          dt_runs(mix)[2].count == 3, "runs of the mixed struct: %d", mix->nruns);
    CHECK(xsize(mix, 1) == 8 + 4 + 24, "external size of the mixed struct");

    /* big-endian bytes, with a hole skipped: {char, (hole), short, long, pair} */
    struct dt_type *s;
    const struct dt_type *ts[4] = { T(CHAR), T(SHORT), T(LONG), T(PAIR) };
    CHECK(!dt_struct(4, (int[]){ 1, 1, 1, 1 }, (ptrdiff_t[]){ 0, 2, 8, 16 }, ts, &s), "struct");
    CHECK(xsize(s, 2) == 2 * (1 + 2 + 4 + 12), "external size of the struct");
    unsigned char in[64] = { 0 }, out[64], back[64];
    struct { char c; short h; long l; double d; int i; } v = { 'x', -2, -300, 1.0, 258 };
    in[0] = (unsigned char)v.c;
    memcpy(in + 2, &v.h, 2), memcpy(in + 8, &v.l, 8), memcpy(in + 16, &v.d, 8), memcpy(in + 24, &v.i, 4);
    memcpy(in + 32, in, 32);
    in[32] = 'y';
    CHECK(!dt_repr_pack(out, in, s, 2, &tab), "pack: %s", sm_fail_reason());
    static const unsigned char want[19] = { 'x', 0xFF, 0xFE, 0xFF, 0xFF, 0xFE, 0xD4, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0,
                                            0, 0, 1, 2 };
    CHECK(!memcmp(out, want, 19) && out[19] == 'y' && !memcmp(out + 20, want + 1, 18), "packed bytes");
    memset(back, 0x5A, sizeof back);
    CHECK(!dt_repr_unpack(back, s, 2, out, &tab), "unpack: %s", sm_fail_reason());
    for (int i = 0; i < 64; i++) {
        bool hole = (i % 32 == 1) || (i % 32 >= 4 && i % 32 < 8) || (i % 32 >= 28);
        CHECK(back[i] == (hole ? 0x5A : in[i]), "byte %d after the round trip: %02x", i, back[i]);
    }

    /* range: a long of 2^31 has no 4-byte form; -2^31 has; unsigned 2^32 - 1 has, 2^32 not */
    long l = 0x80000000L;
    CHECK(dt_repr_pack(out, &l, T(LONG), 1, &tab) == SM_ERR_ARG, "long 2^31 packed");
    l = -0x80000000L;
    CHECK(!dt_repr_pack(out, &l, T(LONG), 1, &tab) && out[0] == 0x80 && out[1] == 0 && out[3] == 0, "long -2^31");
    unsigned long ul = 0xFFFFFFFFUL;
    CHECK(!dt_repr_pack(out, &ul, T(ULONG), 1, &tab) && out[0] == 0xFF && out[3] == 0xFF, "unsigned long 2^32-1");
    ul = 0x100000000UL;
    CHECK(dt_repr_pack(out, &ul, T(ULONG), 1, &tab) == SM_ERR_ARG, "unsigned long 2^32 packed");
    /* unpack sign-extends longs and zero-extends unsigned ones */
    static const unsigned char m2[4] = { 0xFF, 0xFF, 0xFF, 0xFE };
    CHECK(!dt_repr_unpack(&l, T(LONG), 1, m2, &tab) && l == -2, "long from FFFFFFFE: %ld", l);
    CHECK(!dt_repr_unpack(&ul, T(ULONG), 1, m2, &tab) && ul == 0xFFFFFFFEUL, "unsigned long from FFFFFFFE: %lx", ul);

    /* long double: binary128, 1.0 is 3FFF 0... */
    long double ld[2] = { 1.0L, -1.0L / 3 }, ldb[2] = { 0, 0 };
    CHECK(!dt_repr_pack(out, ld, T(LDOUBLE), 2, &tab), "long double: %s", sm_fail_reason());
    CHECK(out[0] == 0x3F && out[1] == 0xFF && out[2] == 0 && out[15] == 0 && out[16] == 0xBF && out[17] == 0xFD,
          "long double bytes %02x %02x", out[0], out[1]);
    CHECK(!dt_repr_unpack(ldb, T(LDOUBLE), 2, out, &tab) && ldb[0] == ld[0] && ldb[1] == ld[1], "long double back");

    /* a basic type the table does not know */
    size_t n;
    struct dt_type *nr;
    const struct dt_type *tn[2] = { T(CHAR), T(NOREP) };
    CHECK(!dt_struct(2, (int[]){ 1, 1 }, (ptrdiff_t[]){ 0, 4 }, tn, &nr), "struct with norep");
    CHECK(dt_repr_size(nr, 1, &tab, &n) == SM_ERR_UNSUPPORTED, "no representation: size");
    CHECK(dt_repr_pack(out, in, nr, 1, &tab) == SM_ERR_UNSUPPORTED, "no representation: pack");
    /* nothing to do for count 0 */
    CHECK(!dt_repr_pack(NULL, NULL, big, 0, &tab) && xsize(big, 0) == 0, "count 0");

    dt_unref(big), dt_unref(two), dt_unref(nested), dt_unref(mix), dt_unref(s), dt_unref(nr);
    printf("dt_repr: ok\n");
    return 0;
}
