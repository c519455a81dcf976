/* The MPI-1 names of the attribute calls old programs use (Keyval_create,
 * Attr_put/get/delete, MPI_DUP_FN) and their callbacks. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* The MPI-1 attribute names old programs use. */
static int deletes;
static int count_delete(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)val, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}
static void old_attributes(void)
{
    int *ub, flag, key;
    OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    CHECK(flag && *ub >= 32767, "MPI_Attr_get(MPI_TAG_UB)");
    static int val = 42;
    OK(MPI_Keyval_create(MPI_DUP_FN, count_delete, &key, NULL));
    MPI_Comm c, d;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Attr_put(c, key, &val));
    OK(MPI_Comm_dup(c, &d));
    int *got;
    OK(MPI_Attr_get(d, key, &got, &flag));
    CHECK(flag && got == &val, "MPI_DUP_FN copied %d", flag);
    OK(MPI_Attr_delete(d, key));
    OK(MPI_Attr_get(d, key, &got, &flag));
    CHECK(!flag && deletes == 1, "MPI_Attr_delete: flag %d, %d deletes", flag, deletes);
    OK(MPI_Comm_free(&d));
    OK(MPI_Comm_free(&c));
    CHECK(deletes == 2, "free deletes: %d", deletes);
    OK(MPI_Keyval_free(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "keyval_free");
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    old_attributes();
    OK(MPI_Finalize());
    if (me == 0) printf("test_attr_mpi1: %d ranks ok\n", n);
    return 0;
}
