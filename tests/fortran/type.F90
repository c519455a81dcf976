! type.F90: derived datatypes from Fortran, through mpif.h or
! (-DUSE_MPI_MODULE) module mpi: a row of a column-major matrix as
! MPI_TYPE_VECTOR (sent into a column, and a column sent into a row), the
! same row resized to send consecutive rows, a 2x2 block as a Fortran-order
! subarray, a struct of absolute addresses sent from MPI_BOTTOM, extents in
! INTEGER(KIND=MPI_ADDRESS_KIND), envelope and contents, pack and unpack.
program dtype
  use ftest
#ifdef USE_MPI_MODULE
  use mpi
  implicit none
#else
  implicit none
  include 'mpif.h'
#endif
  integer, parameter :: n = 5, m = 4
  integer :: rank, nproc, ierr, i, j, next, prev, sz, pos
  integer :: rowtype, row1, blocktype, structtype, rstruct, ni, na, nd, comb
  integer :: ints(3), types(1), types2(2), blens(2), stypes(2), reqs(2)
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent, addrs(1), addrs2(2), disp(2)
  real :: a(n, m), b(n, m), blk(4), lin(2 * m)
  double precision :: dv(3), dw(2), rv(3), rw(2)
  integer :: pk(6), upk(6)
  character :: packbuf(100)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call ftest_start('type', rank)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
  next = mod(rank + 1, nproc)
  prev = mod(rank + nproc - 1, nproc)
  do j = 1, m
    do i = 1, n
      a(i, j) = rank * 100 + i * 10 + j
    end do
  end do

  ! A row: m elements n apart.
  call MPI_TYPE_VECTOR(m, 1, n, MPI_REAL, rowtype, ierr)
  call MPI_TYPE_COMMIT(rowtype, ierr)
  call MPI_TYPE_SIZE(rowtype, sz, ierr)
  call check(sz == m * 4, 'MPI_TYPE_SIZE of the row')
  call MPI_TYPE_GET_EXTENT(rowtype, lb, extent, ierr)
  call check(lb == 0 .and. extent == ((m - 1) * n + 1) * 4, 'MPI_TYPE_GET_EXTENT of the row')
  call MPI_TYPE_GET_ENVELOPE(rowtype, ni, na, nd, comb, ierr)
  call check(ni == 3 .and. na == 0 .and. nd == 1 .and. comb == MPI_COMBINER_VECTOR, 'MPI_TYPE_GET_ENVELOPE')
  call MPI_TYPE_GET_CONTENTS(rowtype, 3, 0, 1, ints, addrs, types, ierr)
  call check(all(ints == [m, 1, n]) .and. types(1) == MPI_REAL, 'MPI_TYPE_GET_CONTENTS')

  ! Row 2 of the previous rank's matrix into column 3; column 1 into row 4.
  b = -1
  call MPI_SENDRECV(a(2, 1), 1, rowtype, next, 1, b(1, 3), m, MPI_REAL, prev, 1, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  do j = 1, m
    call check(nint(b(j, 3)) == prev * 100 + 20 + j, 'row received as a column')
  end do
  call check(all(nint(b(m + 1:, 3)) == -1), 'nothing past the column')
  call MPI_ISEND(a(1, 1), m, MPI_REAL, next, 2, MPI_COMM_WORLD, i, ierr)
  call MPI_RECV(b(4, 1), 1, rowtype, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_WAIT(i, MPI_STATUS_IGNORE, ierr)
  do j = 1, m
    call check(nint(b(4, j)) == prev * 100 + j * 10 + 1, 'column received as a row')
  end do

  ! The row resized to one REAL: count 2 is rows 1 and 2.
  call MPI_TYPE_CREATE_RESIZED(rowtype, 0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND, row1, ierr)
  call MPI_TYPE_COMMIT(row1, ierr)
  lin = -1
  call MPI_SENDRECV(a(1, 1), 2, row1, next, 3, lin(1), 2 * m, MPI_REAL, prev, 3, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  do j = 1, m
    call check(nint(lin(j)) == prev * 100 + 10 + j .and. nint(lin(m + j)) == prev * 100 + 20 + j, 'resized rows')
  end do

  ! A 2x2 block from (2, 2), in Fortran order.
  call MPI_TYPE_CREATE_SUBARRAY(2, [n, m], [2, 2], [1, 1], MPI_ORDER_FORTRAN, MPI_REAL, blocktype, ierr)
  call MPI_TYPE_COMMIT(blocktype, ierr)
  call MPI_SENDRECV(a, 1, blocktype, next, 4, blk, 4, MPI_REAL, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(all(nint(blk) == prev * 100 + [22, 32, 23, 33]), 'subarray block')

  ! A struct of absolute addresses, sent from and received at MPI_BOTTOM.
  dv = [1d0, 2d0, 3d0] + rank
  dw = [7d0, 8d0] + rank
  rv = 0
  rw = 0
  blens = [3, 2]
  stypes = [MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION]
  call MPI_GET_ADDRESS(dv, disp(1), ierr)
  call MPI_GET_ADDRESS(dw, disp(2), ierr)
  call MPI_TYPE_CREATE_STRUCT(2, blens, disp, stypes, structtype, ierr)
  call MPI_TYPE_COMMIT(structtype, ierr)
  call MPI_GET_ADDRESS(rv, disp(1), ierr)
  call MPI_GET_ADDRESS(rw, disp(2), ierr)
  call MPI_TYPE_CREATE_STRUCT(2, blens, disp, stypes, rstruct, ierr)
  call MPI_TYPE_COMMIT(rstruct, ierr)
  ! What moves through MPI_BOTTOM is invisible to the compiler: MPI_F_SYNC_REG
  ! (MPI 3.1 §17.1.17) before the send and after the receive.
  call MPI_F_SYNC_REG(dv)
  call MPI_F_SYNC_REG(dw)
  call MPI_IRECV(MPI_BOTTOM, 1, rstruct, prev, 5, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_ISSEND(MPI_BOTTOM, 1, structtype, next, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call MPI_F_SYNC_REG(rv)
  call MPI_F_SYNC_REG(rw)
  call check(all(nint(rv) == [1, 2, 3] + prev) .and. all(nint(rw) == [7, 8] + prev), 'struct at MPI_BOTTOM')
  call MPI_TYPE_GET_CONTENTS(rstruct, 3, 2, 2, ints, addrs2, types2, ierr)
  call check(all(ints == [2, 3, 2]) .and. all(addrs2 == disp), 'MPI_TYPE_GET_CONTENTS of the struct')
  call check(all(types2 == MPI_DOUBLE_PRECISION), 'the struct''s datatypes')

  ! Pack and unpack.
  pk = [(rank + i, i = 1, 6)]
  call MPI_PACK_SIZE(6, MPI_INTEGER, MPI_COMM_WORLD, sz, ierr)
  call check(sz >= 24 .and. sz <= 100, 'MPI_PACK_SIZE')
  pos = 0
  call MPI_PACK(pk, 6, MPI_INTEGER, packbuf, 100, pos, MPI_COMM_WORLD, ierr)
  call check(pos == 24, 'MPI_PACK advances position')
  pos = 0
  upk = 0
  call MPI_UNPACK(packbuf, 100, pos, upk, 6, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(upk == pk) .and. pos == 24, 'MPI_UNPACK')

  call MPI_TYPE_FREE(rowtype, ierr)
  call MPI_TYPE_FREE(row1, ierr)
  call MPI_TYPE_FREE(blocktype, ierr)
  call MPI_TYPE_FREE(structtype, ierr)
  call MPI_TYPE_FREE(rstruct, ierr)
  call check(rowtype == MPI_DATATYPE_NULL .and. rstruct == MPI_DATATYPE_NULL, 'MPI_TYPE_FREE')

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a)', 'type: ok on ', nproc, ' ranks'
  call MPI_FINALIZE(ierr)

end program dtype
