/* test_fint.c: Fortran handles and statuses from C (MPI 3.1 §17.2.4-5):
 * predefined handles are their own Fortran values; a user object gets one
 * index, the same every time and from every thread, and f2c gives it back;
 * invalid indices are invalid handles, not crashes; the status forms (C,
 * Fortran INTEGER array, mpi_f08) convert into each other keeping source,
 * tag, error, count and cancellation; the IGNORE addresses are distinct and
 * converting one is an error. Built and run without a Fortran compiler. */
#include <pthread.h>
#include <string.h>

#include "../mpi/mcheck.h"

#define NOBJ 5000            /* past one chunk of the table and several hash doublings */
#define NTHREADS 4

static MPI_Datatype types[NOBJ];
static MPI_Fint seen[NTHREADS][NOBJ];

static void *convert(void *arg)
{
    int t = (int)(intptr_t)arg;
    /* Each thread walks the objects from a different place, converting. */
    for (int k = 0; k < NOBJ; k++) {
        int i = (k + t * NOBJ / NTHREADS) % NOBJ;
        seen[t][i] = MPI_Type_c2f(types[i]);
        if (MPI_Type_f2c(seen[t][i]) != types[i]) return (void *)1;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size, rc, cls;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    /* Predefined handles: their own small numbers, both ways; null is 0. */
    CHECK(MPI_Comm_c2f(MPI_COMM_NULL) == 0 && MPI_Comm_f2c(0) == MPI_COMM_NULL, "MPI_COMM_NULL");
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "MPI_COMM_WORLD");
    CHECK(MPI_Comm_c2f(MPI_COMM_SELF) != MPI_Comm_c2f(MPI_COMM_WORLD), "WORLD and SELF differ");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE, "MPI_DOUBLE");
    CHECK(MPI_Type_c2f(MPI_INT) != MPI_Type_c2f(MPI_FLOAT), "MPI_INT and MPI_FLOAT differ");
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "MPI_SUM");
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY, "MPI_GROUP_EMPTY");
    CHECK(MPI_Request_c2f(MPI_REQUEST_NULL) == 0, "MPI_REQUEST_NULL");
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN, "MPI_ERRORS_RETURN");
    CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_ENV)) == MPI_INFO_ENV, "MPI_INFO_ENV");
    CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC, "MPI_MESSAGE_NO_PROC");
    CHECK(PMPI_Comm_c2f(MPI_COMM_WORLD) == MPI_Comm_c2f(MPI_COMM_WORLD), "the PMPI_ names");

    /* User objects of every kind: one index each, stable, distinct, reversible. */
    MPI_Comm dup;
    MPI_Group grp;
    MPI_Info info;
    MPI_Request req;
    int buf = 0;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_group(dup, &grp));
    OK(MPI_Info_create(&info));
    OK(MPI_Irecv(&buf, 1, MPI_INT, MPI_PROC_NULL, 0, dup, &req));
    MPI_Fint fc = MPI_Comm_c2f(dup), fg = MPI_Group_c2f(grp), fi = MPI_Info_c2f(info), fr = MPI_Request_c2f(req);
    CHECK(fc == MPI_Comm_c2f(dup) && fg == MPI_Group_c2f(grp), "c2f twice gives one index");
    CHECK(fc != fg && fg != fi && fi != fr && fc != fr, "distinct objects, distinct indices: %d %d %d %d", fc, fg, fi, fr);
    CHECK(fc > 0 && fg > 0 && fi > 0 && fr > 0, "positive indices");
    CHECK(MPI_Comm_f2c(fc) == dup && MPI_Group_f2c(fg) == grp && MPI_Info_f2c(fi) == info, "f2c(c2f(x)) == x");
    MPI_Request back = MPI_Request_f2c(fr);
    OK(MPI_Wait(&back, MPI_STATUS_IGNORE));
    CHECK(back == MPI_REQUEST_NULL, "a request completed through its Fortran handle");
    int n;
    OK(MPI_Comm_size(MPI_Comm_f2c(fc), &n));
    CHECK(n == size, "a communicator through its Fortran handle");

    /* Invalid Fortran handles are invalid C handles: errors, not crashes. */
    MPI_Fint bad[] = {-5, 4095, fc + 1000000, 2147483647};
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        rc = MPI_Comm_size(MPI_Comm_f2c(bad[i]), &n);
        CHECK(rc != MPI_SUCCESS, "MPI_Comm_size of Fortran handle %d succeeded", bad[i]);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_COMM, "Fortran handle %d: class %d", bad[i], cls);
        rc = MPI_Type_size(MPI_Type_f2c(bad[i]), &n);
        CHECK(rc != MPI_SUCCESS, "MPI_Type_size of Fortran handle %d succeeded", bad[i]);
    }

    /* Many objects, converted by several threads at once: one index each. */
    for (int i = 0; i < NOBJ; i++) OK(MPI_Type_contiguous(i % 7 + 1, MPI_INT, &types[i]));
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, convert, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++) {
        void *r;
        pthread_join(th[t], &r);
        CHECK(!r, "thread %d: f2c(c2f(type)) differs", t);
    }
    for (int i = 0; i < NOBJ; i++) {
        for (int t = 1; t < NTHREADS; t++)
            CHECK(seen[t][i] == seen[0][i], "object %d: thread %d got %d, thread 0 got %d", i, t, seen[t][i], seen[0][i]);
        for (int j = 0; j < i; j += 97) CHECK(seen[0][j] != seen[0][i], "objects %d and %d share index %d", j, i, seen[0][i]);
    }
    for (int i = 0; i < NOBJ; i++) OK(MPI_Type_free(&types[i]));

    /* Statuses: C -> Fortran -> mpi_f08 -> C keeps everything MPI_Get_count needs. */
    int out[3] = {1, 2, 3}, in[3];
    MPI_Status cs, cs2;
    MPI_Fint fs[sizeof(MPI_Status) / sizeof(MPI_Fint)], fs2[sizeof(MPI_Status) / sizeof(MPI_Fint)];
    MPI_F08_status f8;
    OK(MPI_Sendrecv(out, 3, MPI_INT, rank, 42, in, 3, MPI_INT, rank, 42, MPI_COMM_WORLD, &cs));
    OK(MPI_Status_c2f(&cs, fs));
    CHECK(fs[0] == rank && fs[1] == 42, "MPI_SOURCE and MPI_TAG are the Fortran status's first two");
    OK(MPI_Status_f2f08(fs, &f8));
    CHECK(f8.MPI_SOURCE == rank && f8.MPI_TAG == 42, "MPI_F08_status fields");
    OK(MPI_Status_f082f(&f8, fs2));
    CHECK(!memcmp(fs, fs2, sizeof fs), "f2f08 and f082f");
    OK(MPI_Status_f082c(&f8, &cs2));
    OK(MPI_Get_count(&cs2, MPI_INT, &n));
    CHECK(n == 3 && cs2.MPI_SOURCE == rank && cs2.MPI_TAG == 42, "the count survives: %d", n);
    OK(MPI_Status_c2f08(&cs2, &f8));
    OK(MPI_Status_f2c(fs2, &cs2));
    OK(MPI_Get_elements(&cs2, MPI_INT, &n));
    CHECK(n == 3, "MPI_Get_elements after f2c");
    int flag;
    OK(MPI_Test_cancelled(&cs2, &flag));
    CHECK(!flag, "not cancelled");

    /* The IGNORE addresses: distinct, not C's, and not convertible. */
    CHECK(MPI_F_STATUS_IGNORE && MPI_F_STATUSES_IGNORE && MPI_F_STATUS_IGNORE != MPI_F_STATUSES_IGNORE, "F IGNOREs");
    CHECK((void *)MPI_F08_STATUS_IGNORE == (void *)MPI_F_STATUS_IGNORE, "one COMMON block for both Fortran forms");
    rc = MPI_Status_f2c(MPI_F_STATUS_IGNORE, &cs2);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "MPI_Status_f2c(MPI_F_STATUS_IGNORE): class %d", cls);
    rc = MPI_Status_c2f(MPI_STATUS_IGNORE, fs);
    CHECK(rc != MPI_SUCCESS, "MPI_Status_c2f(MPI_STATUS_IGNORE)");

    OK(MPI_Info_free(&info));
    OK(MPI_Group_free(&grp));
    OK(MPI_Comm_free(&dup));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("fint: ok on %d ranks\n", size);
    OK(MPI_Finalize());
    return 0;
}
