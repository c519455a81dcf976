/* test_armci_mpi.c: ARMCI inside an MPI program, as Global Arrays uses it:
 * either initialised first and either finalised first; the groups'
 * communicators (ARMCI_Group.comm, armci_group_comm) carry MPI collectives,
 * armci_msg_snd/rcv go through MPI, and MPI moves data in and out of ARMCI
 * memory while ARMCI moves data between the processes.
 *
 * Usage: test_armci_mpi mpi|armci (initialised first) mpi|armci (finalised first) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <armci.h>
#include <mpi.h>

#include "../core/check.h"

#define OK(call) do { int rc_ = (call); CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_); } while (0)

int main(int argc, char **argv)
{
    CHECK(argc == 3, "usage: test_armci_mpi mpi|armci mpi|armci");
    int mpi_first = !strcmp(argv[1], "mpi"), mpi_last = !strcmp(argv[2], "armci");
    if (mpi_first) OK(MPI_Init(&argc, &argv));
    CHECK(ARMCI_Init() == 0, "ARMCI_Init");
    if (!mpi_first) OK(MPI_Init(&argc, &argv));
    int me, n, sz;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    CHECK(armci_msg_me() == me && armci_msg_nproc() == n, "ARMCI ids are MPI_COMM_WORLD ranks");

    /* The world group's communicator: a dup of MPI_COMM_WORLD, or MPI_COMM_WORLD when MPI came second. */
    ARMCI_Group world;
    ARMCI_Group_get_world(&world);
    CHECK(world.comm != MPI_COMM_NULL && world.comm == armci_group_comm(&world), "world communicator");
    OK(MPI_Comm_size(world.comm, &sz));
    CHECK(sz == n, "world communicator of %d", sz);
    int sum = 0, one = 1;
    OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, world.comm));
    CHECK(sum == n, "allreduce on the world group's communicator: %d", sum);

    /* armci_msg_snd/rcv: a ring, and everyone to 0 with rcvany. */
    int right = (me + 1) % n, left = (me + n - 1) % n, v = me * 10, got = -1, len = 0;
    if (me % 2 == 0) {
        armci_msg_snd(7, &v, sizeof v, right);
        armci_msg_rcv(7, &got, sizeof got, &len, left);
    } else {
        armci_msg_rcv(7, &got, sizeof got, &len, left);
        armci_msg_snd(7, &v, sizeof v, right);
    }
    CHECK(got == left * 10 && len == (int)sizeof got, "ring: got %d (%d bytes)", got, len);
    if (me) {
        armci_msg_snd(8, &v, sizeof v, 0);
    } else {
        int seen = 0;
        for (int i = 1; i < n; i++) {
            int from = armci_msg_rcvany(8, &got, sizeof got, NULL);
            CHECK(got == from * 10, "rcvany from %d: %d", from, got);
            seen += from;
        }
        CHECK(seen == n * (n - 1) / 2, "rcvany sources");
    }

    /* ARMCI memory: MPI receives into it, ARMCI moves it on, MPI sends from it. */
    void **p = malloc(sizeof *p * (size_t)n);
    CHECK(ARMCI_Malloc(p, 1 << 16) == 0, "ARMCI_Malloc");
    char *mine = p[me], *buf = malloc(1 << 16);
    memset(buf, 'a' + me % 26, 1 << 16);
    OK(MPI_Sendrecv(buf, 1 << 16, MPI_CHAR, right, 1, mine, 1 << 16, MPI_CHAR, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    ARMCI_Barrier();
    ARMCI_Get(p[right], buf, 1 << 16, right);   /* right holds what I sent it */
    for (int i = 0; i < 1 << 16; i += 511) CHECK(buf[i] == 'a' + me % 26, "byte %d", i);
    ARMCI_Barrier();
    ARMCI_Free(p[me]);

    /* A group of the odd processes has a communicator of its own (made when MPI was there). */
    int no = n / 2, *odd = malloc(sizeof *odd * (size_t)(no ? no : 1));
    for (int i = 0; i < no; i++) odd[i] = 2 * i + 1;
    ARMCI_Group g;
    ARMCI_Group_create(no, odd, &g);
    if (me % 2) {
        CHECK(g.comm != MPI_COMM_NULL, "odd group communicator");
        int r;
        OK(MPI_Comm_rank(g.comm, &r));
        CHECK(r == g.rank && r == me / 2, "odd group rank %d", r);
        int s = 0;
        OK(MPI_Allreduce(&me, &s, 1, MPI_INT, MPI_SUM, g.comm));
        CHECK(s == no * no, "odd group allreduce %d", s);
        ARMCI_Group_free(&g);
    } else {
        CHECK(g.comm == MPI_COMM_NULL && g.size == 0, "not in the odd group");
    }
    ARMCI_Barrier();
    free(odd), free(buf), free(p);

    if (mpi_last) {
        CHECK(ARMCI_Finalize() == 0, "ARMCI_Finalize");
        OK(MPI_Barrier(MPI_COMM_WORLD));
        OK(MPI_Finalize());
    } else {
        OK(MPI_Finalize());
        CHECK(ARMCI_Finalize() == 0, "ARMCI_Finalize after MPI_Finalize");
    }
    return 0;
}
