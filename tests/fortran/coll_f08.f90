! coll_f08.f90: collectives through module mpi_f08: the checks of coll.F90,
! plus DOUBLE COMPLEX sums and LOGICAL MPI_LAND through MPI_Allreduce, a user
! function with the standard's TYPE(C_PTR) interface, and == on handles.
module coll_f08_ops
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
  use mpi_f08
  implicit none
contains
  ! The value of larger magnitude (MPI_User_function): INTEGERs only.
  subroutine abs_max(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    integer :: i
    if (datatype /= MPI_INTEGER) then
      print '(a, i0)', 'coll_f08: FAILED: the user function got datatype ', datatype%MPI_VAL
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    do i = 1, len
      if (abs(a(i)) > abs(b(i))) b(i) = a(i)
    end do
  end subroutine abs_max
end module coll_f08_ops

program coll_f08
  use ftest
  use mpi_f08
  use coll_f08_ops
  implicit none
  integer :: rank, nproc, i, root, myval, res, cmp, half, hrank, nlen
  integer :: iv(4), isum, pair(2), best(2)
  integer, allocatable :: gat(:), every(:), a2a(:), b2a(:)
  double precision :: d(2), dscan(2)
  double complex :: z, zsum
  logical :: l, land
  type(MPI_Op) :: myop
  type(MPI_Comm) :: dup, split
  character(len=MPI_MAX_OBJECT_NAME) :: name

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call ftest_start('coll_f08', rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  allocate(gat(nproc), every(nproc), a2a(nproc), b2a(nproc))

  root = nproc - 1
  iv = -1
  if (rank == root) iv = [10, 20, 30, 40]
  call MPI_Bcast(iv, 4, MPI_INTEGER, root, MPI_COMM_WORLD)
  call check(all(iv == [10, 20, 30, 40]), 'MPI_Bcast')

  iv = [rank, 1, 2 * rank, -rank]
  call MPI_Allreduce(MPI_IN_PLACE, iv, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(all(iv == [nproc * (nproc - 1) / 2, nproc, nproc * (nproc - 1), -nproc * (nproc - 1) / 2]), &
             'MPI_Allreduce with MPI_IN_PLACE')
  call MPI_Allreduce(rank + 1, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(isum == nproc * (nproc + 1) / 2, 'MPI_Allreduce')
  z = cmplx(rank, -2 * rank, kind(z))
  call MPI_Allreduce(z, zsum, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD)
  call check(abs(zsum - cmplx(nproc * (nproc - 1) / 2, -nproc * (nproc - 1), kind(z))) < 1d-9, &
             'MPI_Allreduce of MPI_DOUBLE_COMPLEX')
  l = rank /= nproc - 1 .or. nproc == 1
  call MPI_Allreduce(l, land, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
  call check(land .eqv. (nproc == 1), 'MPI_Allreduce of MPI_LOGICAL with MPI_LAND')

  call MPI_Op_create(abs_max, .true., myop)
  myval = (rank + 1) * merge(-1, 1, mod(rank, 2) == 0)
  call MPI_Allreduce(myval, isum, 1, MPI_INTEGER, myop, MPI_COMM_WORLD)
  call check(isum == nproc * merge(-1, 1, mod(nproc - 1, 2) == 0), 'MPI_Allreduce with a Fortran operation')
  call MPI_Op_free(myop)
  call check(myop == MPI_OP_NULL, 'MPI_Op_free')

  pair = [mod(rank * 7, nproc + 3), rank]
  call MPI_Reduce(pair, best, 1, MPI_2INTEGER, MPI_MAXLOC, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    res = -1
    do i = 0, nproc - 1
      if (mod(i * 7, nproc + 3) > res) res = mod(i * 7, nproc + 3)
    end do
    call check(best(1) == res .and. mod(best(2) * 7, nproc + 3) == res, 'MPI_MAXLOC with MPI_2INTEGER')
  end if

  d = [dble(rank), 0.5d0]
  call MPI_Scan(d, dscan, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call check(abs(dscan(1) - rank * (rank + 1) / 2) < 1d-9 .and. abs(dscan(2) - 0.5d0 * (rank + 1)) < 1d-9, &
             'MPI_Scan')

  gat = -1
  call MPI_Gather(rank * 3, 1, MPI_INTEGER, gat, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) call check(all(gat == [(3 * i, i = 0, nproc - 1)]), 'MPI_Gather')
  every = -1
  call MPI_Allgather(rank + 100, 1, MPI_INTEGER, every, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call check(all(every == [(i + 100, i = 0, nproc - 1)]), 'MPI_Allgather')
  a2a = [(rank * 100 + i, i = 0, nproc - 1)]
  call MPI_Alltoall(a2a, 1, MPI_INTEGER, b2a, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call check(all(b2a == [(i * 100 + rank, i = 0, nproc - 1)]), 'MPI_Alltoall')
  call MPI_Scatter(b2a, 1, MPI_INTEGER, res, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(res == rank * 100, 'MPI_Scatter')

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, split)
  call MPI_Comm_size(split, half)
  call MPI_Comm_rank(split, hrank)
  call check(half == (nproc + 1 - mod(rank, 2)) / 2, 'MPI_Comm_split size')
  call check(hrank == half - 1 - rank / 2, 'MPI_Comm_split key orders the ranks')
  call MPI_Comm_dup(split, dup)
  call check(dup /= split .and. .not. (dup == MPI_COMM_NULL), 'MPI_Comm_dup gives another handle')
  call MPI_Comm_compare(split, dup, cmp)
  call check(cmp == MPI_CONGRUENT, 'MPI_Comm_compare')
  call MPI_Comm_set_name(dup, '  halves  ')
  call MPI_Comm_get_name(dup, name, nlen)
  call check(name == 'halves' .and. nlen == 6, 'MPI_Comm_set_name and get_name')
  call MPI_Barrier(dup)
  call MPI_Comm_free(dup)
  call MPI_Comm_free(split)
  call check(dup == MPI_COMM_NULL .and. split == MPI_COMM_NULL, 'MPI_Comm_free')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'coll_f08: ok on ', nproc, ' ranks'
  call MPI_Finalize()

end program coll_f08
