/* MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size: every
 * predefined type against hand-computed big-endian bytes (MPI 3.1 §13.5.2:
 * long is 4 bytes, long double IEEE binary128), round trips, a struct and a
 * vector, packed bytes sent round a ring and unpacked, and bad input
 * (argv[1]: "datarep" or "truncate" for the fatal forms). */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "mcheck.h"

static const char X[] = "external32";

/* Pack one element of t at in and compare with the n bytes expected. */
static void expect_bytes(MPI_Datatype t, const char *name, const void *in, const unsigned char *want, int n)
{
    unsigned char out[64];
    MPI_Aint pos = 0, size = 0;
    memset(out, 0xEE, sizeof out);
    OK(MPI_Pack_external_size(X, 1, t, &size));
    CHECK(size == n, "%s: external size %td, expected %d", name, size, n);
    OK(MPI_Pack_external(X, in, 1, t, out, (MPI_Aint)sizeof out, &pos));
    CHECK(pos == n, "%s: position %td after packing, expected %d", name, pos, n);
    for (int i = 0; i < n; i++) CHECK(out[i] == want[i], "%s: byte %d is %02x, expected %02x", name, i, out[i], want[i]);
    CHECK(out[n] == 0xEE, "%s: wrote past %d bytes", name, n);
}
#define EXPECT(t, v, ...) do { \
    static const unsigned char w_[] = { __VA_ARGS__ }; \
    expect_bytes(t, #t, &(v), w_, (int)sizeof w_); } while (0)

static void hand_computed(void)
{
    char c = 'A';
    EXPECT(MPI_CHAR, c, 0x41);
    signed char sc = -2;
    EXPECT(MPI_SIGNED_CHAR, sc, 0xFE);
    unsigned char uc = 0xAB;
    EXPECT(MPI_UNSIGNED_CHAR, uc, 0xAB);
    EXPECT(MPI_BYTE, uc, 0xAB);
    EXPECT(MPI_PACKED, uc, 0xAB);
    wchar_t wc = 0x263A;
    EXPECT(MPI_WCHAR, wc, 0x00, 0x00, 0x26, 0x3A);
    short s = -3;
    EXPECT(MPI_SHORT, s, 0xFF, 0xFD);
    unsigned short us = 0x1234;
    EXPECT(MPI_UNSIGNED_SHORT, us, 0x12, 0x34);
    int i = 0x01020304;
    EXPECT(MPI_INT, i, 0x01, 0x02, 0x03, 0x04);
    unsigned u = 0xDEADBEEF;
    EXPECT(MPI_UNSIGNED, u, 0xDE, 0xAD, 0xBE, 0xEF);
    long l = -2;                       /* 4 bytes in external32 */
    EXPECT(MPI_LONG, l, 0xFF, 0xFF, 0xFF, 0xFE);
    long lp = 0x7FFFFFFF;
    EXPECT(MPI_LONG, lp, 0x7F, 0xFF, 0xFF, 0xFF);
    unsigned long ul = 0xCAFEF00DUL;
    EXPECT(MPI_UNSIGNED_LONG, ul, 0xCA, 0xFE, 0xF0, 0x0D);
    long long ll = -0x0102030405060708LL;
    EXPECT(MPI_LONG_LONG_INT, ll, 0xFE, 0xFD, 0xFC, 0xFB, 0xFA, 0xF9, 0xF8, 0xF8);
    unsigned long long ull = 0x0102030405060708ULL;
    EXPECT(MPI_UNSIGNED_LONG_LONG, ull, 1, 2, 3, 4, 5, 6, 7, 8);
    float f = 1.0f;
    EXPECT(MPI_FLOAT, f, 0x3F, 0x80, 0x00, 0x00);
    double d = -2.5;
    EXPECT(MPI_DOUBLE, d, 0xC0, 0x04, 0, 0, 0, 0, 0, 0);
    long double ld = 1.0L;             /* binary128: exponent 0x3FFF */
    EXPECT(MPI_LONG_DOUBLE, ld, 0x3F, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    long double ld2 = -0.75L;          /* -1.1b x 2^-1: exponent 0x3FFE, fraction 1000... */
    EXPECT(MPI_LONG_DOUBLE, ld2, 0xBF, 0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    int8_t i8 = -128;
    EXPECT(MPI_INT8_T, i8, 0x80);
    int16_t i16 = 0x1234;
    EXPECT(MPI_INT16_T, i16, 0x12, 0x34);
    int32_t i32 = -0x10;
    EXPECT(MPI_INT32_T, i32, 0xFF, 0xFF, 0xFF, 0xF0);
    int64_t i64 = 0x0A0B0C0D0E0F1011LL;
    EXPECT(MPI_INT64_T, i64, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11);
    uint8_t u8 = 0xFF;
    EXPECT(MPI_UINT8_T, u8, 0xFF);
    uint16_t u16 = 0xBEEF;
    EXPECT(MPI_UINT16_T, u16, 0xBE, 0xEF);
    uint32_t u32 = 0x80000001u;
    EXPECT(MPI_UINT32_T, u32, 0x80, 0x00, 0x00, 0x01);
    uint64_t u64 = 0xF0E0D0C0B0A09080ULL;
    EXPECT(MPI_UINT64_T, u64, 0xF0, 0xE0, 0xD0, 0xC0, 0xB0, 0xA0, 0x90, 0x80);
    _Bool b = 1;
    EXPECT(MPI_C_BOOL, b, 0x01);
    float _Complex fc = 1.0f - 2.0f * I;
    EXPECT(MPI_C_FLOAT_COMPLEX, fc, 0x3F, 0x80, 0, 0, 0xC0, 0x00, 0, 0);
    double _Complex dc = 0.5 + 1.0 * I;
    EXPECT(MPI_C_DOUBLE_COMPLEX, dc, 0x3F, 0xE0, 0, 0, 0, 0, 0, 0, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0);
    long double _Complex lc = 1.0L - 2.0L * I;
    EXPECT(MPI_C_LONG_DOUBLE_COMPLEX, lc, 0x3F, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
           0xC0, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    MPI_Aint a = -1;
    EXPECT(MPI_AINT, a, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF);
    MPI_Offset o = 0x100;
    EXPECT(MPI_OFFSET, o, 0, 0, 0, 0, 0, 0, 0x01, 0x00);
    MPI_Count cnt = 7;
    EXPECT(MPI_COUNT, cnt, 0, 0, 0, 0, 0, 0, 0, 7);
    /* the pair types: their two members, without the padding */
    struct { float v; int i; } fi = { 2.0f, 9 };
    EXPECT(MPI_FLOAT_INT, fi, 0x40, 0x00, 0, 0, 0, 0, 0, 9);
    struct { double v; int i; } di = { 1.5, 7 };
    EXPECT(MPI_DOUBLE_INT, di, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7);
    struct { long v; int i; } li = { 100, -1 };
    EXPECT(MPI_LONG_INT, li, 0, 0, 0, 100, 0xFF, 0xFF, 0xFF, 0xFF);
    struct { int v; int i; } ii = { 1, 2 };
    EXPECT(MPI_2INT, ii, 0, 0, 0, 1, 0, 0, 0, 2);
    struct { short v; int i; } si = { -1, 5 };
    EXPECT(MPI_SHORT_INT, si, 0xFF, 0xFF, 0, 0, 0, 5);
    struct { long double v; int i; } ldi = { -2.0L, 3 };
    EXPECT(MPI_LONG_DOUBLE_INT, ldi, 0xC0, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3);
}

/* Round trips of n elements of every predefined type through external32. */
static void round_trips(int seed)
{
    enum { N = 17 };
    unsigned long long r = (unsigned long long)seed * 7919 + 1;
    struct { MPI_Datatype t; const char *name; int xsize; } types[] = {
#define T(t, x) { t, #t, x }
        T(MPI_CHAR, 1), T(MPI_SIGNED_CHAR, 1), T(MPI_UNSIGNED_CHAR, 1), T(MPI_BYTE, 1), T(MPI_WCHAR, 4),
        T(MPI_SHORT, 2), T(MPI_UNSIGNED_SHORT, 2), T(MPI_INT, 4), T(MPI_UNSIGNED, 4), T(MPI_LONG, 4),
        T(MPI_UNSIGNED_LONG, 4), T(MPI_LONG_LONG_INT, 8), T(MPI_UNSIGNED_LONG_LONG, 8), T(MPI_FLOAT, 4),
        T(MPI_DOUBLE, 8), T(MPI_LONG_DOUBLE, 16), T(MPI_INT8_T, 1), T(MPI_INT16_T, 2), T(MPI_INT32_T, 4),
        T(MPI_INT64_T, 8), T(MPI_UINT8_T, 1), T(MPI_UINT16_T, 2), T(MPI_UINT32_T, 4), T(MPI_UINT64_T, 8),
        T(MPI_C_BOOL, 1), T(MPI_C_FLOAT_COMPLEX, 8), T(MPI_C_DOUBLE_COMPLEX, 16), T(MPI_C_LONG_DOUBLE_COMPLEX, 32),
        T(MPI_AINT, 8), T(MPI_OFFSET, 8), T(MPI_COUNT, 8), T(MPI_PACKED, 1), T(MPI_FLOAT_INT, 8),
        T(MPI_DOUBLE_INT, 12), T(MPI_LONG_INT, 8), T(MPI_2INT, 8), T(MPI_SHORT_INT, 6), T(MPI_LONG_DOUBLE_INT, 20),
#undef T
    };
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        MPI_Aint lb, ext, size, pos = 0;
        int tsize;
        OK(MPI_Type_get_extent(types[k].t, &lb, &ext));
        OK(MPI_Type_size(types[k].t, &tsize));
        OK(MPI_Pack_external_size(X, N, types[k].t, &size));
        CHECK(size == N * types[k].xsize, "%s: %td bytes for %d, expected %d", types[k].name, size, N, types[k].xsize);
        unsigned char in[N * 32], back[N * 32], packed[N * 32 + 8];
        memset(in, 0, sizeof in);
        /* values that fit the external sizes: each data byte random, but
         * longs within 32 bits, bools 0/1, floats finite (small integers) */
        for (int e = 0; e < N; e++) {
            unsigned char *p = in + e * ext;
            MPI_Datatype t = types[k].t;
            int v = (int)(rnd(&r) % 20000) - 10000;
            if (t == MPI_LONG || t == MPI_LONG_INT) *(long *)p = (long)v * 100000;
            else if (t == MPI_UNSIGNED_LONG) *(unsigned long *)p = (unsigned long)rnd(&r);
            else if (t == MPI_C_BOOL) *(_Bool *)p = v & 1;
            else if (t == MPI_FLOAT || t == MPI_FLOAT_INT) *(float *)p = (float)v / 4;
            else if (t == MPI_DOUBLE || t == MPI_DOUBLE_INT) *(double *)p = v / 3.0;
            else if (t == MPI_LONG_DOUBLE || t == MPI_LONG_DOUBLE_INT) *(long double *)p = v / 7.0L;
            else if (t == MPI_C_FLOAT_COMPLEX) *(float _Complex *)p = v + (float)v / 2 * I;
            else if (t == MPI_C_DOUBLE_COMPLEX) *(double _Complex *)p = v / 3.0 - v * I;
            else if (t == MPI_C_LONG_DOUBLE_COMPLEX) *(long double _Complex *)p = v / 3.0L + v / 9.0L * I;
            else for (int j = 0; j < tsize; j++) p[j] = (unsigned char)rnd(&r);
            if (t == MPI_FLOAT_INT || t == MPI_DOUBLE_INT || t == MPI_LONG_INT || t == MPI_LONG_DOUBLE_INT)
                *(int *)(p + tsize - sizeof(int)) = v;  /* the int right after the value in these pairs */
        }
        OK(MPI_Pack_external(X, in, N, types[k].t, packed, (MPI_Aint)sizeof packed, &pos));
        CHECK(pos == size, "%s: position %td, expected %td", types[k].name, pos, size);
        memset(back, 0, sizeof back);
        pos = 0;
        OK(MPI_Unpack_external(X, packed, size, &pos, back, N, types[k].t));
        CHECK(pos == size, "%s: unpacked %td bytes, expected %td", types[k].name, pos, size);
        for (int e = 0; e < N; e++) {
            const unsigned char *p = in + e * ext, *q = back + e * ext;
            MPI_Datatype t = types[k].t;
            bool same;
            if (t == MPI_LONG_DOUBLE) same = *(const long double *)p == *(const long double *)q;
            else if (t == MPI_LONG_DOUBLE_INT)
                same = *(const long double *)p == *(const long double *)q &&
                       *(const int *)(p + tsize - sizeof(int)) == *(const int *)(q + tsize - sizeof(int));
            else if (t == MPI_C_LONG_DOUBLE_COMPLEX) same = *(const long double _Complex *)p == *(const long double _Complex *)q;
            else if (t == MPI_FLOAT_INT || t == MPI_DOUBLE_INT || t == MPI_LONG_INT || t == MPI_SHORT_INT) {
                size_t vlen = t == MPI_FLOAT_INT ? sizeof(float) : t == MPI_DOUBLE_INT ? sizeof(double)
                            : t == MPI_LONG_INT ? sizeof(long) : sizeof(short);
                size_t io = t == MPI_SHORT_INT ? 4 : vlen;     /* where the int is */
                same = !memcmp(p, q, vlen) && !memcmp(p + io, q + io, sizeof(int));
            } else same = !memcmp(p, q, (size_t)tsize);
            CHECK(same, "%s: element %d differs after the round trip", types[k].name, e);
        }
    }
}

/* A struct {char, double, long, short[3]} and a vector of ints. */
struct rec { char c; double d; long l; short s[3]; };

static MPI_Datatype rec_type(void)
{
    int bl[4] = { 1, 1, 1, 3 };
    MPI_Aint disp[4] = { offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, l),
                         offsetof(struct rec, s) };
    MPI_Datatype types[4] = { MPI_CHAR, MPI_DOUBLE, MPI_LONG, MPI_SHORT }, t;
    OK(MPI_Type_create_struct(4, bl, disp, types, &t));
    OK(MPI_Type_commit(&t));
    return t;
}

static void fill_rec(struct rec *r, int k, int who)
{
    memset(r, 0, sizeof *r);
    r->c = (char)('a' + k % 26), r->d = k + who * 0.5, r->l = -(long)k * 1000 - who;
    for (int j = 0; j < 3; j++) r->s[j] = (short)(k * 3 + j - who);
}

static void check_rec(const struct rec *r, int k, int who)
{
    struct rec e;
    fill_rec(&e, k, who);
    CHECK(r->c == e.c && r->d == e.d && r->l == e.l && !memcmp(r->s, e.s, sizeof e.s),
          "record %d from rank %d: {%c, %g, %ld, %d %d %d}", k, who, r->c, r->d, r->l, r->s[0], r->s[1], r->s[2]);
}

static void derived(void)
{
    enum { N = 5 };
    MPI_Datatype rt = rec_type();
    struct rec recs[N], back[N];
    for (int k = 0; k < N; k++) fill_rec(&recs[k], k, 2);
    MPI_Aint size, pos = 0;
    OK(MPI_Pack_external_size(X, N, rt, &size));
    CHECK(size == N * (1 + 8 + 4 + 6), "struct: %td bytes", size);
    unsigned char buf[N * 19];
    OK(MPI_Pack_external(X, recs, N, rt, buf, size, &pos));
    CHECK(pos == size, "struct: position %td", pos);
    /* record 1: 'b', 1 + 2 * 0.5 = 2.0, -1002, {1, 2, 3} */
    static const unsigned char rec1[19] = { 'b', 0x40, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFC, 0x16, 0, 1, 0, 2, 0, 3 };
    CHECK(!memcmp(buf + 19, rec1, 19), "struct: record 1's bytes differ");
    memset(back, 0, sizeof back);
    pos = 0;
    OK(MPI_Unpack_external(X, buf, size, &pos, back, N, rt));
    for (int k = 0; k < N; k++) check_rec(&back[k], k, 2);
    OK(MPI_Type_free(&rt));

    /* every third int of 12, twice: 0, 3, 6, 9 */
    MPI_Datatype v;
    OK(MPI_Type_vector(4, 1, 3, MPI_INT, &v));
    OK(MPI_Type_commit(&v));
    int a[24], b[24];
    for (int k = 0; k < 24; k++) a[k] = k * 0x01010101, b[k] = -1;
    MPI_Aint vext;
    MPI_Type_get_extent(v, &(MPI_Aint){ 0 }, &vext);
    CHECK(vext == 10 * 4, "vector extent %td", vext);
    unsigned char vb[32];
    pos = 0;
    OK(MPI_Pack_external(X, a, 2, v, vb, sizeof vb, &pos));
    CHECK(pos == 32, "vector: position %td", pos);
    static const int idx[8] = { 0, 3, 6, 9, 10, 13, 16, 19 };
    for (int k = 0; k < 8; k++)
        for (int j = 0; j < 4; j++) CHECK(vb[k * 4 + j] == (unsigned char)idx[k], "vector: byte %d", k * 4 + j);
    pos = 0;
    OK(MPI_Unpack_external(X, vb, sizeof vb, &pos, b, 2, v));
    for (int k = 0, n = 0; k < 24; k++) {
        bool in = n < 8 && idx[n] == k;
        CHECK(b[k] == (in ? a[k] : -1), "vector: int %d is %d", k, b[k]);
        n += in;
    }
    OK(MPI_Type_free(&v));

    /* two calls append at the position */
    int one = 5;
    double two = 0.25;
    unsigned char tb[12];
    pos = 0;
    OK(MPI_Pack_external(X, &one, 1, MPI_INT, tb, sizeof tb, &pos));
    OK(MPI_Pack_external(X, &two, 1, MPI_DOUBLE, tb, sizeof tb, &pos));
    CHECK(pos == 12 && tb[3] == 5 && tb[4] == 0x3F && tb[5] == 0xD0, "appending: position %td", pos);
    int one_b = 0;
    double two_b = 0;
    pos = 0;
    OK(MPI_Unpack_external(X, tb, sizeof tb, &pos, &one_b, 1, MPI_INT));
    OK(MPI_Unpack_external(X, tb, sizeof tb, &pos, &two_b, 1, MPI_DOUBLE));
    CHECK(pos == 12 && one_b == 5 && two_b == 0.25, "appending: unpacked %d %g", one_b, two_b);
}

/* Each rank packs records with its rank in them and sends the bytes on. */
static void ring(int rank, int size)
{
    enum { N = 9 };
    MPI_Datatype rt = rec_type();
    struct rec recs[N], back[N];
    for (int k = 0; k < N; k++) fill_rec(&recs[k], k, rank);
    MPI_Aint bytes, pos = 0;
    OK(MPI_Pack_external_size(X, N, rt, &bytes));
    unsigned char out[N * 19], in[N * 19];
    OK(MPI_Pack_external(X, recs, N, rt, out, bytes, &pos));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    OK(MPI_Sendrecv(out, (int)pos, MPI_BYTE, right, 3, in, (int)sizeof in, MPI_BYTE, left, 3, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    pos = 0;
    OK(MPI_Unpack_external(X, in, bytes, &pos, back, N, rt));
    for (int k = 0; k < N; k++) check_rec(&back[k], k, left);
    OK(MPI_Type_free(&rt));
}

/* Errors returned under MPI_ERRORS_RETURN. */
static void bad_input(void)
{
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int v[4] = { 1, 2, 3, 4 }, cls;
    unsigned char buf[16];
    MPI_Aint pos = 0, size;
    int rc = MPI_Pack_external("native", v, 1, MPI_INT, buf, sizeof buf, &pos);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG && pos == 0, "datarep native: class %d", cls);
    rc = MPI_Pack_external_size("external", 1, MPI_INT, &size);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "Pack_external_size datarep: class %d", cls);
    rc = MPI_Pack_external(X, v, 4, MPI_INT, buf, 15, &pos);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE && pos == 0, "16 bytes into 15: class %d", cls);
    pos = 4;
    rc = MPI_Pack_external(X, v, 3, MPI_INT, buf, 15, &pos);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE && pos == 4, "12 bytes at 4 into 15: class %d", cls);
    pos = 0;
    rc = MPI_Unpack_external(X, buf, 7, &pos, v, 2, MPI_INT);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE && pos == 0, "unpack 8 bytes of 7: class %d", cls);
    rc = MPI_Pack_external(X, v, -1, MPI_INT, buf, sizeof buf, &pos);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT, "count -1: class %d", cls);
    rc = MPI_Pack_external(X, v, 1, MPI_DATATYPE_NULL, buf, sizeof buf, &pos);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE, "MPI_DATATYPE_NULL: class %d", cls);
    /* a long beyond 32 bits has no external32 form; nor a too large external value for a native short type */
    long big[2] = { 1, 0x100000000L };
    rc = MPI_Pack_external(X, big, 2, MPI_LONG, buf, sizeof buf, &pos);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_CONVERSION && pos == 0, "long 2^32: class %d", cls);
    long neg = -0x80000001L;
    rc = MPI_Pack_external(X, &neg, 1, MPI_LONG, buf, sizeof buf, &pos);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_CONVERSION, "long -2^31-1: class %d", cls);
    long lo = -0x80000000L;
    OK(MPI_Pack_external(X, &lo, 1, MPI_LONG, buf, sizeof buf, &pos));
    CHECK(pos == 4 && buf[0] == 0x80 && buf[3] == 0, "long -2^31");
    MPI_Datatype dup;
    OK(MPI_Type_dup(MPI_LONG, &dup));        /* a derived type of longs checks the same */
    pos = 0;
    rc = MPI_Pack_external(X, big, 2, dup, buf, sizeof buf, &pos);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_CONVERSION, "dup of long 2^32: class %d", cls);
    OK(MPI_Type_free(&dup));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1) {               /* the fatal forms, from the last rank */
        int v[4] = { 0 };
        unsigned char buf[16];
        MPI_Aint pos = 0;
        if (rank == size - 1 && !strcmp(argv[1], "datarep"))
            MPI_Pack_external("big-endian", v, 1, MPI_INT, buf, sizeof buf, &pos);
        if (rank == size - 1 && !strcmp(argv[1], "truncate"))
            MPI_Unpack_external(X, buf, 10, &pos, v, 3, MPI_INT);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    hand_computed();
    round_trips(rank);
    derived();
    ring(rank, size);
    bad_input();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("ext32: ok on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
