/* test_wake.c: who a put wakes (src/core/wait.c). A rank asleep in a
 * collective waits for its members, not for puts: puts and atomics to it
 * make no system call (counted by sm_doorbell_syscalls), while a rank
 * asleep in rma_wait_until is woken by them. Then a stress: every round,
 * puts and atomics to ranks that sleep in collectives (barrier, broadcast,
 * allgather) or in rma_wait_until for those atomics, late arrivals made by
 * yields; nothing may hang with 8 ranks on 2 cores. With the engines' own
 * APIs (rma, coll), world group, no p2p polling. */
#include <sched.h>
#include <stdatomic.h>

#include "coll.h"
#include "rma_test.h"

static uint64_t slot[64];            /* slot[r]: rank r's last put here */
static _Atomic uint64_t hits;        /* atomics from the peers */
static _Atomic uint32_t flag;

static struct coll_group world;

static uint32_t sleepers(int rank, enum sm_wake_kind k)
{
    return atomic_load(&sm_ctrl_of(rank)->sleepers[k].n);
}
static void until_asleep(int rank, enum sm_wake_kind k)
{
    while (!sleepers(rank, k)) sched_yield();
}

static void put_to(int pe, uint64_t v)
{
    *(volatile uint64_t *)sm_remote(pe, &slot[me]) = v;
    rma_wake(pe);
}
static void add_to(int pe)
{
    atomic_fetch_add((_Atomic uint64_t *)sm_remote(pe, (void *)&hits), 1);
    rma_wake(pe);
}

static bool flag_set(void *arg) { (void)arg; return atomic_load(&flag) != 0; }

/* Rank 1 sleeps in a barrier; rank 0's puts and atomics to it ring nothing. */
static void asleep_in_collective(void)
{
    if (me == 0) {
        until_asleep(1, SM_WAKE_COLL);
        uint64_t before = sm_doorbell_syscalls();
        for (int i = 0; i < 1000; i++) put_to(1, (uint64_t)i + 1);
        for (int i = 0; i < 100; i++) add_to(1);
        uint64_t made = sm_doorbell_syscalls() - before;
        CHECK(made == 0, "1100 puts and atomics to a rank asleep in a barrier made %llu futex wakes",
              (unsigned long long)made);
        CHECK(sleepers(1, SM_WAKE_RMA) == 0, "a rank in a barrier waits for puts");
    }
    CHECK_ST(coll_barrier(&world), SM_OK);
    if (me == 1) {
        CHECK(slot[0] == 1000 && atomic_load(&hits) == 100, "rank 0's puts: %llu, atomics: %llu",
              (unsigned long long)slot[0], (unsigned long long)atomic_load(&hits));
        atomic_store(&hits, 0);
    }
    CHECK_ST(coll_barrier(&world), SM_OK);
}

/* Rank 1 sleeps in rma_wait_until; rank 0's put wakes it, with one futex
 * wake for the whole stream (or none, if rank 1 was between two sleeps). */
static void asleep_waiting_for_puts(void)
{
    if (me == 1) {
        rma_wait_until(flag_set, NULL);
        atomic_store(&flag, 0);
    } else if (me == 0) {
        until_asleep(1, SM_WAKE_RMA);
        uint64_t before = sm_doorbell_syscalls();
        atomic_store((_Atomic uint32_t *)sm_remote(1, (void *)&flag), 1);
        rma_wake(1);
        for (int i = 0; i < 100; i++) put_to(1, 7);
        uint64_t made = sm_doorbell_syscalls() - before;
        CHECK(made <= 1, "a stream of puts to one sleep made %llu futex wakes", (unsigned long long)made);
    }
    CHECK_ST(coll_barrier(&world), SM_OK);
}

/* Every rank puts its round number into every peer and adds one to each
 * peer's count; some wait for all their atomics of the round (asleep in
 * rma_wait_until), some arrive late, the rest sleep in the collective. */
struct want { uint64_t n; };
static bool all_hits(void *arg) { return atomic_load(&hits) >= ((struct want *)arg)->n; }

static void stress(int rounds)
{
    uint64_t buf[64], mine;
    for (int k = 1; k <= rounds; k++) {
        if ((k + me) % 4 == 0)
            for (int y = 0; y < 20; y++) sched_yield();      /* late: the others sleep */
        for (int d = 1; d < n; d++) {
            int pe = (me + d) % n;
            put_to(pe, (uint64_t)k);
            add_to(pe);
        }
        if ((k + me) % 3 == 0) {
            struct want w = { (uint64_t)(n - 1) * (uint64_t)k };
            rma_wait_until(all_hits, &w);
        }
        switch (k % 3) {
        case 0: CHECK_ST(coll_barrier(&world), SM_OK); break;
        case 1: mine = (uint64_t)k; CHECK_ST(coll_bcast(&world, &mine, &mine, sizeof mine, k % n), SM_OK); break;
        default: mine = (uint64_t)me; CHECK_ST(coll_allgather(&world, buf, &mine, sizeof mine), SM_OK);
                 for (int r = 0; r < n; r++) CHECK(buf[r] == (uint64_t)r, "allgather round %d: %llu from %d", k,
                                                   (unsigned long long)buf[r], r);
        }
        /* After a barrier every peer has put this round's number (its puts
         * precede its arrival); the next round's come after the next one. */
        CHECK_ST(coll_barrier(&world), SM_OK);
        for (int r = 0; r < n; r++)
            CHECK(r == me || slot[r] == (uint64_t)k, "round %d: rank %d's put is %llu", k, r,
                  (unsigned long long)slot[r]);
        CHECK(atomic_load(&hits) == (uint64_t)(n - 1) * (uint64_t)k, "round %d: %llu atomics", k,
              (unsigned long long)atomic_load(&hits));
        CHECK_ST(coll_barrier(&world), SM_OK);
    }
    CHECK(atomic_load(&hits) == (uint64_t)(n - 1) * (uint64_t)rounds, "%llu atomics in all",
          (unsigned long long)atomic_load(&hits));
}

int main(void)
{
    test_start();
    CHECK(n <= 64, "at most 64 ranks");
    struct sm_group all = { n, me, 0, 1, NULL };
    CHECK_ST(coll_group_create(&world, &all, NULL), SM_OK);
    for (int i = 0; i < 3; i++) {
        asleep_in_collective();
        asleep_waiting_for_puts();
    }
    atomic_store(&hits, 0);
    CHECK_ST(coll_barrier(&world), SM_OK);
    stress(n > 4 ? 150 : 400);
    coll_group_destroy(&world);
    if (me == 0) printf("wake: puts to sleepers in collectives ring nothing, %d ranks\n", n);
    return 0;
}
