/* Probe and matched probe: a probe sees a message and leaves it (twice
 * the same); a matched probe takes it out of matching, so the next receive
 * or probe gets the message behind it, and p2p_mrecv then delivers the
 * taken one; eager and large messages, specific and wildcard matching.
 * p2p_msg_pending holds for a taken message until p2p_mrecv, and never for
 * a value no matched probe returned. */
#include <stdlib.h>

#include "p2ptest.h"

enum { BIG = 100000 };

static void probe(int src, int tag, bool take, struct p2p_status *st, struct p2p_msg **m)
{
    bool found = false;
    while (!found) CHECK(p2p_iprobe(src, tag, &W, take, &found, st, m) == SM_OK, "iprobe: %s", sm_fail_reason());
}

int main(void)
{
    p2ptest_init();
    int to = (me + 1) % np, from = (me + np - 1) % np;
    char *sb = malloc(4 * BIG), *rb = malloc(BIG);
    CHECK(sb && rb, "malloc");
    size_t len[4] = { 10, BIG, 20, BIG - 7 };
    struct p2p_req *s[4];
    for (int i = 0; i < 4; i++) {
        fill(sb + i * BIG, len[i], (unsigned)(me * 10 + i));
        s[i] = isend(sb + i * BIG, len[i], to, 6, NULL);
    }
    struct p2p_status st, st2;
    struct p2p_msg *m0, *m1;
    probe(from, 6, false, &st, NULL);
    probe(P2P_ANY_SOURCE, P2P_ANY_TAG, false, &st2, NULL);
    CHECK(st.len == len[0] && st2.len == len[0] && st2.source == from && st2.tag == 6, "probes see the first message");
    probe(from, 6, true, &st, &m0);                 /* take message 0 */
    probe(from, P2P_ANY_TAG, true, &st2, &m1);      /* and then message 1 */
    CHECK(st.len == len[0] && st2.len == len[1], "matched probes took %zu and %zu bytes", st.len, st2.len);
    CHECK(p2p_msg_pending(m0) && p2p_msg_pending(m1), "taken messages are pending");
    long on_stack[8] = {0};
    CHECK(!p2p_msg_pending((struct p2p_msg *)0x12345) && !p2p_msg_pending((struct p2p_msg *)on_stack) &&
          !p2p_msg_pending((struct p2p_msg *)sb) && !p2p_msg_pending(NULL), "bogus messages are not pending");
    struct p2p_req *r = irecv(rb, BIG, from, 6, NULL);     /* message 2 is next */
    CHECK(p2p_wait(r) == SM_OK && r->st.len == len[2], "a receive after two matched probes: %zu bytes", r->st.len);
    verify(rb, len[2], (unsigned)(from * 10 + 2), "message 2");
    p2p_req_free(r);
    r = req_new();                                          /* message 1, large, taken */
    CHECK(p2p_mrecv(r, rb, BIG, m1, NULL) == SM_OK && p2p_wait(r) == SM_OK && r->st.len == len[1], "mrecv 1");
    verify(rb, len[1], (unsigned)(from * 10 + 1), "message 1");
    p2p_req_free(r);
    r = req_new();
    CHECK(p2p_msg_pending(m0), "message 0 still pending");
    CHECK(p2p_mrecv(r, rb, BIG, m0, NULL) == SM_OK && !p2p_msg_pending(m0) && p2p_wait(r) == SM_OK &&
          r->st.len == len[0], "mrecv 0");
    verify(rb, len[0], (unsigned)(from * 10), "message 0");
    p2p_req_free(r);
    r = irecv(rb, BIG, P2P_ANY_SOURCE, P2P_ANY_TAG, NULL);
    CHECK(p2p_wait(r) == SM_OK && r->st.len == len[3], "the last message");
    verify(rb, len[3], (unsigned)(from * 10 + 3), "message 3");
    p2p_req_free(r);
    for (int i = 0; i < 4; i++) finish(s[i], "send");
    free(sb), free(rb);
    p2ptest_end("test_probe");
    return 0;
}
