/* A full ring (p2p.c "A full ring"), 8-byte messages carrying their index.
 * 1. A send queued for room does not ask the receiver to drain: after an
 *    even rank has filled its ring to the next rank and queued one send
 *    more, that receiver's progress with no receive posted (as MPI_Waitall
 *    runs it) keeps nothing aside (it used to copy the whole ring aside).
 * 2. Hysteresis: with 10 messages taken the queued send still waits; with a
 *    quarter of the ring free, the sender's progress posts it.
 * 3. Deadlock freedom: every rank fills its ring to the next with three
 *    rings of tag A, then sends tag B, which the receiver waits for first.
 * 4. A sender waiting for room, each send waited for (MPI_Send's way), and
 *    a receiver running its progress with no receive posted (waiting for
 *    something else): only want drains the ring, raised (counted) once the
 *    sender has waited.
 * 5. Head to head: every rank sends two rings, each waited for, before it
 *    receives. */
#include <stdlib.h>

#include "p2ptest.h"

static struct p2p_stats stats(void)
{
    struct p2p_stats s;
    p2p_stats(&s);
    return s;
}

/* Receive k messages of tag from `from`, expecting indices first.. in order,
 * in windows of 64 receives, each window followed by a progress (MPI_Waitall's). */
static void take(int from, int tag, uint64_t first, uint64_t k, const char *how)
{
    uint64_t got[64];
    struct p2p_req *r[64];
    for (uint64_t i = 0; i < k;) {
        int w = k - i < 64 ? (int)(k - i) : 64;
        for (int j = 0; j < w; j++) r[j] = irecv(&got[j], 8, from, tag, NULL);
        for (int j = 0; j < w; j++) {
            CHECK(p2p_wait(r[j]) == SM_OK && r[j]->st.len == 8, "%s: receive %llu", how, (unsigned long long)(i + j));
            CHECK(got[j] == first + i + (uint64_t)j, "%s: message %llu where %llu was due", how,
                  (unsigned long long)got[j], (unsigned long long)(first + i + (uint64_t)j));
            p2p_req_free(r[j]);
        }
        CHECK(p2p_progress() == SM_OK, "%s: progress", how);
        i += (uint64_t)w;
    }
}

/* Receive from `from` messages of tag while a probe finds one, expecting indices first..: how many. */
static uint64_t take_all(int from, int tag, uint64_t first, const char *how)
{
    uint64_t k = 0;
    for (;;) {
        bool found;
        struct p2p_status st;
        CHECK(p2p_iprobe(from, tag, &W, false, &found, &st, NULL) == SM_OK, "%s: probe", how);
        if (!found) return k;
        take(from, tag, first + k++, 1, how);
    }
}

int main(void)
{
    p2ptest_init();
    int to = (me + 1) % np, from = (me + np - 1) % np, peer = me ^ 1, sender = !(me & 1);
    uint64_t recs = stats().ring_bytes / 32;        /* 8-byte messages a ring holds */
    uint64_t *val = malloc((3 * recs + 1) * sizeof *val);
    CHECK(val && np % 2 == 0, "malloc, or an odd number of ranks");
    for (uint64_t i = 0; i < 3 * recs + 1; i++) val[i] = i;

    /* 1. Even ranks fill the ring to the next, then send one more: queued,
     * and want not raised, so the receiver's progress keeps nothing aside. */
    uint64_t n = 0;
    struct p2p_req *q = NULL;
    while (sender && !q) {
        struct p2p_req *r = isend(&val[n++], 8, peer, 1, NULL);
        if (p2p_done(r)) p2p_req_free(r);
        else q = r;
        CHECK(n <= recs, "%llu messages of 8 bytes in a ring of %llu bytes", (unsigned long long)n,
              (unsigned long long)stats().ring_bytes);
    }
    CHECK(stats().pending == (uint64_t)sender, "%llu sends pending", (unsigned long long)stats().pending);
    sm_barrier();
    if (!sender) {
        CHECK(p2p_progress() == SM_OK, "progress");
        CHECK(stats().unexpected == 0, "a send queued for room made the receiver keep %llu messages aside",
              (unsigned long long)stats().unexpected);
    }
    sm_barrier();

    /* 2. Ten taken: too little room, the send stays queued; a quarter of the
     * ring taken: the sender's progress posts it. */
    if (!sender) take(peer, 1, 0, 10, "ten");
    sm_barrier();
    if (sender) {
        CHECK(p2p_progress() == SM_OK, "progress");
        CHECK(stats().pending == 1, "posted with ten records free");
    }
    sm_barrier();
    if (!sender) take(peer, 1, 10, recs / 4, "a quarter");
    sm_barrier();
    if (sender) {
        CHECK(p2p_progress() == SM_OK, "progress");
        CHECK(stats().pending == 0, "still queued with a quarter of the ring free");
        finish(q, "the queued send");
    }
    sm_barrier();
    if (!sender) {
        uint64_t k = take_all(peer, 1, 10 + recs / 4, "the rest");
        CHECK(k > recs / 2, "only %llu more messages", (unsigned long long)k);
    }
    sm_barrier();

    /* 3. Three rings of tag A to the next rank, then tag B, received first. */
    uint64_t na = 3 * recs, b = na;
    struct p2p_req **ra = malloc(na * sizeof *ra);
    CHECK(ra, "malloc");
    for (uint64_t i = 0; i < na; i++) ra[i] = isend(&val[i], 8, to, 2, NULL);
    struct p2p_req *rb = isend(&b, 8, to, 3, NULL);
    uint64_t gb = 0;
    struct p2p_req *wb = irecv(&gb, 8, from, 3, NULL);
    CHECK(p2p_wait(wb) == SM_OK && gb == na, "tag B: %llu", (unsigned long long)gb);
    p2p_req_free(wb);
    finish(rb, "tag B's send");
    take(from, 2, 0, na, "tag A after tag B");
    for (uint64_t i = 0; i < na; i++) finish(ra[i], "tag A's send");
    free(ra);
    sm_barrier();

    /* 4. Two rings of sends, each waited for, into a receiver that runs its
     * progress with no receive posted (waiting for something else): only
     * want drains it, raised once the sender has waited. */
    uint64_t w0 = stats().wants, nc = 2 * recs;
    if (sender) {
        for (uint64_t i = 0; i < nc; i++) finish(isend(&val[i], 8, peer, 4, NULL), "a send waited for");
        CHECK(stats().wants > w0, "%llu sends waited for, more than a ring, and want never raised",
              (unsigned long long)nc);
    } else {
        uint64_t k0 = stats().kept;
        while (stats().kept - k0 < nc - recs) CHECK(p2p_progress() == SM_OK, "progress");
        take(peer, 4, 0, nc, "after the drains");
    }
    sm_barrier();

    /* 5. Head to head: every rank sends two rings to the next, each waited
     * for, before it receives any. */
    for (uint64_t i = 0; i < nc; i++) finish(isend(&val[i], 8, to, 5, NULL), "a send waited for");
    take(from, 5, 0, nc, "head to head");
    free(val);
    p2ptest_end("test_fullring");
    return 0;
}
