/* MPI_Get_elements(_x) on a struct whose members differ in size, also for
 * a partly received element; MPI_Type_size_x and the extents in MPI_Count. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* MPI_Get_elements counts basic elements, also in a partly received
 * element of a struct whose members differ in size. */
static void elements(void)
{
    struct cd { char c; double d; int i; } x[2] = { { 'a', 1.5, 7 }, { 'b', 2.5, 8 } };
    int bl[3] = { 1, 1, 1 };
    MPI_Aint disp[3] = { offsetof(struct cd, c), offsetof(struct cd, d), offsetof(struct cd, i) };
    MPI_Datatype types[3] = { MPI_CHAR, MPI_DOUBLE, MPI_INT }, t, r;
    OK(MPI_Type_create_struct(3, bl, disp, types, &t));
    OK(MPI_Type_create_resized(t, 0, sizeof(struct cd), &r));
    OK(MPI_Type_free(&t));
    OK(MPI_Type_commit(&r));
    struct cd y[2];
    MPI_Status st;
    int c;
    MPI_Count cx;
    /* whole elements: 2 of 13 bytes */
    OK(MPI_Sendrecv(x, 2, r, me, 5, y, 2, r, me, 5, MPI_COMM_WORLD, &st));
    OK(MPI_Get_count(&st, r, &c));
    CHECK(c == 2 && y[1].d == 2.5 && y[1].i == 8, "struct count %d", c);
    OK(MPI_Get_elements(&st, r, &c));
    CHECK(c == 6, "struct elements %d", c);
    OK(MPI_Get_elements_x(&st, r, &cx));
    CHECK(cx == 6, "struct elements_x %lld", (long long)cx);
    /* one element and its char and double (1 + 8 bytes) */
    char raw[26];
    int pos = 0;
    OK(MPI_Pack(x, 2, r, raw, sizeof raw, &pos, MPI_COMM_WORLD));
    OK(MPI_Sendrecv(raw, 13 + 9, MPI_BYTE, me, 6, y, 2, r, me, 6, MPI_COMM_WORLD, &st));
    OK(MPI_Get_count(&st, r, &c));
    CHECK(c == MPI_UNDEFINED, "partial struct count %d", c);
    OK(MPI_Get_elements(&st, r, &c));
    CHECK(c == 5 && y[1].c == 'b' && y[1].d == 2.5, "partial struct elements %d", c);
    /* and ending inside the double: no whole number of basic elements */
    OK(MPI_Sendrecv(raw, 13 + 5, MPI_BYTE, me, 7, y, 2, r, me, 7, MPI_COMM_WORLD, &st));
    OK(MPI_Get_elements(&st, r, &c));
    CHECK(c == MPI_UNDEFINED, "elements ending inside a double %d", c);
    MPI_Count sx, lbx, ex;
    OK(MPI_Type_size_x(r, &sx));
    OK(MPI_Type_get_extent_x(r, &lbx, &ex));
    CHECK(sx == 13 && lbx == 0 && ex == (MPI_Count)sizeof(struct cd), "size_x %lld extent_x %lld", (long long)sx,
          (long long)ex);
    OK(MPI_Type_get_true_extent_x(r, &lbx, &ex));
    CHECK(lbx == 0 && ex == (MPI_Count)(offsetof(struct cd, i) + sizeof(int)), "true_extent_x %lld", (long long)ex);
    OK(MPI_Type_free(&r));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    elements();
    OK(MPI_Finalize());
    if (me == 0) printf("test_elements: %d ranks ok\n", n);
    return 0;
}
