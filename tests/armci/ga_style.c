/* ga_style.c: what Global Arrays' configure (--with-armci) and its sources
 * ask of an external ARMCI, compiled with smcc as a user would: armci.h and
 * message.h (either first), ARMCI_Init and ARMCI_Initialized, the
 * ARMCI_Group.comm member and armci_group_comm, ARMCI_Malloc addresses used
 * directly, the armci_msg_* collectives, inside an MPI program. */
#include <message.h>
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init_args(&argc, &argv);
    if (!ARMCI_Initialized()) return 1;
    ARMCI_Group world;
    ARMCI_Group_get_world(&world);
    MPI_Comm comm = world.comm;   /* HAVE_ARMCI_GROUP_COMM_MEMBER */
    if (comm != armci_group_comm(&world)) return 2;
    int me = armci_msg_me(), n = armci_msg_nproc(), size;
    MPI_Comm_size(comm, &size);
    void **ptr = malloc(sizeof *ptr * (size_t)n);
    ARMCI_Malloc(ptr, (armci_size_t)(n * sizeof(double)));
    double one = 1.0;
    for (int p = 0; p < n; p++) ARMCI_Acc(ARMCI_ACC_DBL, &one, &one, (double *)ptr[p] + me, sizeof(double), p);
    armci_msg_barrier();
    double sum = 0;
    for (int i = 0; i < n; i++) sum += ((double *)ptr[me])[i];   /* ARMCI_Uses_shm: direct access */
    armci_msg_dgop(&sum, 1, "+");
    if (sum != (double)n * n || size != n) return 3;
    printf("ga_style: process %d of %d: ok\n", me, n);
    ARMCI_Free(ptr[me]);
    free(ptr);
    ARMCI_Finalize();
    MPI_Finalize();
    return 0;
}
