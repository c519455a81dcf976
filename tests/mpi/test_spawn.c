/* MPI_Comm_spawn and MPI_Comm_spawn_multiple (smrun --universe-size): the
 * program is both parent and child (a child runs with "child MODE ...").
 *   basic  spawn 1 then 3 children; p2p, a broadcast and an allreduce across
 *          the intercommunicator, and one over the merged intracommunicator;
 *          the children's world, MPI_APPNUM, MPI_Comm_get_parent
 *   multi  spawn_multiple: 1 of command A and 2 of command B in one world;
 *          neither side disconnects before MPI_Finalize
 *   tree   2 children, each pair spawning 2 grandchildren (universe n + 4)
 *   small  universe n + 1: 3 children, then a bad command, fail (errcodes
 *          MPI_ERR_SPAWN, no slot used); then 1 starts, and no more
 *   die    child 1 of 2 is killed while its parents wait for it
 *   pmix   under a PMIx launcher (mpirun), where spawning is refused:
 *          spawn of 1 and 2, spawn_multiple, a nonexistent command all
 *          MPI_ERR_SPAWN with every errcode so and MPI_COMM_NULL; maxprocs
 *          0 still MPI_ERR_ARG; no parent; the world works after
 *   fatal ARG  under MPI_ERRORS_ARE_FATAL: "slots" asks for more than the
 *          free slots, "cmd" names no program, "notmpi" starts /bin/true
 *          (which exits without MPI while its parents wait for it) */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcheck.h"

static int n, me;
static char *self, *argv_mode2;

/* Both sides: the sizes, a message from every parent to every child and
 * back, a broadcast from parent 0, and an allreduce whose sum each side
 * can predict (parents give 1000 + rank, children their rank). */
static void exchange(MPI_Comm ic, bool parent, int nparents, int nkids)
{
    int lr, ls, rs, flag;
    OK(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag, "not an intercommunicator");
    OK(MPI_Comm_rank(ic, &lr));
    OK(MPI_Comm_size(ic, &ls));
    OK(MPI_Comm_remote_size(ic, &rs));
    CHECK(ls == (parent ? nparents : nkids) && rs == (parent ? nkids : nparents), "sizes %d/%d", ls, rs);
    for (int k = 0; k < rs; k++) {
        int v = parent ? lr * 100 + k : lr * 100 + k + 50, w;
        MPI_Status st;
        if (parent) {
            OK(MPI_Send(&v, 1, MPI_INT, k, 7, ic));
            OK(MPI_Recv(&w, 1, MPI_INT, k, 8, ic, &st));
            CHECK(w == k * 100 + lr + 50, "parent %d got %d from child %d", lr, w, k);
        } else {
            OK(MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 7, ic, &st));
            CHECK(w == st.MPI_SOURCE * 100 + lr, "child %d got %d from parent %d", lr, w, st.MPI_SOURCE);
            v = lr * 100 + st.MPI_SOURCE + 50;
            OK(MPI_Send(&v, 1, MPI_INT, st.MPI_SOURCE, 8, ic));
        }
    }
    int b = parent && lr == 0 ? 4242 : -1;
    OK(MPI_Bcast(&b, 1, MPI_INT, parent ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic));
    if (!parent) CHECK(b == 4242, "broadcast gave %d", b);
    int mine = parent ? 1000 + lr : lr, sum = 0, want = 0;
    OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, ic));
    for (int i = 0; i < rs; i++) want += parent ? i : 1000 + i;
    CHECK(sum == want, "allreduce %d want %d", sum, want);
    /* merged, parents first: one intracommunicator over both worlds */
    MPI_Comm m;
    int mr, ms;
    OK(MPI_Intercomm_merge(ic, !parent, &m));
    OK(MPI_Comm_rank(m, &mr));
    OK(MPI_Comm_size(m, &ms));
    CHECK(ms == nparents + nkids && mr == (parent ? lr : nparents + lr), "merged: rank %d of %d", mr, ms);
    OK(MPI_Allreduce(&mr, &sum, 1, MPI_INT, MPI_SUM, m));
    CHECK(sum == ms * (ms - 1) / 2, "merged allreduce %d", sum);
    OK(MPI_Comm_free(&m));
}

static MPI_Comm spawn(MPI_Comm comm, int count, char **args)
{
    MPI_Comm ic = MPI_COMM_NULL;
    int codes[8];
    for (int i = 0; i < 8; i++) codes[i] = -1;
    OK(MPI_Comm_spawn(self, args, count, MPI_INFO_NULL, 0, comm, &ic, codes));
    for (int i = 0; i < count; i++) CHECK(codes[i] == MPI_SUCCESS, "errcodes[%d] = %d", i, codes[i]);
    CHECK(ic != MPI_COMM_NULL, "no intercommunicator");
    return ic;
}

static void expect_fail(const char *cmd, int count, const char *what)
{
    MPI_Comm ic = MPI_COMM_WORLD;
    int codes[4] = { 0, 0, 0, 0 };
    char *args[] = { "child", "basic", NULL };
    int rc = MPI_Comm_spawn(cmd, args, count, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, codes);
    CHECK(rc == MPI_ERR_SPAWN && ic == MPI_COMM_NULL, "%s: spawn returned %d", what, rc);
    for (int i = 0; i < count; i++) CHECK(codes[i] == MPI_ERR_SPAWN, "%s: errcodes[%d] = %d", what, i, codes[i]);
}

static void parent(const char *mode)
{
    int *usize, flag;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag));
    CHECK(flag, "no MPI_UNIVERSE_SIZE");
    if (!strcmp(mode, "basic")) {
        CHECK(*usize == n + 4, "MPI_UNIVERSE_SIZE %d, want %d", *usize, n + 4);
        for (int k = 1; k <= 3; k += 2) {
            char count[16];
            snprintf(count, sizeof count, "%d", k);
            char *args[] = { "child", "basic", count, NULL };
            MPI_Comm ic = spawn(MPI_COMM_WORLD, k, args);
            exchange(ic, true, n, k);
            OK(MPI_Comm_disconnect(&ic));
        }
    } else if (!strcmp(mode, "multi")) {
        char *cmds[2] = { self, self };
        char *a0[] = { "child", "multi", "0", NULL }, *a1[] = { "child", "multi", "1", NULL };
        char **argvs[2] = { a0, a1 };
        int counts[2] = { 1, 2 }, codes[3] = { -1, -1, -1 };
        MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
        MPI_Comm ic;
        OK(MPI_Comm_spawn_multiple(2, cmds, argvs, counts, infos, 0, MPI_COMM_WORLD, &ic, codes));
        for (int i = 0; i < 3; i++) CHECK(codes[i] == MPI_SUCCESS, "errcodes[%d] = %d", i, codes[i]);
        exchange(ic, true, n, 3);
    } else if (!strcmp(mode, "tree")) {
        char *args[] = { "child", "tree", "1", NULL };
        MPI_Comm ic = spawn(MPI_COMM_WORLD, 2, args);
        exchange(ic, true, n, 2);
        int grandchildren;                          /* what the children report */
        MPI_Status st;
        if (me == 0) {
            OK(MPI_Recv(&grandchildren, 1, MPI_INT, 0, 9, ic, &st));
            CHECK(grandchildren == 2, "the children saw %d grandchildren", grandchildren);
        }
        OK(MPI_Comm_disconnect(&ic));
    } else if (!strcmp(mode, "small")) {
        CHECK(*usize == n + 1, "MPI_UNIVERSE_SIZE %d, want %d", *usize, n + 1);
        OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        expect_fail(self, 3, "too few slots");
        expect_fail("/nonexistent/smartmap-test-program", 1, "bad command");
        char *args[] = { "child", "basic", "1", NULL };
        MPI_Comm ic = spawn(MPI_COMM_WORLD, 1, args);
        exchange(ic, true, n, 1);
        OK(MPI_Comm_disconnect(&ic));
        expect_fail(self, 1, "the universe used up");
    } else if (!strcmp(mode, "pmix")) {
        MPI_Comm p, ic = MPI_COMM_WORLD;
        OK(MPI_Comm_get_parent(&p));
        CHECK(p == MPI_COMM_NULL, "a parent for a process mpirun started");
        OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        expect_fail(self, 1, "spawn of 1 under mpirun");
        expect_fail(self, 2, "spawn of 2 under mpirun");
        expect_fail("/nonexistent/smartmap-test-program", 1, "a nonexistent command under mpirun");
        char *cmds[2] = { self, self };
        char *a0[] = { "child", "multi", "0", NULL }, *a1[] = { "child", "multi", "1", NULL };
        char **argvs[2] = { a0, a1 };
        int counts[2] = { 1, 2 }, codes[3] = { 0, 0, 0 };
        MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
        int rc = MPI_Comm_spawn_multiple(2, cmds, argvs, counts, infos, 0, MPI_COMM_WORLD, &ic, codes);
        CHECK(rc == MPI_ERR_SPAWN && ic == MPI_COMM_NULL, "spawn_multiple under mpirun returned %d", rc);
        for (int i = 0; i < 3; i++) CHECK(codes[i] == MPI_ERR_SPAWN, "spawn_multiple: errcodes[%d] = %d", i, codes[i]);
        char *args[] = { "child", "basic", "1", NULL };
        rc = MPI_Comm_spawn(self, args, 0, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, MPI_ERRCODES_IGNORE);
        CHECK(rc == MPI_ERR_ARG, "maxprocs 0 under mpirun: %d", rc);
        int sum;
        OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(sum == n * (n - 1) / 2, "allreduce after the refusals: %d", sum);
        if (me == 0) printf("test_spawn pmix: %d parents, every spawn refused\n", n);
    } else if (!strcmp(mode, "fatal")) {
        const char *what = argv_mode2 ? argv_mode2 : "";
        char *args[] = { "child", "basic", "1", NULL };
        MPI_Comm ic;
        if (!strcmp(what, "slots")) MPI_Comm_spawn(self, args, *usize, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, MPI_ERRCODES_IGNORE);
        if (!strcmp(what, "cmd")) MPI_Comm_spawn("no-such-program-xyz", args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                                                 MPI_ERRCODES_IGNORE);
        if (!strcmp(what, "notmpi")) MPI_Comm_spawn("/bin/true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                                                    MPI_ERRCODES_IGNORE);
        CHECK(0, "fatal %s: the spawn returned", what);
    } else if (!strcmp(mode, "die")) {
        char *args[] = { "child", "die", NULL };
        MPI_Comm ic = spawn(MPI_COMM_WORLD, 2, args);
        int v;
        OK(MPI_Recv(&v, 1, MPI_INT, 1, 0, ic, MPI_STATUS_IGNORE));   /* it never sends */
        CHECK(0, "the receive from a dead child returned");
    } else {
        CHECK(0, "unknown mode %s", mode);
    }
}

static void child(int argc, char **argv)
{
    CHECK(argc >= 3, "a child needs a mode");
    const char *mode = argv[2];
    MPI_Comm p;
    OK(MPI_Comm_get_parent(&p));
    CHECK(p != MPI_COMM_NULL, "a spawned process has no parent");
    int nparents, *appnum, flag;
    OK(MPI_Comm_remote_size(p, &nparents));
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
    CHECK(flag, "no MPI_APPNUM");
    if (!strcmp(mode, "basic")) {
        CHECK(argc == 4 && n == atoi(argv[3]), "world of %d, want %s", n, argc == 4 ? argv[3] : "?");
        CHECK(*appnum == 0, "MPI_APPNUM %d", *appnum);
        exchange(p, false, nparents, n);
    } else if (!strcmp(mode, "multi")) {
        CHECK(n == 3, "world of %d, want 3", n);
        CHECK(argc == 4 && *appnum == atoi(argv[3]) && *appnum == (me == 0 ? 0 : 1), "rank %d: MPI_APPNUM %d",
              me, *appnum);
        exchange(p, false, nparents, n);
    } else if (!strcmp(mode, "tree")) {
        int level = argc == 4 ? atoi(argv[3]) : 0;
        CHECK(n == 2, "world of %d at level %d", n, level);
        exchange(p, false, nparents, n);
        if (level == 1) {
            char *args[] = { "child", "tree", "2", NULL };
            MPI_Comm ic = spawn(MPI_COMM_WORLD, 2, args);
            exchange(ic, true, n, 2);
            int rs;
            OK(MPI_Comm_remote_size(ic, &rs));
            OK(MPI_Comm_disconnect(&ic));
            if (me == 0) OK(MPI_Send(&rs, 1, MPI_INT, 0, 9, p));
        }
    } else if (!strcmp(mode, "die")) {
        if (me == 1) raise(SIGKILL);
        OK(MPI_Barrier(MPI_COMM_WORLD));             /* waits for the dead one */
    }
    if (!strcmp(mode, "multi")) return;
    OK(MPI_Comm_disconnect(&p));
    OK(MPI_Comm_get_parent(&p));
    CHECK(p == MPI_COMM_NULL, "the parent after disconnect");
}

int main(int argc, char **argv)
{
    self = argv[0];
    argv_mode2 = argc >= 3 ? argv[2] : NULL;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    if (argc >= 2 && !strcmp(argv[1], "child")) child(argc, argv);
    else parent(argc >= 2 ? argv[1] : "basic");
    return MPI_Finalize();
}
