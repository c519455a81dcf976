/* setup.c: OpenSHMEM library setup, exit and queries, error reports, and the
 * symmetric heap routines (shmem_malloc and friends) over the one-sided
 * engine's symmetric heap. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shmem_internal.h"

enum shmem_state shmem_state;
alignas(SM_CACHELINE) struct rma_sym shmem_sym;

static _Noreturn void global_exit(int code)
{
    char note[64];
    snprintf(note, sizeof note, "called shmem_global_exit(%d)", code);
    sm_abort(code, note);
}

_Noreturn void shmem_fail(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    sm_say("%s", line);
    global_exit(1);
}

_Noreturn void shmem_fail_engine(const char *routine)
{
    if (shmem_state == SHMEM_NEVER) shmem_fail("%s: called before shmem_init", routine);
    if (shmem_state == SHMEM_FINALIZED) shmem_fail("%s: called after shmem_finalize", routine);
    shmem_fail("%s: %s", routine, sm_fail_reason());
}

_Noreturn void shmem_fail_status(const char *routine, sm_status_t st)
{
    /* The PE at fault says why and ends the job; give it time to. */
    for (int i = 0; st == SM_ERR_PEER && i < 1000; i++) usleep(10000);
    shmem_fail_engine(routine);
}

void *shmem_lookup(int pe, const void *addr, const char *routine)
{
    shmem_require_init(routine);
    void *p = rma_sym_xlate(&shmem_sym, pe, addr, 1);
    return p && rma_remote(pe) ? NULL : p;   /* on another node: not load/store accessible */
}

/* The specification's environment variables: SHMEM_VERSION and SHMEM_INFO
 * ask for a report at start-up, printed once for the job (by PE 0). */
static void env_report(void)
{
    if (sm_core.rank != 0) return;
    if (getenv("SHMEM_VERSION"))
        printf("%s: OpenSHMEM %d.%d\n", SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    if (getenv("SHMEM_INFO"))
        printf("%s: OpenSHMEM %d.%d, %d PEs, environment variables:\n"
               "  SHMEM_SYMMETRIC_SIZE  symmetric heap per PE: bytes, or with K, M, G, T (binary units);\n"
               "                        default: the same as smrun --mem-per-rank (now %zu bytes)\n"
               "  SHMEM_VERSION         print the library version at start-up\n"
               "  SHMEM_INFO            print this text at start-up\n"
               "  SHMEM_DEBUG           accepted; errors are always reported, one line each\n",
               SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, sm_core.world_size, rma_heap_size());
    fflush(stdout);
}

/* SHMEM_SYMMETRIC_SIZE: "a non-negative integer, optionally followed by K,
 * M, G or T" (binary units; the core's sizes: 1.5G and 4096KiB too). */
#define SYMMETRIC_SIZE "SHMEM_SYMMETRIC_SIZE"
static size_t symmetric_size(void)
{
    const char *s = getenv(SYMMETRIC_SIZE);
    uint64_t v;
    if (!s || !*s) return sm_core.heap_bytes;
    if (!sm_parse_size(s, &v) || v > SM_SYM_MAX)
        shmem_fail("shmem_init: " SYMMETRIC_SIZE " '%s' is not a size up to %llu GiB (bytes, or with K, M, G, T)",
                   s, (unsigned long long)(SM_SYM_MAX >> 30));
    return v;
}

/* The collective calls of the symmetric heap meet in the world's barrier,
 * so that a PE in shmem_barrier_all while others allocate is caught. */
static void world_barrier(void) { shmem_team_barrier(&shmem_team_world_s); }

void shmem_init(void)
{
    if (shmem_state == SHMEM_ON) return;
    sm_core_ensure();
    /* PEs are slots: a world that does not start at slot 0 (processes an
     * MPI spawn started) would need a PE -> slot table on every access. */
    if (sm_core.world_base != 0)
        shmem_fail("shmem_init: this process was started by MPI_Comm_spawn (ranks %d..%d of the job); "
                   "OpenSHMEM runs only in the job smrun started", sm_core.world_base,
                   sm_core.world_base + sm_core.world_size - 1);
    size_t bytes = symmetric_size();
    sm_finalize_required("shmem_finalize");
    shmem_teams_init();
    sm_status_t st = rma_sym_open(&shmem_sym, bytes, world_barrier);
    if (st != SM_OK) {
        shmem_state = SHMEM_ON;   /* the reason, not "before shmem_init" */
        shmem_fail_status("shmem_init", st);
    }
    env_report();
    shmem_state = SHMEM_ON;
    sm_barrier();
}

/* Nothing here keeps per-thread state; RMA and atomics are thread-safe.
 * Collectives on one team must not run concurrently from two threads. So
 * any level can be given; shmem_query_thread reports the one given. */
static int thread_level = SHMEM_THREAD_MULTIPLE;

int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        shmem_fail("shmem_init_thread: requested thread level %d is not one of SHMEM_THREAD_*", requested);
    if (shmem_state != SHMEM_ON) thread_level = requested;
    shmem_init();
    if (provided) *provided = thread_level;
    return 0;
}

void shmem_query_thread(int *provided) { if (provided) *provided = thread_level; }

void shmem_finalize(void)
{
    if (shmem_state != SHMEM_ON) return;
    shmem_barrier_all();
    shmem_asets_free();
    rma_sym_close(&shmem_sym);
    shmem_state = SHMEM_FINALIZED;
    sm_finalize_done("shmem_finalize");
}

void shmem_global_exit(int status) { global_exit(status); }

int shmem_my_pe(void) { sm_core_ensure(); return sm_core.rank; }
int shmem_n_pes(void) { sm_core_ensure(); return sm_core.world_size; }
int shmem_pe_accessible(int pe) { sm_core_ensure(); return (unsigned)pe < (unsigned)sm_core.world_size; }
/* Symmetric data (and the exposed memory of shmem.h's extension) only: a
 * PE's private heap memory is not accessible on another PE. */
int shmem_addr_accessible(const void *addr, int pe)
{
    shmem_require_init("shmem_addr_accessible");
    return rma_sym_xlate(&shmem_sym, pe, addr, 1) != NULL;
}
/* Exactly SMARTMAP's remote address: never NULL for symmetric data on the
 * node; NULL for a PE on another node. */
void *shmem_ptr(const void *dest, int pe) { return shmem_lookup(pe, dest, "shmem_ptr"); }

void shmem_info_get_version(int *major, int *minor)
{
    if (major) *major = SHMEM_MAJOR_VERSION;
    if (minor) *minor = SHMEM_MINOR_VERSION;
}
void shmem_info_get_name(char *name)
{
    if (name) snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

/* The profiling interface's control: nothing to control without a profiler. */
void shmem_pcontrol(const int level, ...) { (void)level; }

void start_pes(int npes) { (void)npes; shmem_init(); }
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }

/* --- Symmetric heap: collective calls of the engine's heap (rma.h) --------------------
 * A block too large returns NULL in every PE, said once (by PE 0). */
static void *heap_result(const char *routine, sm_status_t st, void *p, size_t size)
{
    if (st == SM_ERR_NOMEM) {
        if (sm_core.rank == 0)
            sm_say("%s: %zu bytes do not fit in the symmetric heap (%zu bytes; raise " SYMMETRIC_SIZE ")",
                   routine, size, rma_heap_size());
        return NULL;
    }
    if (st != SM_OK) shmem_fail_status(routine, st);
    return p;
}

static void *sym_alloc(const char *routine, size_t align, size_t size, bool zero)
{
    shmem_require_init(routine);
    if (align == 0 || (align & (align - 1)))
        shmem_fail("%s: alignment %zu is not a power of two", routine, align);
    void *p;
    sm_status_t st = rma_heap_alloc(&shmem_sym, size, align, zero, &p);
    return heap_result(routine, st, p, size);
}

void *shmem_malloc(size_t size) { return sym_alloc("shmem_malloc", 1, size, false); }
void *shmem_malloc_with_hints(size_t size, long hints) { (void)hints; return sym_alloc("shmem_malloc_with_hints", 1, size, false); }
void *shmem_align(size_t alignment, size_t size) { return sym_alloc("shmem_align", alignment, size, false); }

void *shmem_calloc(size_t count, size_t size)
{
    size_t n;
    if (__builtin_mul_overflow(count, size, &n))
        shmem_fail("shmem_calloc: %zu elements of %zu bytes overflow", count, size);
    return sym_alloc("shmem_calloc", 1, n, true);
}

void shmem_free(void *ptr)
{
    shmem_require_init("shmem_free");
    sm_status_t st = rma_heap_free(&shmem_sym, ptr);
    if (st != SM_OK) shmem_fail_status("shmem_free", st);
}

void *shmem_realloc(void *ptr, size_t size)
{
    shmem_require_init("shmem_realloc");
    void *p;
    sm_status_t st = rma_heap_realloc(&shmem_sym, ptr, size, &p);
    return heap_result("shmem_realloc", st, p, size);
}

void *shmalloc(size_t size) { return shmem_malloc(size); }
void shfree(void *ptr) { shmem_free(ptr); }
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
