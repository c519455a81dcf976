/* pmix.c: starting under a PMIx launcher (mpirun, prterun, srun --mpi=pmix)
 * instead of smrun. Before anything allocates (init.c): the rank from the
 * environment, and address-space randomisation off (re-executing once).
 * Once the rank has made its own slot (the constructor): PMIx_Init, the
 * job's size and the ranks that share the node, and the node's ranks hand
 * their memfds to each other over an abstract Unix socket named after the
 * namespace and node, which disappears with its listener (nothing is left
 * behind). Only peers of the same user whose pid PMIx published for a rank
 * of this job are accepted (SO_PEERCRED). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sm_core.h"

#define PMIX_ENV_RANK "PMIX_RANK"
#define PMIX_ENV_NS   "PMIX_NAMESPACE"

bool sm_pmix_launched(int *rank)
{
    const char *r = getenv(PMIX_ENV_RANK), *ns = getenv(PMIX_ENV_NS);
    if (!r || !ns || !*r) return false;
    /* A program a rank started inherits PMIX_*: the rank marks the
     * environment with its own pid (sm_pmix_join), so the child is not it. */
    uint64_t pid = sm_setting(SM_SET_PID);
    if (pid != SM_SETTING_UNSET && pid != (uint64_t)getpid()) return false;
    char *end;
    unsigned long v = strtoul(r, &end, 10);
    if (*end || v >= SM_NMAX) sm_fatal("init: %s=%s: smartmap jobs have at most %d ranks", PMIX_ENV_RANK, r, SM_NMAX);
    *rank = (int)v;
    return true;
}

/* Globals must have the same address in every rank: re-execute once with
 * ADDR_NO_RANDOMIZE (smrun sets it before exec). argv comes from
 * /proc/self/cmdline, into an mmap (no malloc yet). */
void sm_pmix_norandomize(void)
{
    int pers = personality(0xffffffff);
    if (pers == -1 || (pers & ADDR_NO_RANDOMIZE)) return;
    if (personality((unsigned long)pers | ADDR_NO_RANDOMIZE) == -1) {
        sm_say("init: cannot turn address-space randomisation off (%s); globals may not be "
               "shared between ranks", strerrordesc_np(errno));
        return;
    }
    size_t cap = (size_t)sysconf(_SC_ARG_MAX) + 4096;   /* the text; then a pointer per byte, then the path */
    char *buf = mmap(NULL, cap + (cap + 1) * sizeof(char *) + PATH_MAX, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    size_t len = 0;
    ssize_t n = 0;
    if (buf != MAP_FAILED && fd >= 0)
        while (len < cap - 1 && (n = read(fd, buf + len, cap - 1 - len)) > 0) len += (size_t)n;
    if (fd >= 0) close(fd);
    if (buf == MAP_FAILED || fd < 0 || n < 0 || !len)
        sm_fatal("init: cannot read /proc/self/cmdline to re-execute without address-space randomisation");
    buf[len] = 0;
    char **argv = (char **)(buf + cap);
    size_t argc = 0;
    for (size_t i = 0; i < len; i += strlen(buf + i) + 1) argv[argc++] = buf + i;
    argv[argc] = NULL;
    /* By its own path, not /proc/self/exe: the command name (ps, top,
     * mpirun's reports) stays the program's. */
    char *exe = (char *)(argv + argc + 1);
    ssize_t el = readlink("/proc/self/exe", exe, PATH_MAX);
    if (el <= 0 || el >= PATH_MAX) exe = "/proc/self/exe";
    else exe[el] = 0;
    execve(exe, argv, environ);
    sm_fatal("init: cannot re-execute %s without address-space randomisation: %s", argv[0], strerrordesc_np(errno));
}

#ifndef SM_HAVE_PMIX

bool sm_pmix_available(void) { return false; }
sm_status_t sm_pmix_join(int fd[SM_NMAX])
{
    (void)fd;
    return sm_fail(SM_ERR_UNSUPPORTED, "started by a PMIx launcher, but this smartmap was built without PMIx "
                   "(install libpmix-dev and rebuild), or start the job with smrun");
}
sm_status_t sm_pmix_fence(void) { return SM_ERR_UNSUPPORTED; }
void sm_pmix_finalize(void) {}
sm_status_t sm_pmix_put(const char *key, const void *data, size_t len)
{
    (void)data, (void)len;
    return sm_fail(SM_ERR_UNSUPPORTED, "PMIx_Put(%s): this smartmap was built without PMIx", key);
}
sm_status_t sm_pmix_publish(const char *key, const char *value)
{
    (void)value;
    return sm_fail(SM_ERR_UNSUPPORTED, "PMIx_Publish(%s): this smartmap was built without PMIx", key);
}
sm_status_t sm_pmix_lookup(const char *key, char *value, size_t cap)
{
    (void)value, (void)cap;
    return sm_fail(SM_ERR_UNSUPPORTED, "PMIx_Lookup(%s): this smartmap was built without PMIx", key);
}
sm_status_t sm_pmix_unpublish(const char *key)
{
    return sm_fail(SM_ERR_UNSUPPORTED, "PMIx_Unpublish(%s): this smartmap was built without PMIx", key);
}
sm_status_t sm_pmix_get(int rank, const char *key, void **data, size_t *len)
{
    (void)rank, (void)data, (void)len;
    return sm_fail(SM_ERR_UNSUPPORTED, "PMIx_Get(%s): this smartmap was built without PMIx", key);
}

#else
#include <pmix.h>

#define HELLO_MAGIC 0x534d484c4c4f3031ULL /* "SMHLLO01" */
#define PID_KEY     "smartmap.pid"
#define WAIT_MS     120000                /* for the node's ranks to arrive */

struct hello {
    uint64_t magic;
    int32_t  rank;
    char     nspace[PMIX_MAX_NSLEN + 1];
};
struct fd_note { int32_t rank; };

static pmix_proc_t me;
static bool pmix_up;
static _Atomic bool pmix_ending;    /* PMIx_Finalize under way: its own disconnect is no loss */

/* The launcher's PMIx server is gone (the launcher was killed): nobody will
 * end this job, and a rank asleep in a wait would stay forever, so the rank
 * ends itself, as Open MPI's ranks do. Called on PMIx's progress thread. */
static void lost_server(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                        size_t ninfo, pmix_info_t *results, size_t nresults,
                        pmix_event_notification_cbfunc_fn_t done, void *cbdata)
{
    (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    if (!atomic_load(&pmix_ending))
        sm_fatal("lost the connection to the launcher's PMIx server (%s): the launcher is gone, ending this rank",
                 PMIx_Error_string(status));
    if (done) done(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static sm_status_t pmix_fail(const char *call, int rc)
{
    return sm_fail(SM_ERR_STATE, "%s: %s", call, PMIx_Error_string(rc));
}

static sm_status_t get_u32(int rank, const char *key, uint32_t *out)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, rank < 0 ? PMIX_RANK_WILDCARD : (pmix_rank_t)rank);
    pmix_value_t *v = NULL;
    int rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) return sm_fail(SM_ERR_STATE, "PMIx_Get(%s) of rank %d: %s", key, rank, PMIx_Error_string(rc));
    sm_status_t st = SM_OK;
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; break;
    case PMIX_UINT16: *out = v->data.uint16; break;
    case PMIX_INT32:  *out = (uint32_t)v->data.int32; break;
    case PMIX_PID:    *out = (uint32_t)v->data.pid; break;
    default: st = sm_fail(SM_ERR_STATE, "PMIx_Get(%s) of rank %d: unexpected type %d", key, rank, (int)v->type);
    }
    PMIX_VALUE_RELEASE(v);
    return st;
}

/* The ranks PMIx places on the caller's machine, into seen[], and the
 * node's id if the launcher gives one. */
static sm_status_t machine_peers(int size, bool seen[SM_NMAX], bool *have_id, uint32_t *id)
{
    /* The node is named in the query: without it, PMIx answers for the
     * node whose name is this machine's hostname, which is another node's
     * when nodes share a hostname (Open MPI 4.1's mpirun on the first host,
     * network namespaces). */
    *have_id = get_u32((int)me.rank, PMIX_NODEID, id) == SM_OK;
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    int rc = PMIX_ERR_NOT_FOUND;
    if (*have_id) {
        pmix_info_t q[2];
        bool yes = true;
        PMIX_INFO_LOAD(&q[0], PMIX_NODE_INFO, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&q[1], PMIX_NODEID, id, PMIX_UINT32);
        rc = PMIx_Get(&p, PMIX_LOCAL_PEERS, q, 2, &v);
        PMIX_INFO_DESTRUCT(&q[0]);
        PMIX_INFO_DESTRUCT(&q[1]);
    }
    if (rc != PMIX_SUCCESS) rc = PMIx_Get(&p, PMIX_LOCAL_PEERS, NULL, 0, &v);   /* a launcher without node ids */
    if (rc != PMIX_SUCCESS) return pmix_fail("PMIx_Get(" PMIX_LOCAL_PEERS ")", rc);
    if (v->type != PMIX_STRING || !v->data.string) {
        PMIX_VALUE_RELEASE(v);
        return sm_fail(SM_ERR_STATE, "PMIx_Get(" PMIX_LOCAL_PEERS "): not a list of ranks");
    }
    memset(seen, 0, SM_NMAX * sizeof *seen);
    const char *s = v->data.string;
    while (*s) {
        char *end;
        unsigned long r = strtoul(s, &end, 10);
        if (end == s || r >= (unsigned long)size) {
            PMIX_VALUE_RELEASE(v);
            return sm_fail(SM_ERR_STATE, "PMIx_Get(" PMIX_LOCAL_PEERS "): bad rank list");
        }
        seen[r] = true;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') break;
    }
    PMIX_VALUE_RELEASE(v);
    if (!seen[me.rank]) return sm_fail(SM_ERR_STATE, "PMIx_Get(" PMIX_LOCAL_PEERS "): this rank is not in its node's list");
    return SM_OK;
}

/* The ranks on the caller's node into local[] (ascending), the node's name
 * for the socket, and which ranks share this machine (seen[], for
 * oversubscribed). SMARTMAP_NODE_SIZE=k makes every k consecutive ranks a
 * node of their own, so that a job on one machine has several. */
static sm_status_t find_node(int size, int *local, int *nlocal, char *node, size_t nodelen, bool seen[SM_NMAX])
{
    bool have_id;
    uint32_t id;
    sm_status_t st = machine_peers(size, seen, &have_id, &id);
    uint64_t k = sm_setting(SM_SET_NODE_SIZE);
    if (k) {
        if (st)                         /* the fake nodes' machines unknown: assume one */
            for (int r = 0; r < size; r++) seen[r] = true;
        int first = (int)((uint64_t)me.rank / k * k);
        *nlocal = 0;
        for (int r = first; r < size && (uint64_t)(r - first) < k; r++) local[(*nlocal)++] = r;
        snprintf(node, nodelen, "v%d", first / (int)k);
        return SM_OK;
    }
    if (st) return st;
    *nlocal = 0;
    for (int r = 0; r < size; r++)
        if (seen[r]) local[(*nlocal)++] = r;
    if (have_id) snprintf(node, nodelen, "n%u", id);
    else gethostname(node, nodelen - 1);
    return SM_OK;
}

static sm_status_t send_fd(int s, const void *msg, size_t len, int fd)
{
    struct iovec iov = { (void *)msg, len };
    union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
    memset(&u, 0, sizeof u);
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b };
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    ssize_t n;
    while ((n = sendmsg(s, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
    return n == (ssize_t)len ? SM_OK : sm_fail(SM_ERR_PEER, "sending a memfd: %s", n < 0 ? strerrordesc_np(errno) : "short");
}

/* One message of exactly len bytes carrying one fd, within the wait. */
static sm_status_t recv_fd(int s, void *msg, size_t len, int *fd)
{
    struct pollfd p = { s, POLLIN, 0 };
    int r;
    while ((r = poll(&p, 1, WAIT_MS)) < 0 && errno == EINTR) {}
    if (r == 0) return sm_fail(SM_ERR_PEER, "no memfd from a peer on the node in %d s", WAIT_MS / 1000);
    struct iovec iov = { msg, len };
    union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b };
    ssize_t n;
    while ((n = recvmsg(s, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
    struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&m) : NULL;
    if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int))) {
        if (c && c->cmsg_type == SCM_RIGHTS) memcpy(fd, CMSG_DATA(c), sizeof *fd), close(*fd);
        return sm_fail(SM_ERR_PEER, "a peer on the node sent no memfd (%s)",
                       n < 0 ? strerrordesc_np(errno) : n == 0 ? "it hung up" : "a malformed message");
    }
    memcpy(fd, CMSG_DATA(c), sizeof *fd);
    if (n != (ssize_t)len || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        close(*fd);
        return sm_fail(SM_ERR_PEER, "a peer on the node sent a malformed message");
    }
    return SM_OK;
}

/* The peer at the other end of s is this user's process that PMIx knows as
 * rank (it published its pid under PID_KEY before the fence). */
static bool peer_is(int s, int rank)
{
    struct ucred cr;
    socklen_t l = sizeof cr;
    uint32_t pid;
    if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &l) != 0 || cr.uid != geteuid()) return false;
    return get_u32(rank, PID_KEY, &pid) == SM_OK && (pid_t)pid == cr.pid;
}

static void socket_name(struct sockaddr_un *a, socklen_t *len, const char *node)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "smartmap.%u.%s.%s", (unsigned)geteuid(), me.nspace, node);
    if (n > (int)sizeof a->sun_path - 2) n = (int)sizeof a->sun_path - 2;
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* The node's lowest rank listens; each other rank connects and sends its
 * memfd; then the leader sends every one of them the others'. */
static sm_status_t leader_exchange(int ls, const int *local, int nlocal, int fd[SM_NMAX])
{
    int conn[SM_NMAX];
    for (int i = 0; i < nlocal; i++) conn[local[i]] = -1;
    sm_status_t st = SM_OK;
    for (int got = 1; got < nlocal && !st;) {
        struct pollfd p = { ls, POLLIN, 0 };
        int r;
        while ((r = poll(&p, 1, WAIT_MS)) < 0 && errno == EINTR) {}
        if (r == 0) {
            char miss[256] = "";
            for (int i = 1, n = 0; i < nlocal; i++)
                if (conn[local[i]] < 0 && n < (int)sizeof miss - 12) n += snprintf(miss + n, sizeof miss - (size_t)n, " %d", local[i]);
            st = sm_fail(SM_ERR_PEER, "ranks%s on this node did not hand over their memory in %d s", miss, WAIT_MS / 1000);
            break;
        }
        int c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) continue;
        struct hello h;
        int f = -1;
        if (recv_fd(c, &h, sizeof h, &f) != SM_OK) { close(c); continue; }
        struct stat sb;
        h.nspace[PMIX_MAX_NSLEN] = 0;
        bool ok = h.magic == HELLO_MAGIC && h.rank >= 0 && h.rank < SM_NMAX && strcmp(h.nspace, me.nspace) == 0;
        int i = 0;
        while (ok && i < nlocal && local[i] != h.rank) i++;
        ok = ok && i > 0 && i < nlocal && conn[h.rank] < 0 && peer_is(c, h.rank) &&
             fstat(f, &sb) == 0 && sb.st_size >= (off_t)SM_SYM_OFF;
        if (!ok) {
            sm_say("init: refused a connection on the node's socket claiming rank %d (not a rank of this job, or not its memory)", h.rank);
            close(f);
            close(c);
            continue;
        }
        conn[h.rank] = c;
        fd[h.rank] = f;
        got++;
    }
    fd[local[0]] = sm_core.own_fd;   /* the leader's own, sent as the others' */
    for (int i = 1; i < nlocal && !st; i++)
        for (int j = 0; j < nlocal && !st; j++) {
            if (j == i) continue;
            struct fd_note n = { local[j] };
            st = send_fd(conn[local[i]], &n, sizeof n, fd[local[j]]);
        }
    fd[local[0]] = -1;
    for (int i = 1; i < nlocal; i++)
        if (conn[local[i]] >= 0) close(conn[local[i]]);
    return st;
}

static sm_status_t member_exchange(const struct sockaddr_un *a, socklen_t alen, int leader, const int *local,
                                   int nlocal, int fd[SM_NMAX])
{
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (s < 0) return sm_fail(SM_ERR_STATE, "socket: %s", strerrordesc_np(errno));
    sm_status_t st = SM_OK;
    if (connect(s, (const struct sockaddr *)a, alen) != 0)
        st = sm_fail(SM_ERR_PEER, "cannot reach rank %d, the first on this node, at its socket: %s", leader,
                     strerrordesc_np(errno));
    else if (!peer_is(s, leader))
        st = sm_fail(SM_ERR_PEER, "the process at the node's socket is not rank %d of this job", leader);
    if (!st) {
        struct hello h = { .magic = HELLO_MAGIC, .rank = (int32_t)me.rank };
        snprintf(h.nspace, sizeof h.nspace, "%s", me.nspace);
        st = send_fd(s, &h, sizeof h, sm_core.own_fd);
    }
    for (int i = 1; i < nlocal && !st; i++) {
        struct fd_note n;
        int f;
        if ((st = recv_fd(s, &n, sizeof n, &f))) break;
        int j = 0;
        while (j < nlocal && local[j] != n.rank) j++;
        if (j == nlocal || n.rank == (int)me.rank || fd[n.rank] >= 0) {
            close(f);
            st = sm_fail(SM_ERR_PEER, "rank %d sent the memory of rank %d, not one of this node's", leader, n.rank);
        } else {
            fd[n.rank] = f;
        }
    }
    close(s);
    return st;
}

bool sm_pmix_available(void) { return true; }

sm_status_t sm_pmix_join(int fd[SM_NMAX])
{
    int rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) return pmix_fail("PMIx_Init", rc);
    pmix_up = true;
    pmix_status_t lost[] = { PMIX_ERR_LOST_CONNECTION };
    rc = PMIx_Register_event_handler(lost, 1, NULL, 0, lost_server, NULL, NULL);
    if (rc < 0) return pmix_fail("PMIx_Register_event_handler(PMIX_ERR_LOST_CONNECTION)", rc);
    if ((int)me.rank != sm_core.rank)
        return sm_fail(SM_ERR_STATE, "PMIx_Init: rank %u, but %s said %d", me.rank, PMIX_ENV_RANK, sm_core.rank);
    uint32_t size;
    sm_status_t st = get_u32(-1, PMIX_JOB_SIZE, &size);
    if (st) return st;
    if (size > SM_NMAX || (int)size <= sm_core.rank)
        return sm_fail(SM_ERR_STATE, "the job has %u ranks; smartmap jobs have at most %d", size, SM_NMAX);
    int local[SM_NMAX], nlocal = 0;
    bool machine[SM_NMAX];
    char node[64] = "";
    if ((st = find_node((int)size, local, &nlocal, node, sizeof node, machine))) return st;

    /* The node's socket is listening before anyone can look for it. */
    struct sockaddr_un a;
    socklen_t alen;
    socket_name(&a, &alen, node);
    int ls = -1, leader = local[0];
    if (leader == sm_core.rank && nlocal > 1) {
        ls = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (ls < 0 || bind(ls, (struct sockaddr *)&a, alen) != 0 || listen(ls, nlocal) != 0) {
            st = sm_fail(SM_ERR_STATE, "cannot listen on the node's socket @%s: %s", a.sun_path + 1, strerrordesc_np(errno));
            if (ls >= 0) close(ls);
            return st;
        }
    }
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, &(uint32_t){ (uint32_t)getpid() }, PMIX_UINT32);
    rc = PMIx_Put(PMIX_LOCAL, PID_KEY, &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) st = pmix_fail("PMIx_Put/Commit", rc);
    if (!st) st = sm_pmix_fence();
    if (!st && nlocal > 1)
        st = ls >= 0 ? leader_exchange(ls, local, nlocal, fd) : member_exchange(&a, alen, leader, local, nlocal, fd);
    if (ls >= 0) close(ls);   /* the name goes with it */
    if (st) return st;

    sm_core.size = (int)size;
    memset(sm_core.local, 0, sizeof sm_core.local);
    for (int i = 0; i < nlocal; i++) sm_core.local[local[i] / 64] |= 1ULL << (local[i] % 64);
    sm_core.nlocal = nlocal;
    /* The CPUs of the ranks on this machine (from their pids, published
     * before the fence); ranks of other fake nodes (SMARTMAP_NODE_SIZE)
     * share them too. */
    pid_t pids[SM_NMAX];
    int on_machine = 0;
    for (int r = 0; r < (int)size; r++) {
        uint32_t pid;
        if (!machine[r]) continue;
        pids[on_machine++] = r == sm_core.rank ? getpid() : get_u32(r, PID_KEY, &pid) == SM_OK ? (pid_t)pid : 0;
    }
    sm_cpus_settle(pids, on_machine, on_machine);
    /* Programs this rank starts inherit PMIX_*: they are not the rank. */
    char pid[16];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    setenv(SM_ENV_PID, pid, 1);
    return SM_OK;
}

/* The end of a fence waited for with the wait source (below), called by
 * PMIx's progress thread. */
struct fence_wait { _Atomic int done; pmix_status_t rc; };
static void fence_cb(pmix_status_t status, void *cbdata)
{
    struct fence_wait *f = cbdata;
    f->rc = status;
    atomic_store(&f->done, 1);
    sm_wake_self();
}
static bool fence_over(void *a) { return atomic_load(&((struct fence_wait *)a)->done); }

sm_status_t sm_pmix_fence(void)
{
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    int rc;
    if (sm_wait_has_source()) {
        /* A rank in the fence still runs UCX: a peer's flush (net_mem_finalize)
         * may need it to carry out that peer's last puts before the peer
         * comes to the fence. */
        struct fence_wait f = { 0, PMIX_SUCCESS };
        rc = PMIx_Fence_nb(&all, 1, &info, 1, fence_cb, &f);
        if (rc == PMIX_SUCCESS) {
            sm_wait_for(0, fence_over, &f);
            rc = f.rc;
        } else if (rc == PMIX_OPERATION_SUCCEEDED) {
            rc = PMIX_SUCCESS;
        }
    } else {
        rc = PMIx_Fence(&all, 1, &info, 1);
    }
    PMIX_INFO_DESTRUCT(&info);
    return rc == PMIX_SUCCESS ? SM_OK : pmix_fail("PMIx_Fence", rc);
}

sm_status_t sm_pmix_put(const char *key, const void *data, size_t len)
{
    pmix_value_t v;
    pmix_byte_object_t bo = { .bytes = (char *)data, .size = len };
    PMIX_VALUE_LOAD(&v, &bo, PMIX_BYTE_OBJECT);   /* a copy */
    int rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    return rc == PMIX_SUCCESS ? SM_OK : sm_fail(SM_ERR_STATE, "PMIx_Put/Commit(%s): %s", key, PMIx_Error_string(rc));
}

sm_status_t sm_pmix_get(int rank, const char *key, void **data, size_t *len)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, (pmix_rank_t)rank);
    pmix_value_t *v = NULL;
    int rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) return sm_fail(SM_ERR_PEER, "PMIx_Get(%s) of rank %d: %s", key, rank, PMIx_Error_string(rc));
    sm_status_t st = SM_OK;
    if (v->type != PMIX_BYTE_OBJECT)
        st = sm_fail(SM_ERR_STATE, "PMIx_Get(%s) of rank %d: unexpected type %d", key, rank, (int)v->type);
    else if (!(*data = malloc(v->data.bo.size ? v->data.bo.size : 1)))
        st = sm_fail(SM_ERR_NOMEM, "no memory for %zu bytes of rank %d's %s", v->data.bo.size, rank, key);
    else {
        memcpy(*data, v->data.bo.bytes, v->data.bo.size);
        *len = v->data.bo.size;
    }
    PMIX_VALUE_RELEASE(v);
    return st;
}

/* The launcher's name service (its data server: Open MPI's mpirun keeps one
 * per job). Lookups do not wait: a name not published is SM_ERR_ARG, as is
 * a key published already. Open MPI's server takes a key twice, so publish
 * looks first (two ranks publishing one key at the same moment may both
 * succeed; the later value wins). */
sm_status_t sm_pmix_publish(const char *key, const char *value)
{
    if (strlen(key) >= PMIX_MAX_KEYLEN) return sm_fail(SM_ERR_ARG, "the key \"%s\" is too long for PMIx", key);
    char old[4096];
    sm_status_t st = sm_pmix_lookup(key, old, sizeof old);
    if (st != SM_ERR_ARG) return st ? st : sm_fail(SM_ERR_ARG, "\"%s\" is published already", key);
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, key, value, PMIX_STRING);
    int rc = PMIx_Publish(&info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc == PMIX_SUCCESS) return SM_OK;
    if (rc == PMIX_ERR_DUPLICATE_KEY || rc == PMIX_EXISTS) return sm_fail(SM_ERR_ARG, "\"%s\" is published already", key);
    return sm_fail(SM_ERR_STATE, "PMIx_Publish(%s): %s", key, PMIx_Error_string(rc));
}

sm_status_t sm_pmix_lookup(const char *key, char *value, size_t cap)
{
    if (strlen(key) >= PMIX_MAX_KEYLEN) return sm_fail(SM_ERR_ARG, "the key \"%s\" is too long for PMIx", key);
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, key);
    int rc = PMIx_Lookup(&pd, 1, NULL, 0);
    sm_status_t st = SM_OK;
    if (rc == PMIX_ERR_NOT_FOUND) st = sm_fail(SM_ERR_ARG, "\"%s\" is not published", key);
    else if (rc != PMIX_SUCCESS) st = sm_fail(SM_ERR_STATE, "PMIx_Lookup(%s): %s", key, PMIx_Error_string(rc));
    else if (pd.value.type != PMIX_STRING || strlen(pd.value.data.string) >= cap)
        st = sm_fail(SM_ERR_STATE, "PMIx_Lookup(%s): not a string of fewer than %zu bytes", key, cap);
    else strcpy(value, pd.value.data.string);
    PMIX_PDATA_DESTRUCT(&pd);
    return st;
}

sm_status_t sm_pmix_unpublish(const char *key)
{
    char *keys[] = { (char *)key, NULL };
    int rc = PMIx_Unpublish(keys, NULL, 0);
    if (rc == PMIX_SUCCESS) return SM_OK;
    if (rc == PMIX_ERR_NOT_FOUND) return sm_fail(SM_ERR_ARG, "\"%s\" is not published", key);
    return sm_fail(SM_ERR_STATE, "PMIx_Unpublish(%s): %s", key, PMIx_Error_string(rc));
}

void sm_pmix_finalize(void)
{
    atomic_store(&pmix_ending, true);
    if (pmix_up) PMIx_Finalize(NULL, 0);
    pmix_up = false;
}
#endif
