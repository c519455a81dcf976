// A C++ program using MPI and OpenSHMEM headers: built with mpicxx.
#include <mpi.h>
#include <shmem.h>
#include <cstdio>
#include <vector>
int main()
{
    shmem_init();
    std::vector<int> v(1000, shmem_my_pe());   // operator new: the slot's heap
    static int box;
    shmem_int_p(&box, v[0] + 1, (shmem_my_pe() + 1) % shmem_n_pes());
    shmem_barrier_all();
    int want = (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes() + 1;
    std::printf("c++ pe %d got %d\n", shmem_my_pe(), box);
    shmem_finalize();
    return box == want ? 0 : 1;
}
