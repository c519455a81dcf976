/* MPI_Cancel of sends nobody has received (MPI-3.1 §3.8.4): standard,
 * synchronous, large, persistent and buffered (MPI_Ibsend, MPI_Bsend_init)
 * sends are cancelled while the receiver does nothing but a barrier;
 * MPI_Test_cancelled says so, the receiver gets only the message sent
 * after them, and a buffered send's room in the attached buffer is free
 * again. A send that was received is not cancelled; nor is one to
 * MPI_PROC_NULL; a cancelled receive still is. */
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

#define BIG (200 * 1024)         /* above the eager limit */

int main(int argc, char **argv)
{
    int me, n;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    int to = (me + 1) % n, from = (me + n - 1) % n, v = me, got = -1;
    char *big = malloc(BIG), *in = malloc(BIG);
    CHECK(big && in, "no memory");
    memset(big, me + 1, BIG);
    int bsize = 4 * (BIG + MPI_BSEND_OVERHEAD);
    void *bbuf = malloc((size_t)bsize);
    OK(MPI_Buffer_attach(bbuf, bsize));
    MPI_Request r, p;

    for (int round = 0; round < 3; round++) {
        /* A receive looks through its sender's ring, keeping aside what it
         * passes (a message kept aside is no longer cancelled): the
         * cancelled receive comes first, then a barrier, so that no rank's
         * receive passes a message the other is about to cancel. */
        OK(MPI_Irecv(&got, 1, MPI_INT, from, 2, MPI_COMM_WORLD, &r));
        mcheck_cancelled(&r, 1, "MPI_Irecv");
        OK(MPI_Barrier(MPI_COMM_WORLD));
        /* Nobody receives before the barrier: every message waits. */
        OK(MPI_Isend(&v, 1, MPI_INT, to, 1, MPI_COMM_WORLD, &r));
        mcheck_cancelled(&r, 1, "MPI_Isend");
        OK(MPI_Issend(&v, 1, MPI_INT, to, 1, MPI_COMM_WORLD, &r));
        mcheck_cancelled(&r, 1, "MPI_Issend");
        OK(MPI_Isend(big, BIG, MPI_CHAR, to, 1, MPI_COMM_WORLD, &r));
        mcheck_cancelled(&r, 1, "a large MPI_Isend");
        OK(MPI_Send_init(&v, 1, MPI_INT, to, 1, MPI_COMM_WORLD, &p));
        for (int i = 0; i < 2; i++) {
            OK(MPI_Start(&p));
            mcheck_cancelled(&p, 1, "a persistent send");
        }
        OK(MPI_Request_free(&p));
        /* Buffered: three times the buffer's room would not fit if the
         * cancelled messages kept theirs. */
        for (int i = 0; i < 6; i++) {
            OK(MPI_Ibsend(big, BIG, MPI_CHAR, to, 1, MPI_COMM_WORLD, &r));
            mcheck_cancelled(&r, 1, "MPI_Ibsend");
        }
        OK(MPI_Bsend_init(big, BIG, MPI_CHAR, to, 1, MPI_COMM_WORLD, &p));
        for (int i = 0; i < 6; i++) {
            OK(MPI_Start(&p));
            mcheck_cancelled(&p, 1, "a persistent buffered send");
        }
        OK(MPI_Request_free(&p));
        OK(MPI_Isend(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
        mcheck_cancelled(&r, 0, "a send to MPI_PROC_NULL");

        int w = 100 * round + me;                   /* the message that counts */
        OK(MPI_Isend(&w, 1, MPI_INT, to, 1, MPI_COMM_WORLD, &r));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_Status st;
        OK(MPI_Recv(&got, 1, MPI_INT, from, 1, MPI_COMM_WORLD, &st));
        CHECK(got == 100 * round + from, "round %d: received %d, not %d (a cancelled message?)", round, got,
              100 * round + from);
        int flag = -1;
        OK(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag, "a received message is not cancelled");
        OK(MPI_Barrier(MPI_COMM_WORLD));            /* received: too late to cancel */
        mcheck_cancelled(&r, 0, "a received send");
        OK(MPI_Iprobe(from, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "round %d: a cancelled message arrived", round);
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }

    /* A large send that was received before the cancel: not cancelled, data intact. */
    OK(MPI_Isend(big, BIG, MPI_CHAR, to, 3, MPI_COMM_WORLD, &r));
    OK(MPI_Recv(in, BIG, MPI_CHAR, from, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[0] == from + 1 && in[BIG - 1] == from + 1, "large message");
    OK(MPI_Barrier(MPI_COMM_WORLD));
    mcheck_cancelled(&r, 0, "a received large send");
    void *b;
    OK(MPI_Buffer_detach(&b, &bsize));
    free(bbuf), free(big), free(in);
    if (me == 0) printf("test_cancel: %d ranks ok\n", n);
    OK(MPI_Finalize());
    return 0;
}
