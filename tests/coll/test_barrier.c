/* The one barrier (src/core/barrier.c) as the job barrier, on groups (the
 * combining tree: one level up to 8 members, more beyond) and on active
 * sets (flat): no member leaves before every member has entered. Each
 * member adds one to a count in the group's first member before the
 * barrier and reads it after: it must have grown by the whole group, and
 * by less than two groups (a member that left early would let a peer run
 * two rounds ahead). Runs in seconds with many more ranks than cores. */
#include <sched.h>
#include <stdatomic.h>

#include "check.h"
#include "coll.h"

static _Atomic uint32_t count[4];

static void check_rounds(const char *what, int first_rank, int size, int idx, int rounds, void (*bar)(void *), void *arg)
{
    _Atomic uint32_t *c = sm_remote(first_rank, (void *)&count[idx]);
    bar(arg);                                       /* everyone has finished earlier rounds */
    uint32_t base = atomic_load(c);
    bar(arg);                                       /* everyone has read base */
    for (int k = 0; k < rounds; k++) {
        atomic_fetch_add(c, 1);
        if ((k * 7 + sm_rank()) % 5 == 0) sched_yield();   /* some arrive late */
        bar(arg);
        uint32_t v = atomic_load(c) - base;
        CHECK(v >= (uint32_t)(k + 1) * (uint32_t)size && v < (uint32_t)(k + 2) * (uint32_t)size,
              "%s round %d: count %u, %d members", what, k, v, size);
    }
}

static void job_barrier(void *arg) { (void)arg; sm_barrier(); }
static void group_barrier(void *g) { CHECK(coll_barrier(g) == SM_OK, "coll_barrier"); }

int main(void)
{
    int me = sm_rank(), n = sm_size(), rounds = n > 16 ? 20 : 100;
    check_rounds("job barrier", 0, n, 0, rounds, job_barrier, NULL);
    struct coll_group world, rev, evens, aset;
    struct sm_group all = { n, me, 0, 1, NULL }, r = { n, n - 1 - me, n - 1, -1, NULL };
    struct sm_group ev = { (n + 1) / 2, me % 2 ? -1 : me / 2, 0, 2, NULL };
    CHECK(coll_group_create(&world, &all, NULL) == SM_OK && coll_group_create(&rev, &r, &world) == SM_OK &&
          coll_group_create(&evens, &ev, &world) == SM_OK, "groups: %s", sm_fail_reason());
    check_rounds("group barrier", 0, n, 1, rounds, group_barrier, &world);
    check_rounds("reversed group barrier", n - 1, n, 2, rounds, group_barrier, &rev);
    if (me % 2 == 0) check_rounds("every other rank", 0, (n + 1) / 2, 3, rounds, group_barrier, &evens);
    /* A small group's state (one word: count and generation) taken over by
     * a large one (a tree) at the same number, and back. */
    for (int k = 0; k < 3; k++) {
        struct coll_group small, big;
        struct sm_group sm = { n < 3 ? n : 3, me < 3 ? me : -1, 0, 1, NULL };
        CHECK(coll_group_create(&small, &sm, &world) == SM_OK, "small group");
        if (me < 3) check_rounds("small group", 0, sm.size, 3, 10, group_barrier, &small);
        int num = small.num;
        coll_group_destroy(&small);
        CHECK(coll_group_create(&big, &all, &world) == SM_OK, "big group");
        CHECK(me >= 3 || big.num == num, "the number %d is taken again (%d)", num, big.num);
        check_rounds("group after a small one", 0, n, 1, 10, group_barrier, &big);
        coll_group_destroy(&big);
    }
    coll_group_aset(&aset, 0, 0, n);
    check_rounds("active set barrier", 0, n, 0, rounds, group_barrier, &aset);
    sm_barrier();
    if (me == 0) printf("test_barrier: %d ranks ok\n", n);
    return 0;
}
