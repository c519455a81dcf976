! legacy.f90: what old mpif.h code does, and gfortran 10 rejects unless told
! otherwise (smfort does): one routine called with buffers of several types
! and ranks; MPI_IN_PLACE beside arrays.
program legacy
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, iv(2)
  double precision :: d
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  iv = rank
  d = rank
  call MPI_ALLREDUCE(MPI_IN_PLACE, iv, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_ALLREDUCE(MPI_IN_PLACE, d, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (nint(d) /= iv(1)) call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  if (rank == 0) print '(a, i0)', 'legacy: sum ', iv(1)
  call MPI_FINALIZE(ierr)
end program legacy
