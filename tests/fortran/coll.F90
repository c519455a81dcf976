! coll.F90: collectives from Fortran, through mpif.h or (-DUSE_MPI_MODULE)
! module mpi: Bcast, Allreduce (MPI_IN_PLACE, and a Fortran user function
! that must see MPI_INTEGER as its datatype), Reduce with MPI_2INTEGER and
! MPI_MAXLOC, Scan of DOUBLE PRECISION, Reduce_scatter_block of LOGICAL,
! Gather/Scatter/Allgather/Alltoall, and communicators (split, dup, compare,
! names, free). One buffer type and rank per routine, for mpif.h's strict check.
program coll
  use ftest
#ifdef USE_MPI_MODULE
  use mpi
  implicit none
#else
  implicit none
  include 'mpif.h'
#endif
  integer :: rank, nproc, ierr, i, root, myop, myval, res, cmp, half, hrank, nlen
  integer :: iv(4), isum(1), pair(2), best(2), dup, split
  integer, allocatable :: gat(:), every(:), a2a(:), b2a(:)
  double precision :: d(2), dscan(2)
  logical, allocatable :: lv(:)
  logical :: lres(1)
  character(len=MPI_MAX_OBJECT_NAME) :: name
  external :: abs_max

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call ftest_start('coll', rank)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
  allocate(gat(nproc), every(nproc), a2a(nproc), b2a(nproc), lv(nproc))

  ! Bcast from the last rank.
  root = nproc - 1
  iv = -1
  if (rank == root) iv = [10, 20, 30, 40]
  call MPI_BCAST(iv, 4, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call check(all(iv == [10, 20, 30, 40]), 'MPI_BCAST')

  ! Allreduce in place, and of a scalar.
  iv = [rank, 1, 2 * rank, -rank]
  call MPI_ALLREDUCE(MPI_IN_PLACE, iv, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(iv == [nproc * (nproc - 1) / 2, nproc, nproc * (nproc - 1), -nproc * (nproc - 1) / 2]), &
             'MPI_ALLREDUCE with MPI_IN_PLACE')
  myval = rank + 1
  call MPI_ALLREDUCE(myval, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(isum(1) == nproc * (nproc + 1) / 2, 'MPI_ALLREDUCE')

  ! A reduction function written in Fortran (MPI_OP_CREATE).
  call MPI_OP_CREATE(abs_max, .true., myop, ierr)
  myval = (rank + 1) * merge(-1, 1, mod(rank, 2) == 0)
  call MPI_ALLREDUCE(myval, isum, 1, MPI_INTEGER, myop, MPI_COMM_WORLD, ierr)
  call check(isum(1) == nproc * merge(-1, 1, mod(nproc - 1, 2) == 0), 'MPI_ALLREDUCE with a Fortran operation')
  call MPI_OP_FREE(myop, ierr)
  call check(myop == MPI_OP_NULL, 'MPI_OP_FREE')

  ! MAXLOC on (value, index) pairs.
  pair = [mod(rank * 7, nproc + 3), rank]
  call MPI_REDUCE(pair, best, 1, MPI_2INTEGER, MPI_MAXLOC, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    res = -1
    do i = 0, nproc - 1
      if (mod(i * 7, nproc + 3) > res) res = mod(i * 7, nproc + 3)
    end do
    call check(best(1) == res .and. mod(best(2) * 7, nproc + 3) == res, 'MPI_MAXLOC with MPI_2INTEGER')
  end if

  ! Inclusive prefix of DOUBLE PRECISION.
  d = [dble(rank), 0.5d0]
  call MPI_SCAN(d, dscan, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(abs(dscan(1) - rank * (rank + 1) / 2) < 1d-9 .and. abs(dscan(2) - 0.5d0 * (rank + 1)) < 1d-9, &
             'MPI_SCAN')

  ! LOGICAL with MPI_LOR: block j is .TRUE. only at rank j - 1.
  do i = 1, nproc
    lv(i) = i == rank + 1
  end do
  call MPI_REDUCE_SCATTER_BLOCK(lv, lres, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call check(lres(1), 'MPI_REDUCE_SCATTER_BLOCK of MPI_LOGICAL')

  ! Gather, Scatter, Allgather, Alltoall.
  gat = -1
  call MPI_GATHER(rank * 3, 1, MPI_INTEGER, gat, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call check(all(gat == [(3 * i, i = 0, nproc - 1)]), 'MPI_GATHER')
  every = -1
  call MPI_ALLGATHER(rank + 100, 1, MPI_INTEGER, every, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(every == [(i + 100, i = 0, nproc - 1)]), 'MPI_ALLGATHER')
  a2a = [(rank * 100 + i, i = 0, nproc - 1)]
  call MPI_ALLTOALL(a2a, 1, MPI_INTEGER, b2a, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(b2a == [(i * 100 + rank, i = 0, nproc - 1)]), 'MPI_ALLTOALL')
  call MPI_SCATTER(b2a, 1, MPI_INTEGER, res, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call check(res == rank * 100, 'MPI_SCATTER')

  ! Communicators: handles made in C, carried as INTEGERs.
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(rank, 2), -rank, split, ierr)
  call MPI_COMM_SIZE(split, half, ierr)
  call MPI_COMM_RANK(split, hrank, ierr)
  call check(half == (nproc + 1 - mod(rank, 2)) / 2, 'MPI_COMM_SPLIT size')
  call check(hrank == half - 1 - rank / 2, 'MPI_COMM_SPLIT key orders the ranks')
  call MPI_COMM_DUP(split, dup, ierr)
  call check(dup /= split .and. dup /= MPI_COMM_NULL, 'MPI_COMM_DUP gives another handle')
  call MPI_COMM_COMPARE(split, dup, cmp, ierr)
  call check(cmp == MPI_CONGRUENT, 'MPI_COMM_COMPARE')
  call MPI_COMM_SET_NAME(dup, '  halves  ', ierr)
  call MPI_COMM_GET_NAME(dup, name, nlen, ierr)
  call check(name == 'halves' .and. nlen == 6, 'MPI_COMM_SET_NAME and GET_NAME')
  call MPI_COMM_GET_NAME(MPI_COMM_WORLD, name, nlen, ierr)
  call check(name(1:nlen) == 'MPI_COMM_WORLD', 'the name of MPI_COMM_WORLD')
  call MPI_BARRIER(dup, ierr)
  call MPI_COMM_FREE(dup, ierr)
  call MPI_COMM_FREE(split, ierr)
  call check(dup == MPI_COMM_NULL .and. split == MPI_COMM_NULL, 'MPI_COMM_FREE')

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a)', 'coll: ok on ', nproc, ' ranks'
  call MPI_FINALIZE(ierr)

end program coll

! The value of larger magnitude, as an MPI user function: INTEGERs only.
subroutine abs_max(invec, inoutvec, len, datatype)
#ifdef USE_MPI_MODULE
  use mpi
  implicit none
#else
  implicit none
  include 'mpif.h'
#endif
  integer :: len, datatype, invec(len), inoutvec(len), i, e
  if (datatype /= MPI_INTEGER) then
    print '(a, i0)', 'coll: FAILED: the user function got datatype ', datatype
    call MPI_ABORT(MPI_COMM_WORLD, 1, e)
  end if
  do i = 1, len
    if (abs(invec(i)) > abs(inoutvec(i))) inoutvec(i) = invec(i)
  end do
end subroutine abs_max
