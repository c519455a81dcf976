/* Dynamic processes inside one job: a server group opens and publishes a
 * port, client groups look it up and connect (two of them to the same port
 * when there are enough ranks), data crosses each intercommunicator,
 * Comm_join over a socket, disconnect; the name service's and ports'
 * errors; spawn's failure (each errcode MPI_ERR_SPAWN, the universe being
 * the job), MPI_Comm_get_parent and MPI_UNIVERSE_SIZE. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "mcheck.h"

static int n, me;

/* Across an intercommunicator: the sum of the other side's job ranks, and
 * a message from each local rank to remote rank 0. */
static void exchange(MPI_Comm ic, int remote_sum)
{
    int s, lr, ls, rs;
    OK(MPI_Comm_rank(ic, &lr));
    OK(MPI_Comm_size(ic, &ls));
    OK(MPI_Comm_remote_size(ic, &rs));
    OK(MPI_Allreduce(&me, &s, 1, MPI_INT, MPI_SUM, ic));
    CHECK(s == remote_sum, "sum of the remote job ranks %d want %d", s, remote_sum);
    OK(MPI_Send(&me, 1, MPI_INT, 0, 4, ic));
    if (lr == 0)
        for (int i = 0; i < rs; i++) {
            int w;
            MPI_Status st;
            OK(MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 4, ic, &st));
            CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rs, "source %d", st.MPI_SOURCE);
        }
}

static int sum_range(int lo, int hi)
{
    int s = 0;
    for (int i = lo; i < hi; i++) s += i;
    return s;
}

static void connect_accept(void)
{
    int half = n / 2, server = me < half;
    MPI_Comm g;
    OK(MPI_Comm_split(MPI_COMM_WORLD, server, me, &g));
    char port[MPI_MAX_PORT_NAME] = "";
    if (me == 0) {
        OK(MPI_Open_port(MPI_INFO_NULL, port));
        OK(MPI_Publish_name("smartmap-test", MPI_INFO_NULL, port));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));                 /* published before anyone looks */
    if (server) {
        /* two client groups when the clients are two or more */
        int clients = n - half, groups = clients >= 2 ? 2 : 1, total = 0;
        for (int k = 0; k < groups; k++) {
            MPI_Comm ic;
            OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, g, &ic));
            int rs, lo;
            OK(MPI_Comm_remote_size(ic, &rs));
            MPI_Group rg, wg;
            int zero = 0;
            OK(MPI_Comm_remote_group(ic, &rg));
            OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
            OK(MPI_Group_translate_ranks(rg, 1, &zero, wg, &lo));
            OK(MPI_Group_free(&rg));
            OK(MPI_Group_free(&wg));
            exchange(ic, sum_range(lo, lo + rs));
            total += rs;
            OK(MPI_Comm_disconnect(&ic));
            CHECK(ic == MPI_COMM_NULL, "disconnect leaves the handle");
        }
        CHECK(total == clients, "accepted %d clients of %d", total, clients);
    } else {
        int clients = n - half, cr = me - half, sub = clients >= 2 ? cr >= clients / 2 : 0;
        MPI_Comm cg;
        OK(MPI_Comm_split(g, sub, cr, &cg));
        int cgr;
        OK(MPI_Comm_rank(cg, &cgr));
        if (cgr == 0) OK(MPI_Lookup_name("smartmap-test", MPI_INFO_NULL, port));
        OK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, cg));
        MPI_Comm ic;
        OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, cg, &ic));
        exchange(ic, sum_range(0, half));
        OK(MPI_Comm_disconnect(&ic));
        OK(MPI_Comm_free(&cg));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
        OK(MPI_Unpublish_name("smartmap-test", MPI_INFO_NULL, port));
        OK(MPI_Close_port(port));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    /* a closed port: every member of the connecting group gets MPI_ERR_PORT */
    if (!server) {
        OK(MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN));
        MPI_Comm ic;
        int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, g, &ic);
        CHECK(rc == MPI_ERR_PORT, "connect to a closed port: %d", rc);
    }
    OK(MPI_Comm_free(&g));
}

/* Ranks 0 and 1 meet over an abstract Unix socket named after the job. */
static void join(void)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    const char *job = getenv("SMARTMAP_JOB");
    snprintf(sa.sun_path + 1, sizeof sa.sun_path - 1, "smartmap-test-join-%s", job ? job : "x");
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sa.sun_path + 1));
    int fd = -1, ls = -1;
    if (me > 1) {                                   /* only the others' barrier */
        OK(MPI_Barrier(MPI_COMM_WORLD));
        return;
    }
    if (me == 0) {
        ls = socket(AF_UNIX, SOCK_STREAM, 0);
        CHECK(ls >= 0 && bind(ls, (struct sockaddr *)&sa, len) == 0 && listen(ls, 1) == 0, "listen");
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) fd = accept(ls, NULL, NULL);
    else {
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&sa, len) == 0, "connect");
    }
    CHECK(fd >= 0, "socket");
    MPI_Comm ic;
    OK(MPI_Comm_join(fd, &ic));
    exchange(ic, !me);
    OK(MPI_Comm_disconnect(&ic));
    close(fd);
    if (ls >= 0) close(ls);
}

static void errors(void)
{
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    char port[MPI_MAX_PORT_NAME], got[MPI_MAX_PORT_NAME];
    int rc;
    CHECK((rc = MPI_Lookup_name("nobody-published-this", MPI_INFO_NULL, got)) == MPI_ERR_NAME, "lookup: %d", rc);
    CHECK((rc = MPI_Close_port("not-a-port")) == MPI_ERR_PORT, "close_port: %d", rc);
    if (me == 0) {
        OK(MPI_Open_port(MPI_INFO_NULL, port));
        OK(MPI_Publish_name("smartmap-test-twice", MPI_INFO_NULL, port));
        CHECK((rc = MPI_Publish_name("smartmap-test-twice", MPI_INFO_NULL, port)) == MPI_ERR_SERVICE, "twice: %d", rc);
        OK(MPI_Lookup_name("smartmap-test-twice", MPI_INFO_NULL, got));
        CHECK(!strcmp(got, port), "lookup gave \"%s\" for \"%s\"", got, port);
        CHECK((rc = MPI_Unpublish_name("smartmap-test-twice", MPI_INFO_NULL, "other")) == MPI_ERR_SERVICE,
              "unpublish with another port: %d", rc);
        OK(MPI_Unpublish_name("smartmap-test-twice", MPI_INFO_NULL, port));
        CHECK((rc = MPI_Unpublish_name("smartmap-test-twice", MPI_INFO_NULL, port)) == MPI_ERR_SERVICE,
              "unpublish twice: %d", rc);
        OK(MPI_Close_port(port));
        CHECK((rc = MPI_Close_port(port)) == MPI_ERR_PORT, "close twice: %d", rc);
        MPI_Comm ic;
        CHECK((rc = MPI_Comm_accept("smartmap-port:0:63", MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic)) == MPI_ERR_PORT,
              "accept on a port not open: %d", rc);
    }
    /* spawn: no slot for a new process; each errcode says so */
    MPI_Comm child = MPI_COMM_WORLD;
    int codes[3] = { 0, 0, 0 };
    char *args[] = { "x", NULL };
    rc = MPI_Comm_spawn("/bin/true", args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &child, codes);
    CHECK(rc == MPI_ERR_SPAWN && child == MPI_COMM_NULL, "spawn: %d", rc);
    for (int i = 0; i < 3; i++) CHECK(codes[i] == MPI_ERR_SPAWN, "errcodes[%d] = %d", i, codes[i]);
    MPI_Comm parent = MPI_COMM_WORLD;
    OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "a process smrun started has no parent");
    int *usize, flag;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag));
    CHECK(flag && *usize == n, "MPI_UNIVERSE_SIZE %d", flag ? *usize : -1);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    errors();
    if (n > 1) {
        connect_accept();
        join();
    }
    return MPI_Finalize();
}
