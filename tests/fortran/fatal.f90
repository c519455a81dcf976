! fatal.f90: an error under MPI_ERRORS_ARE_FATAL from Fortran ends the job
! with the C layer's report, naming the routine (tests/fortran/CMakeLists.txt
! checks the words).
program fatal
  use mpi_f08
  implicit none
  integer :: nproc, rank, x
  call MPI_Init()
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  x = 1
  if (rank == 0) call MPI_Send(x, 1, MPI_INTEGER, nproc, 0, MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
end program fatal
