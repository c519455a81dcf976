/* setup.c: OpenSHMEM library setup, exit and queries, and the symmetric heap
 * (shmem_malloc and friends). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_internal.h"

int shmem_initialized;
static size_t sym_len;   /* the symmetric heap's size (below) */

static _Noreturn void global_exit(int code)
{
    char note[64];
    snprintf(note, sizeof note, "called shmem_global_exit(%d)", code);
    sm_abort(code, note);
}
static void exit_hook(int code) { global_exit(code); }

void shmem_require_init(const char *routine)
{
    if (SM_UNLIKELY(!shmem_initialized))
        rma_fail("%s: called before shmem_init", routine);
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
               "  SHMEM_SYMMETRIC_SIZE  symmetric heap per PE, read by smrun (now %zu bytes)\n"
               "  SHMEM_VERSION         print the library version at start-up\n"
               "  SHMEM_INFO            print this text at start-up\n"
               "  SHMEM_DEBUG           accepted; errors are always reported, one line each\n",
               SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, sm_core.size, sym_len);
    fflush(stdout);
}

void shmem_init(void)
{
    if (shmem_initialized) return;
    sm_core_ensure();
    rma_set_exit(exit_hook);
    sm_finalize_required("shmem_finalize");
    shmem_heap_init();
    shmem_teams_init();
    env_report();
    shmem_initialized = 1;
    sm_barrier();
}

/* Nothing here keeps per-thread state; RMA and atomics are thread-safe.
 * Collectives on one team must not run concurrently from two threads. So
 * any level can be given; shmem_query_thread reports the one given. */
static int thread_level = SHMEM_THREAD_MULTIPLE;

int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        rma_fail("shmem_init_thread: requested thread level %d is not one of SHMEM_THREAD_*", requested);
    if (!shmem_initialized) thread_level = requested;
    shmem_init();
    if (provided) *provided = thread_level;
    return 0;
}

void shmem_query_thread(int *provided) { if (provided) *provided = thread_level; }

void shmem_finalize(void)
{
    if (!shmem_initialized) return;
    shmem_barrier_all();
    shmem_initialized = 0;
    sm_finalize_done("shmem_finalize");
}

void shmem_global_exit(int status) { global_exit(status); }

int shmem_my_pe(void) { sm_core_ensure(); return sm_core.rank; }
int shmem_n_pes(void) { sm_core_ensure(); return sm_core.size; }
int shmem_pe_accessible(int pe) { sm_core_ensure(); return (unsigned)pe < (unsigned)sm_core.size; }
int shmem_addr_accessible(const void *addr, int pe) { sm_core_ensure(); return rma_lookup(pe, addr) != NULL; }
/* Exactly SMARTMAP's remote address: never NULL for symmetric data. */
void *shmem_ptr(const void *dest, int pe) { sm_core_ensure(); return rma_lookup(pe, dest); }

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

/* --- Symmetric heap --------------------------------------------------------
 * Why a home-made allocator: every PE must hand out the same offsets for the
 * same sequence of collective calls, so that p in one PE designates the same
 * object in all. A production allocator such as mimalloc is per-process and
 * free to decide differently in each PE (thread caches, timing of purges), so
 * it cannot give that. This one is a deterministic first-fit over a sorted
 * list of blocks; the list lives in the PE's private memory, never inside the
 * symmetric region, so nothing a peer writes there can corrupt it. */
struct blk { size_t off, len; int used; };
static struct blk *blks;
static size_t nblk, cap_blk;
static char *sym_base;

void shmem_heap_init(void)
{
    sym_base = sm_symmetric_base(&sym_len);
    cap_blk = 64;
    blks = malloc(cap_blk * sizeof *blks);
    if (!blks) rma_fail("shmem_init: out of memory for the symmetric heap's block list");
    nblk = 1;
    blks[0] = (struct blk){0, sym_len, 0};
}

static void blk_insert(size_t at, struct blk b)
{
    if (nblk == cap_blk) {
        struct blk *n = realloc(blks, 2 * cap_blk * sizeof *blks);
        if (!n) rma_fail("shmem_malloc: out of memory for the symmetric heap's block list");
        blks = n, cap_blk *= 2;
    }
    memmove(blks + at + 1, blks + at, (nblk - at) * sizeof *blks);
    blks[at] = b;
    nblk++;
}
static void blk_remove(size_t at)
{
    memmove(blks + at, blks + at + 1, (nblk - at - 1) * sizeof *blks);
    nblk--;
}

/* First fit, aligned; returns an offset or SIZE_MAX. */
static size_t heap_alloc(size_t size, size_t align)
{
    for (size_t i = 0; i < nblk; i++) {
        struct blk b = blks[i];
        if (b.used) continue;
        size_t start = (b.off + align - 1) & ~(align - 1);
        if (start < b.off || start - b.off > b.len || b.len - (start - b.off) < size) continue;
        size_t pad = start - b.off, rest = b.len - pad - size;
        blks[i] = (struct blk){start, size, 1};
        if (rest) blk_insert(i + 1, (struct blk){start + size, rest, 0});
        if (pad) blk_insert(i, (struct blk){b.off, pad, 0});
        return start;
    }
    return SIZE_MAX;
}
static size_t blk_find(size_t off)
{
    size_t lo = 0, hi = nblk;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (blks[mid].off < off) lo = mid + 1; else hi = mid;
    }
    return lo < nblk && blks[lo].off == off && blks[lo].used ? lo : SIZE_MAX;
}
static void heap_free_at(size_t i)
{
    blks[i].used = 0;
    if (i + 1 < nblk && !blks[i + 1].used) blks[i].len += blks[i + 1].len, blk_remove(i + 1);
    if (i > 0 && !blks[i - 1].used) blks[i - 1].len += blks[i].len, blk_remove(i);
}

enum { OP_MALLOC = 1, OP_ALIGN, OP_REALLOC, OP_FREE };
static const char *op_name[] = {"", "shmem_malloc", "shmem_align", "shmem_realloc", "shmem_free"};

/* Debug-cheap check that every PE made the same collective call: publish
 * the call, barrier, compare with PE 0's, barrier (so PE 0's record stays
 * until all have read it). Returns after both barriers. */
static void same_call_ex(int op, uint64_t size, uint64_t align, void (*before_exit)(void *), void *arg);
static void same_call(int op, uint64_t size, uint64_t align) { same_call_ex(op, size, align, NULL, NULL); }
/* before_exit runs between the check and the exit barrier: work that must be
 * done before any peer may touch the new block (calloc's clearing). */
static void same_call_ex(int op, uint64_t size, uint64_t align, void (*before_exit)(void *), void *arg)
{
    struct shmem_pub *me = shmem_pub_of(sm_core.rank), *p0 = shmem_pub_of(0);
    uint64_t seq = atomic_load_explicit(&me->alloc_seq, memory_order_relaxed) + 1;
    me->alloc_op = (uint64_t)op, me->alloc_size = size, me->alloc_align = align;
    atomic_store_explicit(&me->alloc_seq, seq, memory_order_release);
    shmem_barrier_all();
    uint64_t s0 = atomic_load_explicit(&p0->alloc_seq, memory_order_acquire);
    if (s0 != seq || p0->alloc_op != (uint64_t)op || p0->alloc_size != size || p0->alloc_align != align)
        rma_fail("%s: PE %d called %s(size %llu, align %llu) as its collective allocation call %llu, "
                 "but PE 0 called %s(size %llu, align %llu) as call %llu",
                 op_name[op], sm_core.rank, op_name[op], (unsigned long long)size,
                 (unsigned long long)align, (unsigned long long)seq,
                 p0->alloc_op < 5 ? op_name[p0->alloc_op] : "?", (unsigned long long)p0->alloc_size,
                 (unsigned long long)p0->alloc_align, (unsigned long long)s0);
    if (before_exit) before_exit(arg);
    shmem_barrier_all();
}

struct alloc_req { const char *routine; size_t align, size; int zero; void *result; };

/* Runs before the exit barrier, so a peer's put right after the call cannot
 * land before this PE has carved (and, for calloc, cleared) the block. */
static void do_alloc(void *arg)
{
    struct alloc_req *r = arg;
    r->result = NULL;
    if (r->size == 0) return;
    size_t align = r->align < 16 ? 16 : r->align;
    size_t off = r->size > sym_len ? SIZE_MAX : heap_alloc(r->size, align);
    if (off == SIZE_MAX) {
        if (sm_core.rank == 0)
            sm_say("%s: %zu bytes do not fit in the symmetric heap (%zu bytes; raise SHMEM_SYMMETRIC_SIZE)",
                   r->routine, r->size, sym_len);
        return;
    }
    r->result = sym_base + off;
    if (r->zero) memset(r->result, 0, r->size);
}

static void *sym_alloc(const char *routine, int op, size_t align, size_t size, int zero)
{
    shmem_require_init(routine);
    if (align == 0 || (align & (align - 1)))
        rma_fail("%s: alignment %zu is not a power of two", routine, align);
    struct alloc_req r = {routine, align, size, zero, NULL};
    same_call_ex(op, size, align, do_alloc, &r);
    return r.result;
}

static size_t heap_index(void *ptr, const char *routine)
{
    uintptr_t d = (uintptr_t)ptr - (uintptr_t)sym_base;
    size_t i = d < sym_len ? blk_find(d) : SIZE_MAX;
    if (i == SIZE_MAX) rma_fail("%s: %p was not returned by shmem_malloc (or was freed)", routine, ptr);
    return i;
}

void *shmem_malloc(size_t size) { return sym_alloc("shmem_malloc", OP_MALLOC, 1, size, 0); }
void *shmem_malloc_with_hints(size_t size, long hints) { (void)hints; return sym_alloc("shmem_malloc_with_hints", OP_MALLOC, 1, size, 0); }
void *shmem_align(size_t alignment, size_t size) { return sym_alloc("shmem_align", OP_ALIGN, alignment, size, 0); }

void *shmem_calloc(size_t count, size_t size)
{
    size_t n;
    if (__builtin_mul_overflow(count, size, &n))
        rma_fail("shmem_calloc: %zu elements of %zu bytes overflow", count, size);
    return sym_alloc("shmem_calloc", OP_MALLOC, 1, n, 1);
}

void shmem_free(void *ptr)
{
    shmem_require_init("shmem_free");
    size_t i = ptr ? heap_index(ptr, "shmem_free") : SIZE_MAX;   /* a bad pointer fails here, alone */
    same_call(OP_FREE, ptr ? blks[i].off : UINT64_MAX, 0);
    if (ptr) heap_free_at(i);
}

void *shmem_realloc(void *ptr, size_t size)
{
    if (!ptr) return sym_alloc("shmem_realloc", OP_REALLOC, 1, size, 0);
    shmem_require_init("shmem_realloc");
    size_t i = heap_index(ptr, "shmem_realloc");
    same_call(OP_REALLOC, size, (uint64_t)((char *)ptr - sym_base));
    if (size == 0) { heap_free_at(i); return NULL; }
    size_t old = blks[i].len;
    if (size <= old) return ptr;       /* keep the block: same decision in every PE */
    if (i + 1 < nblk && !blks[i + 1].used && blks[i + 1].len >= size - old) {
        size_t grow = size - old;      /* grow in place into the free block after */
        blks[i].len = size;
        if (blks[i + 1].len == grow) blk_remove(i + 1);
        else blks[i + 1].off += grow, blks[i + 1].len -= grow;
        return ptr;
    }
    size_t off = heap_alloc(size, 16);
    if (off == SIZE_MAX) {
        if (sm_core.rank == 0)
            sm_say("shmem_realloc: %zu bytes do not fit in the symmetric heap (%zu bytes; raise SHMEM_SYMMETRIC_SIZE)",
                   size, sym_len);
        return NULL;
    }
    memcpy(sym_base + off, ptr, old);
    heap_free_at(blk_find((size_t)((char *)ptr - sym_base)));
    shmem_barrier_all();              /* peers may put into the new block only after all have copied */
    return sym_base + off;
}

void *shmalloc(size_t size) { return shmem_malloc(size); }
void shfree(void *ptr) { shmem_free(ptr); }
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
