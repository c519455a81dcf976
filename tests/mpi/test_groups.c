/* Group ranges: MPI_Group_range_incl with descending and empty ranges,
 * MPI_Group_range_excl. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* MPI_Group_range_incl: ranges that step down, and ranges that are empty
 * because the stride points away from last; MPI_Group_range_excl. */
static void group_ranges(void)
{
    MPI_Group w, g;
    int s, r;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    int down[2][3] = { { n - 1, 0, -2 }, { n > 1 ? 1 : 0, 0, 5 } };   /* the second: empty when n > 1 */
    OK(MPI_Group_range_incl(w, n > 1 ? 2 : 1, down, &g));
    OK(MPI_Group_size(g, &s));
    CHECK(s == (n + 1) / 2, "range_incl size %d", s);
    OK(MPI_Group_rank(g, &r));
    CHECK(r == ((n - 1 - me) % 2 ? MPI_UNDEFINED : (n - 1 - me) / 2), "range_incl rank %d", r);
    OK(MPI_Group_free(&g));
    int none[1][3] = { { 0, n - 1 > 0 ? n - 1 : 0, -1 } };             /* 0 down to n-1: empty when n > 1 */
    OK(MPI_Group_range_incl(w, 1, none, &g));
    OK(MPI_Group_size(g, &s));
    CHECK(s == (n > 1 ? 0 : 1), "empty range_incl size %d", s);
    OK(MPI_Group_free(&g));
    /* MPI_Group_range_excl: drop every other rank from the top */
    int range[1][3] = { { n - 1, 0, -2 } }, gs, gr;
    OK(MPI_Group_range_excl(w, 1, range, &g));
    OK(MPI_Group_size(g, &gs));
    OK(MPI_Group_rank(g, &gr));
    CHECK(gs == n / 2 && gr == ((n - 1 - me) % 2 ? me / 2 : MPI_UNDEFINED), "range_excl size %d rank %d", gs, gr);
    OK(MPI_Group_free(&g));
    OK(MPI_Group_free(&w));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    group_ranges();
    OK(MPI_Finalize());
    if (me == 0) printf("test_groups: %d ranks ok\n", n);
    return 0;
}
