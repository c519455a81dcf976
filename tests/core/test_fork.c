/* fork() in a rank: the child gets copies of the rank's globals, stack and
 * heap, so neither side sees the other's writes; fork+exec, system() and
 * posix_spawn work; the rank stays a rank. */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static int global = 1;

int main(void)
{
    int me = sm_rank(), n = sm_size();
    int on_stack = 2;
    int *heap = malloc(sizeof *heap);
    *heap = 3;
    for (int round = 0; round < 20; round++) {
        pid_t pid = fork();
        CHECK(pid >= 0, "fork failed");
        if (pid == 0) {
            /* The child sees the values at fork time ... */
            int ok = global == 1 + round && on_stack == 2 + round && *heap == 3 + round;
            /* ... and its writes stay its own. */
            global = -1;
            on_stack = -1;
            *heap = -1;
            char *junk = malloc(1 << 20);
            memset(junk, 0x5a, 1 << 20);
            _exit(ok ? 0 : 1);
        }
        int st;
        CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child saw wrong values (round %d)", round);
        CHECK(global == 1 + round && on_stack == 2 + round && *heap == 3 + round,
              "the child's writes reached the parent: %d %d %d", global, on_stack, *heap);
        global++, on_stack++, (*heap)++;
    }
    pid_t pid = fork();
    if (pid == 0) { execlp("true", "true", (char *)NULL); _exit(127); }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork+exec");
    CHECK(system("exit 0") == 0, "system()");
    /* Still a rank: peers reach our globals. */
    sm_barrier();
    *(int *)sm_remote((me + 1) % n, &global) = 100 + me;
    sm_barrier();
    CHECK(global == 100 + (me + n - 1) % n, "exchange after fork: %d", global);
    if (me == 0) printf("fork: 20 forks per rank, exec, system on %d ranks\n", n);
    free(heap);
    return 0;
}
