/* xlate.c: the slow path of the symmetric translation (rma.h): the exposed
 * memory beyond the symmetric heap and the globals, and why an address is
 * refused. */
#include "rma.h"

/* [off, off+len) inside [lo, lo+n)? */
static inline bool within(uint64_t off, size_t len, uint64_t lo, uint64_t n)
{
    return off - lo < n && len <= n - (off - lo);
}

static void *extends(const void *addr, size_t len, const char *what, int pe)
{
    sm_fail(SM_ERR_ACCESS, "address %p + %zu bytes extends beyond %s, target PE %d", addr, len, what, pe);
    return NULL;
}

/* A global address: offset off of rank q's slot. */
static void *slot_address(const struct rma_sym *v, int pe, const void *addr, size_t len, int q, uint64_t off)
{
    uintptr_t at = sm_slot_base(pe) + off;
    if (off - SM_SYM_OFF < v->heap_len)
        return within(off, len, SM_SYM_OFF, v->heap_len) ? (void *)at : extends(addr, len, "the symmetric heap", pe);
    if (off - SM_GLOBALS_OFF < v->globals_len)
        return within(off, len, SM_GLOBALS_OFF, v->globals_len) ? (void *)at : extends(addr, len, "the globals", pe);
    if (off - SM_STACK_OFF < sm_core.stack_len)
        return within(off, len, SM_STACK_OFF, sm_core.stack_len) ? (void *)at : extends(addr, len, "the stack", pe);
    if (off - SM_HEAP_OFF < SM_HEAP_MAX) {   /* (the most any rank's heap can be) */
        if (!within(off, len, SM_HEAP_OFF, SM_HEAP_MAX)) return extends(addr, len, "the heap", pe);
        if (q == pe) return (void *)at;   /* pe's own object, by its global address */
        if (q == sm_core.rank)
            sm_fail(SM_ERR_ACCESS, "address %p is not symmetric: it is private heap memory (malloc), "
                    "target PE %d", addr, pe);
        else
            sm_fail(SM_ERR_ACCESS, "address %p is not symmetric: it is heap memory (malloc) of PE %d, "
                    "which can be reached on PE %d only, target PE %d", addr, q, q, pe);
        return NULL;
    }
    sm_fail(SM_ERR_ACCESS, "address %p is not symmetric: it is in PE %d's control region, target PE %d", addr, q, pe);
    return NULL;
}

void *rma_sym_xlate_slow(const struct rma_sym *v, int pe, const void *addr, size_t len)
{
    if (!v->npes) {
        sm_fail(SM_ERR_STATE, "the symmetric view is closed");
        return NULL;
    }
    if ((unsigned)pe >= v->npes) {
        sm_fail(SM_ERR_ARG, "PE %d out of range (0..%u)", pe, v->npes - 1);
        return NULL;
    }
    if (len == 0) return (void *)sm_slot_base(pe);   /* nothing is accessed */
    if (v->fast_npes != v->npes) {   /* across nodes the fast path is off: its tests here */
        uintptr_t d = (uintptr_t)addr - v->heap_lo, g = (uintptr_t)addr - v->globals_lo;
        if (d < v->heap_len && len - 1 < v->heap_len - d) return (void *)(sm_slot_base(pe) + SM_SYM_OFF + d);
        if (g < v->globals_len && len - 1 < v->globals_len - g)
            return (void *)(sm_slot_base(pe) + SM_GLOBALS_OFF + g);
    }
    if ((ptrdiff_t)len < 0) {   /* a negative size reaches here as a huge size_t: name it as written */
        sm_fail(SM_ERR_ARG, "size %td is negative, target PE %d", (ptrdiff_t)len, pe);
        return NULL;
    }
    uintptr_t a = (uintptr_t)addr;
    if (a - v->heap_lo < v->heap_len) return extends(addr, len, "the symmetric heap", pe);
    if (a - v->globals_lo < v->globals_len) return extends(addr, len, "the globals", pe);
    if (a - sm_core.stack_lo < sm_core.stack_len) {
        if (!within(a, len, sm_core.stack_lo, sm_core.stack_len)) return extends(addr, len, "the stack", pe);
        return (void *)(sm_slot_base(pe) + SM_STACK_OFF + (a - sm_core.stack_lo));
    }
    uintptr_t s = a - (uintptr_t)SM_BASE;
    if (s < ((uintptr_t)v->npes << SM_SLOT_SHIFT))
        return slot_address(v, pe, addr, len, (int)(s >> SM_SLOT_SHIFT), s & (SM_SLOT - 1));
    sm_fail(SM_ERR_ACCESS, "address %p is not symmetric (not exposed by smartmap), target PE %d", addr, pe);
    return NULL;
}
