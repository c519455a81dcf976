! type_f08.f90: derived datatypes through module mpi_f08: the checks of
! type.F90, with a struct that mixes INTEGER and DOUBLE PRECISION.
program type_f08
  use ftest
  use mpi_f08
  implicit none
  integer, parameter :: n = 5, m = 4
  integer :: rank, nproc, i, j, next, prev, sz, pos, ni, na, nd, comb
  type(MPI_Datatype) :: rowtype, row1, blocktype, structtype, rstruct, types(1), types2(2), stypes(2)
  type(MPI_Request) :: req, reqs(2)
  integer :: ints(3), blens(2)
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent, addrs(1), addrs2(2), disp(2)
  real :: a(n, m), b(n, m), blk(4), lin(2 * m)
  integer :: iv(3), riv(3)
  double precision :: dw(2), rw(2)
  integer :: pk(6), upk(6)
  character :: packbuf(100)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call ftest_start('type_f08', rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  next = mod(rank + 1, nproc)
  prev = mod(rank + nproc - 1, nproc)
  do j = 1, m
    do i = 1, n
      a(i, j) = rank * 100 + i * 10 + j
    end do
  end do

  call MPI_Type_vector(m, 1, n, MPI_REAL, rowtype)
  call MPI_Type_commit(rowtype)
  call MPI_Type_size(rowtype, sz)
  call check(sz == m * 4, 'MPI_Type_size of the row')
  call MPI_Type_get_extent(rowtype, lb, extent)
  call check(lb == 0 .and. extent == ((m - 1) * n + 1) * 4, 'MPI_Type_get_extent of the row')
  call MPI_Type_get_envelope(rowtype, ni, na, nd, comb)
  call check(ni == 3 .and. na == 0 .and. nd == 1 .and. comb == MPI_COMBINER_VECTOR, 'MPI_Type_get_envelope')
  call MPI_Type_get_contents(rowtype, 3, 0, 1, ints, addrs, types)
  call check(all(ints == [m, 1, n]) .and. types(1) == MPI_REAL, 'MPI_Type_get_contents')

  b = -1
  call MPI_Sendrecv(a(2, 1), 1, rowtype, next, 1, b(1, 3), m, MPI_REAL, prev, 1, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  do j = 1, m
    call check(nint(b(j, 3)) == prev * 100 + 20 + j, 'row received as a column')
  end do
  call check(all(nint(b(m + 1:, 3)) == -1), 'nothing past the column')
  call MPI_Isend(a(1, 1), m, MPI_REAL, next, 2, MPI_COMM_WORLD, req)
  call MPI_Recv(b(4, 1), 1, rowtype, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  do j = 1, m
    call check(nint(b(4, j)) == prev * 100 + j * 10 + 1, 'column received as a row')
  end do

  call MPI_Type_create_resized(rowtype, 0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND, row1)
  call MPI_Type_commit(row1)
  lin = -1
  call MPI_Sendrecv(a, 2, row1, next, 3, lin, 2 * m, MPI_REAL, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  do j = 1, m
    call check(nint(lin(j)) == prev * 100 + 10 + j .and. nint(lin(m + j)) == prev * 100 + 20 + j, 'resized rows')
  end do

  call MPI_Type_create_subarray(2, [n, m], [2, 2], [1, 1], MPI_ORDER_FORTRAN, MPI_REAL, blocktype)
  call MPI_Type_commit(blocktype)
  call MPI_Sendrecv(a, 1, blocktype, next, 4, blk, 4, MPI_REAL, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(all(nint(blk) == prev * 100 + [22, 32, 23, 33]), 'subarray block')

  ! INTEGERs and DOUBLE PRECISIONs at absolute addresses, from and to MPI_BOTTOM.
  iv = [1, 2, 3] + rank
  dw = [7d0, 8d0] + rank
  riv = 0
  rw = 0
  blens = [3, 2]
  stypes = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  call MPI_Get_address(iv, disp(1))
  call MPI_Get_address(dw, disp(2))
  call MPI_Type_create_struct(2, blens, disp, stypes, structtype)
  call MPI_Type_commit(structtype)
  call MPI_Get_address(riv, disp(1))
  call MPI_Get_address(rw, disp(2))
  call MPI_Type_create_struct(2, blens, disp, stypes, rstruct)
  call MPI_Type_commit(rstruct)
  ! What moves through MPI_BOTTOM is invisible to the compiler: MPI_F_sync_reg
  ! (MPI 3.1 §17.1.17) before the send and after the receive.
  call MPI_F_sync_reg(iv)
  call MPI_F_sync_reg(dw)
  call MPI_Irecv(MPI_BOTTOM, 1, rstruct, prev, 5, MPI_COMM_WORLD, reqs(2))
  call MPI_Issend(MPI_BOTTOM, 1, structtype, next, 5, MPI_COMM_WORLD, reqs(1))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call MPI_F_sync_reg(riv)
  call MPI_F_sync_reg(rw)
  call check(all(riv == [1, 2, 3] + prev) .and. all(nint(rw) == [7, 8] + prev), 'struct at MPI_BOTTOM')
  call MPI_Type_get_contents(rstruct, 3, 2, 2, ints, addrs2, types2)
  call check(all(ints == [2, 3, 2]) .and. all(addrs2 == disp), 'MPI_Type_get_contents of the struct')
  call check(types2(1) == MPI_INTEGER .and. types2(2) == MPI_DOUBLE_PRECISION, 'the struct''s datatypes')

  pk = [(rank + i, i = 1, 6)]
  call MPI_Pack_size(6, MPI_INTEGER, MPI_COMM_WORLD, sz)
  call check(sz >= 24 .and. sz <= 100, 'MPI_Pack_size')
  pos = 0
  call MPI_Pack(pk, 6, MPI_INTEGER, packbuf, 100, pos, MPI_COMM_WORLD)
  call check(pos == 24, 'MPI_Pack advances position')
  pos = 0
  upk = 0
  call MPI_Unpack(packbuf, 100, pos, upk, 6, MPI_INTEGER, MPI_COMM_WORLD)
  call check(all(upk == pk) .and. pos == 24, 'MPI_Unpack')

  call MPI_Type_free(rowtype)
  call MPI_Type_free(row1)
  call MPI_Type_free(blocktype)
  call MPI_Type_free(structtype)
  call MPI_Type_free(rstruct)
  call check(rowtype == MPI_DATATYPE_NULL .and. rstruct == MPI_DATATYPE_NULL, 'MPI_Type_free')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'type_f08: ok on ', nproc, ' ranks'
  call MPI_Finalize()

end program type_f08
