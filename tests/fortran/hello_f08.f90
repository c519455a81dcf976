! hello_f08.f90: the smallest mpi_f08 program.
program hello_f08
  use mpi_f08
  implicit none
  integer :: rank, nproc, isum
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call MPI_Allreduce(rank, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  print '(a, i0, a, i0, a, i0)', 'hello from rank ', rank, ' of ', nproc, ', sum ', isum
  call MPI_Finalize()
end program hello_f08
