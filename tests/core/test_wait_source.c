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
 * per rank it spins as any wait. And while the source says a large
 * transfer is under way (bulk: a rendezvous over UCX's TCP, which moves
 * only while this rank runs UCX) the wait polls it with yields rather than
 * sleep, until bulk_ns pass without an event: a 1 MiB broadcast between 4
 * nodes of 1 rank on 2 cores, 0.6-0.75x Open MPI's when its receivers
 * slept between the transfer's events. Every rank on its own. */
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
static uint64_t deadline;          /* the condition is also met from then on (0: never) */
static unsigned enough_runs;       /* ... or once the source has run this often (0: never) */
static bool cond(void *arg)
{
    (void)arg;
    looks++;
    return armed || (deadline && sm_now_ns() >= deadline) || (enough_runs && runs >= enough_runs);
}
static bool yes(void) { return true; }
static const struct sm_wait_source source = { progress, arm, NULL, 0, 0, NULL, 0 };
/* always busy, always a large transfer under way, never an event */
static struct sm_wait_source bulky = { progress, arm, yes, 0, 0, yes, 0 };

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

    /* a large transfer under way: polled with yields, without an event,
     * well past the 17 runs after which it would sleep, and no sleep (no
     * arming). Counted in runs, not time: on a loaded machine a yield can
     * give the core away for milliseconds. */
    sm_core.oversubscribed = true;
    bulky.bulk_ns = 10 * 1000000000L;
    sm_wait_source(&bulky);
    again();
    enough_runs = 60;
    sm_wait_for(SM_WAKE_ON(SM_WAKE_P2P) | SM_WAIT_SOURCE, cond, NULL);
    CHECK(arms == 0, "a wait with a large transfer under way armed the source %u times in %u runs (want none: "
          "it polls until bulk_ns pass without an event)", arms, runs);
    enough_runs = 0;
    /* but not for ever: a gap longer than bulk_ns (1 ms here) ends in a sleep */
    bulky.bulk_ns = 1000000;
    again();
    deadline = sm_now_ns() + 10 * 1000000000ULL;
    sm_wait_for(SM_WAKE_ON(SM_WAKE_P2P) | SM_WAIT_SOURCE, cond, NULL);
    CHECK(arms == 1, "a wait with a large transfer under way and no event for 1 ms armed the source %u times "
          "(want 1: it sleeps after bulk_ns)", arms);
    deadline = 0;
    sm_wait_source(NULL);
    return 0;
}
