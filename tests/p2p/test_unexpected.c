/* Unexpected messages: a sender's messages (eager, large, synchronous,
 * several tags) all arrive before any receive is posted and are kept aside
 * (a probe drains every ring); receives then take them by tag in another
 * order: each gets the first message of its tag, the eager data from the
 * private copy, the large data from the sender's buffer, which the sender
 * keeps until its send completes. */
#include <stdlib.h>

#include "p2ptest.h"

enum { K = 60, TAGS = 3 };

static size_t size_of(int k) { return k % 4 == 3 ? (size_t)(40000 + 977 * k) : (size_t)(k * 53 % 4000); }

static bool all_here(void *arg)
{
    (void)arg;
    bool found;
    struct p2p_status st;
    struct p2p_stats s;
    CHECK(p2p_iprobe(P2P_ANY_SOURCE, P2P_ANY_TAG, &W, false, &found, &st, NULL) == SM_OK, "iprobe");
    p2p_stats(&s);
    return s.unexpected >= K;
}

int main(void)
{
    p2ptest_init();
    int to = (me + 1) % np, from = (me + np - 1) % np;
    char *sb[K], *rb = malloc(size_of(K - 1) + 100000);
    struct p2p_req *sr[K];
    CHECK(rb, "malloc");
    for (int k = 0; k < K; k++) {
        sb[k] = malloc(size_of(k) + 1);
        CHECK(sb[k], "malloc");
        fill(sb[k], size_of(k), (unsigned)(me * 1000 + k));
        sr[k] = req_new();
        CHECK(p2p_isend(sr[k], sb[k], size_of(k), to, k % TAGS, &W, k % 5 == 1 ? P2P_SYNC : P2P_STANDARD, NULL) ==
                  SM_OK, "isend %d", k);
    }
    /* probes drain every ring: wait until all are kept aside */
    CHECK(p2p_wait_until(all_here, NULL) == SM_OK, "waiting for the messages: %s", sm_fail_reason());
    struct p2p_stats s;
    p2p_stats(&s);
    CHECK(s.unexpected == K, "%llu messages kept aside, expected %d", (unsigned long long)s.unexpected, K);
    /* tags last to first, each in order */
    for (int t = TAGS - 1; t >= 0; t--)
        for (int k = t; k < K; k += TAGS) {
            struct p2p_req *r = irecv(rb, size_of(K - 1) + 100000, from, t, NULL);
            CHECK(p2p_wait(r) == SM_OK, "receive %d", k);
            CHECK(r->st.tag == t && r->st.len == size_of(k), "message %d: tag %d, %zu bytes", k, r->st.tag, r->st.len);
            verify(rb, size_of(k), (unsigned)(from * 1000 + k), "an unexpected message");
            p2p_req_free(r);
        }
    for (int k = 0; k < K; k++) finish(sr[k], "send"), free(sb[k]);
    free(rb);
    p2ptest_end("test_unexpected");
    return 0;
}
