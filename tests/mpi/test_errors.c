/* Bad arguments and failures. "return": with MPI_ERRORS_RETURN every bad
 * argument gives its error class and the program goes on. Any other mode:
 * rank 1 makes that one mistake (or dies) while the others wait, and
 * expect.py checks the message and the job's exit code ("scan": rank 2 of
 * 4, across nodes). */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "mcheck.h"

#define EXPECT(call, cls) do { int rc_ = (call); \
    CHECK(rc_ == (cls), "%s returned %d, expected %s (%d)", #call, rc_, #cls, cls); } while (0)

/* A user's error handler: counts its calls and what it was given. */
static int user_calls, user_code;
static MPI_Comm user_comm;
static void user_handler(MPI_Comm *comm, int *code, ...)
{
    user_calls++;
    user_code = *code;
    user_comm = *comm;
}

static void aborting_handler(MPI_Comm *comm, int *code, ...)
{
    fprintf(stderr, "test_errors: user handler got error class %d\n", *code);
    MPI_Abort(*comm, 9);
}

static void user_handlers(int n)
{
    int v = 0;
    MPI_Errhandler eh, got;
    MPI_Comm d;
    OK(MPI_Comm_create_errhandler(user_handler, &eh));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    OK(MPI_Comm_set_errhandler(d, eh));
    OK(MPI_Errhandler_free(&eh));          /* the communicator keeps it alive */
    CHECK(eh == MPI_ERRHANDLER_NULL, "freed handle is MPI_ERRHANDLER_NULL");
    EXPECT(MPI_Send(&v, 1, MPI_INT, n, 0, d), MPI_ERR_RANK);
    CHECK(user_calls == 1 && user_code == MPI_ERR_RANK && user_comm == d,
          "handler called once with MPI_ERR_RANK and the comm: %d calls, code %d", user_calls, user_code);
    OK(MPI_Comm_call_errhandler(d, MPI_SUCCESS));   /* nothing to raise: the handler is not called */
    OK(MPI_Comm_call_errhandler(d, MPI_ERR_OTHER));
    CHECK(user_calls == 2 && user_code == MPI_ERR_OTHER, "MPI_Comm_call_errhandler: %d calls, code %d",
          user_calls, user_code);
    MPI_Comm d2;                           /* a duplicate inherits the handler */
    OK(MPI_Comm_dup(d, &d2));
    OK(MPI_Comm_get_errhandler(d2, &got));
    EXPECT(MPI_Bcast(&v, 1, MPI_INT, -1, d2), MPI_ERR_ROOT);
    CHECK(user_calls == 3 && user_comm == d2, "inherited by MPI_Comm_dup");
    OK(MPI_Errhandler_free(&got));
    OK(MPI_Comm_free(&d2));
    OK(MPI_Comm_free(&d));
    OK(MPI_Comm_create_errhandler(user_handler, &eh));   /* on MPI_COMM_WORLD: its predefined handle */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    EXPECT(MPI_Send(&v, 1, MPI_INT, 0, -3, MPI_COMM_WORLD), MPI_ERR_TAG);
    CHECK(user_calls == 4 && user_comm == MPI_COMM_WORLD, "handler on MPI_COMM_WORLD");
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Errhandler_free(&eh));
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_create_errhandler(NULL, &eh), MPI_ERR_ARG);
    EXPECT(MPI_Comm_call_errhandler(MPI_COMM_WORLD, 4321), MPI_ERR_ARG);
    CHECK(user_calls == 4, "not called after being replaced");
}

/* Counts that differ between the ranks of MPI_COMM_WORLD (one node under
 * smrun; several under mpirun with SMARTMAP_NODE_SIZE, where the node's
 * engine, the leaders' messages and the transfers between them must all
 * see it): no rank hangs or truncates silently, every rank whose result
 * depends on the odd count fails, and the next collective is right. Rank
 * 0 (a scan's first) or the last rank passes the odd count; which other
 * ranks fail besides those checked depends on who reads whom (across
 * nodes a leader that failed fails its node). n and m elements: small, and
 * large enough for the rounds between nodes that go by steps (recursive
 * doubling, the ring) and for UCX's rendezvous. */
static void mismatch_round(int n, int me, int c, int *sv, int *rv)
{
    int last = n - 1, rc;
    int odd0 = me == 0 ? c - 1 : c, oddl = me == last ? c - 1 : c, bigger = me == last ? c + 1 : c;
#define FAILS(cond, call) do { rc = (call); \
        CHECK(!(cond) || rc != MPI_SUCCESS, "%s with counts that differ (%d elements) returned %d", #call, c, rc); \
        OK(MPI_Allreduce(sv, rv, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD)); \
        CHECK(rv[0] == n && rv[1] == n, "MPI_Allreduce after %s: %d %d", #call, rv[0], rv[1]); } while (0)
    FAILS(me > 0, MPI_Scan(sv, rv, odd0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    FAILS(me > 0, MPI_Exscan(sv, rv, odd0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    FAILS(me > 0, MPI_Bcast(rv, odd0, MPI_INT, 0, MPI_COMM_WORLD));
    FAILS(me == last, MPI_Bcast(rv, bigger, MPI_INT, 0, MPI_COMM_WORLD));
    FAILS(me == 0, MPI_Reduce(sv, rv, oddl, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    FAILS(me == last, MPI_Reduce(sv, rv, odd0, MPI_INT, MPI_SUM, last, MPI_COMM_WORLD));
    FAILS(1, MPI_Allreduce(sv, rv, bigger, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    FAILS(me == 0, MPI_Gather(sv, oddl, MPI_INT, rv, c, MPI_INT, 0, MPI_COMM_WORLD));
    FAILS(me == last, MPI_Gather(sv, bigger, MPI_INT, rv, c, MPI_INT, last, MPI_COMM_WORLD));
    FAILS(me == last, MPI_Scatter(sv, c, MPI_INT, rv, oddl, MPI_INT, 0, MPI_COMM_WORLD));
    FAILS(me == 0, MPI_Scatter(sv, c, MPI_INT, rv, odd0, MPI_INT, last, MPI_COMM_WORLD));
    FAILS(1, MPI_Allgather(sv, oddl, MPI_INT, rv, c, MPI_INT, MPI_COMM_WORLD));
    /* a root whose own block's sizes differ (the others agree with it) */
    FAILS(me == 0, MPI_Gather(sv, c, MPI_INT, rv, me == 0 ? c + 1 : c, MPI_INT, 0, MPI_COMM_WORLD));
    MPI_Request q;
    FAILS(me == last, MPI_Ibcast(rv, oddl, MPI_INT, 0, MPI_COMM_WORLD, &q) ? -1 : MPI_Wait(&q, MPI_STATUS_IGNORE));
    FAILS(1, MPI_Iallreduce(sv, rv, bigger, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q) ? -1
                                                                                  : MPI_Wait(&q, MPI_STATUS_IGNORE));
    FAILS(me == last, MPI_Igather(sv, c, MPI_INT, rv, oddl, MPI_INT, last, MPI_COMM_WORLD, &q) ? -1
                                                                                           : MPI_Wait(&q, MPI_STATUS_IGNORE));
#undef FAILS
}

static void mismatches(int n)
{
    int me, big = 40000;        /* 160 KB: between nodes by steps, and UCX's rendezvous for a member's whole */
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    int *sv = malloc(sizeof(int) * (size_t)(big + 1) * (size_t)n), *rv = malloc(sizeof(int) * (size_t)(big + 1) * (size_t)n);
    CHECK(sv && rv, "no memory");
    for (int i = 0; i < (big + 1) * n; i++) sv[i] = 1;
    mismatch_round(n, me, 2, sv, rv);
    mismatch_round(n, me, big, sv, rv);
    free(sv), free(rv);
}

static void returns(int n)
{
    int v[4] = { 0 };
    MPI_Errhandler eh;
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "errhandler");
    EXPECT(MPI_Send(v, 1, MPI_INT, n, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Send(v, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Recv(v, 1, MPI_INT, n + 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_RANK);
    EXPECT(MPI_Send(v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Send(v, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Send(v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(MPI_Send(v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(MPI_Send(NULL, 3, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT(MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    MPI_Datatype t;
    OK(MPI_Type_contiguous(2, MPI_INT, &t));
    EXPECT(MPI_Send(v, 1, t, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);       /* not committed */
    OK(MPI_Type_free(&t));
    EXPECT(MPI_Bcast(v, 1, MPI_INT, n, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT(MPI_Allreduce(v, v + 1, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT(MPI_Allreduce(v, v + 1, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
    /* the engine's error of a blocking reduction reaches the caller: a
     * scan whose counts differ fails on every member that reads a
     * previous member's record (all but member 0); then one that agrees.
     * On the node's ranks, then on MPI_COMM_WORLD (across nodes under
     * mpirun: net_nodes_mpi_errors_*), with the other collectives below */
    int me, sv[2] = { 1, 1 }, rv[2] = { 0, 0 };
    MPI_Comm node;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    OK(MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN));
    OK(MPI_Comm_rank(node, &me));
    int rc = MPI_Scan(sv, rv, me == 0 ? 1 : 2, MPI_INT, MPI_SUM, node);
    CHECK(me == 0 ? rc == MPI_SUCCESS : rc != MPI_SUCCESS, "MPI_Scan of differing counts returned %d on rank %d", rc, me);
    OK(MPI_Scan(sv, rv, 2, MPI_INT, MPI_SUM, node));
    CHECK(rv[0] == me + 1 && rv[1] == me + 1, "MPI_Scan after the mismatch: %d %d on rank %d", rv[0], rv[1], me);
    OK(MPI_Comm_free(&node));
    if (n > 1) mismatches(n);
    EXPECT(MPI_Wait(NULL, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    MPI_Comm w = MPI_COMM_WORLD;
    EXPECT(MPI_Comm_free(&w), MPI_ERR_COMM);
    EXPECT(MPI_Type_free(&(MPI_Datatype){ MPI_INT }), MPI_ERR_TYPE);
    EXPECT(MPI_Init(NULL, NULL), MPI_ERR_OTHER);
    /* groups, communicators, datatypes, operations and memory */
    MPI_Group wg, g;
    MPI_Comm nc;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int bad[2] = { n, 0 };
    EXPECT(MPI_Group_incl(wg, 1, bad, &g), MPI_ERR_RANK);
    bad[0] = 0;
    if (n > 1) EXPECT(MPI_Group_incl(wg, 2, bad, &g), MPI_ERR_RANK);   /* a rank twice */
    int range[1][3] = { { 0, n - 1, 0 } };
    EXPECT(MPI_Group_range_incl(wg, 1, range, &g), MPI_ERR_RANK);  /* stride 0 */
    int k;
    EXPECT(MPI_Group_size(MPI_GROUP_NULL, &k), MPI_ERR_GROUP);
    OK(MPI_Group_free(&wg));
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &nc), MPI_ERR_ARG);
    EXPECT(MPI_Comm_split_type(MPI_COMM_WORLD, 77, 0, MPI_INFO_NULL, &nc), MPI_ERR_ARG);
    EXPECT(MPI_Comm_idup(MPI_COMM_WORLD, &nc, NULL), MPI_ERR_REQUEST);
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, 12345, NULL), MPI_ERR_KEYVAL);
    EXPECT(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_vector(2, 1, 2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    int ints[4];
    MPI_Aint addrs[4];
    MPI_Datatype types[4];
    EXPECT(MPI_Type_get_contents(MPI_INT, 4, 4, 4, ints, addrs, types), MPI_ERR_TYPE);
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
    EXPECT(MPI_Type_get_contents(t, 2, 0, 1, ints, addrs, types), MPI_ERR_ARG);   /* 3 integers */
    OK(MPI_Type_free(&t));
    EXPECT(MPI_Op_commutative(MPI_OP_NULL, &k), MPI_ERR_OP);
    EXPECT(MPI_Reduce_local(v, v + 1, 1, MPI_INT, MPI_OP_NULL), MPI_ERR_OP);
    EXPECT(MPI_Reduce_local(v, v + 1, 1, MPI_FLOAT, MPI_BXOR), MPI_ERR_OP);
    void *mem;
    EXPECT(MPI_Alloc_mem(-1, MPI_INFO_NULL, &mem), MPI_ERR_ARG);
    MPI_Info info;
    OK(MPI_Info_create(&info));
    EXPECT(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
    EXPECT(MPI_Info_set(info, "k", ""), MPI_ERR_INFO_VALUE);
    EXPECT(MPI_Info_delete(info, "absent"), MPI_ERR_INFO_NOKEY);
    char key[MPI_MAX_INFO_KEY + 1];
    EXPECT(MPI_Info_get_nthkey(info, 0, key), MPI_ERR_ARG);
    OK(MPI_Info_free(&info));
    EXPECT(MPI_Info_get_nkeys(MPI_INFO_NULL, &k), MPI_ERR_INFO);
    EXPECT(MPI_Alloc_mem(8, (MPI_Info)&k, &mem), MPI_ERR_INFO);
    EXPECT(MPI_Reduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM, n, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT(MPI_Startall(1, (MPI_Request[]){ MPI_REQUEST_NULL }), MPI_ERR_REQUEST);
    char s[MPI_MAX_ERROR_STRING];
    int len, cls;
    OK(MPI_Error_string(MPI_ERR_TRUNCATE, s, &len));
    CHECK(!strcmp(s, "MPI_ERR_TRUNCATE: message truncated") && len == (int)strlen(s), "error string '%s'", s);
    for (int c = 0; c < MPI_ERR_LASTCODE; c++) {          /* every class has its own text */
        OK(MPI_Error_string(c, s, &len));
        CHECK(!strncmp(s, "MPI_", 4) && strchr(s, ':'), "class %d has text '%s'", c, s);
    }
    OK(MPI_Error_string(MPI_ERR_WIN, s, &len));
    CHECK(!strncmp(s, "MPI_ERR_WIN:", 12), "MPI_ERR_WIN text '%s'", s);
    OK(MPI_Error_class(MPI_ERR_RANK, &cls));
    CHECK(cls == MPI_ERR_RANK, "class");
    EXPECT(MPI_Error_class(12345, &cls), MPI_ERR_ARG);
    user_handlers(n);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "return";
    int me, n, v[8] = { 0 };
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    if (!strcmp(mode, "return")) {
        returns(n);
        OK(MPI_Finalize());
        if (me == 0) printf("test_errors: ok\n");
        return 0;
    }
    if (!strcmp(mode, "scan") && n == 4) {
        /* 2 nodes of 2 (mpirun): rank 2, its node's first, passes 1
         * element where the chain between nodes brings it 2; it alone
         * ends the job, with the routine, the sender and the size */
        OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, me == 2 ? MPI_ERRORS_ARE_FATAL : MPI_ERRORS_RETURN));
        MPI_Scan(v, v + 4, me == 2 ? 1 : 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Recv(v, 1, MPI_INT, 2, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);    /* ended with the job */
        return 1;
    }
    if (me == 1) {
        if (!strcmp(mode, "rank")) MPI_Send(v, 1, MPI_INT, n, 0, MPI_COMM_WORLD);
        else if (!strcmp(mode, "tag")) MPI_Send(v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
        else if (!strcmp(mode, "count")) MPI_Recv(v, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (!strcmp(mode, "type")) MPI_Send(v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
        else if (!strcmp(mode, "comm")) MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
        else if (!strcmp(mode, "buffer")) MPI_Send(NULL, 2, MPI_INT, 0, 0, MPI_COMM_WORLD);
        else if (!strcmp(mode, "truncate")) MPI_Recv(v, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (!strcmp(mode, "abort")) MPI_Abort(MPI_COMM_WORLD, 7);
        else if (!strcmp(mode, "handler")) {   /* a user's handler that ends the job */
            MPI_Errhandler eh;
            MPI_Comm_create_errhandler(aborting_handler, &eh);
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
            MPI_Send(v, 1, MPI_INT, n + 5, 0, MPI_COMM_WORLD);
        }
        else if (!strcmp(mode, "kill")) {
            MPI_Recv(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  /* mid-exchange */
            raise(SIGKILL);
        } else if (!strcmp(mode, "nofinalize")) return 0;
        fprintf(stderr, "test_errors: mode %s did not end the job\n", mode);
        return 1;
    }
    if (me == 0 && !strcmp(mode, "truncate")) MPI_Send(v, 8, MPI_INT, 1, 0, MPI_COMM_WORLD);
    if (me == 0 && !strcmp(mode, "kill")) MPI_Send(v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    /* the others are busy in an exchange with rank 1 when it fails */
    MPI_Recv(v, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return 1;
}
