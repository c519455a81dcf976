/* The shared large copy: the receiver of a large message invites the
 * sender, which waits in p2p_wait anyway, and both copy chunks claimed from
 * one counter. Sizes around the chunk boundaries, contiguous and typemapped
 * buffers on either side (a vector with holes, a negative lower bound),
 * each checked byte for byte (holes untouched). How the chunks were shared
 * is printed, not checked: who gets there first is up to the scheduler. */
#include <stdlib.h>

#include "p2ptest.h"

/* every other 24-byte block of a buffer, from 48 bytes before its address */
static struct dt_type *holey(void)
{
    struct dt_type *v, *r;
    static struct dt_predef byte;
    dt_predef_init(&byte, 1, 1, 1, 1, 0, 0);
    CHECK(dt_hvector(16, 24, 48, &byte.t, &v) == SM_OK, "dt_hvector");
    CHECK(dt_resized(v, -48, 16 * 48, &r) == SM_OK, "dt_resized");
    dt_unref(v);
    return r;
}

/* where byte i of a stream of t lands, from the buffer's address */
static ptrdiff_t at(const struct dt_type *t, size_t i)
{
    if (!t) return (ptrdiff_t)i;
    const struct dt_blk *b = dt_blocks(t);
    size_t e = i / t->size, r = i % t->size;
    int k = 0;
    while (b[k].at + b[k].len <= r) k++;
    return (ptrdiff_t)e * dt_extent(t) + b[k].off + (ptrdiff_t)(r - b[k].at);
}

int main(void)
{
    p2ptest_init();
    struct dt_type *h = holey();
    static const size_t sizes[] = { 16384, 16385, 65536 - 1, 65536 + 3, 200000, 1 << 20, (2 << 20) + 5 };
    int to = (me + 1) % np, from = (me + np - 1) % np;
    size_t most = sizes[sizeof sizes / sizeof *sizes - 1];
    size_t span = 2 * most + 4096;              /* a holey stream takes twice its bytes */
    char *sb = malloc(span), *rb = malloc(span);
    CHECK(sb && rb, "malloc");
    for (unsigned c = 0; c < 4 * sizeof sizes / sizeof *sizes; c++) {
        size_t len = sizes[c / 4];
        const struct dt_type *stype = c % 2 ? h : NULL, *rtype = c % 4 >= 2 ? h : NULL;
        char *sbase = sb + 64, *rbase = rb + 64;
        memset(rb, 0xEE, span);
        for (size_t i = 0; i < len; i++) sbase[at(stype, i)] = pattern(me * 10 + c, i);
        struct p2p_req *r = irecv(rbase, len, from, 9, rtype);
        struct p2p_req *s = isend(sbase, len, to, 9, stype);
        finish(s, "large send");
        CHECK(p2p_wait(r) == SM_OK && r->st.len == len, "large receive %u", c);
        p2p_req_free(r);
        for (size_t i = 0; i < len; i++) {
            ptrdiff_t a = at(rtype, i);
            CHECK((unsigned char)rbase[a] == pattern(from * 10 + c, i), "case %u (%zu bytes, %s to %s): stream byte %zu",
                  c, len, stype ? "holes" : "plain", rtype ? "holes" : "plain", i);
            rbase[a] = (char)0xEE;
        }
        for (size_t i = 0; i < span; i++) CHECK((unsigned char)rb[i] == 0xEE, "case %u: hole byte %zu written", c, i);
    }
    struct p2p_stats s;
    p2p_stats(&s);
    printf("test_shared_copy: rank %d copied %llu chunks as a receiver, %llu as a sender\n", me,
           (unsigned long long)s.coop_chunks_recv, (unsigned long long)s.coop_chunks_sent);
    dt_unref(h);
    free(sb), free(rb);
    p2ptest_end("test_shared_copy");
    return 0;
}
