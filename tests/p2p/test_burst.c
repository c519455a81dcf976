/* A receiver catching up with a burst (p2p.c rx_back_off): after looks
 * that found two records or more in a row, the first empty look pauses
 * (counted in back_offs) while another receive waits too, never for a
 * lone receive nor after a single message. Around it, bursts
 * of mixed messages (8 B, odd sizes, the largest eager, large, synchronous)
 * arrive whole and in order whether a window of receives takes them from
 * the ring one at a time, the posted receives of a wait drain them, or a
 * probe keeps them aside first (unexpected); a probe for what is not there
 * finds nothing. */
#include <sched.h>
#include <stdlib.h>

#include "p2ptest.h"

enum { K = 64 };

static size_t size_of(int k, size_t emax)
{
    switch (k % 6) {
    case 0: case 2: return 8;
    case 1: return (size_t)(k * 13 % 200);
    case 3: return emax;
    case 4: return emax + 1 + (size_t)k * 100;     /* large */
    default: return 0;
    }
}
static enum p2p_mode mode_of(int k) { return k % 7 == 5 ? P2P_SYNC : P2P_STANDARD; }

static uint64_t back_offs(void)
{
    struct p2p_stats s;
    p2p_stats(&s);
    return s.back_offs;
}

/* K messages to `to` with tag, seeds from base; their requests in sr. */
static void send_burst(char **sb, struct p2p_req **sr, int to, int tag, unsigned base, size_t emax)
{
    for (int k = 0; k < K; k++) {
        fill(sb[k], size_of(k, emax), base + (unsigned)k);
        sr[k] = req_new();
        CHECK(p2p_isend(sr[k], sb[k], size_of(k, emax), to, tag, &W, mode_of(k), NULL) == SM_OK, "isend %d", k);
    }
}
static void check_burst(char **rb, struct p2p_req **rr, int from, int tag, unsigned base, size_t emax,
                        const char *how)
{
    for (int k = 0; k < K; k++) {
        CHECK(p2p_wait(rr[k]) == SM_OK, "%s: receive %d: %s", how, k, sm_fail_reason());
        CHECK(rr[k]->st.len == size_of(k, emax) && rr[k]->st.source == from && rr[k]->st.tag == tag,
              "%s: receive %d got %zu bytes from %d tag %d, not %zu from %d tag %d", how, k, rr[k]->st.len,
              rr[k]->st.source, rr[k]->st.tag, size_of(k, emax), from, tag);
        verify(rb[k], size_of(k, emax), base + (unsigned)k, how);
        p2p_req_free(rr[k]);
    }
}

int main(void)
{
    p2ptest_init();
    size_t emax = p2p_eager_max();
    int to = (me + 1) % np, from = (me + np - 1) % np;
    char *sb[K], *rb[K];
    struct p2p_req *sr[K], *rr[K];
    for (int k = 0; k < K; k++) {
        sb[k] = malloc(size_of(k, emax) + 1), rb[k] = malloc(size_of(k, emax) + 1);
        CHECK(sb[k] && rb[k], "malloc");
    }
    char one[8] = {0}, got[8];

    /* A lone receive never pauses, even after a burst (a blocking receive). */
    uint64_t b0 = back_offs();
    for (int k = 0; k < 4; k++) sr[k] = isend(one, 8, to, 20, NULL);
    sm_barrier();
    for (int k = 0; k < 4; k++) finish(irecv(got, 8, from, 20, NULL), "a burst of 4");
    struct p2p_req *lone = irecv(got, 8, from, 21, NULL);
    sm_barrier();
    finish(isend(one, 8, to, 21, NULL), "send to the lone receive");
    finish(lone, "the lone receive");
    for (int k = 0; k < 4; k++) finish(sr[k], "burst of 4 send");
    CHECK(back_offs() == b0, "a lone receive paused (%llu)", (unsigned long long)(back_offs() - b0));

    /* A single message, then an empty look: no pause. */
    fill(one, 8, (unsigned)me);
    struct p2p_req *s1 = isend(one, 8, to, 9, NULL);
    sm_barrier();
    b0 = back_offs();
    struct p2p_req *r1 = irecv(got, 8, from, 9, NULL), *r2 = irecv(got, 8, from, 10, NULL);
    CHECK(p2p_done(r1) && !p2p_done(r2), "the single message is in the ring, the second is not sent");
    CHECK(back_offs() == b0, "a pause after a single message (%llu)", (unsigned long long)(back_offs() - b0));
    verify(got, 8, (unsigned)from, "the single message");
    p2p_req_free(r1);
    finish(s1, "single send");
    sm_barrier();                                   /* (r2 stays posted: its message comes last) */

    /* A burst in the ring before the receives: a window of receives takes
     * it one record at a time, and the next receive, finding the ring
     * empty, pauses once. */
    send_burst(sb, sr, to, 1, (unsigned)(me * 1000), emax);
    sm_barrier();
    b0 = back_offs();
    for (int k = 0; k < K; k++) rr[k] = irecv(rb[k], size_of(k, emax), from, 1, NULL);
    CHECK(back_offs() == b0, "a pause while the burst was still in the ring");
    struct p2p_req *r3 = irecv(got, 8, from, 11, NULL);
    CHECK(!p2p_done(r3) && back_offs() == b0 + 1, "caught up with a burst: %llu pauses, not 1",
          (unsigned long long)(back_offs() - b0));
    check_burst(rb, rr, from, 1, (unsigned)(from * 1000), emax, "a burst taken by a window of receives");
    for (int k = 0; k < K; k++) finish(sr[k], "burst send");

    /* Receives posted first, the burst drained by the wait as it comes. */
    for (int k = 0; k < K; k++) rr[k] = irecv(rb[k], size_of(k, emax), from, 2, NULL);
    sm_barrier();
    send_burst(sb, sr, to, 2, (unsigned)(me * 2000), emax);
    check_burst(rb, rr, from, 2, (unsigned)(from * 2000), emax, "a burst into posted receives");
    for (int k = 0; k < K; k++) finish(sr[k], "burst send");

    /* A probe keeps the burst aside; the receives then take it from there. */
    send_burst(sb, sr, to, 3, (unsigned)(me * 3000), emax);
    bool found = false;
    struct p2p_status st;
    for (int i = 0; !found; i++) {
        CHECK(p2p_iprobe(from, 3, &W, false, &found, &st, NULL) == SM_OK, "iprobe");
        if (!found && i > 1000) sched_yield();
    }
    CHECK(st.len == size_of(0, emax) && st.source == from, "the probe saw %zu bytes from %d", st.len, st.source);
    CHECK(p2p_iprobe(from, 12, &W, false, &found, &st, NULL) == SM_OK && !found, "a probe for tag 12 found one");
    for (int k = 0; k < K; k++) rr[k] = irecv(rb[k], size_of(k, emax), from, 3, NULL);
    check_burst(rb, rr, from, 3, (unsigned)(from * 3000), emax, "a burst kept aside by a probe");
    for (int k = 0; k < K; k++) finish(sr[k], "burst send");

    /* The receives left posted get their messages last. */
    fill(one, 8, (unsigned)me + 77);
    finish(isend(one, 8, to, 11, NULL), "send to the waiting receive");
    finish(r3, "the receive after the burst");
    verify(got, 8, (unsigned)from + 77, "the message after the burst");
    finish(isend(one, 8, to, 10, NULL), "send to the first waiting receive");
    finish(r2, "the receive posted first");
    for (int k = 0; k < K; k++) free(sb[k]), free(rb[k]);
    p2ptest_end("test_burst");
    return 0;
}
