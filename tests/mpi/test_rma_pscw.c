/* Post/start/complete/wait on subgroups: even ranks expose, odd ranks
 * access, over several epochs in a row; then the roles swap; a window over
 * a sub-communicator (group ranks are not job ranks); MPI_Win_test polled
 * to completion; MPI_MODE_NOCHECK with the program's own synchronisation;
 * a rank that both exposes and accesses in the same epochs. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "mcheck.h"

#define EPOCHS 20
static int me, n;

/* Ranks of parity p in g (of size sz), as a new group. */
static MPI_Group parity(MPI_Group g, int sz, int p)
{
    int r[64], k = 0;
    for (int i = p; i < sz; i += 2) r[k++] = i;
    MPI_Group out;
    OK(MPI_Group_incl(g, k, r, &out));
    return out;
}

/* Over comm: ranks of parity 0 expose, parity 1 access (a single rank does
 * both), each origin putting its rank and epoch into its slot of every
 * target; test: targets poll MPI_Win_test instead of waiting. */
static void epochs(MPI_Comm comm, const char *what, bool test, int swap)
{
    int cme, cn;
    OK(MPI_Comm_rank(comm, &cme));
    OK(MPI_Comm_size(comm, &cn));
    int64_t *mem;
    MPI_Win win;
    OK(MPI_Win_allocate(64 * 8, 8, MPI_INFO_NULL, comm, &mem, &win));
    MPI_Group g, targets, origins;
    OK(MPI_Win_get_group(win, &g));
    int tpar = cn > 1 ? swap : 0, opar = cn > 1 ? 1 - swap : 0, ostep = cn > 1 ? 2 : 1;
    targets = parity(g, cn, tpar), origins = parity(g, cn, opar);
    bool is_target = cme % 2 == tpar, is_origin = cme % 2 == opar;
    for (int i = 0; i < 64; i++) mem[i] = -1;
    OK(MPI_Barrier(comm));
    for (int e = 0; e < EPOCHS; e++) {
        if (is_target) OK(MPI_Win_post(origins, 0, win));
        if (is_origin) {
            OK(MPI_Win_start(targets, 0, win));
            int64_t v = cme * 1000 + e;
            for (int t = tpar; t < cn; t += 2) OK(MPI_Put(&v, 1, MPI_INT64_T, t, cme, 1, MPI_INT64_T, win));
            OK(MPI_Win_complete(win));
        }
        if (is_target) {
            if (test) {
                int flag = 0;
                while (!flag) OK(MPI_Win_test(win, &flag));
            } else {
                OK(MPI_Win_wait(win));
            }
            for (int o = opar; o < cn; o += ostep)
                CHECK(mem[o] == o * 1000 + e, "%s: epoch %d: slot of origin %d holds %lld", what, e, o,
                      (long long)mem[o]);
        }
    }
    OK(MPI_Group_free(&targets));
    OK(MPI_Group_free(&origins));
    OK(MPI_Group_free(&g));
    OK(MPI_Win_free(&win));
}

/* NOCHECK: the program orders post before start itself (a barrier). */
static void nocheck(void)
{
    int64_t *mem;
    MPI_Win win;
    OK(MPI_Win_allocate(8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Group g, left, right;
    OK(MPI_Win_get_group(win, &g));
    int l = (me + n - 1) % n, r = (me + 1) % n;
    OK(MPI_Group_incl(g, 1, &l, &left));
    OK(MPI_Group_incl(g, 1, &r, &right));
    for (int e = 0; e < 5; e++) {
        *mem = -1;
        OK(MPI_Win_post(left, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE, win));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        OK(MPI_Win_start(right, MPI_MODE_NOCHECK, win));
        int64_t v = me + e;
        OK(MPI_Put(&v, 1, MPI_INT64_T, r, 0, 1, MPI_INT64_T, win));
        OK(MPI_Win_complete(win));
        OK(MPI_Win_wait(win));
        CHECK(*mem == l + e, "nocheck epoch %d: %lld", e, (long long)*mem);
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    OK(MPI_Group_free(&left));
    OK(MPI_Group_free(&right));
    OK(MPI_Group_free(&g));
    OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    epochs(MPI_COMM_WORLD, "world", false, 0);
    epochs(MPI_COMM_WORLD, "world, swapped, Win_test", true, 1);
    MPI_Comm half;   /* ranks 1, 3, 5.. and 0, 2, 4..: window ranks are not job ranks */
    OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &half));
    epochs(half, "sub-communicator (reversed)", me % 2 == 0, 0);
    OK(MPI_Comm_free(&half));
    nocheck();
    OK(MPI_Finalize());
    if (me == 0) printf("test_rma_pscw: ok on %d ranks\n", n);
    return 0;
}
