! darray_f08.f90: MPI_Type_create_darray (Fortran order, block x cyclic(2)
! over the process grid MPI_Dims_create gives) against a reference computed
! here, and MPI_Pack_external/Unpack_external/Pack_external_size of default
! INTEGERs and DOUBLE PRECISION, through module mpi_f08.
program darray_f08
  use ftest
  use mpi_f08
  implicit none
  integer, parameter :: n1 = 7, n2 = 10
  integer :: rank, nproc, i, j, k, n, blk1, sz
  integer :: gsizes(2), distribs(2), dargs(2), psizes(2), coord(2)
  integer :: g(n1, n2), loc(n1 * n2), want(n1 * n2)
  type(MPI_Datatype) :: dt
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent, pos, xsize
  character :: buf(16)
  integer :: iv(2), ib(2)
  double precision :: dv(3)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call ftest_start('darray_f08', rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)

  gsizes = [n1, n2]
  distribs = [MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC]
  dargs = [MPI_DISTRIBUTE_DFLT_DARG, 2]
  psizes = 0
  call MPI_Dims_create(nproc, 2, psizes)
  call MPI_Type_create_darray(nproc, rank, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_FORTRAN, &
                              MPI_INTEGER, dt)
  call MPI_Type_commit(dt)
  call MPI_Type_get_extent(dt, lb, extent)
  call check(lb == 0 .and. extent == n1 * n2 * 4, 'darray extent')
  ! the process grid is row-major: the last dimension varies fastest
  coord(2) = mod(rank, psizes(2))
  coord(1) = rank / psizes(2)
  blk1 = (n1 + psizes(1) - 1) / psizes(1)
  n = 0
  do j = 1, n2
    do i = 1, n1
      g(i, j) = i + n1 * (j - 1)
      if ((i - 1) / blk1 == coord(1) .and. mod((j - 1) / 2, psizes(2)) == coord(2)) then
        n = n + 1
        want(n) = g(i, j)
      end if
    end do
  end do
  call MPI_Type_size(dt, sz)
  call check(sz == n * 4, 'darray size')
  loc = -1
  call MPI_Sendrecv(g, 1, dt, 0, 0, loc, n1 * n2, MPI_INTEGER, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE)
  do k = 1, n
    call check(loc(k) == want(k), 'darray element in array order')
  end do
  call check(all(loc(n + 1:) == -1), 'nothing past the local elements')
  call MPI_Type_free(dt)

  ! external32: big-endian 4-byte INTEGERs
  iv = [1, -2]
  pos = 0
  call MPI_Pack_external('external32', iv, 2, MPI_INTEGER, buf, 16_MPI_ADDRESS_KIND, pos)
  call check(pos == 8, 'MPI_Pack_external position')
  call check(all(ichar(buf(1:8)) == [0, 0, 0, 1, 255, 255, 255, 254]), 'MPI_Pack_external bytes')
  pos = 0
  ib = 0
  call MPI_Unpack_external('external32', buf, 8_MPI_ADDRESS_KIND, pos, ib, 2, MPI_INTEGER)
  call check(pos == 8 .and. all(ib == iv), 'MPI_Unpack_external')
  call MPI_Pack_external_size('external32', 3, MPI_DOUBLE_PRECISION, xsize)
  call check(xsize == 24, 'MPI_Pack_external_size')
  dv = [1d0, 2d0, 3d0]
  pos = 0
  call MPI_Pack_external('external32', dv, 1, MPI_DOUBLE_PRECISION, buf, 16_MPI_ADDRESS_KIND, pos)
  call check(pos == 8 .and. ichar(buf(1)) == 63 .and. ichar(buf(2)) == 240, 'MPI_Pack_external of 1d0')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'darray_f08: ok on ', nproc, ' ranks'
  call MPI_Finalize()

end program darray_f08
