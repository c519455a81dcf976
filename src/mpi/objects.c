/* The binding's shared objects, below every other file of src/mpi: the
 * initialisation state, the predefined communicators and the empty group,
 * and the reference counts that keep communicators, groups and error
 * handlers alive while requests or other objects still use them. The files
 * above (err, type, request, pt2pt, comm, collective, env) call in here and
 * never the other way. Also the keyval tables' storage and the attribute
 * lock that communicators, windows and datatypes share. */
#define _GNU_SOURCE             /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm_core.h"
#include "smpi.h"

int smpi_state;
bool smpi_mt;
struct smpi_comm smpi_comm_world, smpi_comm_self, *smpi_comm_universe;
struct smpi_group smpi_group_empty = { SMPI_MAGIC_GRP, 1, 0, MPI_UNDEFINED, NULL };

const char *smpi_comm_name(const struct smpi_comm *c) { return c->name; }

void smpi_errh_ref(MPI_Errhandler e)
{
    if (smpi_user_errh(e)) smpi_refs_add(&e->refs, 1);
}

void smpi_errh_unref(MPI_Errhandler e)
{
    if (smpi_user_errh(e) && smpi_refs_add(&e->refs, -1) == 0) {
        e->magic = 0;
        free(e);
    }
}

struct smpi_group *smpi_group_new(int size)
{
    struct smpi_group *g = calloc(1, sizeof *g);
    if (!g || !(g->world = malloc(sizeof(int) * (size_t)(size ? size : 1)))) {
        free(g);
        return NULL;
    }
    g->magic = SMPI_MAGIC_GRP, g->refs = 1, g->size = size, g->rank = MPI_UNDEFINED;
    return g;
}

void smpi_group_set_rank(struct smpi_group *g)
{
    g->rank = MPI_UNDEFINED;
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == sm_core.rank) g->rank = i;
}

void smpi_group_unref(struct smpi_group *g)
{
    if (g == &smpi_group_empty || smpi_refs_add(&g->refs, -1) > 0) return;
    g->magic = 0;
    free(g->world);
    free(g);
}

void smpi_comm_setup(struct smpi_comm *c, struct smpi_group *g, uint32_t ctx, const char *name)
{
    c->magic = SMPI_MAGIC_COMM, c->refs = 1, c->group = g;
    c->errh = MPI_ERRORS_ARE_FATAL;
    c->pt = (struct p2p_comm){ ctx, g->rank, g->size, g->world, 0 };
    c->co = c->pt;
    c->co.ctx = ctx + 1;
    snprintf(c->name, sizeof c->name, "%s", name);
}

/* The members of g as the collective engine sees them (none if the caller
 * is not one): start and stride when the job ranks are evenly spaced, so
 * the engine needs no table, else g's table. */
struct sm_group smpi_group_members(const struct smpi_group *g)
{
    if (!g || g->rank == MPI_UNDEFINED) return (struct sm_group){ 0, -1, 0, 1, NULL };
    struct sm_group m = { g->size, g->rank, g->world[0], g->size > 1 ? g->world[1] - g->world[0] : 1, NULL };
    for (int i = 0; i < g->size && !m.ranks; i++)
        if (g->world[i] != m.start + i * m.stride) m.ranks = g->world;
    return m;
}

MPI_Comm smpi_comm_parent = MPI_COMM_NULL;

/* Context ids: WORLD uses 0/1, SELF 2/3 (comm.c agrees on the next ones).
 * Their collective engine groups are made over the caller's world; the
 * hidden communicator of the whole job reaches every slot of the universe
 * (its rank is the job rank). */
int smpi_comm_init_predef(void)
{
    struct smpi_group *w = smpi_group_new(sm_core.world_size), *s = smpi_group_new(1);
    struct smpi_group *u = smpi_group_new(sm_core.size);
    if (!w || !s || !u) return MPI_ERR_NO_MEM;
    for (int i = 0; i < sm_core.world_size; i++) w->world[i] = sm_core.world_base + i;
    for (int i = 0; i < sm_core.size; i++) u->world[i] = i;
    s->world[0] = sm_core.rank;
    smpi_group_set_rank(w);
    smpi_group_set_rank(s);
    smpi_group_set_rank(u);
    smpi_comm_setup(&smpi_comm_world, w, 0, "MPI_COMM_WORLD");
    smpi_comm_setup(&smpi_comm_self, s, 2, "MPI_COMM_SELF");
    if (!smpi_comm_universe && !(smpi_comm_universe = calloc(1, sizeof *smpi_comm_universe)))
        return MPI_ERR_NO_MEM;
    smpi_comm_setup(smpi_comm_universe, u, SMPI_CTX_UNIVERSE, "the job");
    smpi_comm_universe->cg.num = -1;
    smpi_comm_universe->errh = MPI_ERRORS_RETURN;
    struct sm_group mw = smpi_group_members(w), ms = smpi_group_members(s);
    /* (the engine fails here only for want of memory or group numbers) */
    if (coll_group_create(&smpi_comm_world.cg, &mw, NULL) ||
        coll_group_create(&smpi_comm_self.cg, &ms, &smpi_comm_world.cg))
        return MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

void smpi_comm_ref(struct smpi_comm *c)
{
    if (c != &smpi_comm_world && c != &smpi_comm_self && c != smpi_comm_universe) smpi_refs_add(&c->refs, 1);
}

void smpi_comm_unref(struct smpi_comm *c)
{
    if (c == &smpi_comm_world || c == &smpi_comm_self || c == smpi_comm_universe || smpi_refs_add(&c->refs, -1) > 0)
        return;
    if (c->inter) {                      /* an intercommunicator: its two hidden parts and the remote group */
        smpi_comm_unref(c->inter->local);
        smpi_comm_unref(c->inter->peer);
        smpi_group_unref(c->inter->remote);
        free(c->inter);
    }
    coll_group_destroy(&c->cg);
    smpi_topo_unref(c->topo);
    smpi_group_unref(c->group);
    smpi_errh_unref(c->errh);
    free(c->hints);
    c->magic = 0;
    free(c);
}

/* --- Keyval tables and the attribute lock (comm.c, win.c, type.c) --- */
static pthread_mutex_t key_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t attr_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void *smpi_keytab_get(struct smpi_keytab *t, int i)
{
    if (i < 0 || i >= __atomic_load_n(&t->n, __ATOMIC_ACQUIRE)) return NULL;
    return (char *)t->chunk[i / SMPI_KEY_CHUNK] + (size_t)(i % SMPI_KEY_CHUNK) * t->esize;
}

int smpi_keytab_add(struct smpi_keytab *t, const void *entry)
{
    if (smpi_mt) pthread_mutex_lock(&key_lock);
    int i = t->n;
    void **chunk = i < SMPI_KEY_CHUNK * SMPI_KEY_CHUNKS ? &t->chunk[i / SMPI_KEY_CHUNK] : NULL;
    if (chunk && !*chunk) *chunk = calloc(SMPI_KEY_CHUNK, t->esize);
    if (chunk && *chunk) {
        memcpy((char *)*chunk + (size_t)(i % SMPI_KEY_CHUNK) * t->esize, entry, t->esize);
        __atomic_store_n(&t->n, i + 1, __ATOMIC_RELEASE);
    }
    if (smpi_mt) pthread_mutex_unlock(&key_lock);
    return chunk && *chunk ? i : -1;
}

void smpi_attrs_lock(void) { if (smpi_mt) pthread_mutex_lock(&attr_lock); }
int smpi_attrs_unlock(int rc) { if (smpi_mt) pthread_mutex_unlock(&attr_lock); return rc; }
