/* A large send from a buffer nobody can read (address 0x1000): an MPI error
 * on both sides, never a receive that "succeeds" with an untouched buffer.
 *   test_badbuf            every even rank sends to the next odd one, under
 *                          MPI_ERRORS_RETURN: both get MPI_ERR_BUFFER, and
 *                          the ranks still talk afterwards
 *   test_badbuf fatal_recv on 2+ ranks, rank 1 under the default handler: the job ends
 *   test_badbuf fatal_send likewise rank 0, the sender */
#include <stdbool.h>
#include <string.h>

#include "mcheck.h"

enum { N = 100000 };

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "return";
    int me, n;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    void *bad = (void *)0x1000;
    bool fatal_here = (!strcmp(mode, "fatal_recv") && me == 1) || (!strcmp(mode, "fatal_send") && me == 0);
    if (!fatal_here) OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int *buf = malloc(N * sizeof(int));
    int peer = me ^ 1;
    if (peer < n) {
        MPI_Status st;
        int rc;
        /* blocking, contiguous */
        for (int i = 0; i < N; i++) buf[i] = -7;
        if (me % 2 == 0) rc = MPI_Send(bad, N, MPI_INT, peer, 7, MPI_COMM_WORLD);
        else rc = MPI_Recv(buf, N, MPI_INT, peer, 7, MPI_COMM_WORLD, &st);
        CHECK(rc == MPI_ERR_BUFFER, "%s from the unreadable buffer: rc %d", me % 2 ? "MPI_Recv" : "MPI_Send", rc);
        if (me % 2) CHECK(st.MPI_ERROR == MPI_ERR_BUFFER, "status MPI_ERROR %d", st.MPI_ERROR);
        /* nonblocking, synchronous, into a vector type (the receiver's bounce path) */
        MPI_Datatype every2;
        OK(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every2));
        OK(MPI_Type_commit(&every2));
        MPI_Request r;
        if (me % 2 == 0) OK(MPI_Issend(bad, N / 2, MPI_INT, peer, 8, MPI_COMM_WORLD, &r));
        else OK(MPI_Irecv(buf, 1, every2, peer, 8, MPI_COMM_WORLD, &r));
        rc = MPI_Wait(&r, &st);
        CHECK(rc == MPI_ERR_BUFFER && st.MPI_ERROR == MPI_ERR_BUFFER, "MPI_Wait after %s: rc %d",
              me % 2 ? "MPI_Irecv" : "MPI_Issend", rc);
        CHECK(r == MPI_REQUEST_NULL, "the failed request was not freed");
        OK(MPI_Type_free(&every2));
        /* and the pair still talks, both ways */
        for (int i = 0; i < N; i++) buf[i] = me * N + i;
        OK(MPI_Sendrecv_replace(buf, N, MPI_INT, peer, 9, peer, 9, MPI_COMM_WORLD, &st));
        for (int i = 0; i < N; i++) CHECK(buf[i] == peer * N + i, "after the failure: [%d] = %d", i, buf[i]);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    free(buf);
    OK(MPI_Finalize());
    if (me == 0) printf("test_badbuf: %d ranks ok\n", n);
    return 0;
}
