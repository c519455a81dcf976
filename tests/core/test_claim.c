/* Who holds a rank (init.c's claim): the one smartmap program the rank runs
 * (a wrapper that execs it hands the rank on); any other smartmap program
 * in the rank is a job of one that fails, saying why, once it uses the job.
 * Mode (argv[1]):
 *   use      use the job (sm_rank, sm_size, sm_barrier) and say so;
 *   quiet    allocate and return, never using the job;
 *   reexec   use the job, then (rank 0) exec this program again in mode use:
 *            that second program cannot join (exit 1, one line);
 *   spawn    use the job, then run this program with system(): in mode use
 *            it must fail, in mode quiet succeed;
 *   sleep    sleep forever without using the job (a daemon a rank starts). */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "use";
    if (!strcmp(mode, "quiet")) {
        free(malloc(100));
        return 0;
    }
    if (!strcmp(mode, "sleep")) {
        for (;;) pause();
    }
    int me = sm_rank(), n = sm_size();
    sm_barrier();
    if (!strcmp(mode, "use")) {
        printf("test_claim: rank %d of %d\n", me, n);
        return 0;
    }
    if (!strcmp(mode, "reexec")) {
        if (me != 0) { sm_barrier(); return 0; }   /* waits for rank 0, which fails */
        fflush(stdout);
        execl("/proc/self/exe", argv[0], "use", (char *)NULL);
        CHECK(0, "exec: %m");
    }
    if (!strcmp(mode, "spawn")) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "exec '%s' use", argv[0]);
        int st = system(cmd);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1, "a program the rank started used the job: status %#x", st);
        snprintf(cmd, sizeof cmd, "exec '%s' quiet", argv[0]);
        st = system(cmd);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a program the rank started, not using the job: status %#x", st);
        sm_barrier();
        if (me == 0) printf("test_claim: spawn ok\n");
        return 0;
    }
    CHECK(0, "unknown mode %s", mode);
}
