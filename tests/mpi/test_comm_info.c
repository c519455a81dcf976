/* MPI_Comm_set_info / MPI_Comm_get_info (MPI 3.1 §6.4.4): the hints set are
 * the ones reported (merged over calls), get_info's object is new and the
 * caller's, MPI_Comm_dup and MPI_Comm_idup pass them on, dup_with_info
 * takes its own, a split starts without; bad input gives the class. */
#include "mcheck.h"

#define EXPECT(call, cls) do { int rc_ = (call); \
    CHECK(rc_ == (cls), "%s returned %d, expected %s (%d)", #call, rc_, #cls, cls); } while (0)

/* comm's hints are exactly the n pairs kv (key, value, key, value ...). */
static void hints_are(MPI_Comm comm, int n, const char *const *kv, const char *what)
{
    MPI_Info in;
    int nk, flag;
    char v[MPI_MAX_INFO_VAL + 1];
    OK(MPI_Comm_get_info(comm, &in));
    CHECK(in != MPI_INFO_NULL, "%s: get_info gave MPI_INFO_NULL", what);
    OK(MPI_Info_get_nkeys(in, &nk));
    CHECK(nk == n, "%s: %d hints, expected %d", what, nk, n);
    for (int i = 0; i < n; i++) {
        OK(MPI_Info_get(in, kv[2 * i], MPI_MAX_INFO_VAL, v, &flag));
        CHECK(flag && !strcmp(v, kv[2 * i + 1]), "%s: hint %s is '%s' (flag %d), expected '%s'", what, kv[2 * i],
              flag ? v : "", flag, kv[2 * i + 1]);
    }
    OK(MPI_Info_free(&in));
}

int main(int argc, char **argv)
{
    int me, n;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    MPI_Comm d, d2, s, w;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    hints_are(d, 0, NULL, "a fresh dup");
    MPI_Info in;
    OK(MPI_Info_create(&in));
    OK(MPI_Info_set(in, "mpi_assert_no_any_tag", "true"));
    OK(MPI_Info_set(in, "smartmap_test", me % 2 ? "odd" : "even"));
    OK(MPI_Comm_set_info(d, in));
    OK(MPI_Info_free(&in));               /* the communicator has its own copy */
    const char *two[] = { "mpi_assert_no_any_tag", "true", "smartmap_test", me % 2 ? "odd" : "even" };
    hints_are(d, 2, two, "after set_info");
    hints_are(d, 2, two, "asked twice (the first object freed)");

    /* a second call merges: a new key, a changed value */
    OK(MPI_Info_create(&in));
    OK(MPI_Info_set(in, "mpi_assert_no_any_tag", "false"));
    OK(MPI_Info_set(in, "other", "1"));
    OK(MPI_Comm_set_info(d, in));
    OK(MPI_Info_free(&in));
    OK(MPI_Comm_set_info(d, MPI_INFO_NULL));   /* sets nothing */
    const char *three[] = { "mpi_assert_no_any_tag", "false", "smartmap_test", two[3], "other", "1" };
    hints_are(d, 3, three, "after a second set_info");

    /* a dup and an idup carry them; a split does not */
    OK(MPI_Comm_dup(d, &d2));
    hints_are(d2, 3, three, "MPI_Comm_dup's");
    MPI_Comm i2;
    MPI_Request q;
    OK(MPI_Comm_idup(d, &i2, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    hints_are(i2, 3, three, "MPI_Comm_idup's");
    OK(MPI_Comm_free(&i2));
    OK(MPI_Comm_split(d, me % 2, -me, &s));
    hints_are(s, 0, NULL, "MPI_Comm_split's");
    OK(MPI_Info_create(&in));
    OK(MPI_Info_set(in, "split", "yes"));
    OK(MPI_Comm_set_info(s, in));
    const char *one[] = { "split", "yes" };
    hints_are(s, 1, one, "the split's own");
    hints_are(d, 3, three, "the parent's, unchanged");
    OK(MPI_Comm_dup_with_info(d, in, &w));
    hints_are(w, 1, one, "MPI_Comm_dup_with_info's");
    OK(MPI_Comm_free(&w));
    OK(MPI_Comm_dup_with_info(d, MPI_INFO_NULL, &w));
    hints_are(w, 0, NULL, "MPI_Comm_dup_with_info(MPI_INFO_NULL)'s");
    OK(MPI_Comm_free(&w));
    OK(MPI_Comm_free(&s));
    OK(MPI_Comm_free(&d));
    hints_are(d2, 3, three, "the dup's, after its parent is freed");
    OK(MPI_Comm_free(&d2));

    /* MPI_COMM_WORLD's, and the communicator still works */
    OK(MPI_Comm_set_info(MPI_COMM_WORLD, in));
    hints_are(MPI_COMM_WORLD, 1, one, "MPI_COMM_WORLD's");
    int sum = 0;
    OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == n * (n - 1) / 2, "allreduce %d", sum);

    /* bad input */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int notinfo = 7;
    EXPECT(MPI_Comm_set_info(MPI_COMM_NULL, in), MPI_ERR_COMM);
    EXPECT(MPI_Comm_set_info(MPI_COMM_WORLD, (MPI_Info)&notinfo), MPI_ERR_INFO);
    EXPECT(MPI_Comm_get_info(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_get_info(MPI_COMM_NULL, &in), MPI_ERR_COMM);
    OK(MPI_Info_free(&in));
    OK(MPI_Finalize());
    if (me == 0) printf("test_comm_info: ok\n");
    return 0;
}
