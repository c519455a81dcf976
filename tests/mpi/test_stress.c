/* Stress: thousands of messages of random sizes (eager and single-copy),
 * random destinations and tags, all sent nonblocking at once (rings fill,
 * pending queues drain), received with wildcards. Every rank replays every
 * sender's generator, so each message's source, order, tag, length and bytes
 * are checked: nothing lost, duplicated, reordered or corrupted. */
#include <string.h>

#include "mcheck.h"

#define PATTERN (1 << 20)
#define MAXLEN  (256 << 10)

struct msg { int dest, tag, len, off; };

static void gen(int src, int n, int m, struct msg *out)
{
    unsigned long long s = 0x9e3779b97f4a7c15ULL * (unsigned long long)(src + 1);
    for (int i = 0; i < m; i++) {
        unsigned k = rnd(&s) % 100;
        out[i].dest = (int)(rnd(&s) % (unsigned)n);
        out[i].tag = (int)(rnd(&s) % 4);
        out[i].len = (int)(k < 70 ? rnd(&s) % 257 : k < 90 ? rnd(&s) % 8193 : rnd(&s) % (MAXLEN + 1));
        out[i].off = (int)(rnd(&s) % (PATTERN - MAXLEN));
    }
}

int main(int argc, char **argv)
{
    int me, n;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    int m = 4000 / n;
    unsigned char *pat = malloc(PATTERN), *buf = malloc(MAXLEN);
    unsigned long long s = 12345;
    for (int i = 0; i < PATTERN; i++) pat[i] = (unsigned char)rnd(&s);

    struct msg *all = malloc(sizeof *all * (size_t)m * (size_t)n);
    for (int p = 0; p < n; p++) gen(p, n, m, all + (size_t)p * (size_t)m);
    struct msg *mine = all + (size_t)me * (size_t)m;
    MPI_Request *req = malloc(sizeof *req * (size_t)m);
    for (int i = 0; i < m; i++)
        OK(MPI_Isend(pat + mine[i].off, mine[i].len, MPI_BYTE, mine[i].dest, mine[i].tag, MPI_COMM_WORLD, &req[i]));

    int expect = 0, *next = calloc((size_t)n, sizeof(int));
    for (size_t i = 0; i < (size_t)m * (size_t)n; i++) expect += all[i].dest == me;
    for (int got = 0; got < expect; got++) {
        MPI_Status st;
        OK(MPI_Recv(buf, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        int src = st.MPI_SOURCE, len;
        CHECK(src >= 0 && src < n, "source %d", src);
        struct msg *from = all + (size_t)src * (size_t)m;
        while (next[src] < m && from[next[src]].dest != me) next[src]++;
        CHECK(next[src] < m, "unexpected extra message from %d", src);
        struct msg *e = &from[next[src]++];
        OK(MPI_Get_count(&st, MPI_BYTE, &len));
        CHECK(len == e->len && st.MPI_TAG == e->tag, "from %d message %d: len %d tag %d, expected %d %d",
              src, next[src] - 1, len, st.MPI_TAG, e->len, e->tag);
        CHECK(!memcmp(buf, pat + e->off, (size_t)len), "from %d message %d: corrupted", src, next[src] - 1);
    }
    OK(MPI_Waitall(m, req, MPI_STATUSES_IGNORE));
    int flag;
    OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a message too many");
    OK(MPI_Finalize());
    if (me == 0) printf("test_stress: %d ranks, %d messages each, ok\n", n, m);
    free(all), free(req), free(next), free(pat), free(buf);
    return 0;
}
