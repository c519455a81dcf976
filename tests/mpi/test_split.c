/* MPI_UNDEFINED as the colour of MPI_Comm_split and the split type of
 * MPI_Comm_split_type: MPI_COMM_NULL there, the others split.
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) by node (one group under smrun;
 * a group per fake node under mpirun with SMARTMAP_NODE_SIZE), ordered by
 * key, and a shared window on its result: loads and stores through
 * MPI_Win_shared_query, where one on MPI_COMM_WORLD across nodes refuses
 * (with "fatal": only that, under MPI_ERRORS_ARE_FATAL). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"

static int me, n;

/* MPI_UNDEFINED as colour (or split type): MPI_COMM_NULL, the others split. */
static void split_undefined(void)
{
    MPI_Comm c;
    OK(MPI_Comm_split(MPI_COMM_WORLD, me % 3 == 1 ? MPI_UNDEFINED : me % 3, me, &c));
    if (me % 3 == 1) CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED colour gave a communicator");
    else {
        CHECK(c != MPI_COMM_NULL, "no communicator for colour %d", me % 3);
        int s, r, want = 0;
        for (int i = 0; i < n; i++) want += i % 3 == me % 3;
        OK(MPI_Comm_size(c, &s));
        OK(MPI_Comm_rank(c, &r));
        CHECK(s == want && r == me / 3, "colour %d: size %d rank %d", me % 3, s, r);
        int sum;
        OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
        OK(MPI_Comm_free(&c));
    }
    /* the others: those of my node but rank 0 */
    int *local = calloc((size_t)n, sizeof *local);
    CHECK(local != NULL, "no memory");
    mcheck_nodes(local);
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, me == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c));
    CHECK((c == MPI_COMM_NULL) == (me == 0), "split_type MPI_UNDEFINED");
    if (c != MPI_COMM_NULL) {
        int s, want = 0;
        for (int i = 1; i < n; i++) want += local[i];
        OK(MPI_Comm_size(c, &s));
        CHECK(s == want, "split_type size %d, %d ranks share my node besides rank 0", s, want);
        OK(MPI_Comm_free(&c));
    }
    free(local);
}

/* The ranks of MPI_COMM_WORLD that c holds, in c's order, into w[]; their number. */
static int world_ranks(MPI_Comm c, int *w)
{
    MPI_Group g, wg;
    int s;
    OK(MPI_Comm_size(c, &s));
    OK(MPI_Comm_group(c, &g));
    OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int *idx = malloc(sizeof *idx * (size_t)s);
    CHECK(idx != NULL, "no memory");
    for (int i = 0; i < s; i++) idx[i] = i;
    OK(MPI_Group_translate_ranks(g, s, idx, wg, w));
    free(idx);
    OK(MPI_Group_free(&g));
    OK(MPI_Group_free(&wg));
    return s;
}

/* By node: exactly the ranks that share mine, ordered by key (here the
 * reverse of the world's order), the info ignored; then a shared window on
 * it that every member reads and writes with loads and stores. */
static void split_shared(void)
{
    int *local = calloc((size_t)n, sizeof *local), *w = malloc(sizeof *w * (size_t)n);
    CHECK(local && w, "no memory");
    int one = mcheck_nodes(local);
    int nl = 0, below = 0;
    for (int i = 0; i < n; i++) nl += local[i], below += local[i] && i > me;
    MPI_Info info;
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "no_such_hint", "true"));      /* ignored, as MPI allows */
    MPI_Comm c;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, n - me, info, &c));
    OK(MPI_Info_free(&info));
    CHECK(c != MPI_COMM_NULL, "split_type gave MPI_COMM_NULL");
    int s = world_ranks(c, w), r;
    OK(MPI_Comm_rank(c, &r));
    CHECK(s == nl, "split_type: %d members, %d ranks share my node", s, nl);
    CHECK(r == below, "split_type: rank %d, want %d (keys reverse the order)", r, below);
    for (int i = 0; i < s; i++) {
        CHECK(w[i] >= 0 && w[i] < n && local[w[i]], "member %d is world rank %d, not on my node", i, w[i]);
        CHECK(i == 0 || w[i] < w[i - 1], "members out of key order: %d after %d", w[i], w[i - 1]);
    }
    int cmp;
    OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
    int wcmp = !one ? MPI_UNEQUAL : n == 1 ? MPI_CONGRUENT : MPI_SIMILAR;   /* (keys reverse the order) */
    CHECK(cmp == wcmp, "compare with the world %d, want %d (one node: %d)", cmp, wcmp, one);
    int sum = 0, want = 0;
    OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
    for (int i = 0; i < n; i++) want += local[i] ? i : 0;
    CHECK(sum == want, "allreduce on the node's communicator %d, want %d", sum, want);

    /* A shared window on it: 1 + member's rank ints each, contiguous. */
    MPI_Win win;
    int *mine;
    OK(MPI_Win_allocate_shared((MPI_Aint)sizeof(int) * (r + 1), sizeof(int), MPI_INFO_NULL, c, &mine, &win));
    OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (int k = 0; k <= r; k++) mine[k] = 1000 * me + k;
    OK(MPI_Win_sync(win));
    OK(MPI_Barrier(c));
    OK(MPI_Win_sync(win));
    for (int t = 0; t < s; t++) {
        MPI_Aint size;
        int du, *p;
        OK(MPI_Win_shared_query(win, t, &size, &du, &p));
        CHECK(p != NULL && size == (MPI_Aint)sizeof(int) * (t + 1) && du == (int)sizeof(int),
              "shared_query of %d: %p size %ld unit %d", t, (void *)p, (long)size, du);
        for (int k = 0; k <= t; k++) CHECK(p[k] == 1000 * w[t] + k, "member %d's [%d] = %d", t, k, p[k]);
    }
    /* stores into the next member's part, seen by it */
    int next = (r + 1) % s, *np;
    MPI_Aint size;
    int du;
    OK(MPI_Win_shared_query(win, next, &size, &du, &np));
    OK(MPI_Barrier(c));
    np[0] = -me - 1;
    OK(MPI_Win_sync(win));
    OK(MPI_Barrier(c));
    OK(MPI_Win_sync(win));
    int prev = w[(r + s - 1) % s];
    CHECK(mine[0] == -prev - 1, "my first int %d, stored by %d", mine[0], prev);
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Win_free(&win));
    OK(MPI_Comm_free(&c));

    /* On the world across nodes: refused, the same way at every rank. */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Win_allocate_shared(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    CHECK(rc == (one ? MPI_SUCCESS : MPI_ERR_COMM), "allocate_shared on the world: %d (one node: %d)", rc, one);
    if (rc == MPI_SUCCESS) OK(MPI_Win_free(&win));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    free(local), free(w);
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    if (argc > 1 && !strcmp(argv[1], "fatal")) {   /* a shared window on the world, errors fatal */
        MPI_Win w;
        void *p;
        int rc = MPI_Win_allocate_shared(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &w);
        CHECK(rc != MPI_SUCCESS || mcheck_nodes(NULL), "allocate_shared on the world across nodes succeeded");
        OK(MPI_Win_free(&w));
        return MPI_Finalize();
    }
    split_undefined();
    split_shared();
    OK(MPI_Finalize());
    if (me == 0) printf("test_split: %d ranks ok\n", n);
    return 0;
}
