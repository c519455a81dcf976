/* test_region.c: regions found by (rank, address) (rma_region.h): every
 * rank's block (a global, by its global address) registered in every rank, found from anywhere inside,
 * refused (with the reason) outside, beyond the end, or for another rank;
 * overlaps refused; removal; and lookups in threads while another thread
 * adds and removes regions (keep_old). */
#include <pthread.h>

#include "rma_region.h"
#include "rma_test.h"

#define BLK 4096
static struct rma_regions set = RMA_REGIONS_INIT("test memory");
static void *blocks[SM_NMAX];

static void *reach(int rank, void *p, size_t len)
{
    const struct rma_region *r = rma_regions_find(&set, rank, p, len);
    return r ? (char *)p + r->delta : NULL;
}

/* --- Lookups while the set changes ----------------------------------------------------- */
static _Atomic int stop;
static void *reader(void *arg)
{
    (void)arg;
    unsigned long hits = 0;
    while (!atomic_load(&stop))
        for (int r = 0; r < n; r++) {
            char *p = blocks[r];
            CHECK(reach(r, p + (hits % BLK), 1) == p + (hits % BLK), "lookup of rank %d's block failed: %s", r,
                  sm_fail_reason());
            hits++;
        }
    return NULL;
}

int main(void)
{
    test_start();
    /* Before any region: refused, not a crash. */
    int x;
    CHECK(reach(0, &x, sizeof x) == NULL, "found in an empty set");
    CHECK_REASON("is not test memory on rank 0");

    /* Every rank's block, published by global address. */
    static char mine[BLK];
    blocks[me] = sm_global(mine);
    sm_barrier();
    for (int r = 0; r < n; r++) blocks[r] = *(void **)sm_remote(r, &blocks[r]);
    CHECK_ST(rma_regions_init(&set, "test memory", true), SM_OK);
    struct rma_region reg[SM_NMAX];
    for (int r = 0; r < n; r++)
        reg[r] = (struct rma_region){ .lo = (uintptr_t)blocks[r], .len = BLK, .rank = r, .data = &set };
    CHECK_ST(rma_regions_add(&set, reg, (size_t)n), SM_OK);

    for (int r = 0; r < n; r++) {
        char *b = blocks[r];
        CHECK(reach(r, b, BLK) == b, "whole block of rank %d", r);
        CHECK(reach(r, b + BLK - 1, 1) == b + BLK - 1, "last byte of rank %d", r);
        CHECK(reach(r, b + 100, 8) == b + 100, "inside rank %d", r);   /* the remembered one */
        CHECK(reach(r, b + 1, BLK) == NULL, "one byte beyond rank %d's block", r);
        CHECK_REASON("extends beyond its test memory (4096 bytes from");
        CHECK(reach(r, b, 0) == NULL && reach(r, b, (size_t)-3) == NULL, "length 0 or negative");
        CHECK_REASON("length -3 is not positive");
        if (n > 1) {
            CHECK(reach((r + 1) % n, b, 1) == NULL, "rank %d's block as rank %d's", r, (r + 1) % n);
            CHECK_REASON("is test memory on rank");
        }
        CHECK(reach(r, b + BLK, 1) == NULL, "just past rank %d's block", r);
        CHECK(reach(r, b - 1, 1) == NULL, "just before rank %d's block", r);
    }
    /* Every rank writes into every block through what it found: all see all. */
    for (int r = 0; r < n; r++) ((char *)reach(r, blocks[r], BLK))[me] = (char)(me + 1);
    sm_barrier();
    for (int r = 0; r < n; r++) CHECK(mine[r] == r + 1, "byte %d of my block: %d", r, mine[r]);

    /* An overlap of a rank's own region is refused and changes nothing. */
    struct rma_region over = { .lo = (uintptr_t)blocks[0] + 8, .len = 8, .rank = 0, .data = &x };
    CHECK_ST(rma_regions_add(&set, &over, 1), SM_ERR_ARG);
    CHECK_REASON("overlaps");
    /* The same addresses for another rank are fine (regions of different ranks may share addresses). */
    over.rank = n;
    CHECK_ST(rma_regions_add(&set, &over, 1), SM_OK);
    size_t removed;
    CHECK_ST(rma_regions_remove(&set, &x, &removed), SM_OK);
    CHECK(removed == 1, "removed %zu", removed);

    /* Threads look up while this one adds and removes other regions. */
    pthread_t t[2];
    for (int i = 0; i < 2; i++) CHECK(!pthread_create(&t[i], NULL, reader, NULL), "pthread_create");
    static char other[64][64];
    for (int k = 0; k < 2000; k++) {
        struct rma_region o = { .lo = (uintptr_t)other[k % 64], .len = 64, .rank = k % (n + 1), .data = other[k % 64] };
        CHECK_ST(rma_regions_add(&set, &o, 1), SM_OK);
        CHECK(reach(o.rank, other[k % 64] + 3, 4) == other[k % 64] + 3, "added region");
        CHECK_ST(rma_regions_remove(&set, other[k % 64], &removed), SM_OK);
        CHECK(removed == 1 && reach(o.rank, other[k % 64], 1) == NULL, "removed region");
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);

    CHECK_ST(rma_regions_remove(&set, &set, &removed), SM_OK);
    CHECK(removed == (size_t)n && reach(me, blocks[me], 1) == NULL, "removed all: %zu", removed);
    rma_regions_clear(&set);
    CHECK(reach(me, blocks[me], 1) == NULL, "found after clear");
    sm_barrier();
    return 0;
}
