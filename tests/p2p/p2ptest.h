/* p2ptest.h: what the p2p engine tests share: the job as one communicator,
 * requests that must succeed, and message contents every rank can predict. */
#ifndef P2PTEST_H
#define P2PTEST_H

#include <stdint.h>
#include <string.h>

#include "check.h"
#include "dt.h"
#include "p2p.h"
#include "sm_core.h"

static int me, np;
static int world_rank[SM_NMAX];
static struct p2p_comm W;                 /* all ranks, context 7 */

static inline void p2ptest_init(void)
{
    sm_core_ensure();
    me = sm_rank(), np = sm_size();
    sm_status_t st = p2p_init(0);
    CHECK(st == SM_OK, "p2p_init: %s: %s", sm_status_name(st), sm_fail_reason());
    for (int i = 0; i < np; i++) world_rank[i] = i;
    W = (struct p2p_comm){ 7, me, np, world_rank, 0 };
}

/* Every rank done with the engine (peers may still read our buffers until then). */
static inline void p2ptest_end(const char *name)
{
    CHECK(p2p_finalize() == SM_OK, "p2p_finalize: %s", sm_fail_reason());
    sm_barrier();
    struct p2p_stats s;
    p2p_stats(&s);
    CHECK(s.pending == 0 && s.unexpected == 0, "left behind: %llu pending sends, %llu unexpected messages",
          (unsigned long long)s.pending, (unsigned long long)s.unexpected);
    if (me == 0) printf("%s: %d ranks ok\n", name, np);
}

static inline struct p2p_req *req_new(void)
{
    struct p2p_req *r = p2p_req_alloc();
    CHECK(r, "p2p_req_alloc: %s", sm_fail_reason());
    return r;
}

static inline struct p2p_req *isend(const void *buf, size_t len, int dst, int tag, const struct dt_type *t)
{
    struct p2p_req *r = req_new();
    sm_status_t st = p2p_isend(r, buf, len, dst, tag, &W, P2P_STANDARD, t);
    CHECK(st == SM_OK, "p2p_isend of %zu bytes to %d: %s", len, dst, sm_fail_reason());
    return r;
}

static inline struct p2p_req *irecv(void *buf, size_t len, int src, int tag, const struct dt_type *t)
{
    struct p2p_req *r = req_new();
    sm_status_t st = p2p_irecv(r, buf, len, src, tag, &W, t);
    CHECK(st == SM_OK, "p2p_irecv of %zu bytes from %d: %s", len, src, sm_fail_reason());
    return r;
}

/* Wait for r, which must succeed; then free it. */
static inline void finish(struct p2p_req *r, const char *what)
{
    sm_status_t st = p2p_wait(r);
    CHECK(st == SM_OK, "%s: %s (%s)", what, sm_status_name(st), r->why ? r->why : sm_fail_reason());
    p2p_req_free(r);
}

/* Byte i of message (seed): every rank can predict every message. */
static inline unsigned char pattern(unsigned seed, size_t i)
{
    return (unsigned char)(seed * 131u + i * 7u + (i >> 9));
}
static inline void fill(void *buf, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++) ((unsigned char *)buf)[i] = pattern(seed, i);
}
static inline void verify(const void *buf, size_t len, unsigned seed, const char *what)
{
    for (size_t i = 0; i < len; i++)
        CHECK(((const unsigned char *)buf)[i] == pattern(seed, i), "%s: byte %zu of %zu (seed %u)", what, i, len,
              seed);
}

static unsigned long long rs;
static inline unsigned rnd(unsigned n)
{
    rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
    return n ? (unsigned)(rs >> 33) % n : 0;
}

#endif
