/* Dynamic windows: each rank attaches many regions of heap memory of
 * different sizes, a global array, a stack buffer and a private mmap (not
 * exposed: the fallback path), publishes their addresses, and the others
 * put, get and accumulate into all of them at those addresses; then half
 * are detached and an access to one is MPI_ERR_RMA_RANGE while the rest
 * still work; a list grown one node at a time, each attached as it is
 * made, is walked by the others with MPI_Get. Across nodes (a PMIx launch
 * with fake nodes) attaching the private mmap is refused
 * (MPI_ERR_RMA_ATTACH) and a malloc'd block takes its place. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "mcheck.h"

#define NREG 40
#define MAXN 8
static int me, n, one_node;
static int64_t global_region[16];

struct node { int64_t value; MPI_Aint next; };   /* next: the next node's address, 0 at the end */

static void regions(int64_t *stack_region)
{
    MPI_Win win;
    OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int64_t *reg[NREG + 3];
    int len[NREG + 3];
    for (int i = 0; i < NREG; i++) {
        len[i] = 2 + (i * 7) % 13;
        reg[i] = malloc(sizeof(int64_t) * (size_t)len[i]);
    }
    reg[NREG] = global_region, len[NREG] = 16;
    reg[NREG + 1] = stack_region, len[NREG + 1] = 16;
    reg[NREG + 2] = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), len[NREG + 2] = 512;
    CHECK(reg[NREG + 2] != MAP_FAILED, "mmap");
    if (!one_node) {
        int rc = MPI_Win_attach(win, reg[NREG + 2], 4096);
        CHECK(rc == MPI_ERR_RMA_ATTACH, "attaching a private mmap across nodes gave %d", rc);
        munmap(reg[NREG + 2], 4096);
        reg[NREG + 2] = malloc(4096);
    }
    MPI_Aint mine[NREG + 3], all[MAXN][NREG + 3];
    for (int i = 0; i < NREG + 3; i++) {
        for (int k = 0; k < len[i]; k++) reg[i][k] = -1;
        OK(MPI_Win_attach(win, reg[i], (MPI_Aint)sizeof(int64_t) * len[i]));
        OK(MPI_Get_address(reg[i], &mine[i]));
    }
    OK(MPI_Allgather(mine, NREG + 3, MPI_AINT, all, NREG + 3, MPI_AINT, MPI_COMM_WORLD));
    int t = (me + 1) % n, s = (me + n - 1) % n;
    /* put at the end of every region of t, accumulate at its start */
    OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < NREG + 3; i++) {
        int64_t v = me * 1000 + i, one = 1;
        OK(MPI_Put(&v, 1, MPI_INT64_T, t, all[t][i] + 8 * (len[i] - 1), 1, MPI_INT64_T, win));
        OK(MPI_Accumulate(&one, 1, MPI_INT64_T, t, all[t][i], 1, MPI_INT64_T, MPI_SUM, win));
    }
    OK(MPI_Win_flush_all(win));
    for (int i = 0; i < NREG + 3; i++) {   /* and read it back */
        int64_t got;
        OK(MPI_Get(&got, 1, MPI_INT64_T, t, all[t][i] + 8 * (len[i] - 1), 1, MPI_INT64_T, win));
        CHECK(got == me * 1000 + i, "region %d of rank %d: read back %lld", i, t, (long long)got);
    }
    /* across the end of a region: outside the window */
    int64_t v = 0;
    int rc = MPI_Put(&v, 1, MPI_INT64_T, t, all[t][NREG + 2] + 4092, 1, MPI_INT64_T, win);
    CHECK(rc == MPI_ERR_RMA_RANGE, "a put across the end of a region gave %d, not MPI_ERR_RMA_RANGE", rc);
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < NREG + 3; i++)
        CHECK(reg[i][len[i] - 1] == s * 1000 + i && reg[i][0] == 0, "region %d: elements %lld ... %lld", i,
              (long long)reg[i][0], (long long)reg[i][len[i] - 1]);
    /* detach the even regions: the odd ones still work, the even ones are gone */
    for (int i = 0; i < NREG; i += 2) OK(MPI_Win_detach(win, reg[i]));
    rc = MPI_Win_detach(win, reg[0]);
    CHECK(rc == MPI_ERR_RMA_ATTACH, "detaching twice gave %d", rc);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    for (int i = 0; i < NREG; i++) {
        int64_t got;
        rc = MPI_Get(&got, 1, MPI_INT64_T, t, all[t][i], 1, MPI_INT64_T, win);
        CHECK(rc == (i % 2 ? MPI_SUCCESS : MPI_ERR_RMA_RANGE), "get from %s region %d gave %d",
              i % 2 ? "an attached" : "a detached", i, rc);
    }
    OK(MPI_Win_unlock(t, win));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 1; i < NREG + 3; i += i < NREG ? 2 : 1) OK(MPI_Win_detach(win, reg[i]));
    OK(MPI_Win_free(&win));
    for (int i = 0; i < NREG; i++) free(reg[i]);
    if (one_node) munmap(reg[NREG + 2], 4096);
    else free(reg[NREG + 2]);
}

/* Each rank grows a list of nodes, attaching each; the next rank walks it. */
static void list(void)
{
    enum { NODES = 30 };
    MPI_Win win;
    OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    struct node *nodes[NODES], *head = NULL;
    MPI_Aint head_addr = 0;
    for (int k = 0; k < NODES; k++) {   /* pushed at the front */
        struct node *nd = malloc(sizeof *nd);
        nd->value = me * 100 + k;
        nd->next = head_addr;
        OK(MPI_Win_attach(win, nd, sizeof *nd));
        OK(MPI_Get_address(nd, &head_addr));
        nodes[k] = head = nd;
    }
    (void)head;
    MPI_Aint heads[MAXN];
    OK(MPI_Allgather(&head_addr, 1, MPI_AINT, heads, 1, MPI_AINT, MPI_COMM_WORLD));
    int t = (me + 1) % n, k = NODES - 1;
    OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    for (MPI_Aint at = heads[t]; at; k--) {
        struct node nd;
        OK(MPI_Get(&nd, sizeof nd, MPI_BYTE, t, at, sizeof nd, MPI_BYTE, win));
        OK(MPI_Win_flush(t, win));
        CHECK(nd.value == t * 100 + k, "node %d of rank %d's list holds %lld", k, t, (long long)nd.value);
        at = nd.next;
    }
    CHECK(k == -1, "rank %d's list had %d nodes, not %d", t, NODES - 1 - k, NODES);
    OK(MPI_Win_unlock(t, win));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int j = 0; j < NODES; j++) {
        OK(MPI_Win_detach(win, nodes[j]));
        free(nodes[j]);
    }
    OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    int64_t stack_region[16];
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    one_node = mcheck_nodes(NULL);
    CHECK(n <= MAXN, "at most %d ranks", MAXN);
    regions(stack_region);
    list();
    OK(MPI_Finalize());
    if (me == 0) printf("test_rma_dynamic: ok on %d ranks\n", n);
    return 0;
}
