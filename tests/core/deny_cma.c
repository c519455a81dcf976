/* deny_cma [--membarrier|--kill] PROG ARGS...: run PROG with
 * process_vm_readv/writev denied by a seccomp filter (EPERM), as Docker's
 * default profile does, and with --membarrier membarrier too (wakers must
 * then fence); with --kill the filter kills the caller instead (SIGSYS), as
 * stricter profiles do. Inherited by every process PROG starts, so
 * `deny_cma smrun -n 4 ./t` denies the ranks. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int membarrier = argc > 1 && strcmp(argv[1], "--membarrier") == 0;
    int kill = argc > 1 && strcmp(argv[1], "--kill") == 0;
    argv += membarrier + kill, argc -= membarrier + kill;
    if (argc < 2) {
        fprintf(stderr, "usage: deny_cma [--membarrier|--kill] PROG [ARGS...]\n");
        return 2;
    }
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_writev, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, membarrier ? SYS_membarrier : SYS_process_vm_writev, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, kill ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    };
    struct sock_fprog prog = { sizeof f / sizeof f[0], f };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        fprintf(stderr, "deny_cma: cannot install the seccomp filter: %s\n", strerror(errno));
        return 2;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "deny_cma: %s: %s\n", argv[1], strerror(errno));
    return 127;
}
