/* A wait with an event source (UCX between nodes: net.c's watcher), ranks
 * outnumbering cores: before it first arms the source to sleep, it turns
 * 4 times spinning and 8 times yielding, each yield running the source
 * once (core/wait.c yield_iters_source): as many runs of the source before
 * a sleep as when each of 4 yields ran it twice. With 4 yields a small
 * allreduce between 4 nodes of 1 rank on 2 cores slept while its message
 * was on the way, 1000-3300 times in 5200 calls (docs/NOTES.md). The
 * source here never has an event; arming it rings this rank's doorbell, so
 * that the sleep ends at once and the condition, true from then on, ends
 * the wait. A wait for what the source alone brings (SM_WAIT_SOURCE: a
 * receive from another node) makes no spin turns and 16 yields there:
 * each spin ran UCX and held the core from the rank sharing it (4 nodes
 * of 1 rank on 2 cores, a small allreduce 37 -> 33 us a call); with a core
 * per rank it spins as any wait. Every rank on its own. */
#include <stdbool.h>
#include "check.h"
#include "sm_core.h"

static unsigned looks, runs, arms, looks_armed, runs_armed;
static bool armed;

static unsigned progress(void)
{
    runs++;
    return 0;
}
static bool arm(void)
{
    if (!arms++) looks_armed = looks, runs_armed = runs;
    armed = true;
    sm_wake_self();
    return true;
}
static bool cond(void *arg)
{
    (void)arg;
    looks++;
    return armed;
}
static const struct sm_wait_source source = { progress, arm, NULL, 0, 0 };

static void again(void) { looks = runs = arms = looks_armed = runs_armed = 0, armed = false; }

int main(void)
{
    sm_core.oversubscribed = true;      /* as with more ranks than cores, on any machine */
    sm_wait_source(&source);
    sm_wait_for(SM_WAKE_ALL, cond, NULL);
    CHECK(arms == 1, "the source armed %u times", arms);
    /* 4 spins, 8 yields, then the sleep's own look before it arms */
    CHECK(looks_armed >= 13, "%u looks at the condition before the first arming (want 4 spins + 8 yields + 1)",
          looks_armed);
    /* one run a yield, and the run before arming (source_armed) */
    CHECK(runs_armed >= 9, "%u runs of the source before the first arming (want 8 yields + 1)", runs_armed);

    /* the source alone: 16 yields, each a look and a run, and no spin (a
     * spin turn is a look without a run) */
    again();
    sm_wait_for(SM_WAKE_ON(SM_WAKE_P2P) | SM_WAIT_SOURCE, cond, NULL);
    CHECK(arms == 1, "the source armed %u times", arms);
    CHECK(looks_armed == 17 && runs_armed == 17,
          "a wait for the source alone: %u looks and %u runs before the first arming (want 16 yields + 1 each)",
          looks_armed, runs_armed);

    /* a core per rank: it spins first, as any wait */
    sm_core.oversubscribed = false;
    again();
    sm_wait_for(SM_WAKE_ON(SM_WAKE_P2P) | SM_WAIT_SOURCE, cond, NULL);
    CHECK(arms == 1, "the source armed %u times", arms);
    CHECK(looks_armed > runs_armed + 1000, "a core per rank: %u looks and %u runs before the first arming (want "
          "the spins' looks, a run every 16)", looks_armed, runs_armed);
    sm_wait_source(NULL);
    return 0;
}
