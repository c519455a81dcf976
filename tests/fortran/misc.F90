! misc.F90: through mpif.h or (-DUSE_MPI_MODULE) module mpi: the MPI-1
! attribute routines these forms keep (MPI_ATTR_PUT/GET with a Fortran MPI-1
! copy function and INTEGER values), attributes with
! INTEGER(KIND=MPI_ADDRESS_KIND), a Fortran error handler, a struct of
! relative displacements, MPI_ALLOC_MEM's address (and its TYPE(C_PTR) form
! with the module), Testsome's indices and a cancelled receive, info
! strings, MPI_AINT_ADD/DIFF, MPI_SIZEOF (module); the MPI-1 type and error
! handler routines MPI-3.0 removed (INTEGER extents and strides), and a
! communicator's info hints.
program misc
  use ftest
#ifdef USE_MPI_MODULE
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
  use mpi
  implicit none
  type(c_ptr) :: cmem
  integer, pointer :: ip(:)
  integer :: sz
#else
  implicit none
  include 'mpif.h'
#endif
  integer :: rank, nproc, ierr, keyval, attr, dup, errh, got, stype, outcount
  integer :: blens(2), types(2), indices(2), reqs(2), statuses(MPI_STATUS_SIZE, 2), ibuf(2)
  integer(kind=MPI_ADDRESS_KIND) :: val, base, a1, disps(2), lb, ext
  logical :: flag
  double precision :: dv(4)
  character(len=MPI_MAX_INFO_VAL) :: value
  integer :: info, iext, ilb, iub, htype
  external :: copy1, errh1
  integer :: handled, hcode
  common /misc_cb/ handled, hcode

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call ftest_start('misc', rank)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
  handled = 0

  ! MPI-1 attributes: INTEGER values, a Fortran copy function (MPI_DUP_FN's kind).
  call MPI_KEYVAL_CREATE(copy1, MPI_NULL_DELETE_FN, keyval, 5, ierr)
  call MPI_ATTR_PUT(MPI_COMM_WORLD, keyval, 300, ierr)
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  call MPI_ATTR_GET(dup, keyval, attr, flag, ierr)
  call check(flag .and. attr == 305, 'MPI-1 copy function through MPI_COMM_DUP')
  call MPI_ATTR_GET(MPI_COMM_WORLD, MPI_TAG_UB, attr, flag, ierr)
  call check(flag .and. attr >= 32767, 'MPI_TAG_UB through MPI_ATTR_GET')
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  call check(flag .and. val == attr .and. val <= huge(0), 'MPI_TAG_UB through MPI_COMM_GET_ATTR (its value)')
  call MPI_ATTR_DELETE(dup, keyval, ierr)
  call MPI_KEYVAL_FREE(keyval, ierr)
  call check(keyval == MPI_KEYVAL_INVALID, 'MPI_KEYVAL_FREE')

  ! A Fortran error handler.
  call MPI_COMM_CREATE_ERRHANDLER(errh1, errh, ierr)
  call MPI_COMM_SET_ERRHANDLER(dup, errh, ierr)
  call MPI_COMM_GET_ERRHANDLER(dup, got, ierr)
  call check(got == errh, 'MPI_COMM_GET_ERRHANDLER')
  call MPI_COMM_CALL_ERRHANDLER(dup, MPI_ERR_ARG, ierr)
  call check(handled == 1 .and. hcode == MPI_ERR_ARG, 'the Fortran error handler')
  call MPI_ERRHANDLER_FREE(got, ierr)
  call MPI_ERRHANDLER_FREE(errh, ierr)
  call MPI_COMM_FREE(dup, ierr)

  ! A struct of relative displacements: elements 1 and 4.
  blens = [1, 1]
  disps = [0, 24]
  types = [MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION]
  call MPI_TYPE_CREATE_STRUCT(2, blens, disps, types, stype, ierr)
  call MPI_TYPE_COMMIT(stype, ierr)
  call MPI_TYPE_GET_EXTENT(stype, lb, ext, ierr)
  call check(lb == 0 .and. ext == 32, 'MPI_TYPE_GET_EXTENT')
  dv = [1d0, 2d0, 3d0, 4d0] + rank
  call MPI_SENDRECV_REPLACE(dv, 1, stype, rank, 1, rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(nint(dv(1)) == rank + 1 .and. nint(dv(4)) == rank + 4, 'MPI_TYPE_STRUCT exchange')
  call MPI_TYPE_FREE(stype, ierr)

  ! The MPI-1 names: an hvector of INTEGER stride, its bounds; a handler.
  call MPI_TYPE_HVECTOR(2, 1, 24, MPI_DOUBLE_PRECISION, htype, ierr)
  call MPI_TYPE_COMMIT(htype, ierr)
  call MPI_TYPE_EXTENT(htype, iext, ierr)
  call MPI_TYPE_LB(htype, ilb, ierr)
  call MPI_TYPE_UB(htype, iub, ierr)
  call check(iext == 32 .and. ilb == 0 .and. iub == 32, 'MPI_TYPE_EXTENT, MPI_TYPE_LB, MPI_TYPE_UB')
  dv = [1d0, 2d0, 3d0, 4d0] + rank
  call MPI_SENDRECV_REPLACE(dv, 1, htype, rank, 2, rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(nint(dv(1)) == rank + 1 .and. nint(dv(4)) == rank + 4, 'MPI_TYPE_HVECTOR exchange')
  call MPI_TYPE_FREE(htype, ierr)
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  call MPI_ERRHANDLER_CREATE(errh1, errh, ierr)
  call MPI_ERRHANDLER_SET(dup, errh, ierr)
  call MPI_ERRHANDLER_GET(dup, got, ierr)
  call check(got == errh, 'MPI_ERRHANDLER_GET')
  call MPI_COMM_CALL_ERRHANDLER(dup, MPI_ERR_COUNT, ierr)
  call check(handled == 2 .and. hcode == MPI_ERR_COUNT, 'the handler of MPI_ERRHANDLER_CREATE')
  call MPI_ERRHANDLER_FREE(got, ierr)
  call MPI_ERRHANDLER_FREE(errh, ierr)

  ! A communicator's hints, passed on by MPI_COMM_DUP.
  call MPI_INFO_CREATE(info, ierr)
  call MPI_INFO_SET(info, 'hint', 'yes', ierr)
  call MPI_COMM_SET_INFO(dup, info, ierr)
  call MPI_INFO_FREE(info, ierr)
  call MPI_COMM_DUP(dup, got, ierr)
  call MPI_COMM_GET_INFO(got, info, ierr)
  call MPI_INFO_GET(info, 'hint', MPI_MAX_INFO_VAL, value, flag, ierr)
  call check(flag .and. value == 'yes', 'MPI_COMM_SET_INFO, MPI_COMM_GET_INFO of a dup')
  call MPI_INFO_FREE(info, ierr)
  call MPI_COMM_FREE(got, ierr)
  call MPI_COMM_FREE(dup, ierr)

  ! MPI_ALLOC_MEM gives an address.
  call MPI_ALLOC_MEM(64_MPI_ADDRESS_KIND, MPI_INFO_NULL, base, ierr)
  call check(ierr == MPI_SUCCESS .and. base /= 0, 'MPI_ALLOC_MEM address')
#ifdef USE_MPI_MODULE
  call MPI_ALLOC_MEM(40_MPI_ADDRESS_KIND, MPI_INFO_NULL, cmem, ierr)
  call c_f_pointer(cmem, ip, [10])
  ip = 3
  call MPI_FREE_MEM(ip, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_ALLOC_MEM into a TYPE(C_PTR), MPI_FREE_MEM')
  call MPI_SIZEOF(val, sz, ierr)
  call check(sz == MPI_ADDRESS_KIND, 'MPI_SIZEOF')
#endif

  ! Testsome's indices count from 1.
  call MPI_IRECV(ibuf, 1, MPI_INTEGER, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_IRECV(ibuf, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_TESTSOME(2, reqs, outcount, indices, statuses, ierr)
  call check(outcount == 1 .and. indices(1) == 2, 'MPI_TESTSOME index')
  call MPI_CANCEL(reqs(1), ierr)
  call MPI_WAIT(reqs(1), statuses, ierr)
  call MPI_TEST_CANCELLED(statuses, flag, ierr)
  call check(flag, 'a cancelled receive')

  call MPI_INFO_CREATE(info, ierr)
  call MPI_INFO_SET(info, 'key', ' a value ', ierr)
  call MPI_INFO_GET(info, 'key', MPI_MAX_INFO_VAL, value, flag, ierr)
  call check(flag .and. value == 'a value', 'MPI_INFO_GET')
  call MPI_INFO_FREE(info, ierr)

  call MPI_GET_ADDRESS(dv, a1, ierr)
  call check(MPI_AINT_DIFF(MPI_AINT_ADD(a1, 8_MPI_ADDRESS_KIND), a1) == 8, 'MPI_AINT_ADD, MPI_AINT_DIFF')
  call check(MPI_WTIME() > 0, 'MPI_WTIME')

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a)', 'misc: ok on ', nproc, ' ranks'
  call MPI_FINALIZE(ierr)

end program misc

! MPI-1 copy function: INTEGER values; adds the extra state.
subroutine copy1(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierr)
#ifdef USE_MPI_MODULE
  use mpi
  implicit none
#else
  implicit none
  include 'mpif.h'
#endif
  integer :: oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, ierr
  logical :: flag
  attribute_val_out = attribute_val_in + extra_state
  flag = oldcomm /= MPI_COMM_NULL .and. keyval /= MPI_KEYVAL_INVALID
  ierr = MPI_SUCCESS
end subroutine copy1

! Counts its calls and keeps the code (the program checks both).
subroutine errh1(comm, code)
#ifdef USE_MPI_MODULE
  use mpi
  implicit none
#else
  implicit none
  include 'mpif.h'
#endif
  integer :: comm, code
  integer :: handled, hcode
  common /misc_cb/ handled, hcode
  if (comm /= MPI_COMM_NULL) handled = handled + 1
  hcode = code
end subroutine errh1
