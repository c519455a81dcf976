/* MPI_Comm_idup, a large message between MPI_Alloc_mem buffers on the new
 * communicator, and address arithmetic (MPI_Get_address, MPI_Aint_add/diff). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

static void idup_and_memory(void)
{
    MPI_Comm c;
    MPI_Request rq;
    OK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(rq == MPI_REQUEST_NULL, "idup request not freed");
    int cmp;
    OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "idup compare %d", cmp);
    /* a large message between MPI_Alloc_mem buffers, on the new communicator */
    enum { N = 1 << 18 };
    int *s, *r;
    OK(MPI_Alloc_mem(N * sizeof(int), MPI_INFO_NULL, &s));
    OK(MPI_Alloc_mem(N * sizeof(int), MPI_INFO_NULL, &r));
    for (int i = 0; i < N; i++) s[i] = me * N + i;
    int to = (me + 1) % n, from = (me + n - 1) % n;
    OK(MPI_Sendrecv(s, N, MPI_INT, to, 0, r, N, MPI_INT, from, 0, c, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++) CHECK(r[i] == from * N + i, "alloc_mem data [%d] = %d", i, r[i]);
    OK(MPI_Free_mem(s));
    OK(MPI_Free_mem(r));
    OK(MPI_Comm_free(&c));
    /* address arithmetic */
    double arr[10];
    MPI_Aint a0, a7;
    OK(MPI_Get_address(&arr[0], &a0));
    OK(MPI_Get_address(&arr[7], &a7));
    CHECK(MPI_Aint_diff(a7, a0) == 7 * (MPI_Aint)sizeof(double), "aint_diff");
    CHECK(MPI_Aint_add(a0, 7 * sizeof(double)) == a7, "aint_add");
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    idup_and_memory();
    OK(MPI_Finalize());
    if (me == 0) printf("test_idup: %d ranks ok\n", n);
    return 0;
}
