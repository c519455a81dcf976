/* A full ring never deadlocks (p2p.c "A full ring"): every rank sends
 * three rings' worth of 8-byte messages of tag A to the next rank, then one
 * of tag B, before it receives anything; each receives tag B first, then
 * the A's in order. Every rank is in its own blocking send meanwhile (tag B
 * behind the queued A's, or each A), so no receive drains a ring: only
 * the receiver's drain asked for by a waiting sender (want) does.
 *   fullring isend   A's with MPI_Isend, B with MPI_Send
 *   fullring send    A's and B with MPI_Send
 * Then smbench's msgrate pattern (windows of 64 Isend / Irecv + Waitall,
 * rank pairs), every message's index checked. A second argument "mt" asks
 * for MPI_THREAD_MULTIPLE (and calls from one thread). */
#include <stdint.h>

#include "mcheck.h"

#define NA 100000               /* more than three rings of 8-byte records (32 KiB of them a ring at most) */
#define WINDOW 64
#define WINDOWS 1000         /* two rings' worth */

int main(int argc, char **argv)
{
    int me, n;
    int provided;
    if (argc > 2 && !strcmp(argv[2], "mt")) {      /* MPI_THREAD_MULTIPLE asked for, one thread calling */
        OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
        CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    } else OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const char *mode = argc > 1 ? argv[1] : "isend";
    int to = (me + 1) % n, from = (me + n - 1) % n;
    uint64_t *val = malloc(NA * sizeof *val), b = NA, got;
    MPI_Request *r = malloc(NA * sizeof *r);
    CHECK(val && r, "malloc");
    for (uint64_t i = 0; i < NA; i++) val[i] = i;

    if (!strcmp(mode, "send")) {
        for (int i = 0; i < NA; i++) OK(MPI_Send(&val[i], 8, MPI_BYTE, to, 1, MPI_COMM_WORLD));
        OK(MPI_Send(&b, 8, MPI_BYTE, to, 2, MPI_COMM_WORLD));
    } else {
        for (int i = 0; i < NA; i++) OK(MPI_Isend(&val[i], 8, MPI_BYTE, to, 1, MPI_COMM_WORLD, &r[i]));
        OK(MPI_Send(&b, 8, MPI_BYTE, to, 2, MPI_COMM_WORLD));
    }
    OK(MPI_Recv(&got, 8, MPI_BYTE, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == NA, "tag B carried %llu", (unsigned long long)got);
    for (uint64_t i = 0; i < NA; i++) {
        OK(MPI_Recv(&got, 8, MPI_BYTE, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got == i, "tag A: %llu where %llu was due", (unsigned long long)got, (unsigned long long)i);
    }
    if (strcmp(mode, "send")) OK(MPI_Waitall(NA, r, MPI_STATUSES_IGNORE));

    /* The message rate's pattern: pairs, the sender runs ahead. */
    int pairs = n / 2, sender = me < pairs, partner = sender ? me + pairs : me - pairs;
    uint64_t w[WINDOW];
    for (uint64_t k = 0; me < 2 * pairs && k < WINDOWS; k++) {
        for (int i = 0; i < WINDOW; i++) {
            if (sender) w[i] = k * WINDOW + (uint64_t)i;
            OK(sender ? MPI_Isend(&w[i], 8, MPI_BYTE, partner, 3, MPI_COMM_WORLD, &r[i])
                      : MPI_Irecv(&w[i], 8, MPI_BYTE, partner, 3, MPI_COMM_WORLD, &r[i]));
        }
        OK(MPI_Waitall(WINDOW, r, MPI_STATUSES_IGNORE));
        for (int i = 0; !sender && i < WINDOW; i++)
            CHECK(w[i] == k * WINDOW + (uint64_t)i, "message rate: %llu where %llu was due",
                  (unsigned long long)w[i], (unsigned long long)(k * WINDOW + (uint64_t)i));
    }
    free(val);
    free(r);
    OK(MPI_Finalize());
    return 0;
}
