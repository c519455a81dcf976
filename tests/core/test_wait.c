/* Waiting and waking: a token passed round a ring with sm_wait_word, a
 * doorbell handshake with sm_wait/sm_wake, and many barriers with a shared
 * count. With 8 ranks on 2 cores this must finish in seconds. And a long
 * wait sleeps: the waiter is woken a few hundred times in half a second at
 * most (backing off to long sleeps), not polling every 50 us. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <sys/resource.h>
#include <time.h>
#include "check.h"

static volatile uint32_t token;       /* rank r waits for token == round*n + r */
static _Atomic uint32_t arrivals;     /* rank 0's copy counts barrier phases */
static volatile uint32_t flag;

static volatile uint32_t ack[64];    /* rank 0's copy: peers' acknowledgements */
static volatile uint32_t late;        /* rank 1's copy: set by rank 0 after half a second */

/* Context switches of the calling thread so far. */
static long switches(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nvcsw + ru.ru_nivcsw;
}

static bool flag_is(void *want) { return flag == *(uint32_t *)want; }
struct acks { int n; uint32_t i; };
static bool all_acked(void *arg)
{
    struct acks *a = arg;
    for (int r = 1; r < a->n; r++)
        if (ack[r] != a->i) return false;
    return true;
}

int main(void)
{
    int me = sm_rank(), n = sm_size();
    const uint32_t rounds = 200;
    /* Ring: rank 0 starts; each rank hands the token to the next. */
    for (uint32_t round = 0; round < rounds; round++) {
        uint32_t mine = round * (uint32_t)n + (uint32_t)me;
        if (!(round == 0 && me == 0)) {
            uint32_t v;
            while ((v = token) != mine) sm_wait_word(&token, v);
        }
        volatile uint32_t *next = sm_remote((me + 1) % n, (const void *)&token);
        *next = mine + 1;
        sm_wake_word(next);
    }
    sm_barrier();
    /* Doorbell: rank 0 sets every peer's flag and rings; peers ack back. */
    for (uint32_t i = 1; i <= 50; i++) {
        if (me == 0) {
            for (int r = 1; r < n; r++) {
                *(volatile uint32_t *)sm_remote(r, (const void *)&flag) = i;
                sm_wake(r);
            }
            struct acks a = { n, i };
            sm_wait(all_acked, &a);
        } else {
            sm_wait(flag_is, &i);
            ((volatile uint32_t *)sm_remote(0, (const void *)ack))[me] = i;
            sm_wake(0);
        }
    }
    /* Barrier: every phase each rank adds one to rank 0's counter; after the
     * barrier the count must be exact. */
    _Atomic uint32_t *count = sm_remote(0, &arrivals);
    for (uint32_t phase = 1; phase <= 300; phase++) {
        atomic_fetch_add(count, 1);
        sm_barrier();
        CHECK(atomic_load(count) == phase * (uint32_t)n, "phase %u: count %u", phase,
              atomic_load(count));
        sm_barrier();
    }
    /* A long wait: rank 1 waits half a second for rank 0, and sleeps. */
    if (n > 1 && me == 0) {
        struct timespec half = { 0, 500 * 1000 * 1000 };
        nanosleep(&half, NULL);
        volatile uint32_t *w = sm_remote(1, (const void *)&late);
        *w = 1;
        sm_wake_word(w);
    } else if (me == 1) {
        long before = switches();
        while (late == 0) sm_wait_word(&late, 0);
        long woken = switches() - before;
        CHECK(woken < 1000, "a wait of half a second was woken %ld times (polling?)", woken);
    }
    sm_barrier();
    if (me == 0) printf("wait: %u ring rounds, 50 doorbells, 300 barriers, a long wait on %d ranks\n", rounds, n);
    return 0;
}
