/* smrun.c: the launcher (Catamount's yod): creates the ranks' memfds, forks
 * and sets up the ranks, forwards their output line by line and signals to
 * them, notices the first failure, and leaves nothing behind; shares its
 * universe of slots with jobs that join it (--universe, --join). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "smrun.h"

#define LINE_MAX_BUF (1u << 20)   /* a longer partial line is forwarded unfinished */
#define KILL_GRACE_MS 1000        /* forwarded signal -> SIGKILL */

/* One output stream of one rank: bytes after the last '\n' wait here. */
struct stream {
    int    fd;          /* read end of the rank's pipe; -1 at EOF */
    char  *buf;
    size_t len, cap;
};

struct rank {
    pid_t  pid;
    int    app;
    bool   exited;      /* seen by waitid(WNOWAIT): a zombie until the end */
    bool   clean;       /* exited 0, finalized: no failure, but see stranded() */
    int    status;      /* wait status */
    bool   foreign;     /* a slot another smrun of the universe started (exited is set) */
    const struct sm_ctrl *ctrl;  /* the first page of its memfd, read-only */
    struct stream io[2];         /* [0] stdout, [1] stderr */
};

static struct options opt;
static struct rank *ranks;
static int nranks;            /* slots used so far: the first -n, then spawned ones (and
                               * other jobs' slots of the universe below, marked foreign) */
static int first_slot;        /* the first rank's slot: 0, or where --join put the job */
/* A rank as the user knows it: its place in the job (the slot, unless the
 * job joined another's universe). */
static int label(int r) { return r - first_slot; }
static int fd0;
static int spawn_rd = -1;     /* smrun's end of the spawn service (the ranks' is fd FD0 + universe) */
static pid_t pgid;            /* the ranks' process group (rank 0's pid) */
static pid_t self;
static int epfd, sigfd, devnull = -1;
static sigset_t orig_mask, handled;
static struct sigaction orig_pipe, orig_ttin;
static bool out_broken[2];    /* smrun's stdout/stderr gone: drop rank output */

/* stdin relay (only when stdin is a terminal): see start_stdin_relay(). */
static int relay_in = -1;     /* write end of rank 0's stdin pipe */
static int relay_rd = -1;     /* read end, given to rank 0 */
static char relay_buf[4096];
static size_t relay_len, relay_off;
static bool relay_stdin_on;

/* The guardian (see start_guardian()) and the job's mark in the ranks'
 * environment, SMARTMAP_JOB=<token>, by which it finds the job's processes. */
static char job_token[48];
static int guard_wr = -1;
static bool clean_exits;      /* a rank exited cleanly: see stranded() */

/* The cause that ends the job, first come first served. */
static bool ending;
static int exit_code;
static int64_t kill_at_ms = -1;   /* SIGKILL the group then (signal grace) */
static int64_t timeout_at_ms = -1;

/* The universe (--universe: serving it; --join: a member): see below. */
static int univ_listen = -1;  /* --universe: the listening socket */
static int univ_server = -1;  /* --join: the connection to the first job's smrun */
static bool have_foreign;     /* slots of other jobs share the universe: watch_links() */
static int64_t links_at_ms;   /* when watch_links() looked last */
struct peer { int fd; bool sent_fds; };
static struct peer *peers;    /* --universe: the smruns that joined */
static int npeers;

enum { EV_PEER = 1u << 29, EV_SIGNAL = 1u << 30, EV_STDIN, EV_RELAY, EV_SPAWN, EV_LISTEN };

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static _Noreturn void die(const char *what)
{
    msg("%s: %s", what, strerror(errno));
    exit(SMRUN_EXIT_INTERNAL);
}

/* ---- output ------------------------------------------------------------- */

/* All of buf to fd (1 or 2), waiting if fd is non-blocking. A reader that
 * went away (EPIPE) stops forwarding to that stream; the ranks keep going. */
static void write_all(int s, const char *buf, size_t len)
{
    int fd = s ? STDERR_FILENO : STDOUT_FILENO;
    while (len && !out_broken[s]) {
        ssize_t w = write(fd, buf, len);
        if (w > 0) { buf += w; len -= (size_t)w; continue; }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EAGAIN) {
            struct pollfd p = { .fd = fd, .events = POLLOUT };
            poll(&p, 1, -1);
            continue;
        }
        out_broken[s] = true;
    }
}

/* The rank whose last output on stdout [0] / stderr [1] did not end its
 * line (a last line without '\n', a runaway line), or -1. Another rank's
 * output, or smrun's own message, starts a new line first. */
static int unfinished[2] = { -1, -1 };

void end_partial_line(int s)
{
    if (unfinished[s] >= 0) write_all(s, "\n", 1);
    unfinished[s] = -1;
}

/* Forward the complete lines in [buf, buf+len) of rank r with one write(). */
static void emit(int r, int s, const char *buf, size_t len)
{
    if (!len) return;
    if (unfinished[s] != r) end_partial_line(s);
    unfinished[s] = buf[len - 1] == '\n' ? -1 : r;
    if (!opt.tag_output) { write_all(s, buf, len); return; }
    unfinished[s] = -1;                          /* tagged lines are always ended */
    char tag[16];
    int tlen = snprintf(tag, sizeof tag, "[%d] ", label(r));
    size_t lines = 0;
    for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
    if (len && buf[len - 1] != '\n') lines++;
    char *out = malloc(len + lines * (size_t)tlen + 1);
    if (!out) { write_all(s, buf, len); return; }
    size_t o = 0;
    for (size_t i = 0; i < len; ) {
        memcpy(out + o, tag, (size_t)tlen); o += (size_t)tlen;
        const char *nl = memchr(buf + i, '\n', len - i);
        size_t l = nl ? (size_t)(nl - (buf + i)) + 1 : len - i;
        memcpy(out + o, buf + i, l); o += l; i += l;
    }
    if (out[o - 1] != '\n') out[o++] = '\n';   /* a tagged final fragment ends its line */
    write_all(s, out, o);
    free(out);
}

/* Read what the pipe has; forward whole lines; at EOF the remainder too.
 * Returns false when the pipe would block. */
static bool pump(int r, int s)
{
    struct stream *st = &ranks[r].io[s];
    if (st->fd < 0) return false;
    if (st->cap - st->len < 65536) {
        st->cap = st->cap ? st->cap * 2 : 131072;
        st->buf = xrealloc(st->buf, st->cap);
    }
    ssize_t n = read(st->fd, st->buf + st->len, st->cap - st->len);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) {
        if (n < 0 && errno == EAGAIN) return false;
        emit(r, s, st->buf, st->len);            /* EOF (or error): flush the partial line */
        st->len = 0;
        epoll_ctl(epfd, EPOLL_CTL_DEL, st->fd, NULL);
        close(st->fd);
        st->fd = -1;
        free(st->buf);
        st->buf = NULL;
        st->cap = 0;
        return false;
    }
    size_t old = st->len;
    st->len += (size_t)n;
    char *last = memrchr(st->buf + old, '\n', (size_t)n);
    size_t whole = last ? (size_t)(last - st->buf) + 1 : 0;
    if (!whole && st->len >= LINE_MAX_BUF) whole = st->len;  /* runaway line */
    if (whole) {
        emit(r, s, st->buf, whole);
        memmove(st->buf, st->buf + whole, st->len - whole);
        st->len -= whole;
    }
    return true;
}

static void drain_rank(int r)
{
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 1024 && pump(r, s); i++) ;
}

/* ---- the stdin relay -------------------------------------------------------
 * Ranks run in their own process group, which is not the terminal's
 * foreground group: a rank reading the terminal would be stopped (SIGTTIN).
 * So when stdin is a terminal smrun reads it and feeds rank 0 through a pipe;
 * otherwise rank 0 simply inherits smrun's stdin. */

static void start_stdin_relay(void)
{
    if (!isatty(STDIN_FILENO)) return;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) die("pipe");
    relay_rd = p[0];
    relay_in = p[1];
    fcntl(relay_in, F_SETFL, O_NONBLOCK);
    /* smrun in the background: read() fails with EIO instead of stopping us. */
    struct sigaction ign = { .sa_handler = SIG_IGN };
    sigaction(SIGTTIN, &ign, &orig_ttin);
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = EV_STDIN };
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, STDIN_FILENO, &ev) == 0) relay_stdin_on = true;
    struct epoll_event evo = { .events = 0, .data.u32 = EV_RELAY };
    epoll_ctl(epfd, EPOLL_CTL_ADD, relay_in, &evo);
}

static void stop_stdin_relay(void)
{
    if (relay_stdin_on) epoll_ctl(epfd, EPOLL_CTL_DEL, STDIN_FILENO, NULL);
    relay_stdin_on = false;
    if (relay_in >= 0) { epoll_ctl(epfd, EPOLL_CTL_DEL, relay_in, NULL); close(relay_in); }
    relay_in = -1;
}

static void relay_step(void)
{
    if (relay_in < 0) return;
    if (relay_off == relay_len) {
        ssize_t n = read(STDIN_FILENO, relay_buf, sizeof relay_buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
        if (n <= 0) { stop_stdin_relay(); return; }  /* EOF (^D), or EIO in the background */
        relay_len = (size_t)n;
        relay_off = 0;
    }
    while (relay_off < relay_len) {
        ssize_t w = write(relay_in, relay_buf + relay_off, relay_len - relay_off);
        if (w > 0) { relay_off += (size_t)w; continue; }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EAGAIN) break;
        stop_stdin_relay();                           /* rank 0 closed its stdin */
        return;
    }
    /* While rank 0 has not taken everything, wait for it rather than stdin. */
    bool full = relay_off < relay_len;
    struct epoll_event ev = { .events = full ? 0 : EPOLLIN, .data.u32 = EV_STDIN };
    epoll_ctl(epfd, EPOLL_CTL_MOD, STDIN_FILENO, &ev);
    struct epoll_event evo = { .events = full ? EPOLLOUT : 0, .data.u32 = EV_RELAY };
    epoll_ctl(epfd, EPOLL_CTL_MOD, relay_in, &evo);
}

/* ---- the children ------------------------------------------------------- */

/* State, parent and process group of process pid (a /proc entry's name). */
static bool proc_stat(const char *pid, char *state, int *ppid, int *pgrp)
{
    char path[300], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t len = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (len <= 0) return false;
    buf[len] = '\0';
    char *p = strrchr(buf, ')');                     /* comm may hold spaces and ')' */
    return p && sscanf(p + 1, " %c %d %d", state, ppid, pgrp) == 3;
}
static bool is_pid(const char *name) { return name[0] >= '1' && name[0] <= '9'; }

/* Children of smrun: the ranks, and whatever they started that was
 * orphaned (smrun is their subreaper). */
static int list_children(pid_t **out)
{
    int n = 0, cap = 0;
    pid_t *v = NULL;
    DIR *d = opendir("/proc");
    if (!d) { *out = NULL; return 0; }
    struct dirent *e;
    while ((e = readdir(d))) {
        char state;
        int ppid, pgrp;
        if (!is_pid(e->d_name) || !proc_stat(e->d_name, &state, &ppid, &pgrp) || ppid != self) continue;
        if (n == cap) v = xrealloc(v, sizeof(pid_t) * (size_t)(cap = cap ? 2 * cap : 64));
        v[n++] = (pid_t)atoi(e->d_name);
    }
    closedir(d);
    *out = v;
    return n;
}

static int rank_of(pid_t pid)
{
    for (int r = 0; r < nranks; r++) if (ranks[r].pid == pid) return r;
    return -1;
}

static int ranks_alive(void)
{
    int n = 0;
    for (int r = 0; r < nranks; r++) n += !ranks[r].exited;
    return n;
}

/* Signal the ranks' process group. Safe from pid reuse: ranks stay zombies
 * until the very end, so the group (rank 0's pid) exists while we use it. */
static void kill_group(int sig)
{
    if (pgid > 0) kill(-pgid, sig);
}

/* Everything in the child between fork and exec. */
static _Noreturn void child(int r, int sp_out[2], int sp_err[2])
{
    const struct app *a = &opt.apps[ranks[r].app];
    char num[32];

    setpgid(0, r == first_slot ? 0 : pgid);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != self) _exit(127);           /* smrun died before prctl */

    sigaction(SIGPIPE, &orig_pipe, NULL);
    if (relay_rd >= 0) sigaction(SIGTTIN, &orig_ttin, NULL);
    sigprocmask(SIG_SETMASK, &orig_mask, NULL);

    int stdin_fd = r == first_slot ? (relay_rd >= 0 ? relay_rd : -1) : devnull;
    if ((stdin_fd >= 0 && dup2(stdin_fd, STDIN_FILENO) < 0) ||
        dup2(sp_out[1], STDOUT_FILENO) < 0 || dup2(sp_err[1], STDERR_FILENO) < 0)
        _exit(127);

    int pers = personality(0xffffffff);
    if (pers == -1 || personality((unsigned long)pers | ADDR_NO_RANDOMIZE) == -1) {
        if (r == first_slot) msg("warning: cannot turn address space randomisation off: %s", strerror(errno));
    }

    if (opt.bind_core) {
        cpu_set_t all, one;
        if (sched_getaffinity(0, sizeof all, &all) == 0 && CPU_COUNT(&all) > 0) {
            int want = r % CPU_COUNT(&all), cpu = -1;
            for (int c = 0, k = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, &all) && k++ == want) { cpu = c; break; }
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            if (sched_setaffinity(0, sizeof one, &one) != 0 && r == first_slot)
                msg("warning: cannot bind rank 0 to CPU %d: %s", cpu, strerror(errno));
        }
    }

    /* Environment: smrun's, then -x, then ours (which -x cannot override). */
    for (int i = 0; i < opt.ngenv; i++) if (strchr(opt.genv[i], '=')) putenv(opt.genv[i]);
    for (int i = 0; i < a->nenv; i++) if (strchr(a->env[i], '=')) putenv(a->env[i]);
    snprintf(num, sizeof num, "%d", r);           setenv(SM_ENV_RANK, num, 1);
    snprintf(num, sizeof num, "%d", opt.universe); setenv(SM_ENV_SIZE, num, 1);
    snprintf(num, sizeof num, "%d", a->world_base); setenv(SM_ENV_WBASE, num, 1);
    snprintf(num, sizeof num, "%d", a->world_size); setenv(SM_ENV_WSIZE, num, 1);
    snprintf(num, sizeof num, "%d", a->appnum);   setenv(SM_ENV_APPNUM, num, 1);
    snprintf(num, sizeof num, "%d", fd0 + opt.universe); setenv(SM_ENV_SPAWNFD, num, 1);
    if (a->parent) setenv(SM_ENV_PARENT, a->parent, 1);
    else unsetenv(SM_ENV_PARENT);
    snprintf(num, sizeof num, "%d", (int)getpid()); setenv(SM_ENV_PID, num, 1);
    snprintf(num, sizeof num, "%d", fd0);         setenv(SM_ENV_FD0, num, 1);
    setenv(SM_ENV_PAGES, opt.pages, 1);
    snprintf(num, sizeof num, "%llu", (unsigned long long)a->heap_bytes);
    setenv(SM_ENV_HEAP, num, 1);
    setenv(SM_ENV_LAUNCHER, "smrun " SMRUN_VERSION, 1);
    setenv(SM_ENV_JOB, job_token, 1);
    if (opt.preload) {
        const char *old = getenv("LD_PRELOAD");
        if (old && *old) {
            char *v = malloc(strlen(opt.preload_lib) + strlen(old) + 2);
            if (v) { sprintf(v, "%s:%s", opt.preload_lib, old); setenv("LD_PRELOAD", v, 1); }
        } else {
            setenv("LD_PRELOAD", opt.preload_lib, 1);
        }
    }

    /* Every other fd smrun opened is O_CLOEXEC; the memfds at FD0.. are not. */
    execv(a->path, a->argv);
    msg("rank %d: cannot execute %s: %s", label(r), a->path, strerror(errno));
    _exit(127);
}

/* ---- setup -------------------------------------------------------------- */

static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0) {
            int n = open("/dev/null", O_RDWR);
            if (n >= 0 && n != fd) { dup2(n, fd); close(n); }
        }
}

static int highest_open_fd(void)
{
    int hi = 2;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return 1024;                         /* no /proc: stay well clear */
    struct dirent *e;
    while ((e = readdir(d))) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd != dirfd(d) && fd > hi) hi = fd;
    }
    closedir(d);
    return hi;
}

/* fds the job needs in smrun: the memfds, two pipes per rank, a few more
 * (slots: the universe's, or the most a universe may have before a --join
 * learns its size). */
static void raise_nofile(int slots)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
    rlim_t need = (rlim_t)fd0 + 3 * (rlim_t)slots + 32;
    if (rl.rlim_cur >= need) return;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
        usage_error("-n: %d ranks need %llu file descriptors, but the limit is %llu (ulimit -Hn)",
                    slots, (unsigned long long)need, (unsigned long long)rl.rlim_max);
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) die("setrlimit(RLIMIT_NOFILE)");
}

/* The first pages of slot r's memfd (fd FD0 + r), mapped here to read the
 * control block of the process in it. */
static void map_ctrl(int r)
{
    size_t psz = (size_t)sysconf(_SC_PAGESIZE);
    size_t ctrl_len = (sizeof(struct sm_ctrl) + psz - 1) / psz * psz;
    void *p = mmap(NULL, ctrl_len, PROT_READ, MAP_SHARED, fd0 + r, 0);
    if (p == MAP_FAILED) die("mmap(memfd)");
    ranks[r].ctrl = p;
}

/* One datagram per request, from any rank; the reply goes back on a
 * socket the request carries. The ranks' end is fd FD0 + universe. */
static void make_spawn_service(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) die("socketpair");
    int theirs = fd0 + opt.universe;
    spawn_rd = fcntl(sv[0], F_DUPFD_CLOEXEC, theirs + 1);   /* out of the way of theirs */
    if (spawn_rd < 0) die("fcntl");
    close(sv[0]);
    if (sv[1] != theirs) {
        if (dup2(sv[1], theirs) < 0) die("dup2");     /* (without close-on-exec: the ranks inherit it) */
        close(sv[1]);
    } else if (fcntl(theirs, F_SETFD, 0) != 0) die("fcntl");
    fcntl(spawn_rd, F_SETFL, O_NONBLOCK);
}

/* One memfd per slot of the universe at fds FD0.., inherited by every rank
 * (not close-on-exec), and the first page of each mapped here to read the
 * rank's control block. A slot no process uses costs nothing. Then the
 * spawn service at FD0 + universe (see serve_spawn). */
static void create_memfds(void)
{
    for (int r = 0; r < opt.universe; r++) {
        char name[32];
        snprintf(name, sizeof name, "smartmap.rank%d", r);
        int fd = memfd_create(name, 0);
        if (fd < 0) die("memfd_create");
        if (fd != fd0 + r) {
            if (dup2(fd, fd0 + r) < 0) die("dup2");
            close(fd);
        }
        /* Up to the symmetric region, which each rank grows itself if it needs one. */
        if (ftruncate(fd0 + r, (off_t)SM_SYM_OFF) != 0) die("ftruncate(memfd)");
        map_ctrl(r);
    }
    make_spawn_service();
}

static void add_fd(int fd, uint32_t id)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = id };
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0) die("epoll_ctl");
}

/* Start ranks [first, end): false if a fork failed, and the job ends. */
static bool start_ranks(int first, int end)
{
    fflush(NULL);
    for (int r = first; r < end; r++) {
        int po[2], pe[2];
        if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) die("pipe");
        pid_t pid = fork();
        if (pid < 0) {
            msg("fork (rank %d): %s", label(r), strerror(errno));
            exit_code = SMRUN_EXIT_INTERNAL;
            ending = true;
            close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
            for (int k = r; k < end; k++) { ranks[k].exited = true; ranks[k].io[0].fd = ranks[k].io[1].fd = -1; }
            kill_group(SIGKILL);
            return false;
        }
        if (pid == 0) child(r, po, pe);
        if (r == first_slot) pgid = pid;
        setpgid(pid, pgid);                      /* also here: whoever runs first wins */
        ranks[r].pid = pid;
        close(po[1]);
        close(pe[1]);
        ranks[r].io[0].fd = po[0];
        ranks[r].io[1].fd = pe[0];
        fcntl(po[0], F_SETFL, O_NONBLOCK);
        fcntl(pe[0], F_SETFL, O_NONBLOCK);
        add_fd(po[0], (uint32_t)r << 1);
        add_fd(pe[0], (uint32_t)r << 1 | 1);
    }
    return true;
}

static void spawn(void)
{
    for (int ctx = 0; ctx < opt.napps; ctx++) {
        struct app *a = &opt.apps[ctx];
        a->world_base = first_slot, a->world_size = opt.nranks, a->appnum = ctx;
    }
    start_ranks(first_slot, nranks);
    if (relay_rd >= 0) { close(relay_rd); relay_rd = -1; }
}

/* ---- the spawn service -----------------------------------------------------
 * MPI_Comm_spawn's root sends one datagram (sm_job.h: struct sm_spawn_req
 * and the commands) with a socket for the answer. smrun starts the new
 * processes at once in the lowest slots never used, as one world, and
 * answers with the first slot; they join the job like the first ranks. A
 * socket rather than a request in the rank's control block: smrun sleeps
 * in epoll, which a socket wakes with no polling of the ranks' memory, and
 * the answer (and smrun's death) reaches the requester whatever it does. */

static void answer(int fd, int result, int base, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void answer(int fd, int result, int base, const char *fmt, ...)
{
    struct sm_spawn_reply rep = { .result = result, .base = base };
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rep.why, sizeof rep.why, fmt, ap);
    va_end(ap);
    if (send(fd, &rep, sizeof rep, MSG_NOSIGNAL) != (ssize_t)sizeof rep && opt.verbose)
        msg("spawn: the requester is gone: %s", strerror(errno));
    close(fd);
}

/* The next NUL-terminated string of the request at *o, or NULL. */
static char *next_string(char *buf, size_t len, size_t *o)
{
    char *s = buf + *o, *nul = *o < len ? memchr(s, 0, len - *o) : NULL;
    if (!nul) return NULL;
    *o += (size_t)(nul - s) + 1;
    return s;
}

static int take_slots(long count, int *base, char *why, size_t len);

static void serve_spawn(void)
{
    static char buf[SM_SPAWN_REQ_MAX];
    union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } ctl;
    struct iovec iov = { buf, sizeof buf };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof ctl.b };
    ssize_t n = recvmsg(spawn_rd, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    if (n < 0) return;
    int fd = -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
            memcpy(&fd, CMSG_DATA(c), sizeof fd);
    if (fd < 0) return;                          /* not libsmartmap's: no one to answer */
    struct sm_spawn_req h;
    size_t len = (size_t)n, o = sizeof h;
    if (len < sizeof h || (m.msg_flags & MSG_TRUNC)) { answer(fd, SM_SPAWN_BADREQ, -1, "malformed request"); return; }
    memcpy(&h, buf, sizeof h);
    if (h.magic != SM_SPAWN_MAGIC || h.napps < 1 || h.napps > 4096 || h.rank < 0 || h.rank >= nranks ||
        ranks[h.rank].foreign || len < o + 8 * (size_t)h.napps) {
        answer(fd, SM_SPAWN_BADREQ, -1, "malformed request");
        return;
    }
    int32_t *count = (int32_t *)xcalloc((size_t)h.napps * 2, sizeof(int32_t)), *argc = count + h.napps;
    memcpy(count, buf + o, 8 * (size_t)h.napps);
    o += 8 * (size_t)h.napps;
    long total = 0;
    bool ok = true;
    for (int i = 0; i < h.napps; i++) {
        ok = ok && count[i] >= 1 && argc[i] >= 0;
        total += count[i];
    }
    char *parent = ok ? next_string(buf, len, &o) : NULL;
    int base = -1, first_app = opt.napps;
    if (!parent) { answer(fd, SM_SPAWN_BADREQ, -1, "malformed request"); free(count); return; }
    /* The commands first, so that a bad one takes no slot (slots taken from
     * the universe's first smrun cannot be given back). */
    opt.apps = xrealloc(opt.apps, sizeof *opt.apps * (size_t)(opt.napps + h.napps));
    char why[PATH_MAX + 300] = "";
    int i, result = ending ? SM_SPAWN_FAILED : SM_SPAWN_OK;
    if (ending) snprintf(why, sizeof why, "the job is ending");
    for (i = 0; i < h.napps && result == SM_SPAWN_OK; i++) {
        struct app *a = &opt.apps[first_app + i];
        memset(a, 0, sizeof *a);
        a->argv = xcalloc((size_t)argc[i] + 2, sizeof(char *));
        for (int k = 0; k <= argc[i] && result == SM_SPAWN_OK; k++) {
            char *str = next_string(buf, len, &o);
            if (str) a->argv[k] = xstrdup(str);
            else result = SM_SPAWN_BADREQ, snprintf(why, sizeof why, "malformed request");
        }
        if (result == SM_SPAWN_OK && !(a->path = find_program(a->argv[0], why, sizeof why)))
            result = SM_SPAWN_BADCMD;
        a->nranks = count[i];
        a->heap_bytes = opt.apps[ranks[h.rank].app].heap_bytes;
        a->world_size = (int)total, a->appnum = i;
        a->parent = xstrdup(parent);
    }
    if (result == SM_SPAWN_OK) result = take_slots(total, &base, why, sizeof why);
    if (result != SM_SPAWN_OK) {                 /* none starts: forget the contexts made so far */
        for (int k = 0; k < i; k++) {
            struct app *a = &opt.apps[first_app + k];
            for (int j = 0; a->argv[j]; j++) free(a->argv[j]);
            free(a->argv), free(a->path), free(a->parent);
        }
        answer(fd, result, -1, "%s", why);
    } else {
        int r = base;
        for (i = 0; i < h.napps; i++) {
            opt.apps[first_app + i].first_rank = r;
            opt.apps[first_app + i].world_base = base;
            for (int k = 0; k < count[i]; k++) ranks[r++].app = first_app + i;
        }
        opt.napps += h.napps;
        nranks = base + (int)total;
        if (opt.verbose) msg("rank %d spawned ranks %d..%d (%s%s)", label(h.rank), label(base), label(nranks - 1),
                             opt.apps[first_app].argv[0], h.napps > 1 ? " ..." : "");
        if (start_ranks(base, nranks)) answer(fd, SM_SPAWN_OK, base, "ok");
        else answer(fd, SM_SPAWN_FAILED, -1, "smrun could not fork: %s", strerror(errno));
    }
    free(count);
}

/* ---- the universe ----------------------------------------------------------
 * Separately started jobs of one user share a universe of slots (sm_job.h):
 * smrun --universe NAME serves it on an abstract Unix socket (nothing in the
 * file system; it goes with the process), smrun --join NAME asks it for
 * slots and receives every memfd of the universe, so that its ranks map
 * every slot as the first job's do and MPI's ports and names work between
 * the jobs as within one. Slots are handed out once, from the lowest never
 * used, by the first smrun only (for its spawns and for every joined job's,
 * which ask it). Each job keeps its own stdio, signals, exit code and
 * failures; what ties them is watch_links(). */

static void ctrl_string(const char *src, size_t max, char *dst);
static bool missing_finalize(const struct sm_ctrl *c, char *how, size_t len);

static socklen_t universe_addr(const char *name, struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "smartmap-universe.%u.%s", (unsigned)getuid(), name);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* Slots [from, to) are another job's: never ours to wait for or reap. */
static void mark_foreign(int from, int to)
{
    for (int r = from; r < to; r++) {
        ranks[r].foreign = ranks[r].exited = true;
        ranks[r].io[0].fd = ranks[r].io[1].fd = -1;
    }
    if (to > from) have_foreign = true;
}

/* --join: ask the first smrun for count slots (blocking: it answers from
 * its loop at once). The reply's universe in *universe if asked. */
static int ask_server(long count, int *base, int *universe, char *why, size_t len)
{
    struct sm_universe_req q = { SM_UNIVERSE_MAGIC, (int32_t)(count > SM_NMAX ? SM_NMAX + 1 : count) };
    struct sm_universe_reply rep;
    ssize_t k = univ_server < 0 ? -1 : send(univ_server, &q, sizeof q, MSG_NOSIGNAL);
    if (k == (ssize_t)sizeof q)
        while ((k = recv(univ_server, &rep, sizeof rep, 0)) < 0 && errno == EINTR) continue;
    if (k != (ssize_t)sizeof rep || rep.magic != SM_UNIVERSE_MAGIC) {
        snprintf(why, len, "the first job of universe '%s' has ended: its smrun gives no more slots", opt.join_name);
        if (univ_server >= 0) close(univ_server);
        univ_server = -1;
        return SM_SPAWN_FAILED;
    }
    rep.why[sizeof rep.why - 1] = 0;
    snprintf(why, len, "%s", rep.why);
    *base = rep.base;
    if (universe) *universe = rep.universe;
    return rep.result;
}

/* count slots for one new world, never used before: the lowest free ones
 * of this smrun's universe, or the first smrun's answer under --join (the
 * slots between ours then are other jobs'). */
static int take_slots(long count, int *base, char *why, size_t len)
{
    if (opt.join_name) {
        int res = ask_server(count, base, NULL, why, len);
        if (res == SM_SPAWN_OK) mark_foreign(nranks, *base), nranks = *base;
        return res;
    }
    int nfree = opt.universe - nranks;
    if (count > nfree) {
        snprintf(why, len, "%ld process%s asked for, but %d of the universe's %d slots %s free (smrun "
                 "--universe-size; each slot is used once)", count, count == 1 ? "" : "es", nfree, opt.universe,
                 nfree == 1 ? "is" : "are");
        return SM_SPAWN_NOSLOTS;
    }
    *base = nranks;
    return SM_SPAWN_OK;
}

/* --universe NAME: listen. Before any rank starts, so a name served
 * already ends this smrun with nothing started. */
static void serve_universe(void)
{
    struct sockaddr_un a;
    socklen_t alen = universe_addr(opt.univ_name, &a);
    univ_listen = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (univ_listen < 0) die("socket");
    if (bind(univ_listen, (struct sockaddr *)&a, alen) != 0) {
        if (errno == EADDRINUSE) {
            msg("--universe %s: another smrun of this user serves that universe already", opt.univ_name);
            exit(SMRUN_EXIT_INTERNAL);
        }
        die("bind");
    }
    if (listen(univ_listen, 16) != 0) die("listen");
    add_fd(univ_listen, EV_LISTEN);
}

static void accept_peers(void)
{
    int fd;
    while ((fd = accept4(univ_listen, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
        struct ucred cr;
        socklen_t l = sizeof cr;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) != 0 || cr.uid != getuid()) {
            if (opt.verbose) msg("universe %s: refused a connection from uid %d", opt.univ_name, (int)cr.uid);
            close(fd);
            continue;
        }
        peers = xrealloc(peers, sizeof *peers * (size_t)(npeers + 1));
        peers[npeers] = (struct peer){ fd, false };
        add_fd(fd, EV_PEER + (uint32_t)npeers);
        npeers++;
    }
}

/* The memfds of slots 0.. to a joining smrun, SM_UNIVERSE_FDS at a time. */
static bool send_memfds(int fd)
{
    for (int32_t first = 0; first < opt.universe; first += SM_UNIVERSE_FDS) {
        int k = opt.universe - first < SM_UNIVERSE_FDS ? opt.universe - first : SM_UNIVERSE_FDS;
        union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * SM_UNIVERSE_FDS)]; } ctl;
        memset(&ctl, 0, sizeof ctl);
        struct iovec iov = { &first, sizeof first };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
                            .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)k) };
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)k);
        for (int i = 0; i < k; i++) {
            int mfd = fd0 + first + i;
            memcpy(CMSG_DATA(c) + sizeof(int) * (size_t)i, &mfd, sizeof mfd);
        }
        ssize_t n;
        while ((n = sendmsg(fd, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR) continue;
        if (n != (ssize_t)sizeof first) return false;
    }
    return true;
}

/* A joined smrun's request: slots for its first ranks, or for a spawn. */
static void serve_peer(int i)
{
    struct peer *p = &peers[i];
    struct sm_universe_req q;
    ssize_t n = p->fd < 0 ? 0 : recv(p->fd, &q, sizeof q, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {                                 /* that smrun has ended */
        if (p->fd >= 0) { epoll_ctl(epfd, EPOLL_CTL_DEL, p->fd, NULL); close(p->fd); }
        p->fd = -1;
        return;
    }
    struct sm_universe_reply rep = { .magic = SM_UNIVERSE_MAGIC, .base = -1, .universe = opt.universe };
    if (n != (ssize_t)sizeof q || q.magic != SM_UNIVERSE_MAGIC || q.count < 1)
        rep.result = SM_SPAWN_BADREQ, snprintf(rep.why, sizeof rep.why, "malformed request");
    else if (ending)
        rep.result = SM_SPAWN_FAILED, snprintf(rep.why, sizeof rep.why, "the universe's first job is ending");
    else if ((rep.result = take_slots(q.count, &rep.base, rep.why, sizeof rep.why)) == SM_SPAWN_OK) {
        mark_foreign(rep.base, rep.base + q.count);
        nranks = rep.base + q.count;
        if (opt.verbose) msg("universe %s: slots %d..%d to another job", opt.univ_name, rep.base, nranks - 1);
    }
    bool ok = send(p->fd, &rep, sizeof rep, MSG_NOSIGNAL) == (ssize_t)sizeof rep;
    if (ok && rep.result == SM_SPAWN_OK && !p->sent_fds) ok = p->sent_fds = send_memfds(p->fd);
    if (!ok && opt.verbose) msg("universe %s: a joining smrun is gone: %s", opt.univ_name, strerror(errno));
}

/* --join NAME, in place of create_memfds: slots for the job's ranks and the
 * universe's memfds at FD0.., as the first smrun has them. Ends smrun with
 * one line when nobody serves NAME or too few slots are free. */
static void join_universe(void)
{
    struct sockaddr_un a;
    socklen_t alen = universe_addr(opt.join_name, &a);
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (s < 0) die("socket");
    /* above every fd the memfds and the spawn service will take */
    univ_server = fcntl(s, F_DUPFD_CLOEXEC, fd0 + SM_NMAX + 1);
    if (univ_server < 0) die("fcntl");
    close(s);
    if (connect(univ_server, (struct sockaddr *)&a, alen) != 0) {
        if (errno == ECONNREFUSED || errno == ENOENT)
            msg("--join %s: no smrun of this user serves universe '%s' (start the first job with smrun "
                "--universe %s --universe-size U)", opt.join_name, opt.join_name, opt.join_name);
        else msg("--join %s: cannot reach the universe's smrun: %s", opt.join_name, strerror(errno));
        exit(SMRUN_EXIT_INTERNAL);
    }
    char why[300];
    int base = -1, universe = 0;
    int res = ask_server(opt.nranks, &base, &universe, why, sizeof why);
    if (res != SM_SPAWN_OK) {
        msg("--join %s: %s", opt.join_name, why);
        exit(SMRUN_EXIT_INTERNAL);
    }
    if (universe < opt.nranks || universe > SM_NMAX || base < 0 || base > universe - opt.nranks) {
        msg("--join %s: the universe's smrun gave slots %d.. of %d: not what this smrun can use", opt.join_name, base,
            universe);
        exit(SMRUN_EXIT_INTERNAL);
    }
    opt.universe = universe;
    /* The memfds, each moved first above FD0 + universe (the spawn service's
     * fd and the memfds' own places may be where the kernel put others). */
    int *tmp = xcalloc((size_t)universe, sizeof(int));
    for (int got = 0; got < universe;) {
        int32_t first = -1;
        union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * SM_UNIVERSE_FDS)]; } ctl;
        struct iovec iov = { &first, sizeof first };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof ctl.b };
        ssize_t n;
        while ((n = recvmsg(univ_server, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) continue;
        struct cmsghdr *c = n == (ssize_t)sizeof first ? CMSG_FIRSTHDR(&m) : NULL;
        if (!c || c->cmsg_type != SCM_RIGHTS || first != got || (m.msg_flags & MSG_CTRUNC)) {
            msg("--join %s: the universe's smrun did not send its memory (%s)", opt.join_name,
                n < 0 ? strerror(errno) : "a short or malformed message");
            exit(SMRUN_EXIT_INTERNAL);
        }
        int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < k && got < universe; i++, got++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + sizeof(int) * (size_t)i, sizeof fd);
            tmp[got] = fcntl(fd, F_DUPFD_CLOEXEC, fd0 + universe + 1);
            if (tmp[got] < 0) die("fcntl");
            close(fd);
        }
    }
    ranks = xcalloc((size_t)universe, sizeof *ranks);
    for (int r = 0; r < universe; r++) {
        if (dup2(tmp[r], fd0 + r) < 0) die("dup2");       /* not close-on-exec: the ranks inherit it */
        close(tmp[r]);
        map_ctrl(r);
    }
    free(tmp);
    make_spawn_service();
    first_slot = base;
    for (int ctx = 0; ctx < opt.napps; ctx++) opt.apps[ctx].first_rank += base;
    mark_foreign(0, base);
    nranks = base + opt.nranks;
    if (opt.verbose) msg("joined universe %s: slots %d..%d of %d", opt.join_name, base, nranks - 1, universe);
}

/* Both jobs of a connection map each other's memory, but each smrun knows
 * only its own ranks' deaths. A rank of ours that depends on a slot of
 * another job (sm_ctrl.link/hand, kept by MPI's connect, accept and join)
 * would wait for ever once that process is gone: end the job when it has
 * died without finalizing (killed, or its job ended by a failure), or,
 * during a handshake, when it has ended at all. As a dead rank of our own
 * would. Polled (every 100 ms) only while other jobs share the universe. */
static bool slot_gone(int s, pid_t *pid)
{
    const struct sm_ctrl *c = ranks[s].ctrl;
    char name[16], state = 'X';
    int ppid, pgrp;
    if (__atomic_load_n(&c->magic, __ATOMIC_ACQUIRE) != SM_CTRL_MAGIC || c->pid <= 0) return false;
    *pid = c->pid;
    snprintf(name, sizeof name, "%d", (int)c->pid);
    return !proc_stat(name, &state, &ppid, &pgrp) || state == 'Z' || state == 'X';
}

static void watch_links(void)
{
    if (!have_foreign || ending) return;
    int64_t now = now_ms();
    if (now - links_at_ms < 100) return;
    links_at_ms = now;
    for (int y = first_slot; y < nranks; y++) {
        if (ranks[y].foreign || ranks[y].exited) continue;
        const struct sm_ctrl *cy = ranks[y].ctrl;
        if (__atomic_load_n(&cy->magic, __ATOMIC_ACQUIRE) != SM_CTRL_MAGIC) continue;
        for (int s = 0; s < opt.universe; s++) {
            uint16_t links = atomic_load(&((struct sm_ctrl *)cy)->link[s]);
            uint16_t hands = atomic_load(&((struct sm_ctrl *)cy)->hand[s]);
            pid_t pid = 0;
            if ((!links && !hands) || (s < nranks && !ranks[s].foreign) || !slot_gone(s, &pid)) continue;
            const struct sm_ctrl *cs = ranks[s].ctrl;
            char how[200];
            uint32_t flags = atomic_load(&((struct sm_ctrl *)cs)->flags);
            bool failed = true;
            if (flags & SM_CTRL_NOTE) {
                char note[sizeof cs->exit_note + 1];
                ctrl_string(cs->exit_note, sizeof cs->exit_note, note);
                snprintf(how, sizeof how, "%s", note);
            } else if (!missing_finalize(cs, how, sizeof how)) {
                snprintf(how, sizeof how, "has exited");
                failed = false;
            }
            if (!failed && !hands) continue;      /* finalized: a program that waits for it is wrong */
            ending = true;
            exit_code = 1;
            kill_group(SIGKILL);
            msg("rank %d (pid %d) %s process %d of another job in the universe (slot %d), which %s; ending this job",
                label(y), (int)ranks[y].pid, hands ? "waits for a connection with" : "is connected to", (int)pid, s,
                how);
            return;
        }
    }
}

/* ---- the guardian ----------------------------------------------------------
 * SIGKILL cannot be caught. The ranks die with smrun by PR_SET_PDEATHSIG,
 * but what they started (a shell's children, a daemon that left the process
 * group with setsid) would live on. So a small child of smrun waits for
 * smrun's end on a pipe: EOF without smrun having cleaned up (finish() kills
 * the guardian first) means smrun died, and the guardian kills the ranks'
 * process group and every process that carries the job's mark in its
 * environment, until none is left. */

/* Does /proc/<pid>/environ hold the entry `needle` ("\0VAR=value\0")? */
static bool environ_has(const char *pid, const char *needle, size_t nlen)
{
    char path[300];
    snprintf(path, sizeof path, "/proc/%s/environ", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    static char buf[65536];
    size_t keep = 1;
    buf[0] = '\0';                                /* the first entry follows a "\0" too */
    bool found = false;
    for (;;) {
        ssize_t n = read(fd, buf + keep, sizeof buf - keep);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        size_t len = keep + (size_t)n;
        if (memmem(buf, len, needle, nlen)) { found = true; break; }
        keep = len < nlen - 1 ? len : nlen - 1;     /* an entry split across reads */
        memmove(buf, buf + len - keep, keep);
    }
    close(fd);
    return found;
}

/* One pass: SIGKILL the group and every live marked process. Returns how
 * many live processes were found (0: the job is gone). */
static int sweep_once(pid_t group, const char *needle, size_t nlen)
{
    int found = 0;
    kill(-group, SIGKILL);
    DIR *d = opendir("/proc");
    if (!d) return 0;
    pid_t me = getpid();
    struct dirent *e;
    while ((e = readdir(d))) {
        char state;
        int ppid, pgrp;
        if (!is_pid(e->d_name) || atoi(e->d_name) == me || !proc_stat(e->d_name, &state, &ppid, &pgrp))
            continue;
        if (state == 'Z' || state == 'X') continue;  /* dead already, waiting to be reaped */
        if (pgrp == group || environ_has(e->d_name, needle, nlen)) {
            kill(atoi(e->d_name), SIGKILL);
            found++;
        }
    }
    closedir(d);
    return found;
}

static char **main_argv;
static int main_argc;

static _Noreturn void guardian(int rd)
{
    prctl(PR_SET_NAME, "smrun-guard");
    /* And in ps's full listing: not a second "smrun -n ..." (the argument
     * strings are contiguous; /proc/PID/cmdline reads them). */
    char *a0 = main_argv[0], *end = main_argv[main_argc - 1] + strlen(main_argv[main_argc - 1]);
    if (end > a0) {
        memset(a0, 0, (size_t)(end - a0));
        snprintf(a0, (size_t)(end - a0) + 1, "smrun-guard");
    }
    /* Hold nothing of the job: not its memory, not the pipes a reader of
     * smrun's output waits on. */
    for (int r = 0; r < opt.universe; r++) munmap((void *)ranks[r].ctrl, sizeof(struct sm_ctrl));
    int hi = highest_open_fd();
    for (int fd = 0; fd <= hi; fd++) if (fd != rd) close(fd);
    char c;
    while (read(rd, &c, 1) < 0 && errno == EINTR) ;
    char needle[sizeof job_token + 32];
    int nlen = snprintf(needle, sizeof needle, "%c%s=%s%c", 0, SM_ENV_JOB, job_token, 0);
    for (int i = 0; i < 200; i++) {               /* at most ~4 s of stragglers */
        if (sweep_once(pgid, needle, (size_t)nlen) == 0) break;
        struct timespec ts = { 0, 20 * 1000000 };
        nanosleep(&ts, NULL);
    }
    _exit(0);
}

static void start_guardian(void)
{
    if (pgid <= 0) return;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) { msg("warning: no guardian: pipe: %s", strerror(errno)); return; }
    pid_t pid = fork();
    if (pid < 0) {
        msg("warning: no guardian: fork: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        return;
    }
    if (pid == 0) guardian(p[0]);
    close(p[0]);
    guard_wr = p[1];
}

static void make_job_token(void)
{
    uint64_t rnd = 0;
    if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
        rnd = (uint64_t)now_ms() * 2654435761u;
    snprintf(job_token, sizeof job_token, "%d.%016llx", (int)self, (unsigned long long)rnd);
}

/* ---- failure ------------------------------------------------------------ */

/* A copy of a string from the rank's control block, printable and ended. */
static void ctrl_string(const char *src, size_t max, char *dst)
{
    size_t i;
    for (i = 0; i < max && src[i]; i++)
        dst[i] = (src[i] >= 32 && src[i] < 127) ? src[i] : '?';
    dst[i] = '\0';
}

/* The name of the library a finalize routine ends: "MPI" for MPI_Finalize. */
static void library_of(const char *finalize, char *lib, size_t len)
{
    const char *us = strrchr(finalize, '_');
    snprintf(lib, len, "%.*s", us && us > finalize ? (int)(us - finalize) : (int)strlen(finalize), finalize);
}

/* Why rank x, which exited cleanly, leaves live rank y unable to finish;
 * false if it does not. */
static bool strands(int x, int y, char *why, size_t len)
{
    const struct sm_ctrl *cx = ranks[x].ctrl, *cy = ranks[y].ctrl;
    uint32_t sx = atomic_load(&((struct sm_ctrl *)cx)->stage);
    /* Every program joins the job through a barrier at its first use of it
     * (a rank that never uses it is counted on its way out): one that never
     * got there leaves those in it waiting. */
    if (sx != SM_STAGE_JOINED && sx != SM_STAGE_LEFT && atomic_load(&((struct sm_ctrl *)cy)->stage) == SM_STAGE_JOINING) {
        if (cx->magic != SM_CTRL_MAGIC)
            snprintf(why, len, "exited without initialising smartmap, and rank %d waits for it at start-up: "
                     "every rank's program must be linked with -lsmartmap (or run with --preload)", label(y));
        else
            snprintf(why, len, "exited without joining the job (by _exit, or by exec of a program without "
                     "smartmap), and rank %d waits for it at start-up", label(y));
        return true;
    }
    /* A library initialised in y (MPI, OpenSHMEM: collective calls) that x
     * never initialised: y would wait for x in it. Only from a block that
     * is y's own (as rank_exited() trusts it). */
    if (cy->magic != SM_CTRL_MAGIC || cy->pid != ranks[y].pid) return false;
    for (int i = 0; i < SM_CLIENT_MAX; i++) {
        if (atomic_load(&((struct sm_ctrl *)cy)->client[i].state) != SM_CLIENT_REGISTERED) continue;
        char name[SM_CLIENT_NAME + 1], seen[SM_CLIENT_NAME + 1], lib[SM_CLIENT_NAME + 1];
        ctrl_string(cy->client[i].finalize, SM_CLIENT_NAME, name);
        bool found = false;
        for (int j = 0; j < SM_CLIENT_MAX && !found; j++) {
            ctrl_string(cx->seen[j], SM_CLIENT_NAME, seen);
            found = strcmp(seen, name) == 0;
        }
        if (found || !name[0]) continue;
        library_of(name, lib, sizeof lib);
        snprintf(why, len, "exited without initialising %s, which rank %d uses (it requires %s): rank %d "
                 "would wait for it forever", lib, label(y), name, label(y));
        return true;
    }
    return false;
}

/* A rank that exited cleanly can still leave the job unable to finish: end
 * it then, and say why, rather than let it hang until --timeout. Checked
 * while the others run, as they come to wait for it. */
static void stranded(void)
{
    if (!clean_exits || ending) return;
    char why[400];
    for (int x = 0; x < nranks; x++) {
        if (!ranks[x].clean) continue;
        for (int y = 0; y < nranks; y++) {
            if (ranks[y].exited || !strands(x, y, why, sizeof why)) continue;
            ending = true;
            exit_code = 1;
            kill_group(SIGKILL);
            msg("rank %d (pid %d) %s", label(x), (int)ranks[x].pid, why);
            return;
        }
    }
}

/* "exited without calling MPI_Finalize and shmem_finalize": the lifecycle
 * clients (sm_job.h) still registered when the rank exited; false if none. */
static bool missing_finalize(const struct sm_ctrl *c, char *how, size_t len)
{
    char names[SM_CLIENT_MAX][SM_CLIENT_NAME + 1];
    int n = 0;
    for (int i = 0; i < SM_CLIENT_MAX; i++)
        if (atomic_load(&((struct sm_ctrl *)c)->client[i].state) == SM_CLIENT_REGISTERED)
            ctrl_string(c->client[i].finalize, SM_CLIENT_NAME, names[n++]);
    if (!n) return false;
    size_t o = (size_t)snprintf(how, len, "exited without calling");
    for (int i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(how + o, len - o, "%s%s", i == 0 ? " " : i == n - 1 ? " and " : ", ",
                              names[i][0] ? names[i] : "finalize");
    return true;
}

/* Rank r has exited: if that is a failure and the first, it ends the job. */
static void rank_exited(int r)
{
    struct rank *k = &ranks[r];
    const struct sm_ctrl *c = k->ctrl;
    /* The block is the rank's program's: the rank process's own, or, for a
     * wrapper that ran the program as its child (sh -c ./prog, gdb --args
     * ./prog), that program's once it is gone too. */
    char holder[16], state = 'X';
    int ppid, pgrp;
    snprintf(holder, sizeof holder, "%d", (int)c->pid);
    bool valid = c->magic == SM_CTRL_MAGIC && c->pid > 0 &&
                 (c->pid == k->pid || !proc_stat(holder, &state, &ppid, &pgrp) || state == 'Z' || state == 'X');
    uint32_t flags = valid ? atomic_load(&((struct sm_ctrl *)c)->flags) : 0;
    int st = k->status;
    char how[200], sig[16];
    int code;

    if (flags & SM_CTRL_NOTE) {
        char note[sizeof c->exit_note + 1];
        ctrl_string(c->exit_note, sizeof c->exit_note, note);
        snprintf(how, sizeof how, "%s", note);
        code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    } else if (WIFSIGNALED(st)) {
        int n = snprintf(how, sizeof how, "killed by %s%s", signal_name(WTERMSIG(st), sig),
                         WCOREDUMP(st) ? " (core dumped)" : "");
        /* Not smrun's SIGKILL (the job was not ending): the kernel's OOM
         * killer, likely, if the heaps can outgrow the memory. */
        if (WTERMSIG(st) == SIGKILL && opt.mem_limit && opt.heap_total > opt.mem_limit) {
            char total[32], limit[32];
            format_bytes(opt.heap_total, total, sizeof total);
            format_bytes(opt.mem_limit, limit, sizeof limit);
            snprintf(how + n, sizeof how - (size_t)n, " (out of memory? the ranks' heaps, %s in all, can "
                     "outgrow the %s this job may use)", total, limit);
        }
        code = 128 + WTERMSIG(st);
    } else if (WEXITSTATUS(st) != 0) {
        snprintf(how, sizeof how, "exited with code %d", WEXITSTATUS(st));
        code = WEXITSTATUS(st);
    } else if (valid && missing_finalize(c, how, sizeof how)) {
        code = 1;
    } else {
        if (opt.verbose) msg("rank %d (pid %d) exited with code 0", label(r), (int)k->pid);
        k->clean = clean_exits = true;            /* but see stranded() */
        return;
    }
    if (ending) return;                          /* only the first failure is the cause */
    ending = true;
    exit_code = code;
    kill_group(SIGKILL);
    drain_rank(r);                               /* its last words before our verdict */
    msg("rank %d (pid %d) %s", label(r), (int)k->pid, how);
    if (opt.verbose) msg("killing the %d other rank%s", ranks_alive(), ranks_alive() == 1 ? "" : "s");
}

/* Note ranks that have exited, leaving them zombies (WNOWAIT); reap
 * orphaned grandchildren that exited. */
static void check_children(void)
{
    bool any = false;
    for (int r = 0; r < nranks; r++) {
        if (ranks[r].exited) continue;
        siginfo_t si = { 0 };
        if (waitid(P_PID, (id_t)ranks[r].pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
            continue;
        ranks[r].exited = true;
        ranks[r].status = si.si_code == CLD_EXITED ? W_EXITCODE(si.si_status, 0)
                        : (si.si_status | (si.si_code == CLD_DUMPED ? 0x80 : 0));
        any = true;
        rank_exited(r);
    }
    if (!any) {                                  /* the SIGCHLD was an orphan's */
        pid_t *kids;
        int n = list_children(&kids);
        for (int i = 0; i < n; i++)
            if (rank_of(kids[i]) < 0) waitpid(kids[i], NULL, WNOHANG);
        free(kids);
    }
}

static void on_signal(int sig)
{
    char name[16];
    switch (sig) {
    case SIGCHLD: check_children(); return;
    case SIGUSR1: case SIGUSR2: kill_group(sig); return;   /* for the ranks, as mpirun */
    case SIGTSTP:                                /* ^Z: the job stops with smrun */
        if (!ending) { kill_group(SIGSTOP); raise(SIGSTOP); }
        return;
    case SIGCONT: kill_group(SIGCONT); return;   /* fg/bg: and resumes with it */
    }
    if (ending) {                                /* a second signal: no more grace */
        if (kill_at_ms >= 0) { kill_group(SIGKILL); kill_at_ms = now_ms(); }
        return;
    }
    ending = true;
    exit_code = 128 + sig;
    msg("received %s; ending the job", signal_name(sig, name));
    kill_group(sig);
    kill_group(SIGCONT);                         /* stopped ranks must see it too */
    kill_at_ms = now_ms() + KILL_GRACE_MS;
}

/* ---- the end ------------------------------------------------------------ */

/* Kill whatever is left (ranks, the processes they started, orphans smrun
 * inherited as subreaper), reap all, and forward the remaining output. */
static void finish(void)
{
    kill_group(SIGKILL);                         /* the group exists: zombies keep it */
    stop_stdin_relay();
    for (;;) {
        pid_t *kids;
        int n = list_children(&kids);
        for (int i = 0; i < n; i++) kill(kids[i], SIGKILL);
        free(kids);
        int st;
        pid_t pid;
        while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
            int r = rank_of(pid);
            if (r >= 0 && !ranks[r].exited) { ranks[r].exited = true; ranks[r].status = st; }
        }
        if (pid < 0 && errno == ECHILD) break;
        /* Wait for the next death (or re-scan for new orphans after 20 ms). */
        sigset_t chld;
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        struct timespec ts = { 0, 20 * 1000000 };
        sigtimedwait(&chld, NULL, &ts);
    }
    /* Every writer is gone: the pipes hold the rest, then EOF. */
    for (int r = 0; r < nranks; r++) drain_rank(r);
}

int main(int argc, char **argv)
{
    ensure_std_fds();
    self = getpid();
    main_argv = argv;
    main_argc = argc;
    parse_options(argc, argv, &opt);

    /* FD0 lies above every fd open now; smrun's own fds, opened later and
     * close-on-exec, take free numbers below or above the memfds. */
    fd0 = highest_open_fd() + 1;
    if (opt.join_name) {
        raise_nofile(SM_NMAX);                   /* the universe's size comes with the answer */
        join_universe();
    } else {
        nranks = opt.nranks;
        ranks = xcalloc((size_t)opt.universe, sizeof *ranks);
        raise_nofile(opt.universe);
        create_memfds();
    }
    for (int ctx = 0; ctx < opt.napps; ctx++)
        for (int i = 0; i < opt.apps[ctx].nranks; i++) ranks[opt.apps[ctx].first_rank + i].app = ctx;

    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) die("prctl(PR_SET_CHILD_SUBREAPER)");
    /* An inherited SIG_IGN for SIGCHLD would auto-reap the ranks: no statuses. */
    signal(SIGCHLD, SIG_DFL);
    sigemptyset(&handled);
    int sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGTSTP, SIGCONT };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaddset(&handled, sigs[i]);
    if (sigprocmask(SIG_BLOCK, &handled, &orig_mask) != 0) die("sigprocmask");
    struct sigaction ign = { .sa_handler = SIG_IGN };
    sigaction(SIGPIPE, &ign, &orig_pipe);
    sigfd = signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sigfd < 0) die("signalfd");
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) die("epoll_create1");
    add_fd(sigfd, EV_SIGNAL);
    add_fd(spawn_rd, EV_SPAWN);
    if (opt.univ_name) serve_universe();
    devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) die("/dev/null");
    start_stdin_relay();

    if (opt.verbose) {
        char heap[32], total[32], limit[32];
        format_bytes(opt.heap_bytes, heap, sizeof heap);
        format_bytes(opt.heap_total, total, sizeof total);
        format_bytes(opt.mem_limit, limit, sizeof limit);
        msg("%d rank%s, up to %s of heap each (%s in all; smrun may use %s of memory), memfds at fd %d.., "
            "%s pages, bind to %s", nranks, nranks == 1 ? "" : "s", heap, total, limit, fd0, opt.pages,
            opt.bind_core ? "core" : "none");
        if (opt.preload) msg("preload %s", opt.preload_lib);
        for (int i = 0; i < opt.ngenv; i++)
            if (!strchr(opt.genv[i], '=') && !getenv(opt.genv[i]))
                msg("-x %s: not set in smrun's environment", opt.genv[i]);
    }

    make_job_token();
    spawn();
    start_guardian();
    if (opt.timeout > 0) timeout_at_ms = now_ms() + (int64_t)(opt.timeout * 1000 + 0.5);
    check_children();                            /* deaths before the loop began */

    struct epoll_event evs[64];
    while (ranks_alive() > 0) {
        if (ending && kill_at_ms < 0) break;     /* failure or timeout: SIGKILL sent */
        int64_t now = now_ms();
        if (timeout_at_ms >= 0 && !ending && now >= timeout_at_ms) {
            ending = true;
            exit_code = SMRUN_EXIT_TIMEOUT;
            int alive = ranks_alive();
            msg("job exceeded --timeout %g s; killing %d rank%s", opt.timeout, alive, alive == 1 ? "" : "s");
            kill_group(SIGKILL);
            break;
        }
        if (kill_at_ms >= 0 && now >= kill_at_ms) {
            if (opt.verbose) msg("%d rank%s still running after 1 s: SIGKILL", ranks_alive(),
                                 ranks_alive() == 1 ? "" : "s");
            kill_group(SIGKILL);
            break;
        }
        stranded();
        watch_links();
        if (ending && kill_at_ms < 0) break;
        int64_t deadline = kill_at_ms >= 0 ? kill_at_ms : !ending ? timeout_at_ms : -1;
        int64_t wait = deadline < 0 ? -1 : deadline - now;   /* > 0: checked above */
        /* watch the others: stranded(), watch_links() */
        if ((clean_exits || have_foreign) && (wait < 0 || wait > 100)) wait = 100;
        int n = epoll_wait(epfd, evs, 64, (int)(wait > INT_MAX ? INT_MAX : wait));
        if (n < 0 && errno != EINTR) die("epoll_wait");
        for (int i = 0; i < n; i++) {
            uint32_t id = evs[i].data.u32;
            if (id == EV_SIGNAL) {
                struct signalfd_siginfo si;
                while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) on_signal((int)si.ssi_signo);
            } else if (id == EV_STDIN || id == EV_RELAY) {
                relay_step();
            } else if (id == EV_SPAWN) {
                serve_spawn();
            } else if (id == EV_LISTEN) {
                accept_peers();
            } else if (id >= EV_PEER && id < EV_SIGNAL) {
                serve_peer((int)(id - EV_PEER));
            } else {
                pump((int)(id >> 1), (int)(id & 1));
            }
        }
    }
    finish();
    if (opt.verbose) msg("exit code %d", exit_code);
    return exit_code;
}
