/* Windows of receives posted before their messages (osu_mbw_mr's pattern):
 * a receive posted behind one that matches all it matches joins the posted
 * queue without a look at the rings (SMARTMAP_STATS counts these; every
 * round below posts W of them, so W - 1 a round: the first finds nothing
 * posted before it), and MPI's semantics stay: every rank receives windows
 * from the previous rank, posted before a barrier after which that rank
 * sends, and each receive i gets message i with its status (source, tag,
 * count). Rounds: the same tag; the first receive MPI_ANY_TAG; every
 * receive MPI_ANY_SOURCE; behind a receive of another tag posted first
 * (it gets the message of its tag sent after the window); a receive of the
 * window cancelled before the messages come (the next one gets its
 * message); a receive too short (MPI_ERR_TRUNCATE in its status, the others
 * whole); persistent receives and sends (MPI_Startall); then the reply
 * pattern itself with "reply" (not counted: timing decides which receives
 * find their message already there). With "mt" (first argument; "st"
 * otherwise), all under MPI_THREAD_MULTIPLE. */
#include "mcheck.h"

#define W      64
#define ROUNDS 7                /* counted rounds (the cases of round()) */
#define T      7                /* the window's tag */
#define X      8                /* another tag */

static int me, np, to, from;

static void put(char *b, int round, int i) { memcpy(b, &(int[2]){ round * 1000 + i, me }, 8); }
static void expect(const char *b, int round, int i, const char *what)
{
    int v[2];
    memcpy(v, b, 8);
    CHECK(v[0] == round * 1000 + i && v[1] == from, "%s: receive got message %d of rank %d, not %d of %d", what,
          v[0], v[1], round * 1000 + i, from);
}

/* One round of case c: W receives from `from` (some variant), a barrier,
 * W sends (W - 1 when one receive is cancelled) to `to`, completion and checks. */
static void round_of(int c)
{
    static char sb[W][8], rb[W][8];
    MPI_Request rr[W], sr[W + 1], xr = MPI_REQUEST_NULL;
    MPI_Status st[W];
    char xb[8], xs[8];
    int nsend = W, cancelled = c == 4 ? 5 : -1, shortone = c == 5 ? 9 : -1;
    const char *what[] = { "same tag", "ANY_TAG first", "ANY_SOURCE", "behind another tag", "cancelled",
                           "truncated", "persistent" };
    if (c == 3) OK(MPI_Irecv(xb, 8, MPI_BYTE, from, X, MPI_COMM_WORLD, &xr));
    for (int i = 0; i < W; i++) {
        int src = c == 2 ? MPI_ANY_SOURCE : from, tag = c == 1 && i == 0 ? MPI_ANY_TAG : T;
        int len = i == shortone ? 4 : 8;
        if (c == 6) OK(MPI_Recv_init(rb[i], len, MPI_BYTE, src, tag, MPI_COMM_WORLD, &rr[i]));
        else OK(MPI_Irecv(rb[i], len, MPI_BYTE, src, tag, MPI_COMM_WORLD, &rr[i]));
    }
    if (c == 6) OK(MPI_Startall(W, rr));
    if (cancelled >= 0) {
        OK(MPI_Cancel(&rr[cancelled]));
        OK(MPI_Wait(&rr[cancelled], &st[0]));
        int flag = 0;
        OK(MPI_Test_cancelled(&st[0], &flag));
        CHECK(flag, "%s: a receive posted behind others (not matched) was not cancelled", what[c]);
        nsend = W - 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < nsend; i++) {
        put(sb[i], c, i);
        if (c == 6) OK(MPI_Send_init(sb[i], 8, MPI_BYTE, to, T, MPI_COMM_WORLD, &sr[i]));
        else OK(MPI_Isend(sb[i], 8, MPI_BYTE, to, T, MPI_COMM_WORLD, &sr[i]));
    }
    if (c == 6) OK(MPI_Startall(nsend, sr));
    if (c == 3) {
        put(xs, c, -1);
        OK(MPI_Send(xs, 8, MPI_BYTE, to, X, MPI_COMM_WORLD));
    }
    OK(MPI_Waitall(nsend, sr, MPI_STATUSES_IGNORE));
    int rc = MPI_Waitall(W, rr, st);
    CHECK(rc == (shortone >= 0 ? MPI_ERR_IN_STATUS : MPI_SUCCESS), "%s: MPI_Waitall returned %d", what[c], rc);
    for (int i = 0, m = 0; i < W; i++) {
        if (i == cancelled) continue;
        int count = -1;
        MPI_Get_count(&st[i], MPI_BYTE, &count);
        CHECK(st[i].MPI_SOURCE == from && st[i].MPI_TAG == T, "%s: receive %d: source %d tag %d", what[c], i,
              st[i].MPI_SOURCE, st[i].MPI_TAG);
        if (i == shortone) {
            CHECK(st[i].MPI_ERROR == MPI_ERR_TRUNCATE && count == 4, "%s: receive %d: error %d, %d bytes", what[c],
                  i, st[i].MPI_ERROR, count);
            m++;
            continue;
        }
        CHECK(count == 8 && (shortone < 0 || st[i].MPI_ERROR == MPI_SUCCESS), "%s: receive %d: %d bytes, error %d",
              what[c], i, count, st[i].MPI_ERROR);
        expect(rb[i], c, m++, what[c]);
    }
    if (c == 3) {
        OK(MPI_Wait(&xr, &st[0]));
        CHECK(st[0].MPI_TAG == X, "the receive of another tag got tag %d", st[0].MPI_TAG);
        expect(xb, c, -1, what[c]);
    }
    if (c == 6)
        for (int i = 0; i < W; i++) {
            OK(MPI_Request_free(&rr[i]));
            OK(MPI_Request_free(&sr[i]));
        }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    mcheck_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    to = (me + 1) % np, from = (me + np - 1) % np;
    if (argc < 3 || strcmp(argv[2], "reply")) {
        for (int c = 0; c < ROUNDS; c++) round_of(c);
        MPI_Finalize();
        return 0;
    }

    /* The reply pattern, in pairs (an odd last rank watches): every index
     * checked, whichever receives found their message already there. */
    int pairs = np / 2, sender = me < pairs, partner = sender ? me + pairs : me - pairs;
    char buf[W][8], reply[4] = { 0 };
    MPI_Request r[W];
    for (int k = 0; k < 200 && me < 2 * pairs; k++) {
        for (int i = 0; i < W; i++) {
            if (sender) {
                memcpy(buf[i], &(int[2]){ k, i }, 8);
                OK(MPI_Isend(buf[i], 8, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &r[i]));
            } else OK(MPI_Irecv(buf[i], 8, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &r[i]));
        }
        OK(MPI_Waitall(W, r, MPI_STATUSES_IGNORE));
        if (sender) {
            OK(MPI_Recv(reply, 4, MPI_BYTE, partner, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            continue;
        }
        for (int i = 0; i < W; i++) {
            int v[2];
            memcpy(v, buf[i], 8);
            CHECK(v[0] == k && v[1] == i, "reply pattern: window %d receive %d got %d/%d", k, i, v[0], v[1]);
        }
        OK(MPI_Send(reply, 4, MPI_BYTE, partner, 3, MPI_COMM_WORLD));
    }
    MPI_Finalize();
    return 0;
}
