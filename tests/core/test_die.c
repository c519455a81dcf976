/* A rank that ends badly while its peers wait in sm_barrier; smrun must end
 * the job. Mode (argv[1]): segv, exit3, nofinalize, abort, hang (for
 * --timeout and signals to smrun), ok; early and early_exit: rank 1 exits 0
 * before it uses the job (as a rank that returns before MPI_Init), by return
 * or by _exit, while the others initialise "MPI". Rank 1 is the one that
 * fails (rank 0 when alone). */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    const char *env_rank = getenv("SMARTMAP_RANK");   /* not sm_rank(): that uses the job */
    if (env_rank && !strcmp(env_rank, "1")) {
        if (!strcmp(mode, "early")) return 0;
        if (!strcmp(mode, "early_exit")) _exit(0);
    }
    int me = sm_rank(), victim = sm_size() > 1 ? 1 : 0;
    sm_finalize_required("MPI_Finalize");
    char *buf = malloc(1 << 20);
    memset(buf, me, 1 << 20);
    sm_barrier();
    if (me == victim) {
        if (!strcmp(mode, "segv")) {
            signal(SIGSEGV, SIG_DFL);     /* killed by it, even where a sanitizer catches it */
            raise(SIGSEGV);
        }
        if (!strcmp(mode, "exit3")) exit(3);
        if (!strcmp(mode, "nofinalize")) return 0;
        if (!strcmp(mode, "abort")) sm_abort(5, "called MPI_Abort(MPI_COMM_WORLD, 5)");
        if (!strcmp(mode, "hang")) for (;;) pause();
    }
    sm_barrier();   /* the others wait here for a peer that is gone */
    sm_finalize_done("MPI_Finalize");
    free(buf);
    return 0;
}
