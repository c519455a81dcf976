/* lt_rank.c: a rank for the launcher tests (plain C, no libsmartmap); argv[1]
 * picks what it does: report its identity, environment, memfds, ASLR and CPU
 * binding, print many lines, or fail in one of the ways smrun must notice. */
#include "lt_common.h"   /* first: it defines _GNU_SOURCE */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>

static void usage(void)
{
    fprintf(stderr, "usage: lt_rank hello|env VAR...|lines N LEN|die RANK segv|exit N|"
                    "partial|hang|ignore-int|grandchild RANK|memfd HEAP|aslr|affinity|stdin|fds\n");
    exit(99);
}

/* Rank `who` (every rank if < 0) dies as `how` once every rank is up; the
 * others wait forever. */
static void die(int who, const char *how, char **rest)
{
    lt_wait_all();
    if (who >= 0 && lt_rank != who) lt_sleep_forever();
    printf("rank %d: last words on stdout\n", lt_rank);
    fputs("partial line without newline", stdout);
    fflush(stdout);
    if (strcmp(how, "segv") == 0) { volatile int *p = NULL; *p = 1; }
    if (strcmp(how, "exit") == 0) exit(rest[0] ? atoi(rest[0]) : 3);
    if (strcmp(how, "exit0") == 0) exit(0);
    if (strcmp(how, "abort") == 0) abort();
    usage();
}

/* A grandchild that sleeps forever: in the ranks' process group, and one
 * that left it with setsid(); then rank `who` exits 0, or all do (-1). With
 * $LT_GRANDCHILD_EXEC, the grandchildren exec that program (with argument
 * "sleep") after recording themselves: a smartmap program, whose exposed
 * stack must not hide its environment from smrun's guardian. */
static void grandchild(int who, bool fail)
{
    for (int k = 0; k < 2; k++) {
        pid_t p = fork();
        if (p == 0) {
            if (k == 1) setsid();          /* both keep the rank's stdout open */
            lt_record("grandchild");
            const char *prog = getenv("LT_GRANDCHILD_EXEC");
            if (prog) execl(prog, prog, "sleep", (char *)NULL);
            lt_sleep_forever();
        }
    }
    /* Wait until both grandchildren have recorded themselves. */
    lt_wait_all();
    const char *dir = getenv("LT_DIR");
    for (int i = 0; dir && i < 500; i++) {
        int n = 0;
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d))) n += strncmp(e->d_name, "grandchild.", 11) == 0;
        if (d) closedir(d);
        if (n >= 2 * (who < 0 ? lt_size : 1)) break;
        struct timespec ts = { 0, 10 * 1000000 };
        nanosleep(&ts, NULL);
    }
    printf("rank %d: grandchildren started\n", lt_rank);
    fflush(stdout);
    if (who >= 0 && lt_rank != who) lt_sleep_forever();
    exit(fail ? 5 : 0);
}

static void lines(int n, int len)
{
    /* Full buffering, a buffer that is no multiple of the line length, and
     * both streams: lines reach the pipe in pieces; smrun must rejoin them. */
    static char outbuf[5000], errbuf[3000];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    setvbuf(stderr, errbuf, _IOFBF, sizeof errbuf);
    char *payload = malloc((size_t)len + 1);
    for (int i = 0; i < n; i++) {
        char c = (char)('a' + (lt_rank + i) % 26);
        memset(payload, c, (size_t)len);
        payload[len] = '\0';
        FILE *f = i % 3 == 2 ? stderr : stdout;
        fprintf(f, "L %d %d %s E\n", lt_rank, i, payload);
    }
    free(payload);
}

static void memfd_report(unsigned long long heap)
{
    const char *fd0s = getenv("SMARTMAP_FD0");
    if (!fd0s) { printf("no SMARTMAP_FD0\n"); exit(1); }
    int fd0 = atoi(fd0s);
    int bad = 0;
    for (int i = 0; i < lt_size; i++) {
        char path[64], target[256], want[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd0 + i);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n < 0) { printf("rank %d: fd %d: %s\n", lt_rank, fd0 + i, strerror(errno)); bad++; continue; }
        target[n] = '\0';
        snprintf(want, sizeof want, "/memfd:smartmap.rank%d ", i);   /* "(deleted)" follows */
        struct stat st;
        fstat(fd0 + i, &st);
        unsigned long long size = (unsigned long long)st.st_size;
        if (strncmp(target, want, strlen(want)) != 0 || (heap && (size != (32ULL << 30) ||
                                                                   !getenv("SMARTMAP_HEAP_BYTES") || strtoull(getenv("SMARTMAP_HEAP_BYTES"), NULL, 10) != heap))) {
            printf("rank %d: fd %d is %s, %llu bytes\n", lt_rank, fd0 + i, target, size);
            bad++;
        }
    }
    struct stat st;
    int flags = fcntl(fd0 + lt_rank, F_GETFD);
    fstat(fd0 + lt_rank, &st);
    printf("rank %d: memfds %s cloexec=%d size=%llu\n", lt_rank, bad ? "BAD" : "ok",
           flags >= 0 && (flags & FD_CLOEXEC), (unsigned long long)st.st_size);
}

int main(int argc, char **argv)
{
    if (argc < 2) usage();
    lt_init();
    const char *mode = argv[1];
    if (strcmp(mode, "hello") == 0) {
        const char *pid = getenv("SMARTMAP_PID");
        printf("hello rank=%s size=%s pidmatch=%d pages=%s launcher=%s args=%d\n",
               getenv("SMARTMAP_RANK"), getenv("SMARTMAP_SIZE"),
               pid && atoi(pid) == (int)getpid(), getenv("SMARTMAP_PAGES"),
               getenv("SMARTMAP_LAUNCHER"), argc - 2);
        for (int i = 2; i < argc; i++) printf("arg %s\n", argv[i]);
    } else if (strcmp(mode, "env") == 0) {
        for (int i = 2; i < argc; i++) {
            const char *v = getenv(argv[i]);
            printf("rank %d: %s=%s\n", lt_rank, argv[i], v ? v : "(unset)");
        }
    } else if (strcmp(mode, "lines") == 0 && argc >= 4) {
        lines(atoi(argv[2]), atoi(argv[3]));
    } else if (strcmp(mode, "die") == 0 && argc >= 4) {
        die(atoi(argv[2]), argv[3], argv + 4);
    } else if (strcmp(mode, "partial") == 0) {
        printf("rank %d: no newline", lt_rank);   /* the last line, unfinished */
    } else if (strcmp(mode, "hang") == 0) {
        printf("rank %d: hanging\n", lt_rank);
        fflush(stdout);
        lt_sleep_forever();
    } else if (strcmp(mode, "ignore-int") == 0) {
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        lt_sleep_forever();
    } else if (strcmp(mode, "grandchild") == 0 && argc >= 3) {
        grandchild(atoi(argv[2]), argc >= 4 && strcmp(argv[3], "fail") == 0);
    } else if (strcmp(mode, "memfd") == 0 && argc >= 3) {
        memfd_report(strtoull(argv[2], NULL, 10));
    } else if (strcmp(mode, "aslr") == 0) {
        char buf[64] = "";
        FILE *f = fopen("/proc/self/personality", "r");
        if (f) { if (!fgets(buf, sizeof buf, f)) buf[0] = '\0'; fclose(f); }
        buf[strcspn(buf, "\n")] = '\0';
        int local;
        void *heap = malloc(100);
        printf("rank %d: personality=%s stack=%p heap=%p\n", lt_rank, buf, (void *)&local, heap);
    } else if (strcmp(mode, "affinity") == 0) {
        cpu_set_t set;
        sched_getaffinity(0, sizeof set, &set);
        printf("rank %d: ncpus=%d cpus=", lt_rank, CPU_COUNT(&set));
        for (int c = 0; c < CPU_SETSIZE; c++) if (CPU_ISSET(c, &set)) printf("%d,", c);
        printf("\n");
    } else if (strcmp(mode, "stdin") == 0) {
        char buf[4096];
        size_t total = 0, n;
        while ((n = fread(buf, 1, sizeof buf, stdin)) > 0) total += n;
        printf("rank %d: stdin bytes=%zu\n", lt_rank, total);
    } else if (strcmp(mode, "fds") == 0) {
        /* Open fds other than stdio, the memfds and the spawn service: smrun must leave none. */
        int fd0 = atoi(getenv("SMARTMAP_FD0") ? getenv("SMARTMAP_FD0") : "-1000");
        int spawn_fd = atoi(getenv("SMARTMAP_SPAWN_FD") ? getenv("SMARTMAP_SPAWN_FD") : "-1000");
        DIR *d = opendir("/proc/self/fd");
        struct dirent *e;
        printf("rank %d: extra fds:", lt_rank);
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            int fd = atoi(e->d_name);
            if (fd <= 2 || fd == dirfd(d) || fd == spawn_fd || (fd >= fd0 && fd < fd0 + lt_size)) continue;
            char path[64], target[256] = "";
            snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
            ssize_t n = readlink(path, target, sizeof target - 1);
            if (n > 0) target[n] = '\0';
            printf(" %d=%s", fd, target);
        }
        if (d) closedir(d);
        printf("\n");
    } else {
        usage();
    }
    return 0;
}
