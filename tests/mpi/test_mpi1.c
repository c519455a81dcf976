/* The MPI-1 names MPI 3.0 removed and old programs still call (MPI_Address,
 * MPI_Type_struct/hvector/hindexed, MPI_Type_extent/lb/ub,
 * MPI_Errhandler_create/set/get), each against its modern equivalent: the
 * same types (sent one way, received the other, packed byte for byte), the
 * same bounds, the same handler called; bad input gives the class, and
 * the handler the old routine's name. "fatal1"/"fatal2": rank 1 makes one
 * mistake under MPI_ERRORS_ARE_FATAL (expect.py checks the line). */
#include <stdarg.h>

#include "mcheck.h"

#define EXPECT(call, cls) do { int rc_ = (call); \
    CHECK(rc_ == (cls), "%s returned %d, expected %s (%d)", #call, rc_, #cls, cls); } while (0)

struct rec { char c; double d; int i[3]; short s; };

/* A user handler: its calls, the class and the routine smartmap passes after the code. */
static int calls, last_code;
static char last_routine[64];
static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    va_list ap;
    va_start(ap, code);
    const char *r = va_arg(ap, const char *);
    va_end(ap);
    calls++, last_code = *code;
    snprintf(last_routine, sizeof last_routine, "%s", r ? r : "");
}
#define EXPECT_IN(call, cls, routine) do { int c0_ = calls; EXPECT(call, cls); \
    CHECK(calls == c0_ + 1 && last_code == (cls) && !strcmp(last_routine, routine), \
          "%s: handler %d calls, class %d, routine '%s'", #call, calls - c0_, last_code, last_routine); } while (0)

/* Both types pack the same bytes from the same data. */
static void same_packing(MPI_Datatype a, MPI_Datatype b, const void *data, int count, const char *what)
{
    int sa, sb, pa = 0, pb = 0;
    OK(MPI_Pack_size(count, a, MPI_COMM_WORLD, &sa));
    OK(MPI_Pack_size(count, b, MPI_COMM_WORLD, &sb));
    CHECK(sa == sb, "%s: pack sizes %d and %d", what, sa, sb);
    char *ba = malloc((size_t)sa), *bb = malloc((size_t)sb);
    OK(MPI_Pack(data, count, a, ba, sa, &pa, MPI_COMM_WORLD));
    OK(MPI_Pack(data, count, b, bb, sb, &pb, MPI_COMM_WORLD));
    CHECK(pa == pb && !memcmp(ba, bb, (size_t)pa), "%s: packed %d and %d bytes, differing", what, pa, pb);
    free(ba), free(bb);
    MPI_Aint la, ea, lb, eb;
    OK(MPI_Type_get_extent(a, &la, &ea));
    OK(MPI_Type_get_extent(b, &lb, &eb));
    CHECK(la == lb && ea == eb, "%s: bounds %ld+%ld and %ld+%ld", what, (long)la, (long)ea, (long)lb, (long)eb);
    int na, ia, da, ca, nb, ib, db, cb;
    OK(MPI_Type_get_envelope(a, &na, &ia, &da, &ca));
    OK(MPI_Type_get_envelope(b, &nb, &ib, &db, &cb));
    CHECK(na == nb && ia == ib && da == db && ca == cb, "%s: envelopes differ (combiner %d and %d)", what, ca, cb);
}

static void types(int me, int n)
{
    struct rec r[2];
    MPI_Aint base, a[4], b[4];
    int bl[4] = { 1, 1, 3, 1 };
    MPI_Datatype tt[4] = { MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT }, old, neu;
    OK(MPI_Address(&r[0], &base));
    OK(MPI_Address(&r[0].c, &a[0]));
    OK(MPI_Address(&r[0].d, &a[1]));
    OK(MPI_Address(r[0].i, &a[2]));
    OK(MPI_Address(&r[0].s, &a[3]));
    for (int k = 0; k < 4; k++) {
        MPI_Aint g;
        OK(MPI_Get_address(k == 0 ? (void *)&r[0].c : k == 1 ? (void *)&r[0].d : k == 2 ? (void *)r[0].i
                                                                                       : (void *)&r[0].s, &g));
        CHECK(g == a[k], "MPI_Address %ld, MPI_Get_address %ld", (long)a[k], (long)g);
        a[k] -= base, b[k] = a[k];
    }
    OK(MPI_Type_struct(4, bl, a, tt, &old));
    OK(MPI_Type_create_struct(4, bl, b, tt, &neu));
    OK(MPI_Type_commit(&old));
    OK(MPI_Type_commit(&neu));
    MPI_Aint lb, ext;
    OK(MPI_Type_get_extent(old, &lb, &ext));
    CHECK(lb == 0 && ext == (MPI_Aint)sizeof(struct rec), "struct extent %ld, the C struct's %zu", (long)ext,
          sizeof(struct rec));
    for (int k = 0; k < 2; k++)
        r[k] = (struct rec){ (char)('a' + me), 1.5 * me + k, { me, -me, 7 * k }, (short)(100 + me) };
    same_packing(old, neu, r, 2, "MPI_Type_struct");
    /* sent as built the old way, received as built the new way, around a ring */
    struct rec got[2];
    memset(got, 0, sizeof got);
    int to = (me + 1) % n, from = (me + n - 1) % n;
    OK(MPI_Sendrecv(r, 2, old, to, 5, got, 2, neu, from, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int k = 0; k < 2; k++)
        CHECK(got[k].c == 'a' + from && got[k].d == 1.5 * from + k && got[k].i[0] == from && got[k].i[1] == -from &&
                  got[k].i[2] == 7 * k && got[k].s == 100 + from,
              "record %d from rank %d: c %c d %g i %d,%d,%d s %d", k, from, got[k].c, got[k].d, got[k].i[0],
              got[k].i[1], got[k].i[2], got[k].s);
    MPI_Type_free(&old), MPI_Type_free(&neu);

    /* hvector, hindexed: the same layouts as the create_ forms */
    double d[64];
    for (int k = 0; k < 64; k++) d[k] = k + me * 100;
    OK(MPI_Type_hvector(4, 2, 5 * sizeof(double), MPI_DOUBLE, &old));
    OK(MPI_Type_create_hvector(4, 2, 5 * sizeof(double), MPI_DOUBLE, &neu));
    OK(MPI_Type_commit(&old)); OK(MPI_Type_commit(&neu));
    same_packing(old, neu, d, 2, "MPI_Type_hvector");
    MPI_Type_free(&old), MPI_Type_free(&neu);
    int hb[3] = { 2, 0, 3 };
    MPI_Aint hd[3] = { 40, 8, 120 }, hd2[3] = { 40, 8, 120 };
    OK(MPI_Type_hindexed(3, hb, hd, MPI_DOUBLE, &old));
    OK(MPI_Type_create_hindexed(3, hb, hd2, MPI_DOUBLE, &neu));
    OK(MPI_Type_commit(&old)); OK(MPI_Type_commit(&neu));
    same_packing(old, neu, d, 2, "MPI_Type_hindexed");
    MPI_Type_free(&old), MPI_Type_free(&neu);

    /* extent, lb, ub of a resized type (ub = lb + extent) and of a predefined one */
    OK(MPI_Type_create_resized(MPI_INT, -8, 24, &old));
    MPI_Aint e, l, u, gl, ge;
    OK(MPI_Type_extent(old, &e));
    OK(MPI_Type_lb(old, &l));
    OK(MPI_Type_ub(old, &u));
    OK(MPI_Type_get_extent(old, &gl, &ge));
    CHECK(e == 24 && l == -8 && u == 16 && gl == l && ge == e, "resized: extent %ld lb %ld ub %ld", (long)e, (long)l,
          (long)u);
    MPI_Type_free(&old);
    OK(MPI_Type_extent(MPI_DOUBLE, &e)); OK(MPI_Type_lb(MPI_DOUBLE, &l)); OK(MPI_Type_ub(MPI_DOUBLE, &u));
    CHECK(e == 8 && l == 0 && u == 8, "MPI_DOUBLE: extent %ld lb %ld ub %ld", (long)e, (long)l, (long)u);
}

static void errhandlers(int n)
{
    MPI_Errhandler eh, got;
    MPI_Comm d;
    int v = 0;
    OK(MPI_Errhandler_create(handler, &eh));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    OK(MPI_Errhandler_set(d, eh));
    OK(MPI_Errhandler_get(d, &got));
    CHECK(got == eh, "MPI_Errhandler_get gives the handler set");
    OK(MPI_Errhandler_free(&got));
    OK(MPI_Comm_get_errhandler(d, &got));
    CHECK(got == eh, "MPI_Comm_get_errhandler sees what MPI_Errhandler_set set");
    OK(MPI_Errhandler_free(&got));
    EXPECT_IN(MPI_Send(&v, 1, MPI_INT, n, 0, d), MPI_ERR_RANK, "MPI_Send");
    OK(MPI_Errhandler_free(&eh));
    OK(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
    OK(MPI_Errhandler_get(d, &got));
    CHECK(got == MPI_ERRORS_RETURN, "MPI_Errhandler_get after MPI_Comm_set_errhandler");
    OK(MPI_Errhandler_free(&got));
    OK(MPI_Comm_free(&d));
}

/* Bad input: each old routine's class, under its own name. */
static void bad(void)
{
    MPI_Errhandler eh;
    MPI_Datatype t;
    MPI_Aint x;
    int bl[2] = { 1, -2 };
    MPI_Aint dd[2] = { 0, 8 };
    MPI_Datatype tt[2] = { MPI_INT, MPI_INT };
    OK(MPI_Errhandler_create(handler, &eh));
    OK(MPI_Errhandler_set(MPI_COMM_WORLD, eh));
    OK(MPI_Errhandler_free(&eh));          /* MPI_COMM_WORLD keeps it */
    EXPECT_IN(MPI_Address(&x, NULL), MPI_ERR_ARG, "MPI_Address");
    EXPECT_IN(MPI_Type_hvector(-1, 1, 8, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_hvector");
    EXPECT_IN(MPI_Type_hvector(2, 1, 8, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE, "MPI_Type_hvector");
    EXPECT_IN(MPI_Type_hindexed(2, bl, dd, MPI_INT, &t), MPI_ERR_ARG, "MPI_Type_hindexed");
    EXPECT_IN(MPI_Type_struct(2, bl, dd, tt, &t), MPI_ERR_ARG, "MPI_Type_struct");
    tt[1] = MPI_DATATYPE_NULL, bl[1] = 1;
    EXPECT_IN(MPI_Type_struct(2, bl, dd, tt, &t), MPI_ERR_TYPE, "MPI_Type_struct");
    EXPECT_IN(MPI_Type_extent(MPI_DATATYPE_NULL, &x), MPI_ERR_TYPE, "MPI_Type_extent");
    EXPECT_IN(MPI_Type_lb(MPI_INT, NULL), MPI_ERR_ARG, "MPI_Type_lb");
    EXPECT_IN(MPI_Type_ub(MPI_DATATYPE_NULL, &x), MPI_ERR_TYPE, "MPI_Type_ub");
    EXPECT_IN(MPI_Errhandler_create(NULL, &eh), MPI_ERR_ARG, "MPI_Errhandler_create");
    EXPECT_IN(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG, "MPI_Errhandler_set");
    EXPECT_IN(MPI_Errhandler_get(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Errhandler_get");
    OK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT(MPI_Errhandler_get(MPI_COMM_NULL, &eh), MPI_ERR_COMM);
    OK(MPI_Errhandler_get(MPI_COMM_WORLD, &eh));
    OK(MPI_Errhandler_free(&eh));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "return";
    int me, n, v = 0;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    if (!strcmp(mode, "return")) {
        types(me, n);
        errhandlers(n);
        bad();
        OK(MPI_Finalize());
        if (me == 0) printf("test_mpi1: ok\n");
        return 0;
    }
    if (me == 1) {
        MPI_Datatype t;
        int bl[2] = { 1, -2 };
        MPI_Aint dd[2] = { 0, 8 };
        MPI_Datatype tt[2] = { MPI_INT, MPI_INT };
        if (!strcmp(mode, "fatal1")) MPI_Type_struct(2, bl, dd, tt, &t);
        else if (!strcmp(mode, "fatal2")) MPI_Type_hvector(3, -4, 8, MPI_INT, &t);
        fprintf(stderr, "test_mpi1: mode %s did not end the job\n", mode);
        return 1;
    }
    MPI_Recv(&v, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);     /* ended with the job */
    return 1;
}
