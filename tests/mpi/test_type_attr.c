/* Datatype attributes (MPI 3.1 §6.7.4): keyvals, set/get/delete on derived
 * and predefined types, copy callbacks at MPI_Type_dup (MPI_TYPE_DUP_FN and
 * a user's that declines), delete callbacks at MPI_Type_free and on
 * replacement, and bad input (another object's keyval, an invalid one). */
#include <stdint.h>

#include "mcheck.h"

static int copies, deletes;
static int my_copy(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k;
    CHECK(extra == &copies, "copy callback: extra_state %p", extra);
    copies++;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = (intptr_t)in != 99;                  /* declines to copy the value 99 */
    return MPI_SUCCESS;
}
static int my_delete(MPI_Datatype t, int k, void *val, void *extra)
{
    (void)t, (void)k, (void)val, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    int me;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    int k1, k2, flag;
    void *v;
    OK(MPI_Type_create_keyval(my_copy, my_delete, &k1, &copies));
    OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &k2, NULL));
    MPI_Datatype t, d;
    OK(MPI_Type_contiguous(3, MPI_INT, &t));
    OK(MPI_Type_get_attr(t, k1, &v, &flag));
    CHECK(!flag, "an attribute before any was set");
    OK(MPI_Type_set_attr(t, k1, (void *)(intptr_t)10));
    OK(MPI_Type_set_attr(t, k2, (void *)(intptr_t)20));
    OK(MPI_Type_set_attr(t, k1, (void *)(intptr_t)11));   /* replaces: the old value's delete callback */
    CHECK(deletes == 1, "replacing an attribute ran %d delete callbacks, not 1", deletes);
    OK(MPI_Type_get_attr(t, k1, &v, &flag));
    CHECK(flag && (intptr_t)v == 11, "k1 on t: %d %ld", flag, (long)(intptr_t)v);
    OK(MPI_Type_dup(t, &d));
    CHECK(copies == 1, "MPI_Type_dup ran %d copy callbacks, not 1", copies);
    OK(MPI_Type_get_attr(d, k1, &v, &flag));
    CHECK(flag && (intptr_t)v == 12, "k1 on the dup: %d %ld", flag, (long)(intptr_t)v);
    OK(MPI_Type_get_attr(d, k2, &v, &flag));
    CHECK(flag && (intptr_t)v == 20, "k2 (MPI_TYPE_DUP_FN) on the dup: %d %ld", flag, (long)(intptr_t)v);
    OK(MPI_Type_free(&d));
    CHECK(deletes == 2, "freeing the dup ran %d delete callbacks in all, not 2", deletes);
    OK(MPI_Type_set_attr(t, k1, (void *)(intptr_t)99));
    OK(MPI_Type_dup(t, &d));                              /* the callback declines */
    OK(MPI_Type_get_attr(d, k1, &v, &flag));
    CHECK(!flag, "a declined copy is set on the dup");
    OK(MPI_Type_free(&d));
    OK(MPI_Type_delete_attr(t, k1));
    CHECK(deletes == 4, "%d delete callbacks, not 4", deletes);
    OK(MPI_Type_commit(&t));
    int x[3] = { me, me, me }, y[3];                      /* the type still works */
    OK(MPI_Sendrecv(x, 1, t, 0, 0, y, 1, t, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    CHECK(y[2] == me, "sendrecv with the type");
    OK(MPI_Type_free(&t));
    /* a predefined type takes attributes too; the callback gets its handle */
    OK(MPI_Type_set_attr(MPI_DOUBLE, k2, (void *)(intptr_t)7));
    OK(MPI_Type_get_attr(MPI_DOUBLE, k2, &v, &flag));
    CHECK(flag && (intptr_t)v == 7, "k2 on MPI_DOUBLE");
    OK(MPI_Type_delete_attr(MPI_DOUBLE, k2));
    /* bad input, returned */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int ck, cls;
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    MPI_Error_class(MPI_Type_set_attr(MPI_INT, ck, NULL), &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "a communicator's keyval on a datatype: class %d", cls);
    MPI_Error_class(MPI_Type_delete_attr(MPI_INT, k1), &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "deleting an attribute never set: class %d", cls);
    MPI_Error_class(MPI_Type_get_attr(MPI_DATATYPE_NULL, k1, &v, &flag), &cls);
    CHECK(cls == MPI_ERR_TYPE, "MPI_DATATYPE_NULL: class %d", cls);
    OK(MPI_Type_free_keyval(&k1));
    CHECK(k1 == MPI_KEYVAL_INVALID, "free_keyval left %d", k1);
    MPI_Error_class(MPI_Type_free_keyval(&k1), &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "freeing MPI_KEYVAL_INVALID: class %d", cls);
    OK(MPI_Type_free_keyval(&k2));
    OK(MPI_Comm_free_keyval(&ck));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) printf("mpi_type_attr: ok\n");
    OK(MPI_Finalize());
    return 0;
}
