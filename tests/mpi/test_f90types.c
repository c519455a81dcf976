/* Fortran 90 parameterised types (MPI 3.1 §17.1.9): the kind chosen for
 * each range and precision, one handle per request, the combiner and
 * contents, use in a message, and what cannot be asked (or freed). */
#include "mcheck.h"

static void expect(MPI_Datatype t, int size, int combiner, int ni, const int *want)
{
    int s, n, na, nd, c, ints[2];
    MPI_Datatype none[1];
    MPI_Aint noa[1];
    OK(MPI_Type_size(t, &s));
    CHECK(s == size, "size %d, not %d", s, size);
    OK(MPI_Type_get_envelope(t, &n, &na, &nd, &c));
    CHECK(c == combiner && n == ni && na == 0 && nd == 0, "envelope %d %d %d %d", n, na, nd, c);
    OK(MPI_Type_get_contents(t, 2, 0, 0, ints, noa, none));
    for (int i = 0; i < ni; i++) CHECK(ints[i] == want[i], "contents[%d] %d, not %d", i, ints[i], want[i]);
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    int me, n;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    static const int ranges[] = { 1, 2, 4, 9, 18 }, isize[] = { 1, 1, 2, 4, 8 };
    for (int i = 0; i < 5; i++) {
        MPI_Datatype t, again;
        OK(MPI_Type_create_f90_integer(ranges[i], &t));
        expect(t, isize[i], MPI_COMBINER_F90_INTEGER, 1, &ranges[i]);
        OK(MPI_Type_create_f90_integer(ranges[i], &again));
        CHECK(t == again, "two handles for integer range %d", ranges[i]);
    }
    MPI_Datatype r4, r8, rr, c8, c16;
    OK(MPI_Type_create_f90_real(6, 30, &r4));
    expect(r4, 4, MPI_COMBINER_F90_REAL, 2, (int[]){ 6, 30 });
    OK(MPI_Type_create_f90_real(15, 300, &r8));
    expect(r8, 8, MPI_COMBINER_F90_REAL, 2, (int[]){ 15, 300 });
    OK(MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &rr));
    expect(rr, 8, MPI_COMBINER_F90_REAL, 2, (int[]){ MPI_UNDEFINED, 300 });
    OK(MPI_Type_create_f90_complex(6, MPI_UNDEFINED, &c8));
    expect(c8, 8, MPI_COMBINER_F90_COMPLEX, 2, (int[]){ 6, MPI_UNDEFINED });
    OK(MPI_Type_create_f90_complex(15, 300, &c16));
    expect(c16, 16, MPI_COMBINER_F90_COMPLEX, 2, (int[]){ 15, 300 });
    /* in a message: a ring of doubles sent as real(15, 300) */
    double out[3] = { me, me + 0.5, -me }, in[3];
    int to = (me + 1) % n, from = (me + n - 1) % n;
    OK(MPI_Sendrecv(out, 3, r8, to, 0, in, 3, r8, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[0] == from && in[1] == from + 0.5 && in[2] == -from, "real(15, 300) message from %d", from);
    /* bad input, returned */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Datatype t;
    int e;
    MPI_Error_class(MPI_Type_create_f90_integer(19, &t), &e);
    CHECK(e == MPI_ERR_ARG, "integer range 19: class %d", e);
    MPI_Error_class(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t), &e);
    CHECK(e == MPI_ERR_ARG, "real with neither precision nor range: class %d", e);
    MPI_Error_class(MPI_Type_create_f90_complex(40, 30, &t), &e);
    CHECK(e == MPI_ERR_ARG, "complex precision 40: class %d", e);
    MPI_Error_class(MPI_Type_free(&r4), &e);
    CHECK(e == MPI_ERR_TYPE, "freeing a Fortran 90 type: class %d", e);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) printf("mpi_f90types: ok\n");
    OK(MPI_Finalize());
    return 0;
}
