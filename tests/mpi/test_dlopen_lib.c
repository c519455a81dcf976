/* The MPI half of test_dlopen.c: a module that uses MPI, loaded by a
 * program that is not linked with libsmartmap (as Python loads mpi4py). */
#include <string.h>

#include "mcheck.h"

int run(void)
{
    OK(MPI_Init(NULL, NULL));
    /* info values are strdup'd: libc's strdup takes libc's malloc here */
    MPI_Info info, dup;
    char v[16];
    int flag;
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "key", "value"));
    OK(MPI_Info_set(info, "key", "again"));
    OK(MPI_Info_dup(info, &dup));
    OK(MPI_Info_get(dup, "key", sizeof v - 1, v, &flag));
    CHECK(flag && !strcmp(v, "again"), "info value '%s'", v);
    OK(MPI_Info_free(&info));
    OK(MPI_Info_free(&dup));
    int me, n, sum = 0;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == n * (n - 1) / 2, "allreduce %d", sum);
    OK(MPI_Finalize());
    return 0;
}
