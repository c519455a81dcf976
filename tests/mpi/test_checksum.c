/* The randomized point-to-point stress: many messages of random sizes (0 B
 * to 4 MiB), in every send mode (standard, synchronous, buffered, ready;
 * blocking, nonblocking, persistent), from heap, global and stack buffers,
 * received with ANY_SOURCE and ANY_TAG as well as by source and tag, each
 * checked byte for byte, with its source, tag and length.
 *
 *   test_checksum [MESSAGES [SEED]]   (defaults: $TEST_MESSAGES, else 100000;
 *                                      $TEST_SEED, else a fresh seed)
 *
 * Rank 0 prints the seed first: the same seed, rank count and MESSAGES
 * replay the same run. The suite runs it on 4 and 8 ranks with each
 * transport (100000 messages a job, 4-9 s here; 20000 in the sanitizer
 * build).
 *
 * The job goes in rounds. Every rank can compute every rank's messages of a
 * round (a generator seeded by seed, round and sender). A round first posts
 * all its receives (all with one pattern: any source and any tag, source
 * only, tag only, or both, so that every receive finds its message), meets in
 * a barrier (so ready sends find their receive), then sends, each message in
 * its own mode, then completes everything and checks each receive against the
 * sender's message it must have matched (MPI's non-overtaking order). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcheck.h"

#define PATTERN   (8u << 20)        /* each sender's bytes: messages are slices of it */
#define TAGS      8
#define GLOBAL_MAX (64u << 10)      /* sends from a global buffer up to this size */
#define STACK_MAX  (4u << 10)       /* ... and from the stack */

enum mode { SEND, SSEND, BSEND, RSEND, ISEND, ISSEND, IBSEND, IRSEND, SEND_INIT, SSEND_INIT, BSEND_INIT,
            RSEND_INIT, MODES };
static const char *mode_name[MODES] = { "MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Isend",
    "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", "MPI_Send_init", "MPI_Ssend_init", "MPI_Bsend_init",
    "MPI_Rsend_init" };
enum pattern { ANY_ANY, SRC_ANY, ANY_TAG_, SRC_TAG, PATTERNS };
static const char *pattern_name[PATTERNS] = { "(ANY_SOURCE, ANY_TAG)", "(source, ANY_TAG)",
    "(ANY_SOURCE, tag)", "(source, tag)" };
enum buf { HEAP, GLOBAL, STACK };

struct msg { int dest, tag, len, off, mode, buf; };
struct round { int pattern, per_rank, cap; };

static unsigned long long seed;
static int me, n;
static unsigned char global_buf[GLOBAL_MAX];

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
    return x;
}

/* Sender src's bytes: PATTERN of them, from the seed. */
static void make_pattern(int src, unsigned char *p)
{
    uint64_t s = mix(seed ^ (0x5eedULL * (uint64_t)(src + 1)));
    for (size_t i = 0; i < PATTERN; i += 8) {
        s = mix(s + 0x9e3779b97f4a7c15ULL);
        memcpy(p + i, &s, 8);
    }
}

/* The shape of round r, the same in every rank. */
static struct round round_of(int r)
{
    unsigned long long s = mix(seed ^ (0xabcULL + (uint64_t)r));
    struct round w;
    unsigned k = rnd(&s) % 100;
    w.cap = k < 65 ? 8200 : k < 93 ? 256 << 10 : 4 << 20;      /* across the eager limit, up to 4 MiB */
    w.per_rank = w.cap == 8200 ? 48 : w.cap == (256 << 10) ? 12 : 3;
    w.pattern = (int)(rnd(&s) % PATTERNS);
    return w;
}

/* Sender src's messages of round r. */
static void messages_of(int r, int src, const struct round *w, struct msg *out)
{
    unsigned long long s = mix(seed ^ ((uint64_t)r << 20) ^ (uint64_t)src);
    for (int i = 0; i < w->per_rank; i++) {
        struct msg *m = &out[i];
        do m->dest = (int)(rnd(&s) % (unsigned)n); while (n > 1 && m->dest == src);
        m->tag = (int)(rnd(&s) % TAGS);
        unsigned k = rnd(&s) % 100;
        m->len = k < 8 ? 0 : k < 16 ? w->cap : (int)(rnd(&s) % (unsigned)(w->cap + 1));
        if (k >= 16 && k < 24) m->len = (int)(rnd(&s) % 64);    /* tiny ones too */
        m->off = (int)(rnd(&s) % (PATTERN - (unsigned)m->len + 1));
        m->mode = (int)(rnd(&s) % MODES);
        unsigned b = rnd(&s) % 8;
        bool blocking = m->mode <= RSEND;
        m->buf = blocking && b == 0 && m->len <= (int)STACK_MAX ? STACK
               : blocking && b == 1 && m->len <= (int)GLOBAL_MAX ? GLOBAL : HEAP;
    }
}

#define FAIL(...) do { \
    fprintf(stderr, "rank %d: test_checksum: FAILED (seed %llu, %d ranks): ", me, seed, n); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); MPI_Abort(MPI_COMM_WORLD, 1); } while (0)

static void send_one(const struct msg *m, unsigned char *pat, MPI_Request *req)
{
    unsigned char stack_buf[STACK_MAX];
    const unsigned char *src = pat + m->off;
    if (m->buf == STACK) src = memcpy(stack_buf, src, (size_t)m->len);
    else if (m->buf == GLOBAL) src = memcpy(global_buf, src, (size_t)m->len);
    int rc;
    *req = MPI_REQUEST_NULL;
    switch (m->mode) {
    case SEND:   rc = MPI_Send(src, m->len, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD); break;
    case SSEND:  rc = MPI_Ssend(src, m->len, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD); break;
    case BSEND:  rc = MPI_Bsend(src, m->len, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD); break;
    case RSEND:  rc = MPI_Rsend(src, m->len, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD); break;
    case ISEND:  rc = MPI_Isend(src, m->len, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD, req); break;
    case ISSEND: rc = MPI_Issend(src, m->len, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD, req); break;
    case IBSEND: rc = MPI_Ibsend(src, m->len, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD, req); break;
    case IRSEND: rc = MPI_Irsend(src, m->len, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD, req); break;
    case SEND_INIT:  rc = MPI_Send_init(src, m->len, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD, req); break;
    case SSEND_INIT: rc = MPI_Ssend_init(src, m->len, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD, req); break;
    case BSEND_INIT: rc = MPI_Bsend_init(src, m->len, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD, req); break;
    default:         rc = MPI_Rsend_init(src, m->len, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD, req); break;
    }
    if (rc == MPI_SUCCESS && m->mode >= SEND_INIT) rc = MPI_Start(req);
    if (rc != MPI_SUCCESS) FAIL("%s of %d bytes to rank %d returned %d", mode_name[m->mode], m->len, m->dest, rc);
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    const char *env_n = getenv("TEST_MESSAGES"), *env_seed = getenv("TEST_SEED");
    long total = argc > 1 ? atol(argv[1]) : env_n ? atol(env_n) : 100000;
    seed = argc > 2 ? strtoull(argv[2], NULL, 0) : env_seed ? strtoull(env_seed, NULL, 0)
         : mix((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32));
    OK(MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD));
    if (me == 0) {
        printf("test_checksum: seed %llu, %d ranks, %ld messages (replay: TEST_SEED=%llu TEST_MESSAGES=%ld)\n",
               seed, n, total, seed, total);
        fflush(stdout);
    }
    CHECK(n >= 2, "needs 2 ranks or more");

    unsigned char **pat = malloc(sizeof *pat * (size_t)n);
    for (int s = 0; s < n; s++) {
        pat[s] = malloc(PATTERN);
        CHECK(pat[s], "malloc");
        make_pattern(s, pat[s]);
    }
    int maxper = 48;
    struct msg *all = malloc(sizeof *all * (size_t)n * (size_t)maxper);
    bool *taken = malloc(sizeof *taken * (size_t)n * (size_t)maxper);
    MPI_Request *rreq = malloc(sizeof *rreq * (size_t)n * (size_t)maxper), *sreq = malloc(sizeof *sreq * (size_t)maxper);
    MPI_Status *st = malloc(sizeof *st * (size_t)n * (size_t)maxper);
    unsigned char **rbuf = malloc(sizeof *rbuf * (size_t)n * (size_t)maxper);
    long sent = 0, rounds = 0;
    unsigned long long bytes = 0;

    for (int r = 0; sent < total; r++, rounds++) {
        struct round w = round_of(r);
        for (int s = 0; s < n; s++) messages_of(r, s, &w, all + (size_t)s * (size_t)w.per_rank);
        sent += (long)n * w.per_rank;

        /* Post a receive for each message to me, in the round's pattern. */
        int nrecv = 0;
        for (int s = 0; s < n; s++)
            for (int i = 0; i < w.per_rank; i++) {
                struct msg *m = &all[(size_t)s * (size_t)w.per_rank + (size_t)i];
                taken[(size_t)s * (size_t)w.per_rank + (size_t)i] = false;
                if (m->dest != me) continue;
                int src = w.pattern == SRC_ANY || w.pattern == SRC_TAG ? s : MPI_ANY_SOURCE;
                int tag = w.pattern == ANY_TAG_ || w.pattern == SRC_TAG ? m->tag : MPI_ANY_TAG;
                rbuf[nrecv] = malloc((size_t)w.cap + 1);
                OK(MPI_Irecv(rbuf[nrecv], w.cap + 1, MPI_BYTE, src, tag, MPI_COMM_WORLD, &rreq[nrecv]));
                nrecv++;
            }
        /* Buffered sends need the room: attached per round. */
        size_t bsend = 0;
        struct msg *mine = all + (size_t)me * (size_t)w.per_rank;
        for (int i = 0; i < w.per_rank; i++)
            if (mine[i].mode == BSEND || mine[i].mode == IBSEND || mine[i].mode == BSEND_INIT)
                bsend += (size_t)mine[i].len + MPI_BSEND_OVERHEAD;
        void *battached = bsend ? malloc(bsend) : NULL;
        if (bsend) OK(MPI_Buffer_attach(battached, (int)bsend));
        OK(MPI_Barrier(MPI_COMM_WORLD));          /* every receive posted: ready sends may go */

        for (int i = 0; i < w.per_rank; i++) send_one(&mine[i], pat[me], &sreq[i]);
        OK(MPI_Waitall(nrecv, rreq, st));
        OK(MPI_Waitall(w.per_rank, sreq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < w.per_rank; i++)
            if (mine[i].mode >= SEND_INIT) OK(MPI_Request_free(&sreq[i]));

        /* Each receive, in the order posted, matched the sender's earliest
         * message to me it could match. */
        for (int k = 0; k < nrecv; k++) {
            int s = st[k].MPI_SOURCE, tag = st[k].MPI_TAG, len;
            if (s < 0 || s >= n) FAIL("round %d: receive %d: source %d", r, k, s);
            OK(MPI_Get_count(&st[k], MPI_BYTE, &len));
            struct msg *from = all + (size_t)s * (size_t)w.per_rank, *e = NULL;
            bool by_tag = w.pattern == ANY_TAG_ || w.pattern == SRC_TAG;
            for (int i = 0; i < w.per_rank && !e; i++)
                if (from[i].dest == me && !taken[(size_t)s * (size_t)w.per_rank + (size_t)i] && (!by_tag || from[i].tag == tag)) {
                    e = &from[i];
                    taken[(size_t)s * (size_t)w.per_rank + (size_t)i] = true;
                }
            if (!e) FAIL("round %d, receive %s: a message from rank %d (tag %d, %d bytes) not sent", r,
                         pattern_name[w.pattern], s, tag, len);
            if (e->tag != tag || e->len != len)
                FAIL("round %d, receive %s: from rank %d: tag %d, %d bytes; expected tag %d, %d bytes (%s)", r,
                     pattern_name[w.pattern], s, tag, len, e->tag, e->len, mode_name[e->mode]);
            if (memcmp(rbuf[k], pat[s] + e->off, (size_t)len) != 0) {
                int at = 0;
                while (rbuf[k][at] == pat[s][e->off + at]) at++;
                FAIL("round %d, receive %s: from rank %d, %d bytes by %s: wrong byte at %d", r,
                     pattern_name[w.pattern], s, len, mode_name[e->mode], at);
            }
            bytes += (unsigned long long)len;
            free(rbuf[k]);
        }
        if (bsend) {
            int size;
            OK(MPI_Buffer_detach(&battached, &size));
            free(battached);
        }
    }
    unsigned long long tot_bytes = 0;
    OK(MPI_Reduce(&bytes, &tot_bytes, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    int flag;
    OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a message too many");
    OK(MPI_Finalize());
    if (me == 0)
        printf("test_checksum: %ld messages in %ld rounds, %.1f MiB, every byte as sent (seed %llu)\n", sent,
               rounds, (double)tot_bytes / (1 << 20), seed);
    for (int s = 0; s < n; s++) free(pat[s]);
    free(pat), free(all), free(taken), free(rreq), free(sreq), free(st), free(rbuf);
    return 0;
}
