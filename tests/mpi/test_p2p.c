/* Point-to-point semantics on any number of ranks: order, wildcards and
 * fairness, truncation, probe, send-before-receive, large messages from the
 * heap, the stack and private memory, synchronous, nonblocking and
 * persistent operations, cancel, matched probe, MPI_PROC_NULL. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mcheck.h"

static int me, n;

static void fill(unsigned char *b, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++) b[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}
static void verify(const unsigned char *b, size_t len, unsigned seed, const char *what)
{
    for (size_t i = 0; i < len; i++)
        CHECK(b[i] == (unsigned char)(seed * 131 + i * 7 + (i >> 8)), "%s: byte %zu of %zu", what, i, len);
}

/* Messages between a pair arrive in the order sent, small and large mixed. */
static void order(void)
{
    const int N = 200;
    static int big[20000];
    if (me == 0) {
        for (int p = 1; p < n; p++)
            for (int i = 0; i < N; i++) {
                int cnt = i % 10 == 9 ? 20000 : 1;
                big[0] = i;
                OK(MPI_Send(big, cnt, MPI_INT, p, i % 3, MPI_COMM_WORLD));
            }
    } else {
        for (int i = 0; i < N; i++) {
            MPI_Status st;
            OK(MPI_Recv(big, 20000, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(big[0] == i && st.MPI_TAG == i % 3, "message %d arrived as %d tag %d", i, big[0], st.MPI_TAG);
            int c;
            OK(MPI_Get_count(&st, MPI_INT, &c));
            CHECK(c == (i % 10 == 9 ? 20000 : 1), "count %d", c);
        }
    }
}

/* Every rank sends to every rank before receiving anything: more messages
 * than a ring holds (4000-byte ones fill it at any job size), so blocking
 * sends wait in the pending queue until the receiver drains its ring. */
static void send_before_recv(int len)
{
    const int K = 300;
    int *v = malloc((size_t)len);
    for (int p = 0; p < n; p++)
        for (int k = 0; k < K; k++) {
            v[0] = v[len / 4 - 1] = me * 1000 + k;
            OK(MPI_Send(v, len / 4, MPI_INT, p, 7, MPI_COMM_WORLD));
        }
    for (int p = 0; p < n; p++)
        for (int k = 0; k < K; k++) {
            OK(MPI_Recv(v, len / 4, MPI_INT, p, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v[0] == p * 1000 + k && v[len / 4 - 1] == v[0], "got %d, %d from %d", v[0], v[len / 4 - 1], p);
        }
    free(v);
}

/* A receiver with no receive posted still drains a ring whose sender waits
 * for room: odd ranks sit in MPI_Ssend to their even partner, which first
 * floods them with more than a ring holds. */
static void flood_while_ssend(void)
{
    const int K = 300, len = 4000;
    int partner = me ^ 1, token = me;
    if (partner >= n) return;
    char *m = malloc(len);
    if (me % 2 == 0) {
        for (int k = 0; k < K; k++) {
            memset(m, k & 0xff, len);
            OK(MPI_Send(m, len, MPI_BYTE, partner, 11, MPI_COMM_WORLD));
        }
        OK(MPI_Recv(&token, 1, MPI_INT, partner, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(token == partner, "token %d", token);
    } else {
        OK(MPI_Ssend(&token, 1, MPI_INT, partner, 12, MPI_COMM_WORLD));
        for (int k = 0; k < K; k++) {
            OK(MPI_Recv(m, len, MPI_BYTE, partner, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(m[0] == (char)(k & 0xff) && m[len - 1] == m[0], "message %d holds %d", k, m[0]);
        }
    }
    free(m);
}

/* ANY_SOURCE serves senders round-robin when all have messages waiting,
 * also when some senders' messages have been set aside as unexpected (odd
 * senders: rank 0 receives a later message of theirs first) while others'
 * are still in their rings (even senders). */
static void fairness(void)
{
    const int K = 6;
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me != 0) {
        for (int k = 0; k < K; k++) OK(MPI_Send(&k, 1, MPI_INT, 0, 3, MPI_COMM_WORLD));
        OK(MPI_Send(&me, 1, MPI_INT, 0, 4, MPI_COMM_WORLD));
    }
    if (me == 0) {
        usleep(200000);   /* let the messages arrive while rank 0 is in no MPI call */
        int seen[512] = { 0 }, next[512] = { 0 }, v;
        for (int p = 1; p < n; p += 2) {
            OK(MPI_Recv(&v, 1, MPI_INT, p, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == p, "tag 4 from %d holds %d", p, v);
        }
        for (int i = 0; i < K * (n - 1); i++) {
            MPI_Status st;
            OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st));
            CHECK(v == next[st.MPI_SOURCE]++, "source %d out of order", st.MPI_SOURCE);
            seen[st.MPI_SOURCE]++;
            /* after every round of n-1 receives, every sender has been served once more */
            if ((i + 1) % (n - 1) == 0)
                for (int p = 1; p < n; p++) CHECK(seen[p] == (i + 1) / (n - 1), "sender %d starved", p);
        }
        for (int p = 2; p < n; p += 2) {
            OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v % 2 == 0 && v > 0 && v < n, "last tag 4 holds %d", v);
        }
    }
}

static void truncation(void)
{
    int a[10] = { 0 }, b[5];
    MPI_Comm c;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int to = (me + 1) % n, from = (me + n - 1) % n;
    MPI_Request r;
    OK(MPI_Isend(a, 10, MPI_INT, to, 1, c, &r));
    MPI_Status st;
    int rc = MPI_Recv(b, 5, MPI_INT, from, 1, c, &st);
    CHECK(rc == MPI_ERR_TRUNCATE, "rc %d", rc);
    CHECK(st.MPI_ERROR == MPI_ERR_TRUNCATE, "status error %d", st.MPI_ERROR);
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    OK(MPI_Comm_free(&c));
}

static void probe(void)
{
    int to = (me + 1) % n, from = (me + n - 1) % n, len = 100 + me * 10;
    char *m = malloc((size_t)len);
    fill((unsigned char *)m, (size_t)len, (unsigned)me);
    OK(MPI_Send(m, len, MPI_CHAR, to, 42, MPI_COMM_WORLD));
    MPI_Status st;
    OK(MPI_Probe(MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &st));
    int cnt, flag;
    OK(MPI_Get_count(&st, MPI_CHAR, &cnt));
    CHECK(st.MPI_SOURCE == from && cnt == 100 + from * 10, "probe %d %d", st.MPI_SOURCE, cnt);
    OK(MPI_Iprobe(from, 42, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(flag, "iprobe after probe");
    char *r = malloc((size_t)cnt);
    OK(MPI_Recv(r, cnt, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    verify((unsigned char *)r, (size_t)cnt, (unsigned)from, "probe");
    OK(MPI_Iprobe(MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "iprobe found a received message");
    /* matched probe: the message is ours, nobody else can receive it */
    OK(MPI_Send(m, len, MPI_CHAR, to, 43, MPI_COMM_WORLD));
    MPI_Message msg;
    OK(MPI_Mprobe(from, 43, MPI_COMM_WORLD, &msg, &st));
    OK(MPI_Iprobe(from, 43, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a matched message is still visible to probe");
    OK(MPI_Get_count(&st, MPI_CHAR, &cnt));
    OK(MPI_Mrecv(r, cnt, MPI_CHAR, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL, "message handle not reset");
    verify((unsigned char *)r, (size_t)cnt, (unsigned)from, "mrecv");
    free(m);
    free(r);
}

/* One large message each way around the ring, from memory of every kind. */
static void large(void *sbuf, size_t len, const char *what)
{
    int to = (me + 1) % n, from = (me + n - 1) % n;
    unsigned char *rbuf = malloc(len);
    fill(sbuf, len, (unsigned)me + 1000);
    MPI_Status st;
    OK(MPI_Sendrecv(sbuf, (int)len, MPI_BYTE, to, 9, rbuf, (int)len, MPI_BYTE, from, 9, MPI_COMM_WORLD, &st));
    verify(rbuf, len, (unsigned)from + 1000, what);
    /* and a synchronous send, nonblocking on both sides */
    MPI_Request r[2];
    OK(MPI_Irecv(rbuf, (int)len, MPI_BYTE, from, 10, MPI_COMM_WORLD, &r[0]));
    OK(MPI_Issend(sbuf, (int)len, MPI_BYTE, to, 10, MPI_COMM_WORLD, &r[1]));
    OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    verify(rbuf, len, (unsigned)from + 1000, what);
    /* and blocking pairs: a sender in MPI_Send copies part of the message
     * itself when the receiver's buffer is exposed */
    int partner = me ^ 1;
    if (partner < n) {
        memset(rbuf, 0, len);
        if (me % 2 == 0) OK(MPI_Send(sbuf, (int)len, MPI_BYTE, partner, 13, MPI_COMM_WORLD));
        else OK(MPI_Recv(rbuf, (int)len, MPI_BYTE, partner, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (me % 2) verify(rbuf, len, (unsigned)partner + 1000, what);
    }
    free(rbuf);
}

static void nonblocking(void)
{
    /* Waitany / Waitsome / Testall over receives from everyone */
    int *in = calloc((size_t)n, sizeof(int)), out = me;
    MPI_Request *r = malloc(sizeof(MPI_Request) * (size_t)(n * 2 + 1));   /* r[2] below, also when n is 1 */
    for (int p = 0; p < n; p++) OK(MPI_Irecv(&in[p], 1, MPI_INT, p, 5, MPI_COMM_WORLD, &r[p]));
    for (int p = 0; p < n; p++) OK(MPI_Isend(&out, 1, MPI_INT, p, 5, MPI_COMM_WORLD, &r[n + p]));
    int done = 0;
    while (done < n) {
        int idx;
        MPI_Status st;
        OK(MPI_Waitany(n, r, &idx, &st));
        CHECK(idx >= 0 && idx < n && r[idx] == MPI_REQUEST_NULL, "waitany index %d", idx);
        CHECK(in[idx] == idx && st.MPI_SOURCE == idx, "waitany data %d from %d", in[idx], st.MPI_SOURCE);
        done++;
    }
    int idx;
    OK(MPI_Waitany(n, r, &idx, MPI_STATUS_IGNORE));
    CHECK(idx == MPI_UNDEFINED, "waitany on null requests gave %d", idx);
    int flag = 0;
    while (!flag) OK(MPI_Testall(n, r + n, &flag, MPI_STATUSES_IGNORE));
    /* Waitsome */
    for (int p = 0; p < n; p++) OK(MPI_Irecv(&in[p], 1, MPI_INT, p, 6, MPI_COMM_WORLD, &r[p]));
    for (int p = 0; p < n; p++) OK(MPI_Send(&out, 1, MPI_INT, p, 6, MPI_COMM_WORLD));
    int got = 0, outc, *ix = malloc(sizeof(int) * (size_t)n), ix2[2];
    while (got < n) {
        OK(MPI_Waitsome(n, r, &outc, ix, MPI_STATUSES_IGNORE));
        CHECK(outc >= 1, "waitsome %d", outc);
        got += outc;
    }
    OK(MPI_Waitsome(n, r, &outc, ix, MPI_STATUSES_IGNORE));
    CHECK(outc == MPI_UNDEFINED, "waitsome on null requests %d", outc);
    for (int p = 0; p < n; p++) CHECK(in[p] == p, "waitsome data");
    /* Testany / Testsome / Request_get_status; Irsend, Ibsend, Ssend, Rsend */
    int to = (me + 1) % n, from = (me + n - 1) % n, x = -1, y = -1;
    OK(MPI_Irecv(&x, 1, MPI_INT, from, 13, MPI_COMM_WORLD, &r[0]));
    OK(MPI_Irecv(&y, 1, MPI_INT, from, 14, MPI_COMM_WORLD, &r[1]));
    OK(MPI_Barrier(MPI_COMM_WORLD));                  /* receives are posted: ready mode is legal */
    OK(MPI_Irsend(&me, 1, MPI_INT, to, 13, MPI_COMM_WORLD, &r[2]));
    OK(MPI_Wait(&r[2], MPI_STATUS_IGNORE));
    MPI_Status st;
    flag = 0;
    while (!flag) OK(MPI_Request_get_status(r[0], &flag, &st));
    CHECK(r[0] != MPI_REQUEST_NULL && st.MPI_SOURCE == from && st.MPI_TAG == 13, "get_status");
    flag = 0;
    while (!flag) OK(MPI_Testany(2, r, &idx, &flag, &st));
    CHECK(idx == 0 && x == from && r[0] == MPI_REQUEST_NULL, "testany %d", idx);
    OK(MPI_Rsend(&me, 1, MPI_INT, to, 14, MPI_COMM_WORLD));
    for (outc = 0; outc == 0;) OK(MPI_Testsome(2, r, &outc, ix2, MPI_STATUSES_IGNORE));
    CHECK(outc == 1 && ix2[0] == 1 && y == from, "testsome %d", outc);
    OK(MPI_Irecv(&x, 1, MPI_INT, from, 15, MPI_COMM_WORLD, &r[0]));
    OK(MPI_Ssend(&me, 1, MPI_INT, to, 15, MPI_COMM_WORLD));
    OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK(x == from, "ssend");
    free(ix);
    free(in);
    free(r);
}

static void persistent(void)
{
    int to = (me + 1) % n, from = (me + n - 1) % n, s, v;
    MPI_Request r[2];
    OK(MPI_Recv_init(&v, 1, MPI_INT, from, 11, MPI_COMM_WORLD, &r[0]));
    OK(MPI_Send_init(&s, 1, MPI_INT, to, 11, MPI_COMM_WORLD, &r[1]));
    for (int i = 0; i < 50; i++) {
        s = me * 100 + i;
        OK(MPI_Startall(2, r));
        OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK(v == from * 100 + i, "persistent round %d got %d", i, v);
        CHECK(r[0] != MPI_REQUEST_NULL, "persistent request freed by wait");
    }
    OK(MPI_Request_free(&r[0]));
    OK(MPI_Request_free(&r[1]));
}

static void cancel_and_null(void)
{
    int v = 0;
    MPI_Request r;
    MPI_Status st;
    OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r));
    OK(MPI_Cancel(&r));
    OK(MPI_Wait(&r, &st));
    int flag;
    OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "receive not cancelled");
    OK(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    OK(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    int c;
    OK(MPI_Get_count(&st, MPI_INT, &c));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && c == 0, "PROC_NULL status");
    /* Request_free on an active send: it still completes */
    OK(MPI_Isend(&me, 1, MPI_INT, (me + 1) % n, 12, MPI_COMM_WORLD, &r));
    OK(MPI_Request_free(&r));
    OK(MPI_Recv(&v, 1, MPI_INT, (me + n - 1) % n, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(v == (me + n - 1) % n, "freed send delivered %d", v);
}

/* Buffered sends complete at once, even large ones before the receive.
 * Large enough (280 KB) that across nodes UCX cannot send them eagerly (up
 * to 256 KiB for a standard send, net.c): else each left the attached
 * buffer at once and a fourth one fitted. */
static void buffered(void)
{
    enum { LEN = 70000 };
    int size = 3 * (LEN * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *att = malloc((size_t)size);
    int *m = malloc(sizeof(int) * LEN), *r = malloc(sizeof(int) * LEN);
    int to = (me + 1) % n, from = (me + n - 1) % n;
    OK(MPI_Buffer_attach(att, size));
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < LEN; i++) m[i] = me * 7 + k + i;
        OK(MPI_Bsend(m, LEN, MPI_INT, to, 20 + k, MPI_COMM_WORLD));
    }
    MPI_Comm c;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int rc = MPI_Bsend(m, LEN, MPI_INT, to, 23, c);
    CHECK(rc == MPI_ERR_BUFFER, "a Bsend beyond the attached buffer gave %d", rc);
    OK(MPI_Barrier(MPI_COMM_WORLD));       /* nothing is received before every rank checked */
    for (int k = 2; k >= 0; k--) {
        OK(MPI_Recv(r, LEN, MPI_INT, from, 20 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < LEN; i++) CHECK(r[i] == from * 7 + k + i, "bsend %d data", k);
    }
    MPI_Request ib;
    OK(MPI_Ibsend(m, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &ib));
    OK(MPI_Wait(&ib, MPI_STATUS_IGNORE));
    void *back;
    int bsize;
    OK(MPI_Buffer_detach(&back, &bsize));
    CHECK(back == att && bsize == size, "detach");
    OK(MPI_Comm_free(&c));
    free(att), free(m), free(r);
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    order();
    send_before_recv(4);
    send_before_recv(4000);
    flood_while_ssend();
    if (n > 1) fairness();
    truncation();
    probe();
    static unsigned char global_buf[300000];
    unsigned char stack_buf[100000];
    void *heap = malloc(3 << 20);
    large(heap, 3 << 20, "heap");
    large(global_buf, sizeof global_buf, "globals");
    large(stack_buf, sizeof stack_buf, "stack");
    void *priv = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(priv != MAP_FAILED, "mmap");
    large(priv, 1 << 20, "private mmap");
    large(heap, 0, "empty");
    free(heap);
    nonblocking();
    persistent();
    cancel_and_null();
    buffered();
    OK(MPI_Finalize());
    if (me == 0) printf("test_p2p: %d ranks ok\n", n);
    return 0;
}
