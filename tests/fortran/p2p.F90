! p2p.F90: point-to-point from Fortran, through mpif.h or (-DUSE_MPI_MODULE)
! module mpi: a ring of Isend/Recv with its status, Irecv/Isend/Waitall with
! an array of statuses, Sendrecv with MPI_STATUS_IGNORE, Probe and Get_count,
! Waitany's 1-based index, persistent requests, and MPI_ERRORS_RETURN giving
! the error code in ierror. Each routine sees one buffer type and rank in
! this file, so that gfortran checks mpif.h's calls strictly.
program p2p
  use ftest
#ifdef USE_MPI_MODULE
  use mpi
  implicit none
#else
  implicit none
  include 'mpif.h'
#endif
  integer :: rank, nproc, ierr, next, prev, n, i, idx, cls, slen, cnt
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), reqs(2), req, preq(2)
  double precision :: sbuf(100), rbuf(100)
  ! asynchronous: the persistent and nonblocking requests below read ibuf and
  ! fill ibuf2 inside MPI_WAITALL, which does not take them as arguments; without
  ! it gfortran -O3 keeps ibuf2 in registers across the wait (failed on 3+ ranks)
  integer, asynchronous :: ibuf(10), ibuf2(10)
  character(len=MPI_MAX_ERROR_STRING) :: msg
  logical :: flag

  call MPI_INIT(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_INIT ierror')
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call ftest_start('p2p', rank)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
  next = mod(rank + 1, nproc)
  prev = mod(rank + nproc - 1, nproc)

  ! A ring (synchronous sends): the status names the sender, the tag and the count.
  do i = 1, 100
    sbuf(i) = rank * 1000 + i
  end do
  rbuf = -1
  call MPI_ISSEND(sbuf, 100, MPI_DOUBLE_PRECISION, next, 7, MPI_COMM_WORLD, req, ierr)
  call MPI_RECV(rbuf, 100, MPI_DOUBLE_PRECISION, prev, 7, MPI_COMM_WORLD, status, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_RECV ierror')
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
  call check(req == MPI_REQUEST_NULL, 'MPI_WAIT leaves MPI_REQUEST_NULL')
  call check(status(MPI_SOURCE) == prev, 'status(MPI_SOURCE)')
  call check(status(MPI_TAG) == 7, 'status(MPI_TAG)')
  call MPI_GET_COUNT(status, MPI_DOUBLE_PRECISION, n, ierr)
  call check(n == 100, 'MPI_GET_COUNT')
  do i = 1, 100
    call check(nint(rbuf(i)) == prev * 1000 + i, 'ring data')
  end do

  ! Irecv + Isend + Waitall with statuses (the array's second column).
  ibuf = rank
  ibuf2 = -1
  call MPI_IRECV(ibuf2, 10, MPI_INTEGER, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_ISEND(ibuf, 10, MPI_INTEGER, next, 3, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_WAITALL(2, reqs, statuses, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_WAITALL ierror')
  call check(all(reqs == MPI_REQUEST_NULL), 'MPI_WAITALL leaves MPI_REQUEST_NULL')
  call check(statuses(MPI_SOURCE, 2) == prev .and. statuses(MPI_TAG, 2) == 3, 'statuses(:, 2)')
  call check(all(ibuf2 == prev), 'Waitall data')

  ! Sendrecv, statuses ignored; Waitall with MPI_STATUSES_IGNORE.
  rbuf = 0
  call MPI_SENDRECV(sbuf, 5, MPI_DOUBLE_PRECISION, next, 9, rbuf, 5, MPI_DOUBLE_PRECISION, prev, 9, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(nint(rbuf(5)) == prev * 1000 + 5, 'MPI_SENDRECV data')
  call MPI_IRECV(ibuf2, 10, MPI_INTEGER, prev, 4, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_ISEND(ibuf, 10, MPI_INTEGER, next, 4, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_WAITALL with MPI_STATUSES_IGNORE')

  ! Probe any source and tag, then receive what it found.
  call MPI_ISEND(ibuf, 3, MPI_INTEGER, next, 11, MPI_COMM_WORLD, req, ierr)
  call MPI_PROBE(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
  call check(status(MPI_SOURCE) == prev .and. status(MPI_TAG) == 11, 'MPI_PROBE status')
  call MPI_GET_COUNT(status, MPI_INTEGER, cnt, ierr)
  call check(cnt == 3, 'MPI_GET_COUNT after MPI_PROBE')
  call MPI_IRECV(ibuf2, cnt, MPI_INTEGER, status(MPI_SOURCE), status(MPI_TAG), MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_WAIT(reqs(1), status, ierr)
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)

  ! Waitany counts from 1: a receive from MPI_PROC_NULL is complete at once.
  call MPI_IRECV(ibuf2, 10, MPI_INTEGER, prev, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_IRECV(ibuf2, 10, MPI_INTEGER, MPI_PROC_NULL, 5, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_WAITANY(2, reqs, idx, status, ierr)
  call check(idx == 2, 'MPI_WAITANY index of the MPI_PROC_NULL receive')
  call check(status(MPI_SOURCE) == MPI_PROC_NULL, 'status of a receive from MPI_PROC_NULL')
  call check(reqs(2) == MPI_REQUEST_NULL .and. reqs(1) /= MPI_REQUEST_NULL, 'MPI_WAITANY requests')
  call MPI_TEST(reqs(2), flag, MPI_STATUS_IGNORE, ierr)
  call check(flag, 'MPI_TEST of MPI_REQUEST_NULL gives .TRUE.')
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)   ! nothing is sent with tag 5 before every rank got here
  call MPI_ISEND(ibuf, 10, MPI_INTEGER, next, 5, MPI_COMM_WORLD, req, ierr)
  call MPI_WAITANY(2, reqs, idx, status, ierr)
  call check(idx == 1 .and. status(MPI_SOURCE) == prev, 'second MPI_WAITANY')
  call MPI_WAITANY(2, reqs, idx, status, ierr)
  call check(idx == MPI_UNDEFINED, 'MPI_WAITANY with no active request')
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)

  ! Persistent requests keep their handle across starts.
  call MPI_RECV_INIT(ibuf2, 10, MPI_INTEGER, prev, 6, MPI_COMM_WORLD, preq(2), ierr)
  call MPI_SEND_INIT(ibuf, 10, MPI_INTEGER, next, 6, MPI_COMM_WORLD, preq(1), ierr)
  do i = 1, 3
    ibuf = rank + i
    ! The buffers are not arguments of Startall/Waitall: without the
    ! registers' sync (MPI-3.1 17.1.17; MPI_ASYNC_PROTECTS_NONBLOCKING is
    ! .FALSE.) gfortran -O3 moves ibuf's stores and ibuf2's loads across them.
    call MPI_F_SYNC_REG(ibuf)
    call MPI_STARTALL(2, preq, ierr)
    call MPI_WAITALL(2, preq, statuses, ierr)
    call MPI_F_SYNC_REG(ibuf)
    call MPI_F_SYNC_REG(ibuf2)
    call check(all(ibuf2 == prev + i), 'persistent exchange')
    call check(preq(1) /= MPI_REQUEST_NULL, 'a persistent request stays')
  end do
  call MPI_REQUEST_FREE(preq(1), ierr)
  call MPI_REQUEST_FREE(preq(2), ierr)
  call check(preq(1) == MPI_REQUEST_NULL, 'MPI_REQUEST_FREE')

  ! MPI_ERRORS_RETURN: the error code comes back in ierror.
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_SEND(sbuf, 1, MPI_DOUBLE_PRECISION, nproc, 0, MPI_COMM_WORLD, ierr)
  call check(ierr /= MPI_SUCCESS, 'MPI_SEND to rank nproc fails')
  call MPI_ERROR_CLASS(ierr, cls, i)
  call check(cls == MPI_ERR_RANK, 'MPI_ERR_RANK')
  call MPI_ERROR_STRING(ierr, msg, slen, i)
  call check(slen > 0 .and. index(msg(1:slen), 'MPI_ERR_RANK') > 0, 'MPI_ERROR_STRING')
  call check(msg(slen+1:) == ' ', 'MPI_ERROR_STRING pads with blanks')
  call MPI_SEND(sbuf, 1, MPI_DOUBLE_PRECISION, 0, 0, 123456, ierr)
  call MPI_ERROR_CLASS(ierr, cls, i)
  call check(cls == MPI_ERR_COMM, 'a bad Fortran handle is MPI_ERR_COMM')
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a)', 'p2p: ok on ', nproc, ' ranks'
  call MPI_FINALIZE(ierr)

end program p2p
