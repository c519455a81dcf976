! mixed.f90: Fortran handles and statuses handed to C (mixed.c), which
! converts them with MPI_X_f2c and MPI_Status_f2c/f082c, checks them, and
! hands back a communicator and a request it made (MPI_X_c2f): through
! module mpi's INTEGERs and mpi_f08's types in one program.
program mixed
  use, intrinsic :: iso_c_binding, only : c_int
  use mpi_f08
  use ftest
  implicit none
  interface
    ! C: void mixed_check(MPI_Fint *comm, MPI_Fint *type, MPI_Fint *op, MPI_Fint *group,
    !   MPI_Fint *info, MPI_Fint *status, MPI_F08_status *status08, MPI_Fint *request,
    !   MPI_Fint *newcomm, MPI_Fint *newreq, MPI_Fint *ok)
    subroutine mixed_check(comm, dtype, op, group, info, status, status08, request, newcomm, newreq, ok) &
        bind(C, name='mixed_check')
      import :: MPI_Status, c_int
      integer(c_int) :: comm, dtype, op, group, info, status(*), request, newcomm, newreq, ok
      type(MPI_Status) :: status08
    end subroutine mixed_check
  end interface
  integer :: rank, nproc, ok, fstatus(MPI_STATUS_SIZE), ncomm, nreq, n, buf(4), cmp
  type(MPI_Comm) :: dup, fromc
  type(MPI_Datatype) :: pair
  type(MPI_Group) :: grp
  type(MPI_Info) :: info
  type(MPI_Status) :: st
  type(MPI_Request) :: req, reqc

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call ftest_start('mixed', rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Type_contiguous(2, MPI_INTEGER, pair)
  call MPI_Type_commit(pair)
  call MPI_Comm_group(dup, grp)
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'from', 'fortran')
  buf = [rank, 1, 2, 3]
  call MPI_Sendrecv(buf, 3, MPI_INTEGER, rank, 17, buf(2), 3, MPI_INTEGER, rank, 17, dup, st)
  call MPI_Status_f082f(st, fstatus)
  ! A receive C completes (MPI_Request_f2c), from a send Fortran makes after.
  call MPI_Irecv(buf, 2, MPI_INTEGER, rank, 18, dup, req)

  ok = 0
  call mixed_check(dup%MPI_VAL, pair%MPI_VAL, MPI_SUM%MPI_VAL, grp%MPI_VAL, info%MPI_VAL, fstatus, st, &
                   req%MPI_VAL, ncomm, nreq, ok)
  call check(ok == 1, 'C''s checks')   ! (C completed req: its Fortran copy is stale now)

  fromc%MPI_VAL = ncomm
  call MPI_Comm_compare(fromc, MPI_COMM_WORLD, cmp)
  call check(cmp == MPI_CONGRUENT, 'the communicator C made')
  call MPI_Comm_size(fromc, n)
  call check(n == nproc, 'its size')
  reqc%MPI_VAL = nreq
  call MPI_Send(rank + 50, 1, MPI_INTEGER, rank, 19, fromc)
  call MPI_Wait(reqc, st)
  call check(st%MPI_TAG == 19 .and. reqc == MPI_REQUEST_NULL, 'the request C made')
  call MPI_Comm_free(fromc)

  ! And MPI_STATUS_IGNORE seen from C.
  fstatus = 0
  call mixed_ignore(MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, ok)
  call check(ok == 1, 'MPI_F_STATUS_IGNORE is Fortran''s MPI_STATUS_IGNORE')

  call MPI_Type_free(pair)
  call MPI_Group_free(grp)
  call MPI_Info_free(info)
  call MPI_Comm_free(dup)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'mixed: ok on ', nproc, ' ranks'
  call MPI_Finalize()

end program mixed
