/* pshmem.h: the OpenSHMEM profiling interface (specification section 10):
 * every routine of shmem.h also under the name pshmem_NAME (pstart_pes,
 * p_my_pe, ... for the deprecated names without the shmem_ prefix). A
 * profiler defines shmem_NAME itself, measures, and calls pshmem_NAME, which
 * is always the library's own routine. The C11 generic names are macros and
 * have no pshmem_ form. */
#ifndef PSHMEM_H
#define PSHMEM_H

#include <shmem.h>

/* Read shmem.h's declarations again with the profiling names. */
#undef SHMEM_N_
#define SHMEM_N_(name) p##name
#define SHMEM_DECLARE_NOW_
#include <shmem.h>
#undef SHMEM_N_
#define SHMEM_N_(name) name

#endif
