/* Dynamic processes between two separately started smrun jobs sharing a
 * universe (smrun --universe NAME / --join NAME), driven by universe.py:
 * the server job publishes a name and accepts, the client job looks it up
 * and connects; point-to-point both ways (inline and large), intercommunicator
 * collectives against a reference, MPI_Intercomm_merge and an allreduce,
 * MPI_Comm_join over a socket between the two rank 0s, disconnect. Other
 * roles fail on purpose (a rank of either job dies while connected) or
 * outlive the first job (its names and ports are then stale).
 *
 * Usage: mpi_universe ROLE NAME, ROLE one of server, client, server_wait,
 * server_die, client_die, client_stale, client_connect, client_spawn (a
 * joined job spawns 2 processes: slots from the first job's smrun). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "mcheck.h"

#define SERVICE "smartmap-universe-test"
#define BIG     (1 << 20)           /* ints: beyond every inline limit */

static int me, n;                   /* in MPI_COMM_WORLD */
static const char *uname_;          /* the universe's name (for the join socket) */

static void nap(void)
{
    struct timespec ts = { 0, 10 * 1000000 };
    nanosleep(&ts, NULL);
}

static void say(const char *what)
{
    if (me == 0) {
        printf("%s\n", what);
        fflush(stdout);
    }
}

/* Rank 0 of the client: the server's port, looked up until published. */
static void lookup(char *port)
{
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc, tries = 0;
    while ((rc = MPI_Lookup_name(SERVICE, MPI_INFO_NULL, port)) != MPI_SUCCESS && tries++ < 6000) {
        int cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_NAME, "MPI_Lookup_name: class %d", cls);
        nap();
    }
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK(rc == MPI_SUCCESS, "\"%s\" never published", SERVICE);
}

/* A value only (side, sender, receiver) makes. */
static int val(int side, int from, int to, int i) { return side * 1000000 + from * 10000 + to * 100 + i % 97; }

/* Everything across the intercommunicator ic; side 0 the server's group
 * (the low group of the merge), 1 the client's. */
static void checks(MPI_Comm ic, int side)
{
    int lr, ls, rs, flag;
    OK(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag, "not an intercommunicator");
    OK(MPI_Comm_rank(ic, &lr));
    OK(MPI_Comm_size(ic, &ls));
    OK(MPI_Comm_remote_size(ic, &rs));
    CHECK(lr == me && ls == n, "local rank %d of %d, world %d of %d", lr, ls, me, n);

    /* Point-to-point: every local rank to every remote rank, both ways. */
    int *in = malloc(sizeof(int) * (size_t)rs * 4), *out = malloc(sizeof(int) * (size_t)rs * 4);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)rs * 2);
    for (int q = 0; q < rs; q++) {
        for (int i = 0; i < 4; i++) out[q * 4 + i] = val(side, lr, q, i);
        OK(MPI_Irecv(in + q * 4, 4, MPI_INT, q, 11, ic, &rq[q]));
        OK(MPI_Isend(out + q * 4, 4, MPI_INT, q, 11, ic, &rq[rs + q]));
    }
    OK(MPI_Waitall(2 * rs, rq, MPI_STATUSES_IGNORE));
    for (int q = 0; q < rs; q++)
        for (int i = 0; i < 4; i++)
            CHECK(in[q * 4 + i] == val(1 - side, q, lr, i), "from remote %d [%d]: %d", q, i, in[q * 4 + i]);
    free(in), free(out), free(rq);

    /* A large message each way between the leaders (copied once, straight
     * from the other job's memory). */
    if (lr == 0) {
        int *big = malloc(sizeof(int) * BIG);
        for (int pass = 0; pass < 2; pass++) {
            if (pass == side) {
                for (int i = 0; i < BIG; i++) big[i] = val(side, 0, 0, i) + i;
                OK(MPI_Send(big, BIG, MPI_INT, 0, 12, ic));
            } else {
                memset(big, 0, sizeof(int) * BIG);
                OK(MPI_Recv(big, BIG, MPI_INT, 0, 12, ic, MPI_STATUS_IGNORE));
                for (int i = 0; i < BIG; i++)
                    CHECK(big[i] == val(1 - side, 0, 0, i) + i, "large message [%d]: %d", i, big[i]);
            }
        }
        free(big);
    }

    /* Collectives against a reference computed here. */
    int mine = (side + 1) * 100 + lr, sum = 0, want = 0;
    for (int q = 0; q < rs; q++) want += (2 - side) * 100 + q;
    OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, ic));
    CHECK(sum == want, "intercommunicator allreduce %d, want %d", sum, want);
    int *all = malloc(sizeof(int) * (size_t)rs);
    OK(MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, ic));
    for (int q = 0; q < rs; q++)
        CHECK(all[q] == (2 - side) * 100 + q, "allgather [%d]: %d", q, all[q]);
    free(all);
    int b[3] = { 0, 0, 0 };                          /* the server's rank 0 broadcasts */
    if (side == 0) {
        if (lr == 0) b[0] = 7, b[1] = 8, b[2] = 9;
        OK(MPI_Bcast(b, 3, MPI_INT, lr == 0 ? MPI_ROOT : MPI_PROC_NULL, ic));
    } else {
        OK(MPI_Bcast(b, 3, MPI_INT, 0, ic));
        CHECK(b[0] == 7 && b[1] == 8 && b[2] == 9, "bcast %d %d %d", b[0], b[1], b[2]);
    }
    OK(MPI_Barrier(ic));

    /* Merged: the server's group first. */
    MPI_Comm m;
    int mr, ms;
    OK(MPI_Intercomm_merge(ic, side, &m));
    OK(MPI_Comm_rank(m, &mr));
    OK(MPI_Comm_size(m, &ms));
    int srv = side == 0 ? ls : rs;
    CHECK(ms == ls + rs && mr == (side == 0 ? lr : srv + lr), "merged rank %d of %d", mr, ms);
    long long x = mr + 1, tot = 0;
    OK(MPI_Allreduce(&x, &tot, 1, MPI_LONG_LONG, MPI_SUM, m));
    CHECK(tot == (long long)ms * (ms + 1) / 2, "merged allreduce %lld", tot);
    int *ids = malloc(sizeof(int) * (size_t)ms), id = side * 1000 + lr;
    OK(MPI_Allgather(&id, 1, MPI_INT, ids, 1, MPI_INT, m));
    for (int k = 0; k < ms; k++)
        CHECK(ids[k] == (k < srv ? k : 1000 + k - srv), "merged order [%d]: %d", k, ids[k]);
    free(ids);
    OK(MPI_Comm_free(&m));
}

/* The rank 0s meet on an abstract socket named after the universe. */
static socklen_t join_addr(struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    int k = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "smartmap-test-join.%s", uname_);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)k);
}

static void join_checks(int fd, int side)
{
    MPI_Comm ic;
    OK(MPI_Comm_join(fd, &ic));
    int rs, v = side ? 222 : 111, w = 0;
    OK(MPI_Comm_remote_size(ic, &rs));
    CHECK(rs == 1, "join: remote size %d", rs);
    OK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 5, &w, 1, MPI_INT, 0, 5, ic, MPI_STATUS_IGNORE));
    CHECK(w == (side ? 111 : 222), "join: got %d", w);
    OK(MPI_Comm_disconnect(&ic));
    close(fd);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    CHECK(argc == 3, "usage: %s ROLE UNIVERSE", argv[0]);
    const char *role = argv[1];
    uname_ = argv[2];
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm ic;
    struct sockaddr_un a;
    socklen_t alen = join_addr(&a);

    if (!strncmp(role, "server", 6)) {
        int ls = -1;
        if (me == 0) {
            OK(MPI_Open_port(MPI_INFO_NULL, port));
            OK(MPI_Publish_name(SERVICE, MPI_INFO_NULL, port));
            ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            CHECK(ls >= 0 && bind(ls, (struct sockaddr *)&a, alen) == 0 && listen(ls, 1) == 0, "join socket: %s",
                  strerror(errno));
        }
        say("ready");
        if (!strcmp(role, "server_wait")) {           /* until the script closes stdin; no unpublish */
            if (me == 0) while (getchar() != EOF) continue;
            MPI_Finalize();
            return 0;
        }
        OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
        if (!strcmp(role, "server_die")) {            /* its last rank dies while the client waits */
            if (me == n - 1) raise(SIGKILL);
            OK(MPI_Barrier(ic));
            CHECK(0, "the barrier with a dead rank returned");
        }
        checks(ic, 0);
        if (me == 0) {
            int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
            CHECK(fd >= 0, "accept: %s", strerror(errno));
            join_checks(fd, 0);
            close(ls);
        }
        OK(MPI_Comm_disconnect(&ic));
        CHECK(ic == MPI_COMM_NULL, "disconnect leaves the handle");
        if (me == 0) {
            OK(MPI_Unpublish_name(SERVICE, MPI_INFO_NULL, port));
            OK(MPI_Close_port(port));
        }
        say("server done");
    } else if (!strcmp(role, "client") || !strcmp(role, "client_die") || !strcmp(role, "client_connect")) {
        if (me == 0) lookup(port);
        if (!strcmp(role, "client_connect")) {        /* the server never accepts, then ends */
            say("connecting");
            OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
            CHECK(0, "connected to a server that does not accept");
        }
        OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
        if (!strcmp(role, "client_die")) {            /* its last rank dies while the server waits */
            if (me == n - 1) raise(SIGKILL);
            OK(MPI_Barrier(ic));
            CHECK(0, "the barrier with a dead rank returned");
        }
        checks(ic, 1);
        if (me == 0) {
            int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, alen) == 0, "connect: %s", strerror(errno));
            join_checks(fd, 1);
        }
        OK(MPI_Comm_disconnect(&ic));
        say("client done");
    } else if (!strcmp(role, "client_stale")) {
        /* Joined while the server ran; goes on after it ended: its names and
         * ports are then stale (an error, not a hang), and the name service,
         * in the ended job's memory, still serves this job. */
        if (me == 0) lookup(port);
        say("joined");
        if (me == 0) {
            while (getchar() != EOF) continue;
            char p2[MPI_MAX_PORT_NAME], mine[MPI_MAX_PORT_NAME], back[MPI_MAX_PORT_NAME];
            OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
            OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
            int rc = MPI_Lookup_name(SERVICE, MPI_INFO_NULL, p2), cls = -1;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_NAME, "lookup of a name whose port's owner has exited: class %d", cls);
            rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_PORT, "connect to a port whose owner has exited: class %d", cls);
            OK(MPI_Open_port(MPI_INFO_NULL, mine));
            OK(MPI_Publish_name("smartmap-universe-own", MPI_INFO_NULL, mine));
            OK(MPI_Lookup_name("smartmap-universe-own", MPI_INFO_NULL, back));
            CHECK(!strcmp(back, mine), "lookup gave %s, not %s", back, mine);
            OK(MPI_Unpublish_name("smartmap-universe-own", MPI_INFO_NULL, mine));
            OK(MPI_Close_port(mine));
            printf("stale ok\n");
            fflush(stdout);
        }
        OK(MPI_Barrier(MPI_COMM_WORLD));
    } else if (!strcmp(role, "client_spawn") || !strcmp(role, "spawned")) {
        MPI_Comm parent;
        OK(MPI_Comm_get_parent(&parent));
        bool spawned = !strcmp(role, "spawned");
        CHECK((parent != MPI_COMM_NULL) == spawned, "parent %p", (void *)parent);
        if (!spawned) {
            char *args[] = { "spawned", (char *)uname_, NULL };
            int codes[2];
            OK(MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, codes));
            CHECK(codes[0] == MPI_SUCCESS && codes[1] == MPI_SUCCESS, "errcodes %d %d", codes[0], codes[1]);
        } else ic = parent;
        int rs, mine = spawned ? 1000 + me : me, sum = 0, want = 0;
        OK(MPI_Comm_remote_size(ic, &rs));
        CHECK(spawned || rs == 2, "remote size %d", rs);
        for (int q = 0; q < rs; q++) want += spawned ? q : 1000 + q;
        OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, ic));
        CHECK(sum == want, "allreduce with the %s: %d, want %d", spawned ? "parents" : "children", sum, want);
        OK(MPI_Comm_disconnect(&ic));
        say(spawned ? "spawned done" : "spawner done");
    } else {
        CHECK(0, "unknown role %s", role);
    }
    MPI_Finalize();
    return 0;
}
