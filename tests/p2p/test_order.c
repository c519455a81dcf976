/* Non-overtaking: every rank sends every other rank a stream of messages,
 * eager and large, standard and synchronous, on two tags; the receiver
 * takes them partly through receives posted before the sends, partly kept
 * aside by probes, partly straight from the rings, by tag and by wildcard,
 * from specific senders and from any. Whatever matches a receive first
 * must be the earliest message of that sender that it can match. */
#include <stdlib.h>

#include "p2ptest.h"

enum { N = 40, BIG = 20000, EARLY = 4 };

static size_t len_of(int k) { return k % 4 == 3 ? BIG + (size_t)k : 8 + (size_t)k; }
static int tag_of(int k) { return k % 3 == 0; }

/* what each receive may get: per sender, which messages are taken */
static bool taken[SM_NMAX][N];

static int earliest(int src, int tag)
{
    for (int k = 0; k < N; k++)
        if (!taken[src][k] && (tag == P2P_ANY_TAG || tag_of(k) == tag)) return k;
    return -1;
}

static void check_got(struct p2p_req *r, const char *buf, int tag, const char *how)
{
    CHECK(p2p_wait(r) == SM_OK, "%s: %s", how, sm_fail_reason());
    int src = r->st.source, k;
    memcpy(&k, buf, sizeof k);
    CHECK(src >= 0 && src < np && k >= 0 && k < N && r->st.len == len_of(k) && r->st.tag == tag_of(k),
          "%s: message %d from %d, %zu bytes, tag %d", how, k, src, r->st.len, r->st.tag);
    int want = earliest(src, tag);
    CHECK(k == want, "%s (tag %d): message %d of rank %d overtook %d", how, tag, k, src, want);
    taken[src][k] = true;
    verify(buf + sizeof k, len_of(k) - sizeof k, (unsigned)(src * 1000 + k), how);
    p2p_req_free(r);
}

int main(void)
{
    p2ptest_init();
    char *rb = malloc(BIG + N), *sb = malloc((size_t)np * N * (BIG + N));
    struct p2p_req **sr = malloc(sizeof *sr * (size_t)np * N);
    CHECK(rb && sb && sr, "malloc");
    /* receives posted before anything is sent: from my left neighbour, any tag */
    int left = (me + np - 1) % np;
    char *early = malloc(EARLY * (BIG + N));
    struct p2p_req *er[EARLY];
    for (int i = 0; i < EARLY; i++) er[i] = irecv(early + i * (BIG + N), BIG + N, left, P2P_ANY_TAG, NULL);
    sm_barrier();
    for (int d = 0; d < np; d++)
        for (int k = 0; k < N; k++) {
            char *m = sb + ((size_t)d * N + (size_t)k) * (BIG + N);
            memcpy(m, &k, sizeof k);
            fill(m + sizeof k, len_of(k) - sizeof k, (unsigned)(me * 1000 + k));
            struct p2p_req *r = sr[d * N + k] = req_new();
            CHECK(p2p_isend(r, m, len_of(k), d, tag_of(k), &W, k % 5 == 2 ? P2P_SYNC : P2P_STANDARD, NULL) == SM_OK,
                  "isend");
        }
    for (int i = 0; i < EARLY; i++) check_got(er[i], early + i * (BIG + N), P2P_ANY_TAG, "a receive posted early");
    /* keep some aside: probe until my right-hand sender's tag-1 messages are here */
    bool found = false;
    struct p2p_status st;
    while (!found) CHECK(p2p_iprobe((me + 1) % np, 1, &W, false, &found, &st, NULL) == SM_OK, "iprobe");
    /* tag 1 first, sender by sender, then everything left from anyone */
    for (int src = 0; src < np; src++)
        while (earliest(src, 1) >= 0) check_got(irecv(rb, BIG + N, src, 1, NULL), rb, 1, "tag 1 from one sender");
    for (int src = 0; src < np;) {
        if (earliest(src, P2P_ANY_TAG) < 0) { src++; continue; }
        check_got(irecv(rb, BIG + N, P2P_ANY_SOURCE, P2P_ANY_TAG, NULL), rb, P2P_ANY_TAG, "a wildcard receive");
    }
    for (int i = 0; i < np * N; i++) finish(sr[i], "send");
    free(rb), free(sb), free(sr), free(early);
    p2ptest_end("test_order");
    return 0;
}
