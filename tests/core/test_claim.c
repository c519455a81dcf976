/* Who holds a rank (init.c's claim): the one smartmap program the rank runs
 * (a wrapper that execs it hands the rank on); any other smartmap program
 * in the rank is a job of one that fails, saying why, once it uses the job.
 * Mode (argv[1]):
 *   use      use the job (sm_rank, sm_size, sm_barrier) and say so; its
 *            arguments and environment still read in /proc (for ps, and
 *            for smrun's guardian, which finds a job's processes so);
 *   quiet    allocate and return, never using the job;
 *   reexec   use the job, then (rank 0) exec this program again in mode use:
 *            that second program cannot join (exit 1, one line);
 *   spawn    use the job, then run this program with system(): in mode use
 *            it must fail, in mode quiet succeed; and what it starts has
 *            address space randomisation back (the ranks have it off);
 *   sleep    sleep forever without using the job (a daemon a rank starts). */
#include <fcntl.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

/* Whether /proc/self/NAME (NUL-separated strings) holds an entry starting with what. */
static int proc_has(const char *name, const char *what)
{
    char path[64], buf[65536];
    snprintf(path, sizeof path, "/proc/self/%s", name);
    int fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0) close(fd);
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
        if (!strncmp(buf + i, what, strlen(what))) return 1;
    return 0;
}

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
        CHECK(proc_has("cmdline", "use"), "/proc/self/cmdline lost the arguments");
        CHECK(proc_has("environ", "SMARTMAP_JOB="), "/proc/self/environ lost the environment");
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
        st = system("[ $(( 0x$(cat /proc/self/personality) & 0x40000 )) = 0 ]");
        CHECK(st == 0, "what a rank starts runs with address space randomisation off");
        sm_barrier();
        if (me == 0) printf("test_claim: spawn ok\n");
        return 0;
    }
    CHECK(0, "unknown mode %s", mode);
}
