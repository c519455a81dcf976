/* Attributes MPI_Finalize must honour (MPI-3.1 §8.7.1): the delete callbacks
 * of MPI_COMM_SELF's attributes run first, the last set first, while MPI
 * still works, given the handle MPI_COMM_SELF; and the predefined key
 * MPI_LASTUSEDCODE on MPI_COMM_WORLD. */
#include <stdio.h>
#include <stdlib.h>

#include "mcheck.h"

static int order[4], calls;

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)keyval, (void)extra;
    int finalized = 1, rank = -1;
    MPI_Finalized(&finalized);
    if (finalized || comm != MPI_COMM_SELF) return MPI_ERR_OTHER;
    if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS || rank < 0) return MPI_ERR_OTHER;
    if (calls < 4) order[calls] = (int)(long)val;
    calls++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    int *last, flag = 0;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE: flag %d value %d", flag, flag ? *last : -1);
    int k[4];
    for (int i = 0; i < 4; i++) OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &k[i], NULL));
    for (int i = 0; i < 4; i++) OK(MPI_Comm_set_attr(MPI_COMM_SELF, k[i], (void *)(long)(i + 1)));
    /* setting k[1] again deletes its old value and makes it the last set */
    OK(MPI_Comm_set_attr(MPI_COMM_SELF, k[1], (void *)(long)5));
    CHECK(calls == 1 && order[0] == 2, "re-setting an attribute: %d calls, value %d", calls, order[0]);
    calls = 0;
    /* a freed keyval's attributes keep their callbacks */
    OK(MPI_Comm_free_keyval(&k[0]));
    OK(MPI_Finalize());
    int want[4] = { 5, 4, 3, 1 };
    for (int i = 0; i < 4; i++)
        if (calls != 4 || order[i] != want[i]) {
            fprintf(stderr, "MPI_Finalize: %d delete callbacks, order %d %d %d %d, want 5 4 3 1\n", calls, order[0],
                    order[1], order[2], order[3]);
            return 1;
        }
    return 0;
}
