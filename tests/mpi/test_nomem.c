/* Out of memory inside the engine is an MPI error, not the end of the job:
 * rank 0 fills its heap, the others send it messages it has not asked for;
 * under MPI_ERRORS_RETURN its MPI_Iprobe returns MPI_ERR_NO_MEM (they
 * cannot be kept aside), a receive still takes the first one straight from
 * its ring, and once memory is freed everything arrives, in order. Run with
 * a small --mem-per-rank. */
#include <stdbool.h>

#include "mcheck.h"

enum { K = 20 };

int main(int argc, char **argv)
{
    int me, n, v;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    /* A message to itself leaves requests to reuse: the sends and receives
     * below need no memory for them (a barrier, in place, makes none). */
    OK(MPI_Sendrecv(&me, 1, MPI_INT, me, 0, &v, 1, MPI_INT, me, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me != 0) {
        OK(MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));     /* rank 0's heap is full */
        for (int k = 0; k < K; k++) {
            v = me * 100 + k;
            OK(MPI_Send(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD));
        }
    } else if (n > 1) {
        void *hold = NULL;                       /* no collective from here: they need memory */
        for (size_t sz = 1 << 20; sz > 4096; sz /= 2)
            for (void **b; (b = malloc(sz)); ) *b = hold, hold = b;
        for (size_t sz = 4096; sz >= 8; sz -= 8)
            for (void **b; (b = malloc(sz)); ) *b = hold, hold = b;
        for (int r = 1; r < n; r++) OK(MPI_Send(&me, 1, MPI_INT, r, 1, MPI_COMM_WORLD));
        int flag = 0, rc = MPI_SUCCESS;
        MPI_Status st;
        /* a tag nobody sends: the probe drains every ring and must keep the messages aside */
        while (rc == MPI_SUCCESS && !flag) rc = MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &st);
        CHECK(rc == MPI_ERR_NO_MEM, "MPI_Iprobe with a full heap returned %d", rc);
        OK(MPI_Recv(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &st));      /* straight from the ring */
        CHECK(v == 100, "first message %d", v);
        while (hold) { void *next = *(void **)hold; free(hold); hold = next; }
        for (int src = 1; src < n; src++)
            for (int k = src == 1; k < K; k++) {
                OK(MPI_Recv(&v, 1, MPI_INT, src, 3, MPI_COMM_WORLD, &st));
                CHECK(v == src * 100 + k, "from %d: %d, expected %d", src, v, src * 100 + k);
            }
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Finalize());
    if (me == 0) printf("test_nomem: %d ranks ok\n", n);
    return 0;
}
