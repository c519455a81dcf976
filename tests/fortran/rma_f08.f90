! rma_f08.f90: one-sided communication through module mpi_f08: a window from
! MPI_Win_allocate (its memory a TYPE(C_PTR)) under fence, one over a
! Fortran array (MPI_Win_create) under lock_all with accumulate and
! fetch-and-op, a window attribute, and an error returned in ierror with
! MPI_ERRORS_RETURN on the window (MPI_ERR_RMA_RANGE).
program rma_f08
  use mpi_f08
  use ftest
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer, parameter :: k = 8
  integer :: me, n, dst, src, i, ierr
  logical :: flag
  integer(kind=MPI_ADDRESS_KIND) :: bytes, disp, attr
  integer(kind=8), target :: arr(k)
  integer(kind=8), pointer :: mem(:)
  integer(kind=8) :: out(k), one, old
  type(c_ptr) :: base
  type(MPI_Win) :: win

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, n)
  call ftest_start('rma_f08', me)
  dst = mod(me + 1, n)
  src = mod(me + n - 1, n)

  ! MPI_Win_allocate: put k elements to the next rank under fence
  bytes = 8 * k
  call MPI_Win_allocate(bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, base, win)
  call c_f_pointer(base, mem, [k])
  mem = -1
  do i = 1, k
    out(i) = 100 * me + i
  end do
  call MPI_Win_fence(0, win)
  disp = 0
  call MPI_Put(out, k, MPI_INTEGER8, dst, disp, k, MPI_INTEGER8, win)
  call MPI_Win_fence(0, win)
  call MPI_F_sync_reg(mem)
  do i = 1, k
    call check(mem(i) == 100 * src + i, 'MPI_Put under MPI_Win_fence into MPI_Win_allocate memory')
  end do
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, attr, flag)
  call check(flag .and. attr == bytes, 'MPI_WIN_SIZE')
  call MPI_Win_free(win)
  call check(win == MPI_WIN_NULL, 'MPI_Win_free sets MPI_WIN_NULL')

  ! MPI_Win_create over a Fortran array: every rank adds to every rank's element 1
  arr = 0
  call MPI_Win_create(arr, bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_lock_all(0, win)
  one = 1
  do i = 0, n - 1
    call MPI_Accumulate(one, 1, MPI_INTEGER8, i, disp, 1, MPI_INTEGER8, MPI_SUM, win)
    call MPI_Fetch_and_op(one, old, MPI_INTEGER8, i, disp + 1, MPI_SUM, win)
    call check(old >= 0 .and. old < n, 'MPI_Fetch_and_op ticket')
  end do
  call MPI_Win_flush_all(win)
  call MPI_Win_unlock_all(win)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_F_sync_reg(arr)
  call check(arr(1) == n .and. arr(2) == n, 'MPI_Accumulate and MPI_Fetch_and_op from every rank')

  ! an error returned, not fatal: outside the target's window
  call MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN)
  call MPI_Win_lock(MPI_LOCK_SHARED, dst, 0, win)
  disp = k
  call MPI_Put(out, 1, MPI_INTEGER8, dst, disp, 1, MPI_INTEGER8, win, ierr)
  call check(ierr == MPI_ERR_RMA_RANGE, 'MPI_Put outside the window gives MPI_ERR_RMA_RANGE in ierror')
  call MPI_Win_unlock(dst, win)
  call MPI_Win_free(win)
  call MPI_Finalize()
end program rma_f08
