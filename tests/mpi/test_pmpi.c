/* The profiling interface: a tool's MPI_Send wraps PMPI_Send, and the
 * library's own calls (collectives, Sendrecv) do not go through it. */
#include "mcheck.h"

static int sends;

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    sends++;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int main(int argc, char **argv)
{
    int me, n, v = 0;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    OK(MPI_Send(&me, 1, MPI_INT, (me + 1) % n, 0, MPI_COMM_WORLD));
    OK(MPI_Recv(&v, 1, MPI_INT, (me + n - 1) % n, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Sendrecv(&me, 1, MPI_INT, (me + 1) % n, 1, &v, 1, MPI_INT, (me + n - 1) % n, 1, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    OK(MPI_Allreduce(&me, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sends == 1, "the wrapper saw %d sends", sends);
    OK(MPI_Finalize());
    if (me == 0) printf("test_pmpi: ok\n");
    return 0;
}
