/* test_heap.c: the symmetric heap (rma.h) through its own API: alloc, free,
 * realloc and align patterns give the same offsets in every rank; calloc
 * clears and realloc copies before any rank returns; the same-call check
 * catches mismatched calls, names the rank at fault, and hangs no rank;
 * bad pointers, exhaustion and a closed view are errors, not job ends. */
#include "rma_test.h"

#define HEAP (16u << 20)
static struct rma_sym v;
static uint64_t pub;

/* The block's offset in the heap is the same in every rank. */
static void same_everywhere(void *p, const char *what)
{
    uint64_t off = p ? (uint64_t)((char *)p - (char *)v.heap_lo) : UINT64_MAX;
    CHECK(from_rank0(&pub, off) == off, "%s: offset %llu differs from rank 0's", what, (unsigned long long)off);
}

static void *alloc(size_t size, size_t align, bool zero)
{
    void *p;
    CHECK_ST(rma_heap_alloc(&v, size, align, zero, &p), SM_OK);
    same_everywhere(p, "alloc");
    CHECK(!p || (uintptr_t)p % (align < 16 ? 16 : align) == 0, "%p not aligned to %zu", p, align);
    return p;
}

static void patterns(void)
{
    void *z;
    CHECK_ST(rma_heap_alloc(&v, 0, 1, false, &z), SM_OK);
    CHECK(z == NULL, "alloc(0) gave %p", z);
    char *a = alloc(100, 1, false), *b = alloc(5000, 4096, false), *c = alloc(231, 1, true);
    for (int i = 0; i < 231; i++) CHECK(c[i] == 0, "calloc byte %d", i);
    /* every alignment from 1 to 1 MiB */
    void *al[21];
    for (int k = 0; k <= 20; k++) al[k] = alloc((size_t)k * 7 + 1, (size_t)1 << k, false);
    for (int k = 20; k >= 0; k -= 2) CHECK_ST(rma_heap_free(&v, al[k]), SM_OK);
    for (int k = 1; k <= 20; k += 2) CHECK_ST(rma_heap_free(&v, al[k]), SM_OK);
    /* realloc: grows (moving, or in place into a free neighbour), shrinks in place, keeps the bytes */
    for (int i = 0; i < 100; i++) a[i] = (char)(i + me);
    void *r;
    CHECK_ST(rma_heap_realloc(&v, a, 100000, &r), SM_OK);
    same_everywhere(r, "realloc (grow)");
    for (int i = 0; i < 100; i++) CHECK(((char *)r)[i] == (char)(i + me), "realloc byte %d", i);
    a = r;
    CHECK_ST(rma_heap_realloc(&v, a, 50, &r), SM_OK);
    CHECK(r == a, "shrinking moved the block");
    CHECK_ST(rma_heap_free(&v, b), SM_OK);   /* a's old place and b's: free after a */
    CHECK_ST(rma_heap_realloc(&v, c, 4000, &r), SM_OK);
    same_everywhere(r, "realloc into the free block after");
    c = r;
    CHECK_ST(rma_heap_realloc(&v, NULL, 300, &r), SM_OK);   /* NULL: alloc */
    same_everywhere(r, "realloc(NULL)");
    CHECK_ST(rma_heap_realloc(&v, r, 0, &r), SM_OK);        /* 0: free */
    CHECK(r == NULL, "realloc to 0 gave %p", r);
    CHECK_ST(rma_heap_free(&v, NULL), SM_OK);
    /* first fit: a freed block's place is reused */
    char *d = alloc(64, 1, false);
    CHECK_ST(rma_heap_free(&v, d), SM_OK);
    char *e = alloc(64, 1, false);
    CHECK(d == e, "first fit: %p, then %p", (void *)d, (void *)e);
    /* many blocks freed out of order coalesce: the whole heap is one block again */
    void *many[64];
    for (int i = 0; i < 64; i++) many[i] = alloc((size_t)(i * 13 + 1), 16, false);
    for (int i = 0; i < 64; i += 2) CHECK_ST(rma_heap_free(&v, many[i]), SM_OK);
    for (int i = 1; i < 64; i += 2) CHECK_ST(rma_heap_free(&v, many[i]), SM_OK);
    CHECK_ST(rma_heap_free(&v, a), SM_OK);
    CHECK_ST(rma_heap_free(&v, c), SM_OK);
    CHECK_ST(rma_heap_free(&v, e), SM_OK);
    void *all = alloc(HEAP, 1, false);
    CHECK(all == (void *)v.heap_lo, "the whole heap after every free: %p", all);
    CHECK_ST(rma_heap_free(&v, all), SM_OK);
}

/* A block cleared or copied before any rank returns: a peer's put right
 * after the call survives. */
static void before_return(void)
{
    size_t big = 4u << 20;
    char *z = alloc(big, 1, true);
    memcpy(rma_sym_xlate(&v, (me + 1) % n, z + big - 8, 8), "survive", 8);
    sm_barrier();
    CHECK(!memcmp(z + big - 8, "survive", 8) && z[0] == 0 && z[big / 2] == 0, "calloc's clearing");
    void *small = alloc(64, 1, false);   /* so that the realloc below must move */
    void *r;
    CHECK_ST(rma_heap_realloc(&v, z, big + 4096, &r), SM_OK);
    CHECK(r != z, "realloc did not move");
    memcpy(rma_sym_xlate(&v, (me + 1) % n, r, 8), "first!!", 8);
    sm_barrier();
    CHECK(!memcmp(r, "first!!", 8) && !memcmp((char *)r + big - 8, "survive", 8), "realloc's copy");
    CHECK_ST(rma_heap_free(&v, r), SM_OK);
    CHECK_ST(rma_heap_free(&v, small), SM_OK);
}

/* Mismatches: every rank returns (none hangs), the first rank that differs
 * from rank 0 gets SM_ERR_MISMATCH, the others SM_ERR_PEER, with the same
 * reason; the heap is unchanged, and later calls work. */
static void mismatches(void)
{
    void *p;
    sm_status_t st = rma_heap_alloc(&v, me == 1 ? 200 : 100, 1, false, &p);
    CHECK(st == (me == 1 ? SM_ERR_MISMATCH : SM_ERR_PEER) && !p, "mismatched sizes gave %s", sm_status_name(st));
    CHECK_REASON("rank 1's collective heap call");
    CHECK_REASON("is alloc(size 200, align 1), but rank 0's is alloc(size 100, align 1)");
    st = rma_heap_alloc(&v, 64, me == n - 1 ? 32 : 64, me == n - 1, &p);   /* the last rank: calloc, align 32 */
    CHECK(st == (me == n - 1 ? SM_ERR_MISMATCH : SM_ERR_PEER), "mismatched alignment gave %s", sm_status_name(st));
    CHECK_REASON("calloc(size 64, align 32)");
    /* a bad pointer in one rank: that rank is named, even rank 0 */
    static char not_heap[64];
    void *good = alloc(64, 1, false);
    st = rma_heap_free(&v, me == 0 ? (void *)not_heap : good);
    CHECK(st == (me == 0 ? SM_ERR_MISMATCH : SM_ERR_PEER), "a bad free in rank 0 gave %s", sm_status_name(st));
    CHECK_REASON("rank 0's collective heap call");
    CHECK_REASON("not in the heap), but rank 1's is free(offset");
    /* the same bad pointer everywhere: an argument error in every rank */
    CHECK_ST(rma_heap_free(&v, not_heap), SM_ERR_ARG);
    CHECK_REASON("is not a live block of the symmetric heap");
    CHECK(strstr(sm_fail_reason(), "0x") || strstr(sm_fail_reason(), "(nil)"), "the reason names the pointer");
    void *r;
    CHECK_ST(rma_heap_realloc(&v, not_heap, 10, &r), SM_ERR_ARG);
    /* a free of a freed block is a bad pointer too */
    CHECK_ST(rma_heap_free(&v, good), SM_OK);
    CHECK_ST(rma_heap_free(&v, good), SM_ERR_ARG);
    /* alignment that is not a power of two: the same error everywhere */
    CHECK_ST(rma_heap_alloc(&v, 8, 24, false, &p), SM_ERR_ARG);
    CHECK_REASON("alignment 24 is not a power of two");
    /* too large: NULL everywhere, the heap unchanged */
    CHECK_ST(rma_heap_alloc(&v, HEAP + 1, 1, false, &p), SM_ERR_NOMEM);
    CHECK(!p, "a block beyond the heap");
    CHECK_REASON("do not fit in the symmetric heap");
    void *keep = alloc(HEAP / 2, 1, false), *blocker = alloc(16, 1, false);   /* keep cannot grow in place */
    CHECK_ST(rma_heap_realloc(&v, keep, HEAP / 2 + 4096, &r), SM_ERR_NOMEM);
    CHECK(r == keep, "a failed realloc lost the block");
    CHECK_ST(rma_heap_free(&v, blocker), SM_OK);
    CHECK_ST(rma_heap_realloc(&v, keep, HEAP, &r), SM_OK);   /* now in place, to the heap's end */
    CHECK(r == keep, "grown in place");
    CHECK_ST(rma_heap_free(&v, keep), SM_OK);
    void *all = alloc(HEAP, 1, false);   /* everything above left the heap whole */
    CHECK(all == (void *)v.heap_lo, "the heap after the errors");
    CHECK_ST(rma_heap_free(&v, all), SM_OK);
}

int main(void)
{
    test_start();
    void *p;
    CHECK_ST(rma_heap_alloc(&v, 8, 1, false, &p), SM_ERR_STATE);   /* not open yet */
    CHECK_ST(rma_sym_open(&v, HEAP, NULL), SM_OK);
    CHECK(v.npes == (unsigned)n && v.heap_len == HEAP && rma_heap_size() == HEAP, "open: %u PEs, %llu bytes",
          v.npes, (unsigned long long)v.heap_len);
    CHECK_ST(rma_sym_open(&v, HEAP, NULL), SM_ERR_STATE);          /* open already */
    /* a second view (another binding) shares the heap, whatever size it asks */
    struct rma_sym v2 = {0};
    CHECK_ST(rma_sym_open(&v2, 1, NULL), SM_OK);
    CHECK(v2.heap_lo == v.heap_lo && v2.heap_len == HEAP, "the second view");
    patterns();
    before_return();
    mismatches();
    rma_sym_close(&v2);
    rma_sym_close(&v);
    CHECK(v.npes == 0 && rma_heap_size() == 0, "closed");
    CHECK_ST(rma_heap_alloc(&v, 8, 1, false, &p), SM_ERR_STATE);
    CHECK_REASON("not open");
    /* open again, larger: the region grows, the heap starts empty */
    CHECK_ST(rma_sym_open(&v, 2 * HEAP, NULL), SM_OK);
    void *all = alloc(2 * HEAP, 1, false);
    memset(all, me, 2 * HEAP);   /* every byte of the grown region is there */
    CHECK_ST(rma_heap_free(&v, all), SM_OK);
    rma_sym_close(&v);
    sm_barrier();
    return 0;
}
