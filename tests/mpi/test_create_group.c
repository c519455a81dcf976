/* MPI_Comm_create_group over many random subgroups of MPI_COMM_WORLD (and
 * of a communicator made that way), no barrier between rounds: a rank may
 * be creating the next round's communicator while others finish this one. */
#include "mcheck.h"

#define ROUNDS 200

/* Round r's group (the same on every rank): each rank in or out at random,
 * in a random order. */
static int pick(unsigned long long *s, int n, int *ranks)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (rnd(s) % 2) ranks[m++] = i;
    for (int i = m - 1; i > 0; i--) {
        int j = (int)(rnd(s) % (unsigned)(i + 1)), t = ranks[i];
        ranks[i] = ranks[j], ranks[j] = t;
    }
    return m;
}

static void rounds(MPI_Comm parent, unsigned long long seed)
{
    int me, n;
    OK(MPI_Comm_rank(parent, &me));
    OK(MPI_Comm_size(parent, &n));
    MPI_Group pg;
    OK(MPI_Comm_group(parent, &pg));
    int ranks[64];
    for (int r = 0; r < ROUNDS; r++) {
        int m = pick(&seed, n, ranks), pos = -1;
        for (int i = 0; i < m; i++)
            if (ranks[i] == me) pos = i;
        if (pos < 0) continue;
        MPI_Group g;
        MPI_Comm c;
        OK(MPI_Group_incl(pg, m, ranks, &g));
        OK(MPI_Comm_create_group(parent, g, r % 3, &c));
        int cr, cs, sum = 0, want = 0;
        OK(MPI_Comm_rank(c, &cr));
        OK(MPI_Comm_size(c, &cs));
        CHECK(cr == pos && cs == m, "round %d: rank %d of %d, want %d of %d", r, cr, cs, pos, m);
        OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
        for (int i = 0; i < m; i++) want += ranks[i];
        CHECK(sum == want, "round %d: sum of parent ranks %d, want %d", r, sum, want);
        OK(MPI_Comm_free(&c));
        OK(MPI_Group_free(&g));
    }
    OK(MPI_Group_free(&pg));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    int me, n;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    CHECK(n <= 64, "at most 64 ranks");
    rounds(MPI_COMM_WORLD, 1);
    /* the same inside a communicator made by create_group (the upper half, reversed) */
    if (me >= n / 2) {
        MPI_Group wg, hg;
        int ranks[64], m = 0;
        for (int i = n - 1; i >= n / 2; i--) ranks[m++] = i;
        OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
        OK(MPI_Group_incl(wg, m, ranks, &hg));
        MPI_Comm half;
        OK(MPI_Comm_create_group(MPI_COMM_WORLD, hg, 0, &half));
        rounds(half, 2);
        OK(MPI_Comm_free(&half));
        OK(MPI_Group_free(&hg));
        OK(MPI_Group_free(&wg));
    }
    OK(MPI_Finalize());
    return 0;
}
