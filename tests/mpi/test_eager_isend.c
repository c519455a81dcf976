/* A small standard MPI_Isend of contiguous data to a rank of this node is in
 * the receiver's ring and complete when the call returns (SMARTMAP_STATS
 * counts these; the test's expectation is ST_FAST a rank, MT_FAST with
 * "mt"), and keeps MPI's semantics: windows of 100 Isends of 0 B to 1000 B
 * with large ones among them (through a request) arrive in order, completed
 * by MPI_Testsome and by MPI_Waitany in whatever order they come; a send
 * taken by the path is still cancelled while its receiver does nothing but
 * a barrier, and the receiver gets only the send after it; MPI_Irsend,
 * persistent starts and contiguous derived types take it, MPI_Issend,
 * MPI_Ibsend, a vector type and MPI_PROC_NULL do not and still arrive. With
 * "mt", the same under MPI_THREAD_MULTIPLE, then 4 threads each sending a
 * window of its own tag while the others do. */
#include <pthread.h>
#include <string.h>

#include "mcheck.h"

#define W     100                 /* a window of sends, and of receives */
#define BIG   20000               /* above the eager limit: a request */
#define NT    4                   /* threads (mt) */
#define TW    50                  /* a thread's sends */

static int me, np, to, from;

static int size_of(int i) { return i % 10 == 9 ? BIG : i % 3 == 0 ? 0 : (i * 37) % 1000 + 1; }
static void fill(char *b, int n, int seed)
{
    for (int i = 0; i < n; i++) b[i] = (char)(seed * 31 + i);
}
static void verify(const char *b, int n, int seed, const char *what)
{
    for (int i = 0; i < n; i++) CHECK(b[i] == (char)(seed * 31 + i), "%s: byte %d of %d", what, i, n);
}

static char sbuf[W][BIG], rbuf[W][BIG];

/* W sends to `to` and W receives from `from` of the same tag, all in one
 * array, completed in any order by Testsome (any = 0) or Waitany (any = 1):
 * each index once, receive i gets message i (MPI's order). */
static void window(int round, int any)
{
    MPI_Request r[2 * W];
    MPI_Status sts[2 * W];
    int seen[2 * W] = { 0 }, idx[2 * W], left = 2 * W;
    for (int i = 0; i < W; i++) {
        fill(sbuf[i], size_of(i), me * 1000 + round * W + i);
        OK(MPI_Isend(sbuf[i], size_of(i), MPI_BYTE, to, 5, MPI_COMM_WORLD, &r[i]));
    }
    for (int i = 0; i < W; i++) OK(MPI_Irecv(rbuf[i], BIG, MPI_BYTE, from, 5, MPI_COMM_WORLD, &r[W + i]));
    while (left) {
        int n = 0;
        if (any) {
            OK(MPI_Waitany(2 * W, r, &idx[0], &sts[0]));
            CHECK(idx[0] != MPI_UNDEFINED, "Waitany: nothing active with %d left", left);
            n = 1;
        } else OK(MPI_Testsome(2 * W, r, &n, idx, sts));
        for (int k = 0; k < n; k++) {
            int i = idx[k];
            CHECK(i >= 0 && i < 2 * W && !seen[i], "index %d completed twice or out of range", i);
            CHECK(r[i] == MPI_REQUEST_NULL, "request %d not freed", i);
            seen[i] = 1, left--;
            if (i < W) continue;
            int j = i - W, c;
            MPI_Get_count(&sts[k], MPI_BYTE, &c);
            CHECK(sts[k].MPI_SOURCE == from && sts[k].MPI_TAG == 5 && c == size_of(j),
                  "receive %d: %d bytes from %d tag %d, not %d", j, c, sts[k].MPI_SOURCE, sts[k].MPI_TAG, size_of(j));
            verify(rbuf[j], c, from * 1000 + round * W + j, "window");
        }
    }
}

static void *thread_main(void *a)
{
    int t = (int)(intptr_t)a, tag = 100 + t;
    char s[TW][8], g[8];
    MPI_Request r[TW];
    for (int i = 0; i < TW; i++) {
        fill(s[i], 8, me * 100 + t * TW + i);
        OK(MPI_Isend(s[i], 8, MPI_BYTE, to, tag, MPI_COMM_WORLD, &r[i]));
    }
    for (int i = 0; i < TW; i++) {
        OK(MPI_Recv(g, 8, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        verify(g, 8, from * 100 + t * TW + i, "thread");
    }
    OK(MPI_Waitall(TW, r, MPI_STATUSES_IGNORE));
    return NULL;
}

int main(int argc, char **argv)
{
    int mt = mcheck_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    to = (me + 1) % np, from = (me + np - 1) % np;

    /* Windows: 90 of each 100 sends are small (180 counted). */
    window(0, 0);
    window(1, 1);
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Cancel of a send the path took (counted), then the one after it (counted). */
    int v = 1000 + me, got = -1, flag = 1;
    MPI_Request r;
    OK(MPI_Isend(&v, 1, MPI_INT, to, 77, MPI_COMM_WORLD, &r));
    mcheck_cancelled(&r, 1, "a small Isend");
    OK(MPI_Barrier(MPI_COMM_WORLD));
    int w = 2000 + me;
    OK(MPI_Isend(&w, 1, MPI_INT, to, 77, MPI_COMM_WORLD, &r));
    OK(MPI_Recv(&got, 1, MPI_INT, from, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == 2000 + from, "after the cancelled send: %d, not %d", got, 2000 + from);
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Iprobe(from, 77, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "the cancelled send arrived");

    /* A received send of the path is not cancelled (counted). */
    OK(MPI_Isend(&w, 1, MPI_INT, to, 78, MPI_COMM_WORLD, &r));
    OK(MPI_Recv(&got, 1, MPI_INT, from, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    mcheck_cancelled(&r, 0, "a received Isend");

    /* Irsend with its receive posted (counted), persistent starts (3
     * counted), a contiguous derived type (counted); Issend, Ibsend, a
     * vector and MPI_PROC_NULL take requests. */
    int in[8] = { 0 }, out[8];
    for (int i = 0; i < 8; i++) out[i] = me * 8 + i;
    MPI_Request rr, s[7];
    OK(MPI_Irecv(in, 1, MPI_INT, from, 9, MPI_COMM_WORLD, &rr));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Irsend(out, 1, MPI_INT, to, 9, MPI_COMM_WORLD, &s[0]));
    OK(MPI_Wait(&rr, MPI_STATUS_IGNORE));
    CHECK(in[0] == from * 8, "Irsend: %d", in[0]);
    OK(MPI_Waitall(1, s, MPI_STATUSES_IGNORE));
    OK(MPI_Send_init(out, 2, MPI_INT, to, 10, MPI_COMM_WORLD, &s[1]));
    for (int k = 0; k < 3; k++) {
        out[0] = me * 8 + k;
        OK(MPI_Start(&s[1]));
        OK(MPI_Wait(&s[1], MPI_STATUS_IGNORE));
        OK(MPI_Recv(in, 2, MPI_INT, from, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(in[0] == from * 8 + k && in[1] == from * 8 + 1, "persistent start %d: %d %d", k, in[0], in[1]);
    }
    OK(MPI_Request_free(&s[1]));
    out[0] = me * 8;
    MPI_Datatype four, vec;
    OK(MPI_Type_contiguous(4, MPI_INT, &four));
    OK(MPI_Type_commit(&four));
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    static char bbuf[1024];
    OK(MPI_Buffer_attach(bbuf, sizeof bbuf));
    OK(MPI_Isend(out, 1, four, to, 11, MPI_COMM_WORLD, &s[0]));
    OK(MPI_Issend(out, 1, MPI_INT, to, 12, MPI_COMM_WORLD, &s[1]));
    OK(MPI_Ibsend(out, 1, MPI_INT, to, 13, MPI_COMM_WORLD, &s[2]));
    OK(MPI_Isend(out, 1, vec, to, 14, MPI_COMM_WORLD, &s[3]));
    OK(MPI_Isend(out, 1, MPI_INT, MPI_PROC_NULL, 15, MPI_COMM_WORLD, &s[4]));
    OK(MPI_Type_free(&four));                /* the requests hold it */
    OK(MPI_Recv(in, 4, MPI_INT, from, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++) CHECK(in[i] == from * 8 + i, "contiguous type: int %d is %d", i, in[i]);
    OK(MPI_Recv(in, 1, MPI_INT, from, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[0] == from * 8, "Issend: %d", in[0]);
    OK(MPI_Recv(in, 1, MPI_INT, from, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[0] == from * 8, "Ibsend: %d", in[0]);
    OK(MPI_Recv(in, 2, MPI_INT, from, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[0] == from * 8 && in[1] == from * 8 + 2, "vector: %d %d", in[0], in[1]);
    OK(MPI_Waitall(5, s, MPI_STATUSES_IGNORE));
    void *bb;
    int bs;
    OK(MPI_Buffer_detach(&bb, &bs));
    OK(MPI_Type_free(&vec));

    if (mt) {                            /* 200 counted */
        pthread_t th[NT];
        for (int t = 0; t < NT; t++) CHECK(!pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t), "thread");
        for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
