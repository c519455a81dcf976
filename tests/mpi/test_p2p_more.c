/* Point-to-point calls the other tests leave out: MPI_Improbe/Imrecv
 * (also on MPI_PROC_NULL), MPI_Sendrecv_replace on a derived type, and
 * persistent synchronous, ready and buffered sends. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* The point-to-point calls the other tests leave out: MPI_Improbe/Imrecv
 * (also on MPI_PROC_NULL), MPI_Sendrecv_replace on a derived type, MPI_Start
 * and MPI_Test on Ssend_init/Rsend_init/Bsend_init requests, MPI_Pack_size. */
static void more_p2p(void)
{
    int to = (me + 1) % n, from = (me + n - 1) % n, flag = 0, v = -1, inter = -1;
    OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &inter));
    CHECK(inter == 0, "test_inter %d", inter);
    MPI_Message m;
    MPI_Status st;
    MPI_Request r;
    OK(MPI_Send(&me, 1, MPI_INT, to, 50, MPI_COMM_WORLD));
    while (!flag) OK(MPI_Improbe(from, 50, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 50 && m != MPI_MESSAGE_NULL, "improbe");
    OK(MPI_Imrecv(&v, 1, MPI_INT, &m, &r));
    CHECK(m == MPI_MESSAGE_NULL, "imrecv leaves the message handle");
    OK(MPI_Wait(&r, &st));
    CHECK(v == from && st.MPI_SOURCE == from, "imrecv got %d from %d", v, st.MPI_SOURCE);
    OK(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(flag && m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "improbe on MPI_PROC_NULL");
    OK(MPI_Imrecv(&v, 1, MPI_INT, &m, &r));
    OK(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "imrecv on MPI_MESSAGE_NO_PROC");
    /* Sendrecv_replace on every other int */
    MPI_Datatype ev;
    OK(MPI_Type_vector(3, 1, 2, MPI_INT, &ev));
    OK(MPI_Type_commit(&ev));
    int buf[5] = { me, -1, me + 1, -1, me + 2 };
    OK(MPI_Sendrecv_replace(buf, 1, ev, to, 51, from, 51, MPI_COMM_WORLD, &st));
    CHECK(buf[0] == from && buf[1] == -1 && buf[2] == from + 1 && buf[4] == from + 2, "sendrecv_replace");
    int ps;
    OK(MPI_Pack_size(4, ev, MPI_COMM_WORLD, &ps));
    CHECK(ps >= 4 * 3 * (int)sizeof(int), "pack_size %d", ps);
    OK(MPI_Type_free(&ev));
    /* persistent synchronous, ready and buffered sends, started one by one */
    int x = -1, s = 0, size = 4 * (int)(sizeof(int) + MPI_BSEND_OVERHEAD);
    void *att = malloc((size_t)size), *back;
    OK(MPI_Buffer_attach(att, size));
    MPI_Request rr, sr[3];
    OK(MPI_Recv_init(&x, 1, MPI_INT, from, 52, MPI_COMM_WORLD, &rr));
    OK(MPI_Ssend_init(&s, 1, MPI_INT, to, 52, MPI_COMM_WORLD, &sr[0]));
    OK(MPI_Rsend_init(&s, 1, MPI_INT, to, 52, MPI_COMM_WORLD, &sr[1]));
    OK(MPI_Bsend_init(&s, 1, MPI_INT, to, 52, MPI_COMM_WORLD, &sr[2]));
    for (int round = 0; round < 6; round++) {
        OK(MPI_Start(&rr));
        OK(MPI_Barrier(MPI_COMM_WORLD));            /* every receive is posted: ready mode is legal */
        s = me * 10 + round;
        OK(MPI_Start(&sr[round % 3]));
        for (flag = 0; !flag;) OK(MPI_Test(&rr, &flag, &st));
        CHECK(x == from * 10 + round && st.MPI_SOURCE == from, "round %d got %d", round, x);
        OK(MPI_Wait(&sr[round % 3], MPI_STATUS_IGNORE));
        CHECK(sr[round % 3] != MPI_REQUEST_NULL, "a persistent request went away");
    }
    for (int i = 0; i < 3; i++) OK(MPI_Request_free(&sr[i]));
    OK(MPI_Request_free(&rr));
    OK(MPI_Buffer_detach(&back, &size));
    free(att);
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    more_p2p();
    OK(MPI_Finalize());
    if (me == 0) printf("test_p2p_more: %d ranks ok\n", n);
    return 0;
}
