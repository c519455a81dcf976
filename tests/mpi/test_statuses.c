/* The statuses of the calls completing many requests (MPI_Waitall,
 * MPI_Testall, MPI_Waitsome, MPI_Testsome), on every kind of completion in
 * one array: plain sends and receives (eager, empty, short, synchronous,
 * large, ANY_SOURCE/ANY_TAG), MPI_PROC_NULL ones, the null request, an
 * inactive persistent request and started persistent ones, a cancelled
 * receive, a buffered send, a generalized request; and, in every second
 * round, a truncated receive among them (MPI_ERR_IN_STATUS). Every field of
 * every status is checked, the statuses filled with garbage first: the
 * envelope and count of each receive, the cancelled flag of each, and
 * MPI_ERROR as MPI-3.1 §3.2.5 says: set "if and only if" the call returns
 * MPI_ERR_IN_STATUS (MPI_SUCCESS for all but the failed one), else left
 * as it was. Each rank receives from the previous rank and sends to the
 * next (on 1 rank, to itself). */
#include "mcheck.h"

#define POISON 0x5a5a5a5a           /* what every status holds before a call */
#define NREQ   26
#define BIG    (64 << 10)

static int me, np, to, from;
static MPI_Comm comm;

enum kind { SEND, RECV, EMPTY, CANCELLED, GREQ };
struct want { enum kind kind; int source, tag, count; };

static int query(void *extra, MPI_Status *st)
{
    (void)extra;
    st->MPI_SOURCE = 77, st->MPI_TAG = 78;
    MPI_Status_set_elements(st, MPI_BYTE, 3);
    MPI_Status_set_cancelled(st, 0);
    return MPI_SUCCESS;
}
static int greq_free(void *extra) { (void)extra; return MPI_SUCCESS; }
static int greq_cancel(void *extra, int complete) { (void)extra, (void)complete; return MPI_SUCCESS; }

static void poison(MPI_Status *st, int n)
{
    memset(st, 0x5a, sizeof *st * (size_t)n);
    for (int i = 0; i < n; i++) st[i].MPI_ERROR = POISON;
}

/* Status st of request i (w) after a call that returned rc (MPI_SUCCESS, or
 * MPI_ERR_IN_STATUS with `failed` the truncated one's index). */
static void check_status(const MPI_Status *st, int i, const struct want *w, int rc, int failed, const char *call)
{
    int count = -1, flag = -1;
    OK(MPI_Get_count(st, MPI_BYTE, &count));
    OK(MPI_Test_cancelled(st, &flag));
    if (rc == MPI_SUCCESS)
        CHECK(st->MPI_ERROR == POISON, "%s: request %d: MPI_ERROR %d, set by a call that succeeded", call, i,
              st->MPI_ERROR);
    else
        CHECK(st->MPI_ERROR == (i == failed ? MPI_ERR_TRUNCATE : MPI_SUCCESS),
              "%s: request %d: MPI_ERROR %d under MPI_ERR_IN_STATUS", call, i, st->MPI_ERROR);
    CHECK(flag == (w->kind == CANCELLED), "%s: request %d: cancelled %d", call, i, flag);
    if (w->kind == SEND) return;    /* (only the cancelled flag is defined for a send) */
    if (w->kind == CANCELLED) return;
    int src = w->kind == EMPTY ? MPI_ANY_SOURCE : w->source, tag = w->kind == EMPTY ? MPI_ANY_TAG : w->tag;
    int n = w->kind == EMPTY ? 0 : w->count;
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && count == n,
          "%s: request %d: source %d tag %d count %d, not %d %d %d", call, i, st->MPI_SOURCE, st->MPI_TAG, count, src,
          tag, n);
}

/* One round: the array built, completed by `call` (0 Waitall, 1 Testall,
 * 2 Waitsome, 3 Testsome), every status and buffer checked. */
static void round_of(int round, int call, int fail)
{
    static char sb[BIG], rb[NREQ][BIG / NREQ + 64], big[BIG], bbuf[1024 + MPI_BSEND_OVERHEAD];
    MPI_Request r[NREQ];
    MPI_Request pers_s, pers_r, pers_idle;
    struct want w[NREQ];
    MPI_Status st[NREQ];
    const char *calls[] = { "MPI_Waitall", "MPI_Testall", "MPI_Waitsome", "MPI_Testsome" };
    int t = 16 * round, k = 0, failed = -1;
    for (int i = 0; i < BIG; i++) sb[i] = (char)(i * 7 + round), big[i] = 0;
    memset(rb, 0, sizeof rb);
    void *bb;
    int bsz;
    OK(MPI_Buffer_attach(bbuf, sizeof bbuf));
    OK(MPI_Send_init(sb, 8, MPI_BYTE, to, t + 4, comm, &pers_s));
    OK(MPI_Recv_init(rb[9], 8, MPI_BYTE, from, t + 4, comm, &pers_r));
    OK(MPI_Recv_init(rb[10], 8, MPI_BYTE, from, t + 15, comm, &pers_idle));   /* never started */
    /* receives first (their order decides which message each takes), then the sends */
#define RECV_(buf, n, s, tg, ws, wt, wc) do { OK(MPI_Irecv(buf, n, MPI_BYTE, s, tg, comm, &r[k])); \
    w[k++] = (struct want){ RECV, ws, wt, wc }; } while (0)
    RECV_(rb[0], 8, from, t + 1, from, t + 1, 8);                           /* 0: plain */
    RECV_(rb[1], 16, MPI_ANY_SOURCE, MPI_ANY_TAG, from, t + 2, 5);          /* 1: the next message, tag 2 */
    RECV_(rb[2], 8, from, t + 3, from, t + 3, 5);                           /* 2: shorter than the buffer */
    RECV_(rb[3], 8, MPI_PROC_NULL, t + 1, MPI_PROC_NULL, MPI_ANY_TAG, 0);   /* 3 */
    r[k] = MPI_REQUEST_NULL, w[k++] = (struct want){ EMPTY, 0, 0, 0 };       /* 4 */
    r[k] = pers_idle, w[k++] = (struct want){ EMPTY, 0, 0, 0 };              /* 5: inactive */
    OK(MPI_Start(&pers_r));
    r[k] = pers_r, w[k++] = (struct want){ RECV, from, t + 4, 8 };           /* 6: persistent */
    OK(MPI_Irecv(rb[7], 8, MPI_BYTE, from, t + 5, comm, &r[k]));            /* 7: cancelled */
    OK(MPI_Cancel(&r[k]));
    w[k++] = (struct want){ CANCELLED, 0, 0, 0 };
    RECV_(rb[8], 8, from, t + 6, from, t + 6, 8);                           /* 8: of a synchronous send */
    RECV_(big, BIG, from, t + 7, from, t + 7, BIG);                         /* 9: large */
    RECV_(rb[11], 8, from, t + 8, from, t + 8, 8);                          /* 10: of a buffered send */
    RECV_(rb[12], 0, from, t + 9, from, t + 9, 0);                          /* 11: empty */
    if (fail) {
        failed = k;
        RECV_(rb[13], 4, from, t + 10, from, t + 10, 4);                    /* 12: truncated */
    }
    RECV_(rb[14], 8, from, t + 11, from, t + 11, 8);                        /* after it */
    OK(MPI_Grequest_start(query, greq_free, greq_cancel, NULL, &r[k]));
    OK(MPI_Grequest_complete(r[k]));
    w[k++] = (struct want){ GREQ, 77, 78, 3 };
#define SEND_(call) do { OK(call); w[k++] = (struct want){ SEND, 0, 0, 0 }; } while (0)
    SEND_(MPI_Isend(sb, 8, MPI_BYTE, to, t + 1, comm, &r[k]));
    SEND_(MPI_Isend(sb + 8, 5, MPI_BYTE, to, t + 2, comm, &r[k]));
    SEND_(MPI_Isend(sb + 16, 5, MPI_BYTE, to, t + 3, comm, &r[k]));
    SEND_(MPI_Isend(sb, 8, MPI_BYTE, MPI_PROC_NULL, t + 3, comm, &r[k]));
    OK(MPI_Start(&pers_s));
    SEND_((r[k] = pers_s, MPI_SUCCESS));
    SEND_(MPI_Issend(sb + 24, 8, MPI_BYTE, to, t + 6, comm, &r[k]));
    SEND_(MPI_Isend(sb, BIG, MPI_BYTE, to, t + 7, comm, &r[k]));
    SEND_(MPI_Ibsend(sb + 32, 8, MPI_BYTE, to, t + 8, comm, &r[k]));
    SEND_(MPI_Isend(sb, 0, MPI_BYTE, to, t + 9, comm, &r[k]));
    if (fail) SEND_(MPI_Isend(sb + 40, 8, MPI_BYTE, to, t + 10, comm, &r[k]));
    SEND_(MPI_Isend(sb + 48, 8, MPI_BYTE, to, t + 11, comm, &r[k]));
    CHECK(k <= NREQ, "%d requests", k);

    const char *cn = calls[call];
    int done = 0, rc = MPI_SUCCESS, flag = 0;
    if (call <= 1) {
        poison(st, k);
        if (call == 0) rc = MPI_Waitall(k, r, st);
        else do rc = MPI_Testall(k, r, &flag, st); while (rc == MPI_SUCCESS && !flag);
        CHECK(rc == (fail ? MPI_ERR_IN_STATUS : MPI_SUCCESS), "%s returned %d", cn, rc);
        for (int i = 0; i < k; i++) check_status(&st[i], i, &w[i], rc, failed, cn);
    } else {
        /* the calls complete some at a time: each call's statuses by what it returned */
        int seen[NREQ] = { 0 }, out, idx[NREQ], failures = 0;
        while (done < k) {
            poison(st, k);
            rc = call == 2 ? MPI_Waitsome(k, r, &out, idx, st) : MPI_Testsome(k, r, &out, idx, st);
            CHECK(rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS, "%s returned %d", cn, rc);
            if (out == MPI_UNDEFINED) {         /* only inactive ones are left: the null and the idle */
                for (int i = 0; i < k; i++) if (!seen[i]) CHECK(w[i].kind == EMPTY, "%s: request %d left", cn, i);
                break;
            }
            int has_failed = 0;
            for (int j = 0; j < out; j++) {
                int i = idx[j];
                CHECK(!seen[i] && w[i].kind != EMPTY, "%s: request %d twice, or inactive", cn, i);
                seen[i] = 1, done++;
                has_failed |= i == failed;
                check_status(&st[j], i, &w[i], rc, failed, cn);
            }
            CHECK((rc == MPI_ERR_IN_STATUS) == has_failed, "%s returned %d, the truncated receive %s among its %d", cn,
                  rc, has_failed ? "" : "not", out);
            failures += has_failed;
        }
        CHECK(failures == (fail != 0), "%s: %d failures", cn, failures);
    }
    for (int i = 0; i < k; i++)
        CHECK(r[i] == MPI_REQUEST_NULL || r[i] == pers_s || r[i] == pers_r || r[i] == pers_idle,
              "%s: request %d not freed", cn, i);
    /* the data */
    CHECK(!memcmp(rb[0], sb, 8) && !memcmp(rb[1], sb + 8, 5) && !memcmp(rb[2], sb + 16, 5) &&
          !memcmp(rb[9], sb, 8) && !memcmp(rb[8], sb + 24, 8) && !memcmp(big, sb, BIG) &&
          !memcmp(rb[11], sb + 32, 8) && !memcmp(rb[14], sb + 48, 8) && (!fail || !memcmp(rb[13], sb + 40, 4)),
          "%s: data", cn);
    OK(MPI_Request_free(&pers_s));
    OK(MPI_Request_free(&pers_r));
    OK(MPI_Request_free(&pers_idle));
    OK(MPI_Buffer_detach(&bb, &bsz));
    OK(MPI_Barrier(comm));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    to = (me + 1) % np, from = (me + np - 1) % np;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    int round = 0;
    for (int rep = 0; rep < 3; rep++)
        for (int call = 0; call < 4; call++)
            for (int fail = 0; fail < 2; fail++) round_of(round++ % 4, call, fail);
    OK(MPI_Comm_free(&comm));
    if (!me) printf("statuses: %d rounds on %d ranks\n", round, np);
    MPI_Finalize();
    return 0;
}
