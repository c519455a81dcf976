/* smartmap.h: the SMARTMAP contract on Linux. Every rank of a job started by
 * smrun can load and store directly into every other rank's heap, globals and
 * main-thread stack, at addresses computed by sm_global() and sm_remote(). */
#ifndef SMARTMAP_H
#define SMARTMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SM_API __attribute__((visibility("default")))

#define SMARTMAP_VERSION_MAJOR 0
#define SMARTMAP_VERSION_MINOR 1
#define SMARTMAP_VERSION_PATCH 0
#define SMARTMAP_VERSION_STRING "0.1.0"

/* Return codes: 0 is success, the rest are negative. Every failing call also
 * prints one line naming the routine and the offending value. */
enum sm_error {
    SM_OK         = 0,
    SM_ERR_ARG    = -1,  /* a bad rank, a NULL pointer, a length that overflows */
    SM_ERR_NOMEM  = -2,  /* no memory left in the slot */
    SM_ERR_ACCESS = -3,  /* the address is not mapped in the target rank */
    SM_ERR_STATE  = -4,  /* the library is not initialised, or the peer is gone */
};

/* --- Job ----------------------------------------------------------------
 * The library initialises itself before main() in a rank started by smrun.
 * A program started without smrun is a job of one rank. */
SM_API int  sm_rank(void);
SM_API int  sm_size(void);
SM_API void sm_barrier(void);            /* all ranks of the job */

/* --- Translation (DESIGN.md §1) -----------------------------------------
 * sm_global(p): the address at which every rank of the job (the caller
 *   included) sees the caller's object p. Publish it to peers.
 * sm_remote(r, p): the address at which the caller sees rank r's instance of
 *   the object that is at p in the caller (symmetric memory: the same global
 *   variable, or heap memory allocated symmetrically).
 * Both return NULL when p is not exposed (private mmap, another thread's
 * stack, a shared library's globals) or r is out of range. */
SM_API void *sm_global(const void *p);
SM_API void *sm_remote(int rank, const void *p);
SM_API bool  sm_exposed(const void *p);  /* true if p is reachable by peers directly */

/* --- Copy engine --------------------------------------------------------
 * sm_put copies len bytes from the caller's src to dst in rank's address
 * space (dst as rank itself would name it: its own pointer, a symmetric
 * address, or a global address); sm_get copies from src in rank's space to
 * the caller's dst. Exposed memory is copied directly; otherwise through the
 * kernel (process_vm_readv/writev) where permitted, else staged through the
 * slot with the target's help. Always correct; the bytes each path carried
 * are printed at exit with SMARTMAP_STATS=1. */
SM_API int sm_put(int rank, void *dst, const void *src, size_t len);
SM_API int sm_get(int rank, void *dst, const void *src, size_t len);

enum sm_path { SM_PATH_DIRECT, SM_PATH_KERNEL, SM_PATH_STAGED, SM_PATH_COUNT };
/* Bytes moved by sm_put/sm_get on each path so far in this process. */
SM_API void sm_path_bytes(uint64_t bytes[SM_PATH_COUNT]);

/* --- Waiting and waking (DESIGN.md §6) ----------------------------------
 * Waiters spin with pause, then yield, then sleep on a futex in shared
 * memory; sleeps are bounded, so a missed wake costs time, never a hang. */
/* Wait until *word != old (word in exposed memory, any rank's). Returns the
 * new value. Whoever changes the word calls sm_wake_word(word). */
SM_API uint32_t sm_wait_word(const volatile uint32_t *word, uint32_t old);
SM_API void     sm_wake_word(volatile uint32_t *word);
/* Wait until cond(arg) is true, sleeping on the caller's doorbell. Whoever
 * makes cond true for rank r calls sm_wake(r). */
SM_API void sm_wait(bool (*cond)(void *arg), void *arg);
SM_API void sm_wake(int rank);

/* --- Memory -------------------------------------------------------------- */
struct sm_mem_info {
    size_t heap_capacity;   /* bytes the rank's slot can give to malloc */
    size_t slot_resident;   /* bytes of the rank's slot backed by memory now */
};
SM_API void sm_mem_info(struct sm_mem_info *info);

/* --- Job lifecycle, for the libraries built on the substrate -------------
 * Each library in a rank (MPI, OpenSHMEM, ARMCI: several may live in one
 * program) calls sm_finalize_required("MPI_Finalize") when it is
 * initialised and sm_finalize_done("MPI_Finalize") when it is finalised, in
 * any order with the others. A rank that exits while any is still required
 * is reported by smrun as a failure naming the routines it did not call
 * ("exited without calling MPI_Finalize and shmem_finalize") and ends the
 * job. Up to 4 at a time, names up to 27 characters. SM_ERR_ARG: a NULL,
 * empty or too long name; SM_ERR_STATE: required twice, done without being
 * required, or 4 required already.
 * (Since 0.1: both return a code, and sm_finalize_done names the routine;
 * before, one flag served all libraries, so the first finalize cleared it.) */
SM_API int sm_finalize_required(const char *finalize_routine);
SM_API int sm_finalize_done(const char *finalize_routine);
/* End the job: smrun prints "rank R (pid P) <note>", kills every rank and
 * exits with code. */
SM_API _Noreturn void sm_abort(int code, const char *note);

#ifdef __cplusplus
}
#endif
#endif
