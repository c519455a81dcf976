/* A blocking MPI_Recv of contiguous data takes its message straight from
 * the sender's ring (SMARTMAP_STATS counts these: the test's expectation
 * is nranks + 5 a rank) only where that message is the one MPI says it
 * gets; everything else goes through a request with the same result:
 * statuses and data of messages of 0 B to 1000 B; MPI_ANY_SOURCE MPI_Irecvs
 * posted before blocking receives get the first message, the receives the
 * next ones, in order (and once nothing is posted, the ring's); MPI_ANY_SOURCE
 * blocking receives get every sender's message once; messages kept aside
 * by a probe, a truncation, a synchronous send, a non-contiguous type and
 * MPI_PROC_NULL. With "mt", the same under MPI_THREAD_MULTIPLE. */
#include <string.h>

#include "mcheck.h"

static int me, np;

static void fill(char *b, int n, int seed)
{
    for (int i = 0; i < n; i++) b[i] = (char)(seed * 31 + i);
}
static void verify(const char *b, int n, int seed, const char *what)
{
    for (int i = 0; i < n; i++) CHECK(b[i] == (char)(seed * 31 + i), "%s: byte %d of %d", what, i, n);
}
static void status_is(const MPI_Status *st, int src, int tag, int bytes, const char *what)
{
    int n;
    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && n == bytes, "%s: %d bytes from %d tag %d, not %d from %d "
          "tag %d", what, n, st->MPI_SOURCE, st->MPI_TAG, bytes, src, tag);
}

int main(int argc, char **argv)
{
    mcheck_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int to = (me + 1) % np, from = (me + np - 1) % np;
    char sb[1024], rb[1024];
    MPI_Status st;

    /* In the ring before the receive: 5 taken from it (sizes 0 to 1000). */
    int sizes[5] = { 0, 1, 8, 100, 1000 };
    for (int k = 0; k < 5; k++) {
        fill(sb, sizes[k], me * 10 + k);
        OK(MPI_Send(sb, sizes[k], MPI_BYTE, to, 1 + k, MPI_COMM_WORLD));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < 5; k++) {
        OK(MPI_Recv(rb, 1024, MPI_BYTE, from, 1 + k, MPI_COMM_WORLD, &st));
        status_is(&st, from, 1 + k, sizes[k], "in the ring");
        verify(rb, sizes[k], from * 10 + k, "in the ring");
    }

    /* Receives posted first (MPI_ANY_SOURCE; one for tag 99 waits to the
     * end): the tag-7 one gets the first message, the blocking receives the
     * next two in order, through requests. Once nothing is posted, the
     * fourth is taken from the ring. */
    MPI_Request any[2];
    char ab[8], late[8];
    OK(MPI_Irecv(late, 8, MPI_BYTE, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &any[0]));
    OK(MPI_Irecv(ab, 8, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &any[1]));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < 3; k++) {
        fill(sb, 8, me + 100 * k);
        OK(MPI_Send(sb, 8, MPI_BYTE, to, 7, MPI_COMM_WORLD));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 1; k < 3; k++) {
        OK(MPI_Recv(rb, 8, MPI_BYTE, from, 7, MPI_COMM_WORLD, &st));
        status_is(&st, from, 7, 8, "behind posted receives");
        verify(rb, 8, from + 100 * k, "behind posted receives");
    }
    fill(sb, 8, me + 600);
    OK(MPI_Send(sb, 8, MPI_BYTE, to, 99, MPI_COMM_WORLD));
    fill(sb, 8, me + 700);
    OK(MPI_Send(sb, 8, MPI_BYTE, to, 7, MPI_COMM_WORLD));
    OK(MPI_Wait(&any[1], &st));
    status_is(&st, from, 7, 8, "the posted MPI_ANY_SOURCE receive");
    verify(ab, 8, from, "the posted MPI_ANY_SOURCE receive");
    OK(MPI_Wait(&any[0], &st));
    status_is(&st, from, 99, 8, "the receive posted first");
    verify(late, 8, from + 600, "the receive posted first");
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Recv(rb, 8, MPI_BYTE, from, 7, MPI_COMM_WORLD, &st));
    verify(rb, 8, from + 700, "after the posted receives");

    /* MPI_ANY_SOURCE blocking receives: np - 1 taken from the rings. */
    for (int p = 0; p < np; p++)
        if (p != me) {
            fill(sb, 8, me + 200);
            OK(MPI_Send(sb, 8, MPI_BYTE, p, 9, MPI_COMM_WORLD));
        }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    unsigned long long seen = 0;
    for (int k = 0; k < np - 1; k++) {
        OK(MPI_Recv(rb, 8, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < np && st.MPI_SOURCE != me && !(seen >> st.MPI_SOURCE & 1),
              "MPI_ANY_SOURCE: message from %d", st.MPI_SOURCE);
        status_is(&st, st.MPI_SOURCE, 9, 8, "MPI_ANY_SOURCE");
        verify(rb, 8, st.MPI_SOURCE + 200, "MPI_ANY_SOURCE");
        seen |= 1ull << st.MPI_SOURCE;
    }

    /* Probed messages are kept aside: received through requests, in order. */
    for (int k = 0; k < 3; k++) {
        fill(sb, 8, me + 300 + k);
        OK(MPI_Send(sb, 8, MPI_BYTE, to, k < 2 ? 11 : 12, MPI_COMM_WORLD));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Probe(from, 12, MPI_COMM_WORLD, &st));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Recv(rb, 8, MPI_BYTE, from, 12, MPI_COMM_WORLD, &st));
    verify(rb, 8, from + 302, "the probed message");
    for (int k = 0; k < 2; k++) {
        OK(MPI_Recv(rb, 8, MPI_BYTE, from, 11, MPI_COMM_WORLD, &st));
        verify(rb, 8, from + 300 + k, "kept aside by the probe, in order");
    }

    /* A truncation, a synchronous send, a non-contiguous type, MPI_PROC_NULL. */
    fill(sb, 16, me + 400);
    OK(MPI_Send(sb, 16, MPI_BYTE, to, 13, MPI_COMM_WORLD));
    MPI_Request ss;
    fill(sb + 16, 8, me + 500);
    OK(MPI_Issend(sb + 16, 8, MPI_BYTE, to, 14, MPI_COMM_WORLD, &ss));
    int v[2] = { 1 + me, 2 + me }, w[4] = { -1, -1, -1, -1 };
    OK(MPI_Send(v, 2, MPI_INT, to, 15, MPI_COMM_WORLD));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    int rc = MPI_Recv(rb, 8, MPI_BYTE, from, 13, MPI_COMM_WORLD, &st), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "a 16-byte message into 8 bytes: class %d", cls);
    OK(MPI_Recv(rb, 8, MPI_BYTE, from, 14, MPI_COMM_WORLD, &st));
    verify(rb, 8, from + 500, "the synchronous message");
    OK(MPI_Wait(&ss, MPI_STATUS_IGNORE));
    MPI_Datatype vec;
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    OK(MPI_Recv(w, 1, vec, from, 15, MPI_COMM_WORLD, &st));
    CHECK(w[0] == 1 + from && w[1] == -1 && w[2] == 2 + from && w[3] == -1, "the vector: %d %d %d %d", w[0], w[1],
          w[2], w[3]);
    OK(MPI_Type_free(&vec));
    OK(MPI_Recv(rb, 8, MPI_BYTE, MPI_PROC_NULL, 16, MPI_COMM_WORLD, &st));
    status_is(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "MPI_PROC_NULL");

    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) printf("test_fastrecv: %d ranks ok\n", np);
    MPI_Finalize();
    return 0;
}
