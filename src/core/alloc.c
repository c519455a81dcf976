/* The malloc family, served from the rank's own slot by mimalloc.
 *
 * Why mimalloc: it can be handed an arbitrary region as an arena
 * (mi_manage_os_memory) and told never to take memory from anywhere else
 * (mi_option_limit_os_alloc), it is thread-scalable, and Debian ships it.
 * We define the entry points ourselves (rather than use mimalloc's own
 * override) so the slot is attached before the first allocation, whoever
 * makes it. madvise is interposed too: on a shared mapping MADV_DONTNEED only
 * drops page-table entries, so mimalloc's purges become MADV_REMOVE, which
 * really returns the memory.
 *
 * The one exception to the core's one-way calls (sm_core.h): the first
 * malloc may come before libsmartmap's constructor (from another library's
 * constructor, or ld.so), so it initialises the core itself.
 *
 * When another allocator comes first in the global scope (AddressSanitizer's
 * runtime: our SM_SANITIZE build, or a program built with smcc
 * -fsanitize=address; or libc's, when libsmartmap is loaded by dlopen, as
 * Python loads mpi4py), it serves the program and libc (so the program's
 * heap is not exposed); libsmartmap's own calls still come here (they bind
 * inside the library), so the engines' blocks stay in the slot, where peers
 * can reach them. A block of that allocator's that reaches free or realloc
 * here (a binding's strdup) goes back to it. valgrind's default replaces even
 * our own calls: init refuses that (sm_alloc_owns), naming the option that
 * keeps our allocator. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <mimalloc.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sm_alloc.h"
#include "sm_core.h"

static uintptr_t heap_lo, heap_hi;   /* where purges return memory (not after fork) */
static uintptr_t arena_lo, arena_len; /* mimalloc's arena (also after fork) */
static _Atomic int heap_ready;

sm_status_t sm_alloc_attach(void *base, size_t len)
{
    mi_option_set(mi_option_limit_os_alloc, 1);
    mi_option_disable(mi_option_show_errors);
    /* Purge what is freed at once, every size class: mimalloc's delayed
     * purge runs only when the same segment is used again, so freed pages
     * stayed resident for good (shared memory is not swappable). glibc
     * trims about as promptly. */
    mi_option_set(mi_option_decommit_delay, 0);
    heap_lo = arena_lo = (uintptr_t)base;
    heap_hi = heap_lo + len;
    arena_len = len;
    /* Uncommitted, so mimalloc purges what is freed; zero, as a fresh memfd is. */
    if (!mi_manage_os_memory(base, len, false, false, true, -1))
        return sm_fail(SM_ERR_NOMEM, "the allocator refused the slot heap [%p, +%zu)", base, len);
    atomic_store_explicit(&heap_ready, 1, memory_order_release);
    return SM_OK;
}

void sm_alloc_forked(void) { heap_lo = heap_hi = 0; }

static atomic_flag oom_said = ATOMIC_FLAG_INIT;

static inline void ready(void)
{
    if (SM_UNLIKELY(!atomic_load_explicit(&heap_ready, memory_order_acquire))) sm_core_init();
}

static void *oom(const char *routine, size_t n)
{
    if (!atomic_flag_test_and_set(&oom_said))
        sm_say("%s(%zu) failed: the rank's slot holds %llu MiB of heap; "
               "raise smrun --mem-per-rank", routine, n,
               (unsigned long long)(sm_core.heap_bytes >> 20));
    errno = ENOMEM;
    return NULL;
}
#define CHECKED(routine, n, expr)                              \
    do {                                                       \
        void *p_ = (expr);                                     \
        return SM_LIKELY(p_ != NULL) ? p_ : oom(routine, n);   \
    } while (0)

bool sm_alloc_owns(const void *p)
{
    return (uintptr_t)p - arena_lo < arena_len;
}

/* Not from our arena: another allocator's that comes first (a sanitizer's, libc's). */
static inline bool foreign(const void *p)
{
    return p && (uintptr_t)p - arena_lo >= arena_len;
}
/* That allocator's routine (first in the global scope); NULL if it is ours. */
static void *theirs(const char *name, void *ours)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    return f == ours ? NULL : f;
}
#define FOREIGN(p, name, ours, call)                                 \
    do {                                                             \
        static __typeof__(ours) *f_;                                 \
        if (SM_UNLIKELY(foreign(p))) {                               \
            if (!f_) f_ = (__typeof__(ours) *)theirs(name, (void *)ours); \
            if (f_) return call;                                     \
        }                                                            \
    } while (0)

SM_API void *malloc(size_t n) { ready(); CHECKED("malloc", n, mi_malloc(n)); }
SM_API void free(void *p)
{
    if (!p) return;     /* (the engines free optional blocks on every collective's path) */
    ready();
    FOREIGN(p, "free", free, f_(p));
    mi_free(p);
}
SM_API void cfree(void *p) { free(p); }
SM_API void *calloc(size_t k, size_t n)
{
    ready();
    size_t total;
    if (__builtin_mul_overflow(k, n, &total)) { errno = ENOMEM; return NULL; }
    CHECKED("calloc", total, mi_calloc(k, n));
}
SM_API void *realloc(void *p, size_t n)
{
    ready();
    FOREIGN(p, "realloc", realloc, f_(p, n));
    if (p && n == 0) { mi_free(p); return NULL; } /* glibc's behaviour */
    CHECKED("realloc", n, mi_realloc(p, n));
}
SM_API void *reallocarray(void *p, size_t k, size_t n)
{
    size_t total;
    if (__builtin_mul_overflow(k, n, &total)) { errno = ENOMEM; return NULL; }
    return realloc(p, total);
}
/* glibc takes any alignment for memalign and aligned_alloc and rounds it up
 * to a power of two; mimalloc refuses what is not one. Programs rely on
 * glibc's way, and a refusal here would also be reported as a full slot. */
static bool pow2_alignment(size_t *a)
{
    if (*a <= sizeof(void *)) { *a = sizeof(void *); return true; }
    if (*a > (SIZE_MAX >> 1) + 1) return false;
    size_t p = sizeof(void *);
    while (p < *a) p <<= 1;
    *a = p;
    return true;
}
SM_API void *aligned_alloc(size_t a, size_t n)
{
    ready();
    if (!pow2_alignment(&a)) { errno = EINVAL; return NULL; }
    CHECKED("aligned_alloc", n, mi_malloc_aligned(n, a));
}
SM_API void *memalign(size_t a, size_t n)
{
    ready();
    if (!pow2_alignment(&a)) { errno = EINVAL; return NULL; }
    CHECKED("memalign", n, mi_malloc_aligned(n, a));
}
SM_API void *valloc(size_t n) { ready(); CHECKED("valloc", n, mi_valloc(n)); }
SM_API void *pvalloc(size_t n) { ready(); CHECKED("pvalloc", n, mi_pvalloc(n)); }
SM_API int posix_memalign(void **out, size_t a, size_t n)
{
    ready();
    if (a < sizeof(void *) || (a & (a - 1))) return EINVAL;
    void *p = mi_malloc_aligned(n, a);
    if (!p) { oom("posix_memalign", n); return ENOMEM; }
    *out = p;
    return 0;
}
SM_API size_t malloc_usable_size(void *p)
{
    ready();
    FOREIGN(p, "malloc_usable_size", malloc_usable_size, f_(p));
    return p ? mi_usable_size(p) : 0;
}

/* glibc's internal names, which some libraries call directly. */
SM_API void *__libc_malloc(size_t n) { return malloc(n); }
SM_API void  __libc_free(void *p) { free(p); }
SM_API void *__libc_calloc(size_t k, size_t n) { return calloc(k, n); }
SM_API void *__libc_realloc(void *p, size_t n) { return realloc(p, n); }
SM_API void *__libc_memalign(size_t a, size_t n) { return memalign(a, n); }
SM_API void *__libc_valloc(size_t n) { return valloc(n); }
SM_API void *__libc_pvalloc(size_t n) { return pvalloc(n); }

SM_API int madvise(void *addr, size_t len, int advice)
{
    uintptr_t a = (uintptr_t)addr;
    if ((advice == MADV_DONTNEED || advice == MADV_FREE) && a >= heap_lo && a + len <= heap_hi)
        advice = MADV_REMOVE;
    return (int)syscall(SYS_madvise, addr, len, advice);
}
