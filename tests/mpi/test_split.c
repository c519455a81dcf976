/* MPI_UNDEFINED as the colour of MPI_Comm_split and the split type of
 * MPI_Comm_split_type: MPI_COMM_NULL there, the others split. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* MPI_UNDEFINED as colour (or split type): MPI_COMM_NULL, the others split. */
static void split_undefined(void)
{
    MPI_Comm c;
    OK(MPI_Comm_split(MPI_COMM_WORLD, me % 3 == 1 ? MPI_UNDEFINED : me % 3, me, &c));
    if (me % 3 == 1) CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED colour gave a communicator");
    else {
        CHECK(c != MPI_COMM_NULL, "no communicator for colour %d", me % 3);
        int s, r, want = 0;
        for (int i = 0; i < n; i++) want += i % 3 == me % 3;
        OK(MPI_Comm_size(c, &s));
        OK(MPI_Comm_rank(c, &r));
        CHECK(s == want && r == me / 3, "colour %d: size %d rank %d", me % 3, s, r);
        int sum;
        OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
        OK(MPI_Comm_free(&c));
    }
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, me == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c));
    CHECK((c == MPI_COMM_NULL) == (me == 0), "split_type MPI_UNDEFINED");
    if (c != MPI_COMM_NULL) {
        int s;
        OK(MPI_Comm_size(c, &s));
        CHECK(s == n - 1, "split_type size %d", s);
        OK(MPI_Comm_free(&c));
    }
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    split_undefined();
    OK(MPI_Finalize());
    if (me == 0) printf("test_split: %d ranks ok\n", n);
    return 0;
}
