/* Dynamic processes (MPI-3.1 §10): ports, the name service, connect/accept,
 * join, disconnect, and the parent query. Every process that can meet
 * another is in the same universe of slots, mapped by all: the ranks of one
 * smrun job, the processes they spawn, and the ranks of the jobs started
 * with smrun --join into it. So a connection is an intercommunicator made
 * over the hidden communicator of the whole universe (smpi_comm_universe),
 * its leaders meeting by a first message tagged with the port. Ports are
 * marked open in their owner's SM_AREA_MPI area, published names live in
 * slot 0's, so any process reads them without the owner's help, even after
 * the owner's job has ended (its memory lives on in every mapper). A
 * connection counts its remote processes as links in the caller's control
 * block (sm_link): the smrun of a job sharing the universe ends the job when
 * a linked process of another job dies, rather than let it wait for ever.
 * A job spanning nodes (started by a PMIx launcher) keeps its names, and
 * marks its ports open, in the launcher's name service instead
 * (PMIx_Publish), which every node reaches; the connections themselves go
 * over point-to-point either way. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm_core.h"
#include "smpi.h"

#define PORTS    64             /* open ports per rank */
#define NAMES    64             /* published names in the job */
#define TAG_PORT 0x10000        /* + port index: a connection's messages on the job's communicator */
#define TAG_JOIN 0x20000

/* The binding's area in every rank's control region (zero at job start). */
struct dyn_area {
    _Atomic uint32_t port_open[PORTS];          /* this rank's ports */
    _Atomic uint32_t names_lock;                /* rank 0's: the name table */
    struct { char service[MPI_MAX_INFO_VAL]; char port[MPI_MAX_PORT_NAME]; } names[NAMES];
};
_Static_assert(sizeof(struct dyn_area) <= SM_AREA_SIZE, "the dynamic-process area fits");
static struct dyn_area *area_of(int rank) { return sm_area(rank, SM_AREA_MPI); }
/* Across nodes: the launcher's keys for a published name and an open port. */
static void name_key(char *key, size_t cap, const char *service) { snprintf(key, cap, "smartmap.name:%s", service); }
static void port_key(char *key, size_t cap, int rank, int idx) { snprintf(key, cap, "smartmap.port:%d:%d", rank, idx); }
#define KEY_MAX (MPI_MAX_INFO_VAL + 32)

/* Is rank's port idx open: in its area on this node, else in the launcher's service. */
static bool port_is_open(int rank, int idx)
{
    if (sm_rank_local(rank)) return atomic_load(&area_of(rank)->port_open[idx]) != 0;
    char key[KEY_MAX], v[8];
    port_key(key, sizeof key, rank, idx);
    return sm_pmix_lookup(key, v, sizeof v) == SM_OK;
}

/* "smartmap-port:<job rank>:<index>": the owner and index, or false. */
static bool port_parse(const char *name, int *rank, int *idx)
{
    char tail;
    return name && sscanf(name, "smartmap-port:%d:%d%c", rank, idx, &tail) == 2 && *rank >= 0 &&
           *rank < sm_core.size && *idx >= 0 && *idx < PORTS;
}

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    static const char R[] = "MPI_Open_port";
    SMPI_CHECK_INIT(R);
    SMPI_CHECK_INFO(NULL, info, R);
    if (!port_name) return smpi_error(NULL, MPI_ERR_ARG, R, "port_name is NULL");
    struct dyn_area *a = area_of(sm_core.rank);
    for (int i = 0; i < PORTS; i++) {
        uint32_t closed = 0;
        if (atomic_compare_exchange_strong(&a->port_open[i], &closed, 1)) {
            if (sm_spans_nodes()) {         /* so that other nodes see it open */
                char key[KEY_MAX];
                port_key(key, sizeof key, sm_core.rank, i);
                if (sm_pmix_publish(key, "open")) {
                    atomic_store(&a->port_open[i], 0);
                    return smpi_error(NULL, MPI_ERR_INTERN, R, "%s", sm_fail_reason());
                }
            }
            snprintf(port_name, MPI_MAX_PORT_NAME, "smartmap-port:%d:%d", sm_core.rank, i);
            return MPI_SUCCESS;
        }
    }
    return smpi_error(NULL, MPI_ERR_PORT, R, "all %d ports of this rank are open", PORTS);
}
#pragma weak MPI_Open_port = PMPI_Open_port

int PMPI_Close_port(const char *port_name)
{
    static const char R[] = "MPI_Close_port";
    SMPI_CHECK_INIT(R);
    int rank, idx;
    if (!port_parse(port_name, &rank, &idx) || rank != sm_core.rank ||
        !atomic_exchange(&area_of(rank)->port_open[idx], 0))
        return smpi_error(NULL, MPI_ERR_PORT, R, "\"%s\" is not a port this rank has open",
                          port_name ? port_name : "(null)");
    if (sm_spans_nodes()) {
        char key[KEY_MAX];
        port_key(key, sizeof key, rank, idx);
        if (sm_pmix_unpublish(key)) return smpi_error(NULL, MPI_ERR_INTERN, R, "%s", sm_fail_reason());
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Close_port = PMPI_Close_port

/* Count (delta 1) or uncount (-1) the remote group of a connection as the
 * caller's links (sm_link), once. */
static void link_remote(MPI_Comm comm, int delta)
{
    struct smpi_comm *c = smpi_comm(comm);
    if (!c || !c->inter || c->linked == (delta > 0)) return;
    c->linked = delta > 0;
    for (int i = 0; i < c->inter->remote->size; i++) sm_link(c->inter->remote->world[i], delta, 0);
}

/* Accept and connect: the roots meet (the acceptor learns the connecting
 * root's job rank from its first message), every member learns whether
 * that worked, then both sides make the intercommunicator as
 * MPI_Intercomm_create would, over the job's communicator. */
static int meet(const char *port_name, int root, MPI_Comm comm, MPI_Comm *newcomm, bool accept, const char *R)
{
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    if (c->inter) return smpi_error(c, MPI_ERR_COMM, R, "%s is an intercommunicator", c->name);
    if (root < 0 || root >= c->pt.size)
        return smpi_error(c, MPI_ERR_ROOT, R, "root %d not in [0, %d)", root, c->pt.size);
    if (!newcomm) return smpi_error(c, MPI_ERR_ARG, R, "newcomm is NULL");
    int head[2] = { MPI_SUCCESS, -1 }, rank = -1, idx = 0, rc;    /* the outcome, the remote root */
    bool gone = false;
    if (c->pt.rank == root) {
        if (!port_parse(port_name, &rank, &idx) || !port_is_open(rank, idx))
            head[0] = MPI_ERR_PORT;
        else if (accept && rank != sm_core.rank)
            head[0] = MPI_ERR_PORT;
        else if ((gone = sm_slot_gone(rank)))     /* its job ended with the port open */
            head[0] = MPI_ERR_PORT;
        else if (accept) {
            MPI_Status st;
            if ((rc = PMPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, TAG_PORT + idx, smpi_comm_universe, &st)))
                head[0] = rc;
            else head[1] = st.MPI_SOURCE;
        } else {
            /* From here this root waits for the acceptor: its smrun ends the
             * job if the acceptor is of another job and exits first. */
            sm_link(rank, 0, 1);
            if ((rc = PMPI_Send(NULL, 0, MPI_BYTE, rank, TAG_PORT + idx, smpi_comm_universe))) head[0] = rc;
            head[1] = rank;
        }
        if (accept && head[0] == MPI_SUCCESS) sm_link(head[1], 0, 1);
    }
    if ((rc = PMPI_Bcast(head, 2, MPI_INT, root, comm))) return smpi_error(c, rc, R, "the group's broadcast failed");
    if (head[0] == MPI_ERR_PORT)
        return smpi_error(c, MPI_ERR_PORT, R, "\"%s\" is not an open port%s",
                          c->pt.rank == root ? port_name : "(the root's)",
                          gone ? ": its owner has exited" : accept ? " of the root" : "");
    if (head[0]) {
        if (c->pt.rank == root && head[1] >= 0) sm_link(head[1], 0, -1);
        return smpi_error(c, head[0], R, "the roots could not meet");
    }
    rc = PMPI_Intercomm_create(comm, root, smpi_comm_universe, head[1], TAG_PORT + idx, newcomm);
    if (c->pt.rank == root) sm_link(head[1], 0, -1);
    if (rc) return smpi_error(c, rc, R, "making the intercommunicator failed");
    link_remote(*newcomm, 1);
    return MPI_SUCCESS;
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    SMPI_CHECK_INFO(NULL, info, "MPI_Comm_accept");
    return meet(port_name, root, comm, newcomm, true, "MPI_Comm_accept");
}
#pragma weak MPI_Comm_accept = PMPI_Comm_accept

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    SMPI_CHECK_INFO(NULL, info, "MPI_Comm_connect");
    return meet(port_name, root, comm, newcomm, false, "MPI_Comm_connect");
}
#pragma weak MPI_Comm_connect = PMPI_Comm_connect

/* --- The name service: job rank 0's table, under its lock --- */

/* The lock word holds its holder's slot + 1: a holder that died with it
 * (killed, or its job ended) leaves it to the next one. */
static struct dyn_area *names_lock(void)
{
    struct dyn_area *a = area_of(0);
    uint32_t free_ = 0, me = (uint32_t)sm_core.rank + 1;
    for (unsigned spins = 0; !atomic_compare_exchange_weak(&a->names_lock, &free_, me); spins++) {
        if (spins % 1024 == 1023 && free_ && sm_slot_gone((int)free_ - 1) &&
            atomic_compare_exchange_strong(&a->names_lock, &free_, me))
            break;
        free_ = 0;
        sched_yield();
    }
    return a;
}
static void names_unlock(struct dyn_area *a) { atomic_store(&a->names_lock, 0); }

static int name_find(struct dyn_area *a, const char *service)
{
    for (int i = 0; i < NAMES; i++)
        if (a->names[i].service[0] && !strcmp(a->names[i].service, service)) return i;
    return -1;
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char R[] = "MPI_Publish_name";
    SMPI_CHECK_INIT(R);
    SMPI_CHECK_INFO(NULL, info, R);
    if (!service_name || !*service_name || strlen(service_name) >= MPI_MAX_INFO_VAL)
        return smpi_error(NULL, MPI_ERR_SERVICE, R, "service_name is NULL, empty or too long");
    if (!port_name || strlen(port_name) >= MPI_MAX_PORT_NAME)
        return smpi_error(NULL, MPI_ERR_PORT, R, "port_name is NULL or too long");
    if (sm_spans_nodes()) {
        char key[KEY_MAX];
        name_key(key, sizeof key, service_name);
        sm_status_t st = sm_pmix_publish(key, port_name);
        return st ? smpi_error(NULL, st == SM_ERR_ARG ? MPI_ERR_SERVICE : MPI_ERR_INTERN, R, "%s", sm_fail_reason())
                  : MPI_SUCCESS;
    }
    struct dyn_area *a = names_lock();
    int i = name_find(a, service_name), rc = MPI_SUCCESS;
    if (i >= 0) rc = MPI_ERR_SERVICE;
    else {
        for (i = 0; i < NAMES && a->names[i].service[0]; i++) continue;
        if (i == NAMES) rc = MPI_ERR_NO_MEM;
        else {
            strcpy(a->names[i].port, port_name);
            strcpy(a->names[i].service, service_name);
        }
    }
    names_unlock(a);
    if (rc == MPI_ERR_SERVICE) return smpi_error(NULL, rc, R, "\"%s\" is published already", service_name);
    if (rc) return smpi_error(NULL, rc, R, "the job's %d names are all published", NAMES);
    return MPI_SUCCESS;
}
#pragma weak MPI_Publish_name = PMPI_Publish_name

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char R[] = "MPI_Unpublish_name";
    SMPI_CHECK_INIT(R);
    SMPI_CHECK_INFO(NULL, info, R);
    if (!service_name || !port_name) return smpi_error(NULL, MPI_ERR_ARG, R, "NULL argument");
    if (sm_spans_nodes()) {
        char key[KEY_MAX], port[MPI_MAX_PORT_NAME];
        name_key(key, sizeof key, service_name);
        sm_status_t st = sm_pmix_lookup(key, port, sizeof port);
        if (!st && strcmp(port, port_name)) st = sm_fail(SM_ERR_ARG, "not with this port");
        if (!st) st = sm_pmix_unpublish(key);
        return !st ? MPI_SUCCESS : st == SM_ERR_ARG
            ? smpi_error(NULL, MPI_ERR_SERVICE, R, "\"%s\" is not published with port \"%s\"", service_name, port_name)
            : smpi_error(NULL, MPI_ERR_INTERN, R, "%s", sm_fail_reason());
    }
    struct dyn_area *a = names_lock();
    int i = name_find(a, service_name);
    bool ok = i >= 0 && !strcmp(a->names[i].port, port_name);
    if (ok) a->names[i].service[0] = 0;
    names_unlock(a);
    return ok ? MPI_SUCCESS
              : smpi_error(NULL, MPI_ERR_SERVICE, R, "\"%s\" is not published with port \"%s\"", service_name,
                           port_name);
}
#pragma weak MPI_Unpublish_name = PMPI_Unpublish_name

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    static const char R[] = "MPI_Lookup_name";
    SMPI_CHECK_INIT(R);
    SMPI_CHECK_INFO(NULL, info, R);
    if (!service_name || !port_name) return smpi_error(NULL, MPI_ERR_ARG, R, "NULL argument");
    if (sm_spans_nodes()) {
        char key[KEY_MAX];
        name_key(key, sizeof key, service_name);
        sm_status_t st = sm_pmix_lookup(key, port_name, MPI_MAX_PORT_NAME);
        return !st ? MPI_SUCCESS : st == SM_ERR_ARG
            ? smpi_error(NULL, MPI_ERR_NAME, R, "\"%s\" is not published", service_name)
            : smpi_error(NULL, MPI_ERR_INTERN, R, "%s", sm_fail_reason());
    }
    struct dyn_area *a = names_lock();
    int i = name_find(a, service_name), owner = -1, idx;
    if (i >= 0) strcpy(port_name, a->names[i].port);
    names_unlock(a);
    if (i < 0) return smpi_error(NULL, MPI_ERR_NAME, R, "\"%s\" is not published", service_name);
    /* Left behind by a process (or a job) that has ended: nobody accepts there. */
    if (port_parse(port_name, &owner, &idx) && sm_slot_gone(owner))
        return smpi_error(NULL, MPI_ERR_NAME, R, "\"%s\" was published with port \"%s\", whose owner has exited",
                          service_name, port_name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Lookup_name = PMPI_Lookup_name

/* --- Join, disconnect, parent, spawn --- */

static bool fd_io(int fd, void *buf, size_t len, bool out)
{
    for (size_t done = 0; done < len;) {
        ssize_t k = out ? write(fd, (char *)buf + done, len - done) : read(fd, (char *)buf + done, len - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        done += (size_t)k;
    }
    return true;
}

/* The two processes swap slots and pids over the socket, then make the
 * intercommunicator of their MPI_COMM_SELFs over the universe's
 * communicator. The pid tells a process of another universe (another
 * smrun job not joined to this one), whose slot means nothing here. */
int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    static const char R[] = "MPI_Comm_join";
    SMPI_CHECK_INIT(R);
    if (!intercomm) return smpi_error(NULL, MPI_ERR_ARG, R, "intercomm is NULL");
    int mine[2] = { sm_core.rank, (int)sm_core.pid }, theirs[2];
    if (!fd_io(fd, mine, sizeof mine, true) || !fd_io(fd, theirs, sizeof theirs, false))
        return smpi_error(NULL, MPI_ERR_ARG, R, "cannot exchange ranks over fd %d: %s", fd,
                          errno ? strerror(errno) : "end of file");
    /* (a rank on another node: its pid is that node's, and its control block not mapped here) */
    if (theirs[0] < 0 || theirs[0] >= sm_core.size || theirs[0] == sm_core.rank ||
        (sm_rank_local(theirs[0]) && sm_ctrl_of(theirs[0])->job.pid != theirs[1]))
        return smpi_error(NULL, MPI_ERR_ARG, R, "the process at the other end of fd %d (pid %d, slot %d) is not "
                          "another process of this job or of a job joined to its universe (smrun --join)", fd,
                          theirs[1], theirs[0]);
    if (sm_slot_gone(theirs[0]))
        return smpi_error(NULL, MPI_ERR_ARG, R, "the process at the other end of fd %d (job rank %d) has exited", fd,
                          theirs[0]);
    sm_link(theirs[0], 0, 1);
    int rc = PMPI_Intercomm_create(MPI_COMM_SELF, 0, smpi_comm_universe, theirs[0], TAG_JOIN, intercomm);
    sm_link(theirs[0], 0, -1);
    if (rc) return smpi_error(NULL, rc, R, "making the intercommunicator failed");
    link_remote(*intercomm, 1);
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_join = PMPI_Comm_join

/* Every send on comm completes before its sender gets here (MPI's
 * blocking calls and the program's waits), so a barrier then the free
 * leave nothing pending between the two sides. */
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    static const char R[] = "MPI_Comm_disconnect";
    SMPI_CHECK_INIT(R);
    if (!comm) return smpi_error(NULL, MPI_ERR_ARG, R, "comm is NULL");
    SMPI_GET_COMM(c, *comm, R);
    if (c == &smpi_comm_world || c == &smpi_comm_self)
        return smpi_error(c, MPI_ERR_COMM, R, "cannot disconnect %s", c->name);
    int rc = PMPI_Barrier(*comm);
    if (rc) return rc;
    link_remote(*comm, -1);
    return PMPI_Comm_free(comm);
}
#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect

/* --- Spawn ---
 * The root opens a hidden port and asks smrun (sm_spawn) to start the
 * processes in free slots, the port as their parent text; they connect to
 * it from MPI_Init (smpi_spawn_connect) while the parents accept on it:
 * parents and children then hold an intercommunicator like any connection. */

int smpi_spawn_connect(void)
{
    const char *port = sm_spawn_parent();
    if (!port) return MPI_SUCCESS;
    int rc = PMPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &smpi_comm_parent);
    if (rc == MPI_SUCCESS) PMPI_Comm_set_name(smpi_comm_parent, "the parent");
    return rc;
}

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    static const char R[] = "MPI_Comm_get_parent";
    SMPI_CHECK_INIT(R);
    if (!parent) return smpi_error(NULL, MPI_ERR_ARG, R, "parent is NULL");
    *parent = smpi_comm_parent;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent

/* At the root: check the arguments, open the port, ask smrun. Returns an
 * MPI error class, with the reason in why. */
static int spawn_root(int count, char *cmds[], char **argvs[], const int maxprocs[], char *port, int *total,
                      char *why, size_t whylen)
{
    *total = 0;
    if (count < 1) return snprintf(why, whylen, "count %d is not positive", count), MPI_ERR_ARG;
    for (int i = 0; i < count; i++) {
        if (!cmds || !cmds[i] || !*cmds[i])
            return snprintf(why, whylen, "command %d is NULL or empty", i), MPI_ERR_ARG;
        if (maxprocs[i] < 1 || maxprocs[i] > SM_NMAX)
            return snprintf(why, whylen, "maxprocs %d of \"%s\" is not in [1, %d]", maxprocs[i], cmds[i], SM_NMAX),
                   MPI_ERR_ARG;
        *total += maxprocs[i];
    }
    /* (before the port: under a PMIx launcher that would be published in its name service for nothing) */
    sm_status_t st = sm_spawn_able();
    if (st) return snprintf(why, whylen, "%s", sm_fail_reason()), MPI_ERR_SPAWN;
    int rc = PMPI_Open_port(MPI_INFO_NULL, port);
    if (rc) return snprintf(why, whylen, "cannot open the port for the children"), rc;
    int base;
    st = sm_spawn(count, (const char *const *)cmds, argvs ? (char *const *const *)argvs : NULL, maxprocs, port,
                  &base);
    if (st == SM_OK) return MPI_SUCCESS;
    PMPI_Close_port(port);
    snprintf(why, whylen, "%s", sm_fail_reason());
    return MPI_ERR_SPAWN;
}

/* Collective over comm: the root starts the processes, everyone learns
 * the outcome and the number, then the group accepts the children's
 * connection. All or nothing: either every process starts, or none.
 * errcodes: the root fills one per process asked for; the others as many
 * as their own arguments make room for (ncodes), as Open MPI does: the
 * root's numbers are significant, theirs size their arrays (mpi4py sizes
 * them so). */
static int spawn(int count, char *cmds[], char **argvs[], const int maxprocs[], int root, MPI_Comm comm,
                 MPI_Comm *intercomm, int errcodes[], int ncodes, const char *R)
{
    SMPI_CHECK_INIT(R);
    SMPI_GET_COMM(c, comm, R);
    if (c->inter) return smpi_error(c, MPI_ERR_COMM, R, "%s is an intercommunicator", c->name);
    if (root < 0 || root >= c->pt.size)
        return smpi_error(c, MPI_ERR_ROOT, R, "root %d not in [0, %d)", root, c->pt.size);
    if (!intercomm) return smpi_error(c, MPI_ERR_ARG, R, "intercomm is NULL");
    char port[MPI_MAX_PORT_NAME] = "", why[320] = "";
    int head[2] = { MPI_SUCCESS, 0 };             /* the outcome, the processes asked for */
    if (c->pt.rank == root) head[0] = spawn_root(count, cmds, argvs, maxprocs, port, &head[1], why, sizeof why);
    int rc = PMPI_Bcast(head, 2, MPI_INT, root, comm);
    if (rc) return smpi_error(c, rc, R, "the group's broadcast failed");
    *intercomm = MPI_COMM_NULL;
    if (c->pt.rank == root || ncodes > head[1]) ncodes = head[1];
    if (errcodes != MPI_ERRCODES_IGNORE)
        for (int i = 0; i < ncodes; i++) errcodes[i] = head[0] ? MPI_ERR_SPAWN : MPI_SUCCESS;
    if (head[0])
        return smpi_error(c, head[0], R, "%s", c->pt.rank == root ? why : "the root could not start the processes");
    rc = PMPI_Comm_accept(port, MPI_INFO_NULL, root, comm, intercomm);
    if (c->pt.rank == root) PMPI_Close_port(port);
    return rc ? smpi_error(c, rc, R, "the children did not connect") : MPI_SUCCESS;
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *intercomm, int array_of_errcodes[])
{
    (void)info;                                   /* no key changes where or how processes start */
    char *cmd = (char *)command;
    return spawn(1, &cmd, argv ? &argv : NULL, &maxprocs, root, comm, intercomm, array_of_errcodes,
                 maxprocs > 0 ? maxprocs : 0, "MPI_Comm_spawn");
}
#pragma weak MPI_Comm_spawn = PMPI_Comm_spawn

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm,
                             MPI_Comm *intercomm, int array_of_errcodes[])
{
    (void)array_of_info;
    /* A caller that wants errcodes sizes them by its count and maxprocs
     * (at the root the significant ones) */
    int ncodes = 0;
    for (int i = 0; array_of_errcodes != MPI_ERRCODES_IGNORE && array_of_maxprocs && i < count; i++)
        ncodes += array_of_maxprocs[i] > 0 && array_of_maxprocs[i] <= SM_NMAX ? array_of_maxprocs[i] : 0;
    return spawn(count, array_of_commands, array_of_argv, array_of_maxprocs, root, comm, intercomm,
                 array_of_errcodes, ncodes, "MPI_Comm_spawn_multiple");
}
#pragma weak MPI_Comm_spawn_multiple = PMPI_Comm_spawn_multiple
