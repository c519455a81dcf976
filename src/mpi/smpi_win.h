/* smpi_win.h: the MPI window object, shared by win.c (windows, their
 * attributes and synchronisation) and rma.c (the communication calls). */
#ifndef SMPI_WIN_H
#define SMPI_WIN_H

#include "rma.h"
#include "smpi.h"

#define SMPI_MAGIC_WIN 0x57494e44u

struct smpi_win {
    uint32_t magic;
    struct rma_win rw;          /* the one-sided engine's window */
    struct coll_group cg;       /* its collectives (fence, creation, free): a group of its own */
    struct smpi_group *group;
    MPI_Errhandler errh;
    char     name[MPI_MAX_OBJECT_NAME];
    struct smpi_attr *attrs;    /* user attributes */
    /* the predefined attributes' values (MPI_Win_get_attr hands out their addresses) */
    void    *base;
    MPI_Aint size;
    int      disp_unit, flavor, model;
    /* PSCW: the last group given to post [0] and start [1], held (so that
     * its handle names the same group while cached), and its members */
    struct smpi_group *pscw_group[2];
    int     *pscw_members[2], pscw_n[2];
    /* info hints in effect */
    bool     no_locks, same_op, noncontig;
    char     ordering[24];      /* accumulate_ordering */
};

/* The window whose handle smpi_win last checked in full, else
 * &smpi_win_none (no user's handle). The inline paths (put, get, flush,
 * fetch-and-op, compare-and-swap) compare the handle with it, one load,
 * and leave any other handle to their general paths, which check it in
 * full (14 instructions of the 2-rank put + flush's 135, callgrind); a
 * program alternating windows takes the general path on each switch.
 * MPI_Win_free puts smpi_win_none back, so that a handle kept past it
 * is checked in full. */
extern __attribute__((visibility("hidden"))) struct smpi_win *smpi_win_known, smpi_win_none;
static inline __attribute__((always_inline)) bool smpi_win_known_is(MPI_Win h)
{
    return h == __atomic_load_n(&smpi_win_known, __ATOMIC_RELAXED);
}

static inline struct smpi_win *smpi_win(MPI_Win h)
{
    if (!smpi_object(h, sizeof *h) || h->magic != SMPI_MAGIC_WIN) return NULL;   /* 0x12345: not read */
    __atomic_store_n(&smpi_win_known, h, __ATOMIC_RELAXED);
    return h;
}

/* An error on w, or on MPI_COMM_WORLD's handler if the handle is not a window. */
#define SMPI_WIN_ERROR(w, cls, R, ...) smpi_win_error((w)->errh, (w), cls, R, __VA_ARGS__)
/* Resolve a window handle; returns from the caller if it is not one. */
#define SMPI_GET_WIN(var, handle, R) \
    struct smpi_win *var = smpi_win(handle); \
    if (SM_UNLIKELY(!var)) return smpi_win_bad(handle, R)
int smpi_win_bad(MPI_Win h, const char *R);
/* An engine status as the error class of the window routines: no epoch or
 * a conflicting one (MPI_ERR_RMA_SYNC), outside the window
 * (MPI_ERR_RMA_RANGE), the rest as smpi_class_of. */
int smpi_win_class(sm_status_t st);
/* Raise st on w in R with the engine's reason. */
int smpi_win_fail(struct smpi_win *w, sm_status_t st, const char *R);
/* A datatype for a window call: valid and committed, or the error raised on w. */
int smpi_win_type(struct smpi_win *w, MPI_Datatype h, const char *R, struct smpi_type **out);

#endif
