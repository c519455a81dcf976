/* A rank started by a PMIx launcher (no smrun): its rank and size agree
 * with PMIx's, every rank of the node sees every other's globals, heap and
 * stack at the SMARTMAP addresses, the node's socket and memfds leave no
 * name behind, ASLR is off (the program re-executed under its own name), and a program a rank starts is not a rank. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smartmap.h"

#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: check failed: %s: ", sm_rank(), #c); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(1); } } while (0)

#define MAX_RANKS 256
static int global_word = -1;

/* A name of ours in /proc/net/unix (abstract sockets) or /dev/shm. */
static int leftovers(void)
{
    /* This job's node socket only (smartmap.<uid>.<namespace>.<node>): other
     * jobs may be running theirs meanwhile (ctest -j). */
    int n = 0;
    char line[512], mine[256];
    snprintf(mine, sizeof mine, "@smartmap.%u.%s.", (unsigned)geteuid(), getenv("PMIX_NAMESPACE") ? getenv("PMIX_NAMESPACE") : "");
    FILE *f = fopen("/proc/net/unix", "r");
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, mine)) n++;
    if (f) fclose(f);
    f = popen("ls /dev/shm 2>/dev/null | grep -c smartmap", "r");
    int shm = 0;
    if (f && fscanf(f, "%d", &shm) == 1) n += shm;
    if (f) pclose(f);
    return n;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0) {   /* started by a rank */
        printf("child: size %d\n", sm_size());
        return sm_size() == 1 ? 0 : 1;
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(rank == atoi(getenv("PMIX_RANK")), "PMIX_RANK %s", getenv("PMIX_RANK"));
    CHECK(rank == sm_rank() && size == sm_size(), "MPI %d/%d, smartmap %d/%d", rank, size, sm_rank(), sm_size());
    CHECK(!getenv("SMARTMAP_LAUNCHER"), "smrun started this job");
    char comm[32] = "";   /* re-executed under its own name (ps, top) */
    FILE *f = fopen("/proc/self/comm", "r");
    CHECK(f && fgets(comm, sizeof comm, f) && strcmp(comm, "net_pmix_boot\n") == 0, "command name '%s'", comm);
    fclose(f);

    int on_stack = 1000 + rank;
    int *on_heap = malloc(sizeof *on_heap);
    *on_heap = 2000 + rank;
    global_word = 3000 + rank;
    CHECK(sm_exposed(&on_stack) && sm_exposed(on_heap) && sm_exposed(&global_word), "memory not exposed");
    int *addr[2] = { sm_global(&on_stack), sm_global(on_heap) }, *all = malloc(sizeof addr * (size_t)size);
    MPI_Allgather(addr, sizeof addr, MPI_BYTE, all, sizeof addr, MPI_BYTE, MPI_COMM_WORLD);
    int **peer = (int **)all;
    /* Address-space randomisation was off: a global has one address in all. */
    int *gaddr = &global_word, *gall[MAX_RANKS];
    MPI_Allgather(&gaddr, sizeof gaddr, MPI_BYTE, gall, sizeof gaddr, MPI_BYTE, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) CHECK(gall[r] == gaddr, "rank %d's global is at %p, mine at %p", r, (void *)gall[r], (void *)gaddr);
    for (int r = 0; r < size; r++) {
        CHECK(*peer[2 * r] == 1000 + r, "rank %d's stack word reads %d", r, *peer[2 * r]);
        CHECK(*peer[2 * r + 1] == 2000 + r, "rank %d's heap word reads %d", r, *peer[2 * r + 1]);
        int *g = sm_remote(r, &global_word);
        CHECK(g && *g == 3000 + r, "rank %d's global reads %d", r, g ? *g : -1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(leftovers() == 0, "a socket or /dev/shm file named smartmap is left");

    char exe[2048] = "", cmd[4096];
    CHECK(readlink("/proc/self/exe", exe, sizeof exe - 1) > 0, "readlink");
    snprintf(cmd, sizeof cmd, "'%s' child", exe);
    if (rank == 0) CHECK(system(cmd) == 0, "a program the rank started was not a job of one");
    MPI_Barrier(MPI_COMM_WORLD);
    free(all);
    free(on_heap);
    if (rank == 0) printf("pmix_boot: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
