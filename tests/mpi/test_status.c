/* Status fields: MPI_SOURCE, MPI_TAG and MPI_ERROR of a wildcard receive,
 * MPI_Get_count on partial elements, MPI_ERR_IN_STATUS from the calls
 * completing many requests, and MPI_Status_set_elements(_x)/set_cancelled. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* MPI_SOURCE, MPI_TAG and MPI_ERROR of a wildcard receive; MPI_Get_count
 * gives MPI_UNDEFINED when the bytes are not whole elements. */
static void status_fields(void)
{
    int to = (me + 1) % n, from = (me + n - 1) % n;
    char six[6] = "abcde";
    int buf[4];
    MPI_Status st;
    st.MPI_ERROR = -1;
    OK(MPI_Sendrecv(six, 6, MPI_CHAR, to, 30 + me, buf, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                    MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 30 + from, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    CHECK(st.MPI_ERROR == MPI_SUCCESS, "status error %d", st.MPI_ERROR);
    int c;
    OK(MPI_Get_count(&st, MPI_INT, &c));
    CHECK(c == MPI_UNDEFINED, "6 bytes as MPI_INT: count %d", c);
    OK(MPI_Get_count(&st, MPI_CHAR, &c));
    CHECK(c == 6 && !memcmp(buf, "abcde", 6), "6 bytes as MPI_CHAR: count %d", c);
    OK(MPI_Get_count(&st, MPI_SHORT, &c));
    CHECK(c == 3, "6 bytes as MPI_SHORT: count %d", c);
}

/* A truncated receive among several: MPI_ERR_IN_STATUS, and each status
 * says which failed (the others MPI_SUCCESS). */
static void in_status(void)
{
    int to = (me + 1) % n, from = (me + n - 1) % n;
    MPI_Comm c;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int a = 0, b = 0, two[2] = { 1, 2 };
    for (int call = 0; call < 3; call++) {
        MPI_Request r[2];
        MPI_Status st[2];
        st[0].MPI_ERROR = st[1].MPI_ERROR = -1;
        OK(MPI_Irecv(&a, 1, MPI_INT, from, 1, c, &r[0]));
        OK(MPI_Irecv(&b, 1, MPI_INT, from, 2, c, &r[1]));
        OK(MPI_Send(two, 1, MPI_INT, to, 1, c));
        OK(MPI_Send(two, 2, MPI_INT, to, 2, c));          /* one int too many */
        int rc = -1, flag = 0, outc = 0, idx[2];
        if (call == 0) rc = MPI_Waitall(2, r, st);
        else if (call == 1) while (!flag) rc = MPI_Testall(2, r, &flag, st);
        else {
            OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));      /* only the truncated one is left */
            st[0].MPI_ERROR = MPI_SUCCESS;
            while (!outc) rc = MPI_Waitsome(2, r, &outc, idx, st + 1);
            CHECK(outc == 1 && idx[0] == 1, "waitsome %d %d", outc, idx[0]);
        }
        CHECK(rc == MPI_ERR_IN_STATUS, "call %d returned %d", call, rc);
        CHECK(st[0].MPI_ERROR == MPI_SUCCESS && st[1].MPI_ERROR == MPI_ERR_TRUNCATE, "call %d: statuses %d %d", call,
              st[0].MPI_ERROR, st[1].MPI_ERROR);
        CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, "call %d: requests not freed", call);
    }
    OK(MPI_Comm_free(&c));
}

/* What MPI_Status_set_elements(_x) sets, MPI_Get_elements(_x) and
 * MPI_Get_count read back, also for a part of a mixed struct. */
static void set_elements(void)
{
    MPI_Status st;
    int k, flag;
    MPI_Count x;
    OK(MPI_Status_set_elements(&st, MPI_INT, 7));
    OK(MPI_Get_count(&st, MPI_INT, &k));
    CHECK(k == 7, "count %d", k);
    OK(MPI_Get_count(&st, MPI_BYTE, &k));
    CHECK(k == 7 * (int)sizeof(int), "bytes %d", k);
    OK(MPI_Status_set_elements_x(&st, MPI_DOUBLE, (MPI_Count)1 << 33));
    OK(MPI_Get_elements_x(&st, MPI_DOUBLE, &x));
    CHECK(x == (MPI_Count)1 << 33, "elements_x %lld", (long long)x);
    OK(MPI_Get_count(&st, MPI_DOUBLE, &k));
    CHECK(k == MPI_UNDEFINED, "a count an int cannot hold: %d", k);
    /* {int, double, int}: 3 elements a type; 4 elements: one type and the int */
    MPI_Datatype t, ts[3] = { MPI_INT, MPI_DOUBLE, MPI_INT };
    int bl[3] = { 1, 1, 1 };
    MPI_Aint dp[3] = { 0, 8, 16 };
    OK(MPI_Type_create_struct(3, bl, dp, ts, &t));
    OK(MPI_Type_commit(&t));
    OK(MPI_Status_set_elements(&st, t, 4));
    OK(MPI_Get_elements(&st, t, &k));
    CHECK(k == 4, "elements of the struct %d", k);
    OK(MPI_Get_count(&st, t, &k));
    CHECK(k == MPI_UNDEFINED, "count of a part %d", k);
    OK(MPI_Status_set_elements(&st, t, 6));
    OK(MPI_Get_count(&st, t, &k));
    CHECK(k == 2, "count of two %d", k);
    OK(MPI_Type_free(&t));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Status_set_elements(&st, MPI_INT, -1) == MPI_ERR_COUNT, "a negative count is refused");
    CHECK(MPI_Status_set_elements(MPI_STATUS_IGNORE, MPI_INT, 1) == MPI_ERR_ARG, "MPI_STATUS_IGNORE is refused");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    OK(MPI_Status_set_cancelled(&st, 1));
    OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "cancelled");
    OK(MPI_Status_set_cancelled(&st, 0));
    OK(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag, "not cancelled");
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    status_fields();
    in_status();
    set_elements();
    OK(MPI_Finalize());
    if (me == 0) printf("test_status: %d ranks ok\n", n);
    return 0;
}
