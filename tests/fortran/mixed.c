/* mixed.c: the C half of mixed.f90: Fortran's handles and statuses,
 * converted and checked in C; a communicator and a request made in C,
 * handed back as Fortran handles. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define EXPECT(cond) do { if (!(cond)) { fprintf(stderr, "mixed.c:%d: %s\n", __LINE__, #cond); return; } } while (0)

static int sendbuf;

void mixed_check(MPI_Fint *comm, MPI_Fint *type, MPI_Fint *op, MPI_Fint *group, MPI_Fint *info,
                 MPI_Fint *status, MPI_F08_status *status08, MPI_Fint *request, MPI_Fint *newcomm,
                 MPI_Fint *newreq, MPI_Fint *ok)
{
    int rank, size, n, cmp, flag;
    char value[32];
    MPI_Comm c = MPI_Comm_f2c(*comm);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    EXPECT(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp) == MPI_SUCCESS && cmp == MPI_CONGRUENT);
    EXPECT(MPI_Comm_c2f(c) == *comm);
    EXPECT(MPI_Type_size(MPI_Type_f2c(*type), &n) == MPI_SUCCESS && n == 2 * (int)sizeof(int));
    EXPECT(MPI_Op_f2c(*op) == MPI_SUM);
    EXPECT(MPI_Group_size(MPI_Group_f2c(*group), &size) == MPI_SUCCESS);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    EXPECT(size == n);
    EXPECT(MPI_Info_get(MPI_Info_f2c(*info), "from", sizeof value - 1, value, &flag) == MPI_SUCCESS && flag);
    EXPECT(!strcmp(value, "fortran"));

    /* Both Fortran statuses: the sendrecv of 3 INTEGERs with tag 17. */
    MPI_Status cs;
    EXPECT(MPI_Status_f2c(status, &cs) == MPI_SUCCESS);
    EXPECT(cs.MPI_SOURCE == rank && cs.MPI_TAG == 17);
    EXPECT(MPI_Get_count(&cs, MPI_INT, &n) == MPI_SUCCESS && n == 3);
    EXPECT(MPI_Status_f082c(status08, &cs) == MPI_SUCCESS);
    EXPECT(MPI_Get_count(&cs, MPI_INT, &n) == MPI_SUCCESS && n == 3 && cs.MPI_TAG == 17);

    /* Fortran's receive, completed here. */
    MPI_Request r = MPI_Request_f2c(*request);
    sendbuf = 99;
    EXPECT(MPI_Send(&sendbuf, 1, MPI_INT, rank, 18, c) == MPI_SUCCESS);
    EXPECT(MPI_Wait(&r, &cs) == MPI_SUCCESS && r == MPI_REQUEST_NULL && cs.MPI_TAG == 18);

    /* Made here, used there. */
    MPI_Comm mine;
    MPI_Request rq;
    static int recvbuf;
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &mine) == MPI_SUCCESS);
    EXPECT(MPI_Irecv(&recvbuf, 1, MPI_INT, rank, 19, mine, &rq) == MPI_SUCCESS);
    *newcomm = MPI_Comm_c2f(mine);
    *newreq = MPI_Request_c2f(rq);
    *ok = 1;
}

void mixed_ignore_(MPI_Fint *status_ignore, MPI_Fint *statuses_ignore, MPI_Fint *ok)
{
    *ok = status_ignore == MPI_F_STATUS_IGNORE && statuses_ignore == MPI_F_STATUSES_IGNORE &&
          (void *)status_ignore == (void *)MPI_F08_STATUS_IGNORE;
}
