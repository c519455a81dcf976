/* Oversubscribed, a wait yields 4 times for each other rank of its CPU (at
 * least 4) before it sleeps (core/wait.c yield_iters): with 4 ranks a CPU
 * (8 on 2 cores) 4 yields went round the CPU's other ranks about once,
 * each of them waiting too, and the wait slept while the rank it waited
 * for was about to run (docs/NOTES.md, scatv). Counted here as the looks
 * at the condition before the first sleep: 4 spins, then the yields. Every
 * rank on its own. */
#include <stdbool.h>
#include "check.h"
#include "sm_core.h"

static unsigned looks, looks_slept;

/* Each look takes 250 us, so that of the yields that find the core idle
 * only the first counts for nothing (yield_idle's window is 200 us from
 * it); the wait's sleep is seen by its own count of sleepers (under
 * SM_WAKE_USER, which nothing else of the process waits for), whatever
 * other threads of the process do with the process-wide counters. */
static bool cond(void *arg)
{
    (void)arg;
    if (atomic_load(&sm_ctrl_of(sm_core.rank)->sleepers[SM_WAKE_USER].n)) {
        looks_slept = looks;
        return true;
    }
    looks++;
    for (uint64_t t = sm_now_ns(); sm_now_ns() - t < 250000;) {}
    return false;
}

int main(void)
{
    sm_core.oversubscribed = true;      /* as with more ranks than cores, on any machine */
    const int per_cpu[] = { 1, 2, 3, 4, 8 };
    for (size_t k = 0; k < sizeof per_cpu / sizeof *per_cpu; k++) {
        sm_core.per_cpu = (uint16_t)per_cpu[k];
        looks = 0;
        sm_wait_for(SM_WAKE_ON(SM_WAKE_USER), cond, NULL);
        unsigned yields = looks_slept - 4;      /* less the spins */
        unsigned want = 4 * (unsigned)(per_cpu[k] > 2 ? per_cpu[k] - 1 : 1);
        CHECK(yields == want || yields == want + 1,
              "%d ranks a CPU: %u yields before the first sleep (%u looks), want %u (or one more: an idle one)",
              per_cpu[k], yields, looks_slept, want);
    }
    printf("rank %d: wait yields ok\n", sm_core.rank);
    return 0;
}
