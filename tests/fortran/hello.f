! hello.f: fixed form with mpif.h, as FORTRAN 77 programs have it.
      PROGRAM HELLO
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NPROC, IERR, ISUM
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROC, IERR)
      CALL MPI_ALLREDUCE(RANK, ISUM, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      PRINT 10, RANK, NPROC, ISUM
   10 FORMAT ('hello from rank ', I0, ' of ', I0, ', sum ', I0)
      CALL MPI_FINALIZE(IERR)
      END
