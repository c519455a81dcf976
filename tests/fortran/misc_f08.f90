! misc_f08.f90: the mapping rules beyond buffers and handles, through module
! mpi_f08: attributes (a predefined key's value, a keyval whose copy and
! delete functions are Fortran), a Fortran error handler, strings (info
! objects, names, versions), LOGICAL results, 1-based indices of
! Testsome/Waitsome, groups' range triplets, MPI_Alloc_mem into a C_PTR,
! MPI_Aint_add/diff, MPI_SIZEOF, MPI_Status_f082f/f2f08, MPI_F_sync_reg,
! MPI_Comm_set_info/get_info.
module misc_f08_cb
  use mpi_f08
  implicit none
  integer :: copies = 0, deletes = 0, handled = 0, handled_code = -1
  type(MPI_Comm) :: handled_comm
contains
  subroutine copy_fn(oldcomm, comm_keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    if (extra_state /= 77 .or. oldcomm == MPI_COMM_NULL .or. comm_keyval < 0) then
      ierror = MPI_ERR_OTHER
      return
    end if
    copies = copies + 1
    attribute_val_out = attribute_val_in + 1
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine copy_fn
  subroutine delete_fn(comm, comm_keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    if (extra_state /= 77 .or. attribute_val < 1000 .or. comm == MPI_COMM_NULL .or. comm_keyval < 0) then
      ierror = MPI_ERR_OTHER
      return
    end if
    deletes = deletes + 1
    ierror = MPI_SUCCESS
  end subroutine delete_fn
  subroutine errh_fn(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    handled = handled + 1
    handled_comm = comm
    handled_code = error_code
  end subroutine errh_fn
end module misc_f08_cb

program misc_f08
  use ftest
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer, c_associated
  use mpi_f08
  use misc_f08_cb
  implicit none
  integer :: rank, nproc, provided, keyval, i, nkeys, vlen, outcount, ver, sub, rlen, sz
  integer :: indices(3), ranges(3, 1), granks(2), fst(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: val, a1, a2
  logical :: flag
  type(MPI_Comm) :: dup
  type(MPI_Errhandler) :: errh, got
  type(MPI_Info) :: info, info2
  type(MPI_Request) :: reqs(3)
  type(MPI_Status) :: statuses(3), st, st2
  type(MPI_Group) :: world, evens
  type(c_ptr) :: mem
  integer, pointer :: ip(:)
  integer :: ibuf(3)
  double precision :: d
  character(len=MPI_MAX_INFO_VAL) :: value
  character(len=MPI_MAX_INFO_KEY) :: key
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided)
  call check(provided >= MPI_THREAD_FUNNELED, 'MPI_Init_thread provided')
  call MPI_Initialized(flag)
  call check(flag, 'MPI_Initialized is .TRUE.')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call ftest_start('misc_f08', rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)

  ! A predefined attribute: Fortran gets the value itself.
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag)
  call check(flag .and. val >= 32767 .and. val <= huge(0), 'MPI_TAG_UB through MPI_Comm_get_attr (its value)')

  ! A keyval with Fortran callbacks: copied by MPI_Comm_dup, deleted by MPI_Comm_free.
  call MPI_Comm_create_keyval(copy_fn, delete_fn, keyval, 77_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, 1000_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call check(copies == 1, 'the Fortran copy function ran')
  call MPI_Comm_get_attr(dup, keyval, val, flag)
  call check(flag .and. val == 1001, 'the copied attribute')
  call MPI_Comm_free(dup)
  call check(deletes == 1, 'the Fortran delete function ran')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval)
  call check(deletes == 2, 'MPI_Comm_delete_attr ran the delete function')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, val, flag)
  call check(.not. flag, 'no attribute after MPI_Comm_delete_attr')
  call MPI_Comm_free_keyval(keyval)
  ! The predefined copy function.
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval, 0_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, 42_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_get_attr(dup, keyval, val, flag)
  call check(flag .and. val == 42, 'MPI_COMM_DUP_FN copies')

  ! A Fortran error handler, called with the communicator and the code.
  call MPI_Comm_create_errhandler(errh_fn, errh)
  call MPI_Comm_set_errhandler(dup, errh)
  call MPI_Comm_get_errhandler(dup, got)
  call check(got == errh, 'MPI_Comm_get_errhandler')
  call MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER)
  call check(handled == 1 .and. handled_comm == dup .and. handled_code == MPI_ERR_OTHER, 'the Fortran error handler')
  call MPI_Send(ibuf, 1, MPI_INTEGER, nproc, 0, dup, i)
  call check(handled == 2 .and. handled_code == i .and. i /= MPI_SUCCESS, 'the handler on a failed MPI_Send')
  call MPI_Errhandler_free(got)
  call MPI_Errhandler_free(errh)
  call MPI_Comm_free(dup)
  call MPI_Comm_free_keyval(keyval)

  ! Info: strings both ways, blanks trimmed, value left alone when absent.
  call MPI_Info_create(info)
  call MPI_Info_set(info, ' color ', 'deep blue  ')
  call MPI_Info_set(info, 'size', '10')
  call MPI_Info_get_nkeys(info, nkeys)
  call check(nkeys == 2, 'MPI_Info_get_nkeys')
  call MPI_Info_get_nthkey(info, 0, key)
  call check(key == 'color', 'MPI_Info_get_nthkey')
  call MPI_Info_get_valuelen(info, 'color', vlen, flag)
  call check(flag .and. vlen == 9, 'MPI_Info_get_valuelen')
  value = 'untouched'
  call MPI_Info_get(info, 'colour', MPI_MAX_INFO_VAL, value, flag)
  call check(.not. flag .and. value == 'untouched', 'MPI_Info_get of an absent key')
  ! a communicator's hints: the ones set, a new object each time
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_set_info(dup, info)
  call MPI_Comm_get_info(dup, info2)
  call MPI_Info_get(info2, 'size', MPI_MAX_INFO_VAL, value, flag)
  call check(flag .and. value == '10', 'MPI_Comm_set_info, MPI_Comm_get_info')
  call MPI_Info_free(info2)
  call MPI_Comm_free(dup)
  call MPI_Info_dup(info, info2)
  call MPI_Info_get(info2, 'color', 4, value, flag)
  call check(flag .and. value == 'deep', 'MPI_Info_get truncated to valuelen')
  call MPI_Info_get(info2, 'color', MPI_MAX_INFO_VAL, value, flag)
  call check(flag .and. value == 'deep blue', 'MPI_Info_get')
  call MPI_Info_free(info)
  call MPI_Info_free(info2)
  call check(info == MPI_INFO_NULL, 'MPI_Info_free')

  call MPI_Get_processor_name(host, rlen)
  call check(rlen > 0 .and. len_trim(host) == rlen, 'MPI_Get_processor_name')
  call MPI_Get_library_version(lib, rlen)
  call check(rlen > 0 .and. len_trim(lib) == rlen, 'MPI_Get_library_version')
  call MPI_Get_version(ver, sub)
  call check(ver == MPI_VERSION .and. sub == MPI_SUBVERSION, 'MPI_Get_version')
  call check(MPI_Wtick() > 0, 'MPI_Wtick')
  call check(MPI_Wtime() > 0, 'MPI_Wtime')

  ! Testsome/Waitsome count from 1, like Waitany.
  call MPI_Irecv(ibuf(1), 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(ibuf(2), 1, MPI_INTEGER, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, reqs(2))
  call MPI_Irecv(ibuf(3), 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs(3))
  call MPI_Testsome(3, reqs, outcount, indices, statuses)
  call check(outcount == 2 .and. indices(1) == 1 .and. indices(2) == 3, 'MPI_Testsome indices')
  call check(statuses(1)%MPI_SOURCE == MPI_PROC_NULL, 'MPI_Testsome statuses')
  call MPI_Send(rank, 1, MPI_INTEGER, rank, 99, MPI_COMM_WORLD)
  call MPI_Waitsome(3, reqs, outcount, indices, MPI_STATUSES_IGNORE)
  call check(outcount == 1 .and. indices(1) == 2 .and. ibuf(2) == rank, 'MPI_Waitsome index')

  ! Groups: range triplets are ranges(3, n).
  call MPI_Comm_group(MPI_COMM_WORLD, world)
  ranges(:, 1) = [0, nproc - 1, 2]
  call MPI_Group_range_incl(world, 1, ranges, evens)
  call MPI_Group_size(evens, sz)
  call check(sz == (nproc + 1) / 2, 'MPI_Group_range_incl')
  call MPI_Group_translate_ranks(evens, 1, [0], world, granks)
  call check(granks(1) == 0, 'MPI_Group_translate_ranks')
  call MPI_Group_free(evens)
  call MPI_Group_free(world)
  call check(world == MPI_GROUP_NULL, 'MPI_Group_free')

  ! Memory from MPI_Alloc_mem, as a C pointer.
  call MPI_Alloc_mem(40_MPI_ADDRESS_KIND, MPI_INFO_NULL, mem)
  call check(c_associated(mem), 'MPI_Alloc_mem')
  call c_f_pointer(mem, ip, [10])
  ip = [(i, i = 1, 10)]
  call MPI_Allreduce(MPI_IN_PLACE, ip, 10, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(ip(10) == 10 * nproc, 'a reduction in MPI_Alloc_mem memory')
  call MPI_Free_mem(ip)

  call MPI_Get_address(ibuf(1), a1)
  call MPI_Get_address(ibuf(3), a2)
  call check(MPI_Aint_diff(a2, a1) == 8, 'MPI_Aint_diff')
  call check(MPI_Aint_add(a1, 8_MPI_ADDRESS_KIND) == a2, 'MPI_Aint_add')
  call MPI_Sizeof(d, sz)
  call check(sz == 8, 'MPI_Sizeof of DOUBLE PRECISION')
  call MPI_Sizeof(ibuf, sz)
  call check(sz == 4, 'MPI_Sizeof of an INTEGER array')
  call MPI_F_sync_reg(ibuf)

  ! Statuses between the two Fortran forms keep everything (count included).
  call MPI_Sendrecv(ibuf, 3, MPI_INTEGER, rank, 5, ibuf, 3, MPI_INTEGER, rank, 5, MPI_COMM_WORLD, st)
  call MPI_Status_f082f(st, fst)
  call check(fst(MPI_SOURCE) == rank .and. fst(MPI_TAG) == 5, 'MPI_Status_f082f')
  call MPI_Status_f2f08(fst, st2)
  call MPI_Get_count(st2, MPI_INTEGER, i)
  call check(i == 3 .and. st2%MPI_SOURCE == rank, 'MPI_Status_f2f08')
  call MPI_Test_cancelled(st2, flag)
  call check(.not. flag, 'MPI_Test_cancelled')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'misc_f08: ok on ', nproc, ' ranks'
  call MPI_Finalize()
  call MPI_Finalized(flag)
  if (.not. flag) print '(a)', 'misc_f08: FAILED: MPI_Finalized is .FALSE.'

end program misc_f08
