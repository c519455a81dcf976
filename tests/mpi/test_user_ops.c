/* Reductions as programs use them: in place at the root, user operations
 * that do not commute (to a root that is not 0), MPI_Reduce_local, on a
 * vector, and a user operation on a struct type with holes (the holes of
 * the receive buffer keep their bytes). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* inout = in * 10 + inout: not commutative, the result spells the ranks in order. */
/* Concatenation of decimal strings, each a pair (value, 10^digits): it
 * does not commute but is associative, as MPI assumes of every operation
 * (a hierarchical reduction groups the operands differently). */
static void concat(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    int *a = in, *b = inout;
    for (int i = 0; i + 1 < *len; i += 2) b[i] = a[i] * b[i + 1] + b[i], b[i + 1] *= a[i + 1];
}

/* inout = in * 10 + inout, element by element (MPI_Reduce_local). */
static void digits(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] = ((int *)in)[i] * 10 + ((int *)inout)[i];
}

static void reductions(void)
{
    int root = n - 1;
    /* in place at the root */
    long v[2] = { me, 2 * me };
    if (me == root) OK(MPI_Reduce(MPI_IN_PLACE, v, 2, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD));
    else OK(MPI_Reduce(v, NULL, 2, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD));
    if (me == root) CHECK(v[0] == (long)n * (n - 1) / 2 && v[1] == 2 * v[0], "reduce in place %ld %ld", v[0], v[1]);
    /* a user operation that does not commute, to a root that is not 0 */
    MPI_Op op;
    int commute = -1;
    OK(MPI_Op_create(concat, 0, &op));
    OK(MPI_Op_commutative(op, &commute));
    CHECK(commute == 0, "user op commutative %d", commute);
    OK(MPI_Op_commutative(MPI_SUM, &commute));
    CHECK(commute == 1, "MPI_SUM commutative %d", commute);
    int d[2] = { me % 10, 10 }, r[2] = { -1, -1 }, want = 0;
    for (int i = 0; i < n && i < 9; i++) want = want * 10 + i % 10;
    if (n <= 9) {
        OK(MPI_Reduce(d, r, 2, MPI_INT, op, root, MPI_COMM_WORLD));
        if (me == root) CHECK(r[0] == want, "user-op reduce %d, expected %d", r[0], want);
    }
    /* MPI_Reduce_local: inoutbuf = inbuf op inoutbuf */
    int a[3] = { 1, 2, 3 }, b[3] = { 4, 5, 6 };
    MPI_Op dop;
    OK(MPI_Op_create(digits, 0, &dop));
    OK(MPI_Reduce_local(a, b, 3, MPI_INT, dop));
    OK(MPI_Op_free(&dop));
    CHECK(b[0] == 14 && b[1] == 25 && b[2] == 36, "reduce_local user %d %d %d", b[0], b[1], b[2]);
    OK(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_MAX));
    CHECK(b[0] == 14 && b[2] == 36, "reduce_local max");
    OK(MPI_Op_free(&op));
    MPI_Datatype every2;                  /* a derived type: every other int */
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &every2));
    OK(MPI_Type_commit(&every2));
    int x[3] = { 5, -1, 7 }, y[3] = { 1, 99, 2 };
    OK(MPI_Reduce_local(x, y, 1, every2, MPI_PROD));
    CHECK(y[0] == 5 && y[1] == 99 && y[2] == 14, "reduce_local on a vector %d %d %d", y[0], y[1], y[2]);
    OK(MPI_Type_free(&every2));
}

/* A user operation on a struct type with holes: a "min with index" on
 * { int v; int pad; int idx; } where pad is not in the type. The holes of
 * recvbuf keep their bytes. */
struct vi { int v, pad, idx; };
static void minidx(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    struct vi *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        if (a[i].v < b[i].v || (a[i].v == b[i].v && a[i].idx < b[i].idx)) b[i].v = a[i].v, b[i].idx = a[i].idx;
}
static void user_op_with_holes(void)
{
    int bl[2] = { 1, 1 };
    MPI_Aint disp[2] = { offsetof(struct vi, v), offsetof(struct vi, idx) };
    MPI_Datatype types[2] = { MPI_INT, MPI_INT }, t;
    OK(MPI_Type_create_struct(2, bl, disp, types, &t));
    OK(MPI_Type_commit(&t));
    MPI_Op op;
    OK(MPI_Op_create(minidx, 1, &op));
    struct vi mine[2] = { { (me * 5) % 3, -100, me }, { -me, -100, me } }, res[2];
    for (int i = 0; i < 2; i++) res[i] = (struct vi){ 77, 88, 99 };
    OK(MPI_Allreduce(mine, res, 2, t, op, MPI_COMM_WORLD));
    CHECK(res[0].v == 0 && res[0].idx == 0 && res[0].pad == 88, "allreduce minidx %d %d pad %d", res[0].v, res[0].idx,
          res[0].pad);
    CHECK(res[1].v == -(n - 1) && res[1].idx == n - 1 && res[1].pad == 88, "allreduce minidx [1] %d %d", res[1].v,
          res[1].idx);
    for (int i = 0; i < 2; i++) res[i] = (struct vi){ 77, 88, 99 };
    OK(MPI_Reduce(mine, res, 2, t, op, 0, MPI_COMM_WORLD));
    if (me == 0) CHECK(res[1].idx == n - 1 && res[1].pad == 88, "reduce minidx");
    OK(MPI_Scan(mine, res, 2, t, op, MPI_COMM_WORLD));
    CHECK(res[1].v == -me && res[1].idx == me && res[1].pad == 88, "scan minidx %d %d", res[1].v, res[1].idx);
    struct vi loc = { 1, 5, 2 }, acc = { 1, 6, 1 };
    OK(MPI_Reduce_local(&loc, &acc, 1, t, op));
    CHECK(acc.v == 1 && acc.idx == 1 && acc.pad == 6, "reduce_local minidx");
    OK(MPI_Op_free(&op));
    OK(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    reductions();
    user_op_with_holes();
    OK(MPI_Finalize());
    if (me == 0) printf("test_user_ops: %d ranks ok\n", n);
    return 0;
}
