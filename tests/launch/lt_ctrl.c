/* lt_ctrl.c: a rank that writes its control block itself, through its own
 * memfd (fd FD0+rank, offset 0: the ABI of sm_job.h), the way libsmartmap
 * does, to test how smrun reads it: exit without finalize (one lifecycle
 * client, MPI; or two, MPI and SHMEM), abort notes, and blocks it must not
 * trust (wrong magic, wrong pid). */
#include <stdbool.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include "lt_common.h"
#include "sm_job.h"

static struct sm_ctrl *map_ctrl(void)
{
    const char *fd0 = getenv(SM_ENV_FD0);
    if (!fd0 || lt_rank < 0) { fprintf(stderr, "lt_ctrl: not started by smrun\n"); exit(98); }
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, atoi(fd0) + lt_rank, 0);
    if (p == MAP_FAILED) { perror("lt_ctrl: mmap"); exit(98); }
    return p;
}

/* Lifecycle client i requires routine (NULL: finalized); as the library,
 * the routine is remembered in seen[] for good. */
static void client(struct sm_ctrl *c, int i, const char *routine)
{
    if (routine) snprintf(c->client[i].finalize, sizeof c->client[i].finalize, "%s", routine);
    if (routine) snprintf(c->seen[i], sizeof c->seen[i], "%s", routine);
    atomic_store(&c->client[i].state, routine ? SM_CLIENT_REGISTERED : SM_CLIENT_FREE);
}

static void publish(struct sm_ctrl *c, uint64_t magic, int pid)
{
    c->rank = lt_rank;
    c->pid = pid;
    client(c, 0, "MPI_Finalize");
    c->magic = magic;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: lt_ctrl nofinalize|finalize|mpi_only|neither|note|badmagic|badpid RANK [CODE NOTE]\n");
        return 99;
    }
    lt_init();
    const char *mode = argv[1];
    int who = atoi(argv[2]);
    struct sm_ctrl *c = map_ctrl();
    uint64_t magic = strcmp(mode, "badmagic") == 0 ? SM_CTRL_MAGIC ^ 1 : SM_CTRL_MAGIC;
    int pid = strcmp(mode, "badpid") == 0 ? (int)getppid() : (int)getpid();   /* another, live process */
    publish(c, magic, pid);
    /* MPI and SHMEM in one program: two clients; slot 2, not 1, for SHMEM,
     * as a client finalised before another registers leaves a hole. */
    bool two = strcmp(mode, "mpi_only") == 0 || strcmp(mode, "neither") == 0;
    if (two) client(c, 2, "shmem_finalize");
    lt_wait_all();

    if (strcmp(mode, "finalize") == 0) {           /* everyone finalizes: success */
        client(c, 0, NULL);
        printf("rank %d: finalized\n", lt_rank);
        return 0;
    }
    if (strcmp(mode, "mpi_only") == 0) client(c, 0, NULL);
    if (who >= 0 && lt_rank != who) lt_sleep_forever();   /* who < 0: every rank */
    if (strcmp(mode, "note") == 0 && argc >= 5) {
        int code = atoi(argv[3]);
        c->exit_code = code;
        snprintf(c->exit_note, sizeof c->exit_note, "%s", argv[4]);
        atomic_fetch_or(&c->flags, SM_CTRL_NOTE);
        fprintf(stderr, "rank %d: aborting\n", lt_rank);
        _exit(code);
    }
    /* nofinalize, mpi_only, neither, badmagic, badpid: exit 0 with a client registered. */
    printf("rank %d: leaving without finalize\n", lt_rank);
    return 0;
}
