! p2p_f08.f90: point-to-point through module mpi_f08 (typed handles, the
! MPI_Status type, optional ierror): the checks of p2p.F90.
program p2p_f08
  use ftest
  use mpi_f08
  implicit none
  integer :: rank, nproc, ierr, next, prev, n, i, idx, cls, slen, cnt
  type(MPI_Status) :: status, statuses(2)
  type(MPI_Request) :: reqs(2), req, preq(2)
  type(MPI_Comm) :: bad
  double precision :: sbuf(100), rbuf(100)
  ! asynchronous: the persistent and nonblocking requests below read ibuf and
  ! fill ibuf2 inside MPI_WAITALL, which does not take them as arguments; without
  ! it gfortran -O3 keeps ibuf2 in registers across the wait (failed on 3+ ranks)
  integer, asynchronous :: ibuf(10), ibuf2(10)
  character(len=MPI_MAX_ERROR_STRING) :: msg
  logical :: flag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call ftest_start('p2p_f08', rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call check(ierr == MPI_SUCCESS, 'ierror present')
  next = mod(rank + 1, nproc)
  prev = mod(rank + nproc - 1, nproc)

  do i = 1, 100
    sbuf(i) = rank * 1000 + i
  end do
  rbuf = -1
  call MPI_Issend(sbuf, 100, MPI_DOUBLE_PRECISION, next, 7, MPI_COMM_WORLD, req)
  call MPI_Recv(rbuf, 100, MPI_DOUBLE_PRECISION, prev, 7, MPI_COMM_WORLD, status)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(req == MPI_REQUEST_NULL, 'MPI_Wait leaves MPI_REQUEST_NULL')
  call check(status%MPI_SOURCE == prev .and. status%MPI_TAG == 7, 'status%MPI_SOURCE, %MPI_TAG')
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, n)
  call check(n == 100, 'MPI_Get_count')
  do i = 1, 100
    call check(nint(rbuf(i)) == prev * 1000 + i, 'ring data')
  end do

  ibuf = rank
  ibuf2 = -1
  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, reqs(2))
  call MPI_Isend(ibuf, 10, MPI_INTEGER, next, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Waitall(2, reqs, statuses)
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'MPI_Waitall requests')
  call check(statuses(2)%MPI_SOURCE == prev .and. statuses(2)%MPI_TAG == 3, 'statuses(2)')
  call check(all(ibuf2 == prev), 'Waitall data')

  rbuf = 0
  call MPI_Sendrecv(sbuf, 5, MPI_DOUBLE_PRECISION, next, 9, rbuf, 5, MPI_DOUBLE_PRECISION, prev, 9, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(nint(rbuf(5)) == prev * 1000 + 5, 'MPI_Sendrecv data')
  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, prev, 4, MPI_COMM_WORLD, reqs(2))
  call MPI_Isend(ibuf, 10, MPI_INTEGER, next, 4, MPI_COMM_WORLD, reqs(1))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)

  ! Keyword arguments, as the standard names them.
  call MPI_Isend(ibuf, 3, MPI_INTEGER, dest=next, tag=11, comm=MPI_COMM_WORLD, request=req)
  call MPI_Probe(source=MPI_ANY_SOURCE, tag=MPI_ANY_TAG, comm=MPI_COMM_WORLD, status=status)
  call check(status%MPI_SOURCE == prev .and. status%MPI_TAG == 11, 'MPI_Probe status')
  call MPI_Get_count(status, MPI_INTEGER, cnt)
  call check(cnt == 3, 'MPI_Get_count after MPI_Probe')
  call MPI_Recv(ibuf2, cnt, MPI_INTEGER, status%MPI_SOURCE, status%MPI_TAG, MPI_COMM_WORLD, status)
  call MPI_Wait(req, MPI_STATUS_IGNORE)

  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, prev, 5, MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, MPI_PROC_NULL, 5, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitany(2, reqs, idx, status)
  call check(idx == 2, 'MPI_Waitany index of the MPI_PROC_NULL receive')
  call check(status%MPI_SOURCE == MPI_PROC_NULL, 'status of a receive from MPI_PROC_NULL')
  call check(reqs(2) == MPI_REQUEST_NULL .and. reqs(1) /= MPI_REQUEST_NULL, 'MPI_Waitany requests')
  call MPI_Test(reqs(2), flag, MPI_STATUS_IGNORE)
  call check(flag, 'MPI_Test of MPI_REQUEST_NULL gives .TRUE.')
  call MPI_Barrier(MPI_COMM_WORLD)   ! nothing is sent with tag 5 before every rank got here
  call MPI_Isend(ibuf, 10, MPI_INTEGER, next, 5, MPI_COMM_WORLD, req)
  call MPI_Waitany(2, reqs, idx, status)
  call check(idx == 1 .and. status%MPI_SOURCE == prev, 'second MPI_Waitany')
  call MPI_Waitany(2, reqs, idx, status)
  call check(idx == MPI_UNDEFINED, 'MPI_Waitany with no active request')
  call MPI_Wait(req, MPI_STATUS_IGNORE)

  call MPI_Recv_init(ibuf2, 10, MPI_INTEGER, prev, 6, MPI_COMM_WORLD, preq(2))
  call MPI_Send_init(ibuf, 10, MPI_INTEGER, next, 6, MPI_COMM_WORLD, preq(1))
  do i = 1, 3
    ibuf = rank + i
    ! The buffers are not arguments of Startall/Waitall: without the
    ! registers' sync (MPI-3.1 17.1.17; MPI_ASYNC_PROTECTS_NONBLOCKING is
    ! .FALSE.) gfortran -O3 moves ibuf's stores and ibuf2's loads across them.
    call MPI_F_SYNC_REG(ibuf)
    call MPI_Startall(2, preq)
    call MPI_Waitall(2, preq, statuses)
    call MPI_F_SYNC_REG(ibuf)
    call MPI_F_SYNC_REG(ibuf2)
    call check(all(ibuf2 == prev + i), 'persistent exchange')
    call check(preq(1) /= MPI_REQUEST_NULL, 'a persistent request stays')
  end do
  call MPI_Request_free(preq(1))
  call MPI_Request_free(preq(2))
  call check(preq(1) == MPI_REQUEST_NULL, 'MPI_Request_free')

  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(sbuf, 1, MPI_DOUBLE_PRECISION, nproc, 0, MPI_COMM_WORLD, ierr)
  call check(ierr /= MPI_SUCCESS, 'MPI_Send to rank nproc fails')
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_RANK, 'MPI_ERR_RANK')
  call MPI_Error_string(ierr, msg, slen)
  call check(slen > 0 .and. index(msg(1:slen), 'MPI_ERR_RANK') > 0, 'MPI_Error_string')
  bad%MPI_VAL = 123456
  call MPI_Send(sbuf, 1, MPI_DOUBLE_PRECISION, 0, 0, bad, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_COMM, 'a bad Fortran handle is MPI_ERR_COMM')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'p2p_f08: ok on ', nproc, ' ranks'
  call MPI_Finalize()

end program p2p_f08
