/* A program not linked with libsmartmap loads an MPI module with dlopen
 * (Python and mpi4py): libc's allocator stays the global one, and blocks of
 * its (a strdup's) that reach libsmartmap's free must go back to it. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s module.so\n", argv[0]); return 2; }
    void *m = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!m) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    int (*run)(void) = (int (*)(void))dlsym(m, "run");
    if (!run) { fprintf(stderr, "dlsym: %s\n", dlerror()); return 1; }
    return run();
}
