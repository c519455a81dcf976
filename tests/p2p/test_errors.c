/* Failures reach both sides as statuses, never as the end of the job:
 *   test_errors           a large send from an unreadable buffer (SM_ERR_ACCESS
 *                         for sender and receiver, the receiver's reason
 *                         naming the buffer), a truncated receive
 *                         (SM_ERR_TRUNCATE for the receiver only), and no
 *                         memory to keep unexpected messages aside
 *                         (SM_ERR_NOMEM from progress, the messages kept in
 *                         the ring until memory frees, then received in order) */
#include <stdlib.h>

#include "p2ptest.h"

enum { BIG = 400000, K = 30 };

static void unreadable(int to, int from)
{
    int *buf = malloc(BIG);
    CHECK(buf, "malloc");
    struct p2p_req *r = irecv(buf, BIG, from, 1, NULL), *s = isend((void *)0x1000, BIG, to, 1, NULL);
    CHECK(p2p_wait(s) == SM_ERR_ACCESS && s->st.err == SM_ERR_ACCESS, "send from 0x1000: %s",
          sm_status_name(s->st.err));
    CHECK(p2p_wait(r) == SM_ERR_ACCESS && r->st.err == SM_ERR_ACCESS, "receive of it: %s", sm_status_name(r->st.err));
    CHECK(r->why && strstr(r->why, "0x1000") && strstr(r->why, "not readable"), "the reason: %s",
          r->why ? r->why : "(none)");
    p2p_req_free(r), p2p_req_free(s);
    free(buf);
}

static void truncated(int to, int from)
{
    char big[100] = { 0 }, small[10];
    fill(big, sizeof big, (unsigned)me);
    struct p2p_req *r = irecv(small, sizeof small, from, 2, NULL), *s = isend(big, sizeof big, to, 2, NULL);
    CHECK(p2p_wait(s) == SM_OK, "the sender of a truncated message: %s", sm_status_name(s->st.err));
    CHECK(p2p_wait(r) == SM_ERR_TRUNCATE && r->st.len == sizeof small, "truncated receive: %s, %zu bytes",
          sm_status_name(r->st.err), r->st.len);
    verify(small, sizeof small, (unsigned)from, "the part that fitted");
    p2p_req_free(r), p2p_req_free(s);
}

/* Rank 0 fills its heap (run with a small --mem-per-rank); the others send
 * it K messages it has not asked for, which it cannot keep aside. */
static void no_memory(void)
{
    char m[64];
    if (me != 0) {
        struct p2p_req *s[K];
        sm_barrier();                            /* rank 0's heap is full */
        for (int k = 0; k < K; k++) {
            fill(m, sizeof m, (unsigned)(me * 100 + k));
            s[k] = isend(m, sizeof m, 0, 3, NULL);
        }
        sm_barrier();                            /* all in rank 0's rings */
        for (int k = 0; k < K; k++) finish(s[k], "send to a full heap");
        sm_barrier();
        return;
    }
    void *hold = NULL;
    size_t held = 0;
    for (size_t sz = 1 << 20; sz > 4096; sz /= 2)  /* every size class, down to the smallest */
        for (void **b; (b = malloc(sz)); held += sz) *b = hold, hold = b;
    for (size_t sz = 4096; sz >= 8; sz -= 8)
        for (void **b; (b = malloc(sz)); held += sz) *b = hold, hold = b;
    sm_barrier();
    sm_barrier();
    bool found = false;
    struct p2p_status st;
    sm_status_t e = p2p_iprobe(P2P_ANY_SOURCE, 3, &W, false, &found, &st, NULL);
    CHECK(e == SM_ERR_NOMEM && !found, "probing with a full heap: %s, found %d", sm_status_name(e), found);
    CHECK(strstr(sm_fail_reason(), "no memory to keep aside"), "the reason: %s", sm_fail_reason());
    struct p2p_req *r = req_new();              /* a receive can still take it from the ring */
    CHECK(p2p_irecv(r, m, sizeof m, 1, 3, &W, NULL) == SM_OK && p2p_wait(r) == SM_OK, "receive with a full heap");
    verify(m, sizeof m, 100, "the first message from rank 1");
    p2p_req_free(r);
    while (hold) { void *next = *(void **)hold; free(hold); hold = next; }
    for (int src = 1; src < np; src++)
        for (int k = src == 1; k < K; k++) {
            r = irecv(m, sizeof m, src, 3, NULL);
            CHECK(p2p_wait(r) == SM_OK, "receive after memory freed: %s", sm_fail_reason());
            verify(m, sizeof m, (unsigned)(src * 100 + k), "a message that waited for memory");
            p2p_req_free(r);
        }
    printf("test_errors: rank 0 held %zu MiB, then received %d messages\n", held >> 20, (np - 1) * K);
    sm_barrier();
}

int main(void)
{
    p2ptest_init();
    int to = (me + 1) % np, from = (me + np - 1) % np;
    unreadable(to, from);
    truncated(to, from);
    no_memory();
    p2ptest_end("test_errors");
    return 0;
}
