/* Oversubscribed, a wait yields 4 times for each other rank of its CPU (at
 * least 4) before it sleeps (core/wait.c yield_iters): with 4 ranks a CPU
 * (8 on 2 cores) 4 yields went round the CPU's other ranks about once,
 * each of them waiting too, and the wait slept while the rank it waited
 * for was about to run (docs/NOTES.md, scatv). Counted here as the looks
 * at the condition before the first sleep: 4 spins, the yields, and the
 * sleep's own look, less the yields that found the core idle (which count
 * for nothing: wait.c yield_idle). Every rank on its own; the counters are
 * the process's, so it runs where no other thread of it waits (CMakeLists). */
#include <stdbool.h>
#include "check.h"
#include "sm_core.h"

static unsigned looks, looks_slept;
static uint64_t idle0, slept0, idle_slept;

static bool cond(void *arg)
{
    (void)arg;
    uint64_t idle, slept;
    sm_wait_counts(&idle, &slept);
    if (slept > slept0) {
        looks_slept = looks, idle_slept = idle - idle0;
        return true;
    }
    looks++;
    return false;
}

int main(void)
{
    sm_core.oversubscribed = true;      /* as with more ranks than cores, on any machine */
    const int per_cpu[] = { 1, 2, 3, 4, 8 };
    for (size_t k = 0; k < sizeof per_cpu / sizeof *per_cpu; k++) {
        sm_core.per_cpu = per_cpu[k];
        looks = 0;
        sm_wait_counts(&idle0, &slept0);
        sm_wait_for(SM_WAKE_ON(SM_WAKE_USER), cond, NULL);
        unsigned yields = looks_slept - (unsigned)idle_slept - 4 - 1;
        unsigned want = 4 * (unsigned)(per_cpu[k] > 2 ? per_cpu[k] - 1 : 1);
        CHECK(yields == want, "%d ranks a CPU: %u yields before the first sleep (%u looks, %u idle yields), want %u",
              per_cpu[k], yields, looks_slept, (unsigned)idle_slept, want);
    }
    printf("rank %d: wait yields ok\n", sm_core.rank);
    return 0;
}
