/* Generalized requests (MPI 3.1 §12.2) and MPI_Pcontrol (§14.2.4): the
 * callbacks run when the standard says (cancel_fn with whether the request
 * is complete; query_fn when a completion call or MPI_Request_get_status
 * finds it complete; free_fn once, when it goes, or at
 * MPI_Grequest_complete after MPI_Request_free), completion through
 * MPI_Wait, MPI_Test and MPI_Waitall/Waitany/Testsome mixed with messages,
 * a request completed by another thread, and the callbacks' errors. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "mcheck.h"

struct ctx { int queried, freed, cancelled, last_complete, query_err, free_err, cancel_err, tag; };

static int query(void *x, MPI_Status *st)
{
    struct ctx *c = x;
    c->queried++;
    st->MPI_SOURCE = 3, st->MPI_TAG = c->tag;
    MPI_Status_set_elements(st, MPI_INT, 5);
    MPI_Status_set_cancelled(st, 0);
    return c->query_err;
}
static int release(void *x) { struct ctx *c = x; c->freed++; return c->free_err; }
static int cancel(void *x, int complete)
{
    struct ctx *c = x;
    c->cancelled++, c->last_complete = complete;
    return c->cancel_err;
}

static MPI_Request start(struct ctx *c, int tag)
{
    MPI_Request r;
    memset(c, 0, sizeof *c);
    c->tag = tag;
    OK(MPI_Grequest_start(query, release, cancel, c, &r));
    CHECK(r != MPI_REQUEST_NULL, "a request");
    return r;
}

static void check_status(const MPI_Status *st, int tag)
{
    int count = -1;
    OK(MPI_Get_count(st, MPI_INT, &count));
    CHECK(st->MPI_SOURCE == 3 && st->MPI_TAG == tag && count == 5, "status %d %d %d", st->MPI_SOURCE,
          st->MPI_TAG, count);
}

static void *complete_later(void *r)
{
    usleep(2000);
    OK(MPI_Grequest_complete(*(MPI_Request *)r));
    return NULL;
}

int main(int argc, char **argv)
{
    int me, n, provided, flag;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    for (int level = 2; level >= 0; level--) OK(MPI_Pcontrol(level));
    OK(MPI_Pcontrol(1, "extra", 2));

    /* Test, cancel before and after completion, Request_get_status, Wait */
    struct ctx c;
    MPI_Status st;
    MPI_Request r = start(&c, 7);
    OK(MPI_Test(&r, &flag, &st));
    CHECK(!flag && !c.queried && !c.freed, "incomplete: %d %d %d", flag, c.queried, c.freed);
    OK(MPI_Cancel(&r));
    CHECK(c.cancelled == 1 && c.last_complete == 0, "cancel before: %d %d", c.cancelled, c.last_complete);
    OK(MPI_Grequest_complete(r));
    OK(MPI_Cancel(&r));
    CHECK(c.cancelled == 2 && c.last_complete == 1, "cancel after: %d %d", c.cancelled, c.last_complete);
    OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(flag && c.queried == 1 && !c.freed, "get_status: %d %d %d", flag, c.queried, c.freed);
    check_status(&st, 7);
    OK(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL && c.queried == 2 && c.freed == 1, "wait: %d %d", c.queried, c.freed);
    check_status(&st, 7);
    r = start(&c, 8);
    OK(MPI_Grequest_complete(r));
    OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));        /* query_fn runs even so */
    CHECK(flag && r == MPI_REQUEST_NULL && c.queried == 1 && c.freed == 1, "test: %d %d", c.queried, c.freed);

    /* mixed with messages around a ring */
    struct ctx cs[3];
    int to = (me + 1) % n, from = (me + n - 1) % n, out = me, in = -1;
    MPI_Request rs[5];
    MPI_Status sts[5];
    rs[0] = start(&cs[0], 10);
    OK(MPI_Irecv(&in, 1, MPI_INT, from, 5, MPI_COMM_WORLD, &rs[1]));
    rs[2] = start(&cs[1], 11);
    OK(MPI_Isend(&out, 1, MPI_INT, to, 5, MPI_COMM_WORLD, &rs[3]));
    rs[4] = start(&cs[2], 12);
    for (int i = 0; i < 3; i++) OK(MPI_Grequest_complete(rs[2 * i]));
    OK(MPI_Waitall(5, rs, sts));
    CHECK(in == from && sts[1].MPI_SOURCE == from, "ring: %d from %d", in, sts[1].MPI_SOURCE);
    for (int i = 0; i < 3; i++) {
        check_status(&sts[2 * i], 10 + i);
        CHECK(rs[2 * i] == MPI_REQUEST_NULL && cs[i].queried == 1 && cs[i].freed == 1, "waitall %d", i);
    }
    /* Waitany and Testsome take them one at a time */
    rs[0] = start(&cs[0], 20);
    OK(MPI_Irecv(&in, 1, MPI_INT, from, 6, MPI_COMM_WORLD, &rs[1]));
    int idx = -1, outcount = -1, idxs[2];
    OK(MPI_Grequest_complete(rs[0]));
    OK(MPI_Waitany(2, rs, &idx, &st));
    CHECK(idx == 0 && cs[0].freed == 1, "waitany: %d", idx);
    check_status(&st, 20);
    OK(MPI_Send(&out, 1, MPI_INT, to, 6, MPI_COMM_WORLD));
    OK(MPI_Wait(&rs[1], MPI_STATUS_IGNORE));
    rs[0] = start(&cs[0], 21), rs[1] = start(&cs[1], 22);
    OK(MPI_Grequest_complete(rs[1]));
    OK(MPI_Testsome(2, rs, &outcount, idxs, sts));
    CHECK(outcount == 1 && idxs[0] == 1 && cs[1].freed == 1 && !cs[0].queried, "testsome: %d", outcount);
    check_status(&sts[0], 22);

    /* freed first: free_fn runs at MPI_Grequest_complete, once */
    MPI_Request keep = rs[0];
    OK(MPI_Request_free(&rs[0]));
    CHECK(rs[0] == MPI_REQUEST_NULL && !cs[0].freed, "freed early: %d", cs[0].freed);
    OK(MPI_Grequest_complete(keep));
    CHECK(cs[0].freed == 1 && !cs[0].queried, "freed at completion: %d %d", cs[0].freed, cs[0].queried);
    /* freed after completion: free_fn at once, query_fn never */
    r = start(&c, 30);
    OK(MPI_Grequest_complete(r));
    OK(MPI_Request_free(&r));
    CHECK(c.freed == 1 && !c.queried, "freed complete: %d %d", c.freed, c.queried);

    /* no callbacks at all: an empty status */
    OK(MPI_Grequest_start(NULL, NULL, NULL, NULL, &r));
    OK(MPI_Cancel(&r));
    OK(MPI_Grequest_complete(r));
    OK(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "empty status");

    /* completed by another thread while this one waits */
    if (provided == MPI_THREAD_MULTIPLE) {
        pthread_t th;
        r = start(&c, 40);
        CHECK(!pthread_create(&th, NULL, complete_later, &r), "pthread_create");
        MPI_Request w = r;
        OK(MPI_Wait(&w, &st));
        pthread_join(th, NULL);
        check_status(&st, 40);
        CHECK(c.freed == 1, "threaded: %d", c.freed);
    }

    /* the callbacks' errors: what they return is what the call returns */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    r = start(&c, 50);
    c.query_err = MPI_ERR_BUFFER;
    OK(MPI_Grequest_complete(r));
    int rc = MPI_Wait(&r, &st);
    CHECK(rc == MPI_ERR_BUFFER && c.freed == 1 && st.MPI_ERROR == MPI_ERR_BUFFER, "query error: %d", rc);
    r = start(&c, 51);
    c.free_err = MPI_ERR_OTHER;
    OK(MPI_Grequest_complete(r));
    rc = MPI_Test(&r, &flag, &st);
    CHECK(rc == MPI_ERR_OTHER && flag && r == MPI_REQUEST_NULL, "free error: %d", rc);
    r = start(&c, 52);
    c.cancel_err = MPI_ERR_PENDING;
    CHECK(MPI_Cancel(&r) == MPI_ERR_PENDING, "cancel error");
    OK(MPI_Grequest_complete(r));
    CHECK(MPI_Grequest_complete(r) == MPI_ERR_REQUEST, "completed twice");
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    rs[0] = start(&cs[0], 60), rs[1] = start(&cs[1], 61);
    cs[1].query_err = MPI_ERR_BUFFER;
    OK(MPI_Grequest_complete(rs[0]));
    OK(MPI_Grequest_complete(rs[1]));
    rc = MPI_Waitall(2, rs, sts);
    CHECK(rc == MPI_ERR_IN_STATUS && sts[0].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_ERROR == MPI_ERR_BUFFER,
          "waitall error: %d %d %d", rc, sts[0].MPI_ERROR, sts[1].MPI_ERROR);
    CHECK(cs[0].freed == 1 && cs[1].freed == 1, "waitall error frees");
    OK(MPI_Irecv(&in, 1, MPI_INT, from, 7, MPI_COMM_WORLD, &r));
    CHECK(MPI_Grequest_complete(r) == MPI_ERR_REQUEST, "not a generalized request");
    OK(MPI_Send(&out, 1, MPI_INT, to, 7, MPI_COMM_WORLD));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(MPI_Grequest_complete(MPI_REQUEST_NULL) == MPI_ERR_REQUEST, "null request");
    CHECK(MPI_Grequest_start(query, release, cancel, NULL, NULL) == MPI_ERR_ARG, "NULL request pointer");

    OK(MPI_Finalize());
    if (me == 0) printf("test_grequest: ok\n");
    return 0;
}
