/* MPI lets a program free a datatype or communicator that pending or
 * persistent requests still use: the operations go on as if it had not. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* MPI lets a program free a datatype or communicator that pending or
 * persistent requests still use; the operations go on as if it had not. */
static void freed_while_in_use(void)
{
    int to = (me + 1) % n, from = (me + n - 1) % n;
    MPI_Datatype cols;
    OK(MPI_Type_vector(4, 1, 3, MPI_INT, &cols));
    OK(MPI_Type_commit(&cols));
    int sbuf[12], rbuf[12];
    MPI_Request rq[2];
    OK(MPI_Send_init(sbuf, 1, cols, to, 40, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Recv_init(rbuf, 1, cols, from, 40, MPI_COMM_WORLD, &rq[1]));
    OK(MPI_Type_free(&cols));
    /* a new type of another shape, likely in the freed one's memory */
    MPI_Datatype other;
    OK(MPI_Type_vector(2, 2, 5, MPI_INT, &other));
    OK(MPI_Type_commit(&other));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 12; i++) sbuf[i] = me * 100 + round * 20 + i, rbuf[i] = -1;
        OK(MPI_Startall(2, rq));
        OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 12; i++)
            CHECK(rbuf[i] == (i % 3 ? -1 : from * 100 + round * 20 + i), "round %d: rbuf[%d] = %d", round, i, rbuf[i]);
    }
    OK(MPI_Request_free(&rq[0]));
    OK(MPI_Request_free(&rq[1]));
    OK(MPI_Type_free(&other));
    /* a receive pending on a freed communicator completes, and its error
     * goes to that communicator's handler (here: return) */
    MPI_Comm c, fresh;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int small = 0, big[4] = { 1, 2, 3, 4 };
    MPI_Request r;
    OK(MPI_Irecv(&small, 1, MPI_INT, from, 41, c, &r));
    OK(MPI_Send(big, 4, MPI_INT, to, 41, c));
    OK(MPI_Comm_free(&c));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &fresh));   /* MPI_ERRORS_ARE_FATAL, likely in c's memory */
    MPI_Status st;
    int rc = MPI_Wait(&r, &st);
    CHECK(rc == MPI_ERR_TRUNCATE && st.MPI_ERROR == MPI_ERR_TRUNCATE, "receive on a freed communicator: rc %d", rc);
    OK(MPI_Comm_free(&fresh));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    freed_while_in_use();
    OK(MPI_Finalize());
    if (me == 0) printf("test_freed: %d ranks ok\n", n);
    return 0;
}
