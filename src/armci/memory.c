/* memory.c: ARMCI_Malloc and ARMCI_Free (over a group), local memory, and
 * mutexes.
 *
 * Why the slot's heap and not the symmetric heap: ARMCI_Malloc lets each
 * process ask for its own size (0 included) and ARMCI_Malloc_group is
 * collective over a group only, while the symmetric heap hands out the same
 * offsets for the same calls of every rank of the job. Any exposed address
 * is reachable here, and the heap's local addresses are global ones (every
 * process maps every slot at the same place), so each process takes its
 * part from its own heap and the group exchanges the addresses with the
 * collective engine's allgather: what ARMCI_Malloc returns is at once the
 * address every process uses, in one-sided calls or by load and store.
 * The regions (rma_region.h) check every remote address against them. */
#include <stdlib.h>
#include <string.h>

#include "armci_internal.h"

#define ARMCI_ALIGN 64   /* a cache line: blocks of different processes never share one */

/* An allocation: what its regions point to. */
struct armci_alloc {
    struct armci_igroup *g;      /* compared only: the group may be freed first */
    int me;                      /* the caller's group rank */
    uint64_t *base;              /* member i's block (0: size 0) */
    struct armci_alloc *next;    /* the live ones, for Finalize */
};
static struct armci_alloc *allocs;

/* One member's part as the allgather carries it. */
struct part { uint64_t base, size; };
#define PART_NOMEM UINT64_MAX

static int malloc_group(void **ptr_arr, armci_size_t bytes, const ARMCI_Group *group, const char *r)
{
    struct armci_igroup *g = armci_group_check(group, r);
    if (!ptr_arr) armci_fail("%s: base_ptrs is NULL", r);
    if (bytes < 0) armci_fail("%s: size %ld is negative", r, bytes);
    int n = g->cg.m.size;
    struct part *all = malloc(sizeof *all * (size_t)n);
    if (!all) armci_fail("%s: no memory for %d addresses", r, n);
    void *p = NULL;
    if (bytes && posix_memalign(&p, ARMCI_ALIGN, (size_t)bytes)) p = NULL;
    struct part mine = { (uintptr_t)p, bytes && !p ? PART_NOMEM : (uint64_t)bytes };
    sm_status_t st = coll_allgather(&g->cg, all, &mine, sizeof mine);
    if (st) armci_fail_status(r, st);
    /* Out of memory anywhere: nothing is allocated anywhere, and the one short says so. */
    bool any = false, nomem = false;
    for (int i = 0; i < n; i++) any |= all[i].size != 0, nomem |= all[i].size == PART_NOMEM;
    if (nomem) {
        if (mine.size == PART_NOMEM)
            sm_say("%s: no memory for %ld bytes in process %d (raise smrun --mem-per-rank)", r, bytes, armci_me);
        free(p), free(all);
        return 1;
    }
    for (int i = 0; i < n; i++) ptr_arr[i] = (void *)(uintptr_t)all[i].base;
    if (!any) {   /* every size 0: every address NULL, nothing to free later */
        free(all);
        return 0;
    }
    struct armci_alloc *a = malloc(sizeof *a);
    uint64_t *base = malloc(sizeof *base * (size_t)n);
    struct rma_region *reg = malloc(sizeof *reg * (size_t)n);
    if (!a || !base || !reg) armci_fail("%s: no memory to keep an allocation of %d parts", r, n);
    for (int i = 0; i < n; i++) {
        base[i] = all[i].base;
        reg[i] = (struct rma_region){ .lo = all[i].base, .len = all[i].size, .rank = g->abs[i], .data = a };
    }
    if ((st = rma_regions_add(&armci_regions, reg, (size_t)n))) armci_fail("%s: %s", r, sm_fail_reason());
    *a = (struct armci_alloc){ g, g->cg.m.me, base, allocs };
    allocs = a;
    free(reg), free(all);
    return 0;
}

static void forget(struct armci_alloc *a)
{
    size_t removed;
    rma_regions_remove(&armci_regions, a, &removed);
    for (struct armci_alloc **p = &allocs; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            break;
        }
    free((void *)(uintptr_t)a->base[a->me]);
    free(a->base), free(a);
}

static int free_group(void *ptr, const ARMCI_Group *group, const char *r)
{
    struct armci_igroup *g = armci_group_check(group, r);
    int n = g->cg.m.size;
    uint64_t *all = malloc(sizeof *all * (size_t)n), mine = (uintptr_t)ptr;
    if (!all) armci_fail("%s: no memory for %d addresses", r, n);
    /* When this returns, every member has entered ARMCI_Free: their
     * operations on the block are complete (each is, when it returns). */
    sm_status_t st = coll_allgather(&g->cg, all, &mine, sizeof mine);
    if (st) armci_fail_status(r, st);
    int first = 0;
    while (first < n && !all[first]) first++;
    if (first == n) {   /* an allocation of size 0 everywhere */
        free(all);
        return 0;
    }
    /* The allocation whose part first gave is the one; every member must
     * have given its own part of it (or NULL for a part of size 0). */
    const struct rma_region *reg = rma_regions_find(&armci_regions, g->abs[first], (void *)(uintptr_t)all[first], 1);
    struct armci_alloc *a = reg && reg->lo == all[first] ? reg->data : NULL;
    int bad = -1;
    for (int i = 0; i < n && a && a->g == g; i++)
        if (all[i] != a->base[i] && bad < 0) bad = i;
    if (!a || a->g != g || bad >= 0) {
        /* One member says why (the one at fault where there is one); the others wait for the job to end. */
        int who = bad >= 0 ? bad : first;
        if (g->cg.m.me == who) {
            if (!a) armci_fail("%s: %p is not an address ARMCI_Malloc returned", r, ptr);
            if (a->g != g) armci_fail("%s: %p was allocated over another group (ARMCI_Free_group with that group)", r, ptr);
            armci_fail("%s: process %d passed %p, but process %d passed %p, of an allocation whose part on process %d is %p",
                       r, armci_me, ptr, g->abs[first], (void *)(uintptr_t)all[first], armci_me,
                       (void *)(uintptr_t)a->base[bad]);
        }
        sm_fail(SM_ERR_PEER, "process %d passed an address of another allocation", g->abs[who]);
        armci_fail_status(r, SM_ERR_PEER);
    }
    free(all);
    forget(a);
    return 0;
}

void armci_memory_finalize(void)
{
    while (allocs) forget(allocs);
}

int PARMCI_Malloc(void **base_ptrs, armci_size_t size) { return malloc_group(base_ptrs, size, &armci_world, "ARMCI_Malloc"); }
int PARMCI_Free(void *ptr) { return free_group(ptr, &armci_world, "ARMCI_Free"); }
int ARMCI_Malloc_group(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group)
{
    return malloc_group(ptr_arr, bytes, group, "ARMCI_Malloc_group");
}
int ARMCI_Free_group(void *ptr, ARMCI_Group *group) { return free_group(ptr, group, "ARMCI_Free_group"); }
/* The device (a SICM memory kind in ARMCI-MPI) is ignored: there is one kind of memory here. */
int PARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device)
{
    (void)device;
    return malloc_group(ptr_arr, bytes, &armci_world, "ARMCI_Malloc_memdev");
}
int PARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group, const char *device)
{
    (void)device;
    return malloc_group(ptr_arr, bytes, group, "ARMCI_Malloc_group_memdev");
}
int PARMCI_Free_memdev(void *ptr) { return free_group(ptr, &armci_world, "ARMCI_Free_memdev"); }
#pragma weak ARMCI_Malloc = PARMCI_Malloc
#pragma weak ARMCI_Free = PARMCI_Free
#pragma weak ARMCI_Malloc_memdev = PARMCI_Malloc_memdev
#pragma weak ARMCI_Malloc_group_memdev = PARMCI_Malloc_group_memdev
#pragma weak ARMCI_Free_memdev = PARMCI_Free_memdev

/* Local buffers: any memory is fine (and exposed) here. */
void *PARMCI_Malloc_local(armci_size_t size)
{
    if (size < 0) armci_fail("ARMCI_Malloc_local: size %ld is negative", size);
    return malloc(size ? (size_t)size : 1);
}
int PARMCI_Free_local(void *ptr)
{
    free(ptr);
    return 0;
}
#pragma weak ARMCI_Malloc_local = PARMCI_Malloc_local
#pragma weak ARMCI_Free_local = PARMCI_Free_local

/* --- Mutexes ---------------------------------------------------------------------------
 * The engine's ticket lock (rma.h), one per cache line, in the memory of
 * the process that made it; every process learns every process's count
 * and address. held: which ones this process holds, to refuse locking one
 * twice (a deadlock) or unlocking one it does not hold. */
struct padded_lock { alignas(SM_CACHELINE) struct rma_lock l; };
static struct {
    bool on;
    struct part *at;             /* per process: its locks' address and count */
    uint8_t **held;              /* per process: a flag per mutex */
    struct padded_lock *mine;
} mx;

int PARMCI_Create_mutexes(int count)
{
    const char *r = "ARMCI_Create_mutexes";
    armci_require_init(r);
    if (count < 0) armci_fail("%s: count %d is negative", r, count);
    if (mx.on) armci_fail("%s: the mutexes exist already (ARMCI_Destroy_mutexes first)", r);
    size_t n = (size_t)armci_nproc;
    mx.at = malloc(sizeof *mx.at * n);
    mx.held = calloc(n, sizeof *mx.held);
    if (count && posix_memalign((void **)&mx.mine, SM_CACHELINE, sizeof *mx.mine * (size_t)count)) mx.mine = NULL;
    if (!mx.at || !mx.held || (count && !mx.mine)) armci_fail("%s: no memory for %d mutexes", r, count);
    if (count) memset(mx.mine, 0, sizeof *mx.mine * (size_t)count);   /* zero bytes: free locks */
    struct part mine = { (uintptr_t)mx.mine, (uint64_t)count };
    sm_status_t st = coll_allgather(&armci_world.impl->cg, mx.at, &mine, sizeof mine);
    if (st) armci_fail_status(r, st);
    for (size_t p = 0; p < n; p++)
        if (mx.at[p].size && !(mx.held[p] = calloc(mx.at[p].size, 1))) armci_fail("%s: no memory", r);
    mx.on = true;
    return 0;
}
#pragma weak ARMCI_Create_mutexes = PARMCI_Create_mutexes

static void release_all(void)
{
    for (int p = 0; p < armci_nproc && mx.held; p++) free(mx.held[p]);
    free(mx.held), free(mx.at), free(mx.mine);
    mx = (__typeof__(mx)){ 0 };
}

int PARMCI_Destroy_mutexes(void)
{
    const char *r = "ARMCI_Destroy_mutexes";
    armci_require_init(r);
    if (!mx.on) armci_fail("%s: there are no mutexes (ARMCI_Create_mutexes first)", r);
    for (int p = 0; p < armci_nproc; p++)
        for (uint64_t m = 0; m < mx.at[p].size; m++)
            if (mx.held[p][m]) armci_fail("%s: this process still holds mutex %d of process %d", r, (int)m, p);
    sm_status_t st = coll_barrier(&armci_world.impl->cg);   /* nobody takes one any more */
    if (st) armci_fail_status(r, st);
    release_all();
    return 0;
}
#pragma weak ARMCI_Destroy_mutexes = PARMCI_Destroy_mutexes

void armci_mutex_finalize(void) { release_all(); }

static struct rma_lock *mutex_of(int mutex, int proc, const char *r)
{
    armci_check_proc(proc, r);
    if (!mx.on) armci_fail("%s: there are no mutexes (ARMCI_Create_mutexes first)", r);
    if (mutex < 0 || (uint64_t)mutex >= mx.at[proc].size)
        armci_fail("%s: mutex %d out of range: process %d has %d", r, mutex, proc, (int)mx.at[proc].size);
    return &((struct padded_lock *)(uintptr_t)mx.at[proc].base)[mutex].l;
}

void PARMCI_Lock(int mutex, int proc)
{
    struct rma_lock *l = mutex_of(mutex, proc, "ARMCI_Lock");
    if (mx.held[proc][mutex]) armci_fail("ARMCI_Lock: this process holds mutex %d of process %d already", mutex, proc);
    if (SM_UNLIKELY(rma_remote(proc))) {
        if (rma_remote_lock_acquire(proc, l)) armci_fail("ARMCI_Lock: %s", sm_fail_reason());
    } else {
        rma_lock_acquire(l);
    }
    mx.held[proc][mutex] = 1;
}

void PARMCI_Unlock(int mutex, int proc)
{
    struct rma_lock *l = mutex_of(mutex, proc, "ARMCI_Unlock");
    if (!mx.held[proc][mutex]) armci_fail("ARMCI_Unlock: this process does not hold mutex %d of process %d", mutex, proc);
    mx.held[proc][mutex] = 0;
    /* a release: what the critical section wrote is seen by the next holder (across nodes: complete first) */
    if (SM_UNLIKELY(rma_remote_up)) armci_quiet("ARMCI_Unlock");
    if (SM_UNLIKELY(rma_remote(proc))) {
        if (rma_remote_lock_release(proc, l)) armci_fail("ARMCI_Unlock: %s", sm_fail_reason());
    } else {
        rma_lock_release(l);
    }
}
#pragma weak ARMCI_Lock = PARMCI_Lock
#pragma weak ARMCI_Unlock = PARMCI_Unlock
