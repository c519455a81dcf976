! ftest.f90: the Fortran tests' check: on failure, one line naming the
! program, the rank and the check, then an error stop (smrun ends the job: a
! rank exited without MPI_Finalize). No MPI here, so every form can use it.
module ftest
  implicit none
  character(len=16), private :: prog = '?'
  integer, private :: me = -1
contains
  subroutine ftest_start(name, rank)
    character(len=*), intent(in) :: name
    integer, intent(in) :: rank
    prog = name
    me = rank
  end subroutine ftest_start

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(2a, i0, 2a)', trim(prog), ': rank ', me, ': FAILED: ', what
      error stop 1
    end if
  end subroutine check
end module ftest
