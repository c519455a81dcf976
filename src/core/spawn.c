/* spawn.c: asking smrun to start processes in free slots (the spawn service,
 * sm_job.h), and the links between processes that smrun watches across the
 * jobs of one universe. The service: one datagram on the socket every rank inherits, carrying a
 * fresh socket for the answer, so that concurrent requests from several
 * ranks (or threads) never mix their replies, and a requester learns at
 * once (end of file) if smrun is gone. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sm_core.h"

const char *sm_spawn_parent(void)
{
    const char *p = getenv(SM_ENV_PARENT);
    return sm_core.world_base > 0 && p && *p ? p : NULL;
}

/* Append len bytes to the request at *o, within SM_SPAWN_REQ_MAX. */
static bool put(char *req, size_t *o, const void *p, size_t len)
{
    if (len > SM_SPAWN_REQ_MAX - *o) return false;
    memcpy(req + *o, p, len);
    *o += len;
    return true;
}

static sm_status_t send_request(int service, const char *req, size_t len, struct sm_spawn_reply *rep)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return sm_fail(SM_ERR_NOMEM, "socketpair: %s", strerrordesc_np(errno));
    union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = { (void *)req, len };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf };
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &sv[1], sizeof(int));
    ssize_t k;
    while ((k = sendmsg(service, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR) continue;
    int err = errno;
    close(sv[1]);
    if (k != (ssize_t)len) {
        close(sv[0]);
        return sm_fail(SM_ERR_STATE, "cannot reach smrun's spawn service (fd %d): %s", service,
                       k < 0 ? strerrordesc_np(err) : "short write");
    }
    while ((k = recv(sv[0], rep, sizeof *rep, 0)) < 0 && errno == EINTR) continue;
    err = errno;
    close(sv[0]);
    if (k != (ssize_t)sizeof *rep)
        return sm_fail(SM_ERR_STATE, "smrun did not answer the spawn request: %s",
                       k < 0 ? strerrordesc_np(err) : "it closed the connection");
    rep->why[sizeof rep->why - 1] = 0;
    return SM_OK;
}

sm_status_t sm_spawn_able(void)
{
    sm_core_ensure();
    /* Under a PMIx launcher the children would be a job of their own (a
     * new namespace, PMIx_Spawn): unmapped here, so reached over UCX only,
     * but this job's UCX peers are its own ranks, fixed at start (their
     * worker addresses from PMIx_Get in its namespace, endpoints by rank),
     * and its ranks are the whole universe. docs/NOTES.md says what it
     * would take. */
    if (sm_core.pmix)
        return sm_fail(SM_ERR_UNSUPPORTED, "not supported in a job started by a PMIx launcher (mpirun) yet: the "
                       "children would be another PMIx namespace, which this job's UCX layer cannot reach (its "
                       "peers are its own ranks); start the job with smrun --universe-size to spawn");
    uint64_t service = sm_setting(SM_SET_SPAWNFD);
    if (sm_core.singleton || service == SM_SETTING_UNSET || service > INT32_MAX)
        return sm_fail(SM_ERR_UNSUPPORTED, "only smrun can start processes, and this process was not started "
                       "by smrun");
    return SM_OK;
}

sm_status_t sm_spawn(int napps, const char *const cmd[], char *const *const argv[], const int nprocs[],
                     const char *parent, int *base)
{
    sm_status_t able = sm_spawn_able();
    if (able) return able;
    uint64_t service = sm_setting(SM_SET_SPAWNFD);
    char *req = malloc(SM_SPAWN_REQ_MAX);
    if (!req) return sm_fail(SM_ERR_NOMEM, "no memory for a spawn request");
    struct sm_spawn_req h = { SM_SPAWN_MAGIC, sm_core.rank, napps };
    size_t o = 0;
    bool ok = put(req, &o, &h, sizeof h);
    for (int i = 0; i < napps && ok; i++) ok = put(req, &o, &nprocs[i], sizeof(int32_t));
    for (int i = 0; i < napps && ok; i++) {
        int32_t argc = 0;
        while (argv && argv[i] && argv[i][argc]) argc++;
        ok = put(req, &o, &argc, sizeof argc);
    }
    ok = ok && put(req, &o, parent, strlen(parent) + 1);
    for (int i = 0; i < napps && ok; i++) {
        ok = put(req, &o, cmd[i], strlen(cmd[i]) + 1);
        for (int a = 0; ok && argv && argv[i] && argv[i][a]; a++) ok = put(req, &o, argv[i][a], strlen(argv[i][a]) + 1);
    }
    struct sm_spawn_reply rep;
    sm_status_t st = ok ? send_request((int)service, req, o, &rep)
                        : sm_fail(SM_ERR_ARG, "the commands and arguments are longer than %u bytes in all",
                                  SM_SPAWN_REQ_MAX);
    free(req);
    if (st) return st;
    switch (rep.result) {
    case SM_SPAWN_OK: *base = rep.base; return SM_OK;
    case SM_SPAWN_NOSLOTS: return sm_fail(SM_ERR_NOMEM, "%s", rep.why);
    case SM_SPAWN_BADCMD: case SM_SPAWN_BADREQ: return sm_fail(SM_ERR_ARG, "%s", rep.why);
    default: return sm_fail(SM_ERR_STATE, "%s", rep.why);
    }
}

/* --- Links (sm_job.h's sm_ctrl.link/hand): counts in the caller's own
 * control block, read by the smrun of the caller's job. --- */

void sm_link(int slot, int links, int handshakes)
{
    if (slot < 0 || slot >= SM_NMAX || slot == sm_core.rank || sm_core.pmix || sm_core.singleton) return;
    struct sm_ctrl *c = &sm_ctrl_of(sm_core.rank)->job;
    if (links) atomic_fetch_add(&c->link[slot], (uint16_t)links);
    if (handshakes) atomic_fetch_add(&c->hand[slot], (uint16_t)handshakes);
}

bool sm_slot_gone(int slot)
{
    if (slot < 0 || slot >= sm_core.size || !sm_rank_local(slot)) return false;
    const struct sm_ctrl *c = &sm_ctrl_of(slot)->job;
    if (__atomic_load_n(&c->magic, __ATOMIC_ACQUIRE) != SM_CTRL_MAGIC || c->pid <= 0) return false;
    /* A zombie has exited too (its launcher reaps it at the job's end). */
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)c->pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return true;
    buf[n] = 0;
    const char *p = strrchr(buf, ')');            /* the name may hold ')' and spaces */
    return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}
