/* fint.c: Fortran handles and statuses for C (MPI 3.1 §17.2.4-5): the
 * MPI_X_f2c / MPI_X_c2f pairs, the status conversions, and the storage of
 * MPI_F_STATUS(ES)_IGNORE (the Fortran layer's COMMON blocks).
 *
 * A predefined handle is a small integer (below SMPI_FINT_FIRST, as smpi.h
 * resolves them) and is its own Fortran value. A user object gets, the first
 * time it is converted, an index from SMPI_FINT_FIRST up: f2c reads a table
 * of chunks (no lock), c2f looks the address up in a hash (no lock when found,
 * which is the steady state: requests and objects are reused at the same
 * addresses). Entries are never removed: a freed object's index keeps its
 * address, and the next object at that address gets the same index back, so
 * the table grows with the number of distinct addresses, not of calls. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "smpi.h"

/* The COMMON blocks /mpi_fortran_status_ignore/ and /mpi_fortran_statuses_ignore/:
 * a Fortran program's own copy preempts these (the Fortran layer compares
 * addresses through the GOT); a C program sees these. */
#define SMPI_F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))
MPI_Fint mpi_fortran_status_ignore_[SMPI_F_STATUS_SIZE];
MPI_Fint mpi_fortran_statuses_ignore_[SMPI_F_STATUS_SIZE];

_Static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "a Fortran status is whole INTEGERs");
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "MPI_F08_status has MPI_Status's bytes");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == offsetof(MPI_F08_status, MPI_SOURCE) &&
               offsetof(MPI_Status, MPI_TAG) == offsetof(MPI_F08_status, MPI_TAG) &&
               offsetof(MPI_Status, MPI_ERROR) == offsetof(MPI_F08_status, MPI_ERROR),
               "MPI_Status starts with MPI_SOURCE, MPI_TAG, MPI_ERROR, as Fortran's status does");

#define SMPI_FINT_FIRST 4096              /* the first index of a user object */
#define CHUNK_BITS 10
#define CHUNK (1u << CHUNK_BITS)
#define NCHUNKS 16384                     /* 16 M user objects */
#define BAD_HANDLE 4095                   /* no object of any kind: every check rejects it */

typedef void *_Atomic slot_t;
static _Atomic(slot_t *) chunks[NCHUNKS];
static unsigned used;                     /* indices handed out (under lock) */

struct fint_hash {
    size_t mask, count;
    struct { _Atomic uintptr_t key; _Atomic MPI_Fint idx; } e[];
};
static _Atomic(struct fint_hash *) hash;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static inline size_t mix(uintptr_t p)
{
    p ^= p >> 33;
    p *= 0xff51afd7ed558ccdULL;
    return (size_t)(p ^ (p >> 29));
}

static MPI_Fint lookup(const struct fint_hash *h, uintptr_t p)
{
    if (!h) return -1;
    for (size_t i = mix(p) & h->mask;; i = (i + 1) & h->mask) {
        uintptr_t k = atomic_load_explicit(&h->e[i].key, memory_order_acquire);
        if (k == p) return atomic_load_explicit(&h->e[i].idx, memory_order_relaxed);
        if (!k) return -1;
    }
}

static void put(struct fint_hash *h, uintptr_t p, MPI_Fint idx)
{
    size_t i = mix(p) & h->mask;
    while (atomic_load_explicit(&h->e[i].key, memory_order_relaxed)) i = (i + 1) & h->mask;
    atomic_store_explicit(&h->e[i].idx, idx, memory_order_relaxed);
    atomic_store_explicit(&h->e[i].key, p, memory_order_release);
    h->count++;
}

/* A new index for p (under lock), or -1 when out of memory or indices. The
 * hash doubles at half full; readers may still be in the old one, which is
 * therefore kept (the tables add up to twice the last one). */
static MPI_Fint add(uintptr_t p)
{
    struct fint_hash *h = atomic_load_explicit(&hash, memory_order_relaxed);
    unsigned n = used;
    if (n >= (unsigned)NCHUNKS * CHUNK) return -1;
    slot_t *c = atomic_load_explicit(&chunks[n >> CHUNK_BITS], memory_order_relaxed);
    if (!c) {
        if (!(c = calloc(CHUNK, sizeof *c))) return -1;
        atomic_store_explicit(&chunks[n >> CHUNK_BITS], c, memory_order_release);
    }
    if (!h || 2 * (h->count + 1) > h->mask + 1) {
        size_t size = h ? 2 * (h->mask + 1) : 1024;
        struct fint_hash *g = calloc(1, sizeof *g + size * sizeof g->e[0]);
        if (!g) return -1;
        g->mask = size - 1;
        for (size_t i = 0; h && i <= h->mask; i++) {
            uintptr_t k = atomic_load_explicit(&h->e[i].key, memory_order_relaxed);
            if (k) put(g, k, atomic_load_explicit(&h->e[i].idx, memory_order_relaxed));
        }
        atomic_store_explicit(&hash, g, memory_order_release);
        h = g;
    }
    MPI_Fint idx = (MPI_Fint)(SMPI_FINT_FIRST + n);
    atomic_store_explicit(&c[n & (CHUNK - 1)], (void *)p, memory_order_release);
    put(h, p, idx);
    used = n + 1;
    return idx;
}

static MPI_Fint to_fint(const void *obj)
{
    uintptr_t p = (uintptr_t)obj;
    if (p < SMPI_FINT_FIRST) return (MPI_Fint)p;
    MPI_Fint idx = lookup(atomic_load_explicit(&hash, memory_order_acquire), p);
    if (idx >= 0) return idx;
    pthread_mutex_lock(&lock);
    idx = lookup(atomic_load_explicit(&hash, memory_order_relaxed), p);
    if (idx < 0) idx = add(p);
    pthread_mutex_unlock(&lock);
    /* No memory for the table: a value f2c turns into a handle every check rejects. */
    return idx < 0 ? BAD_HANDLE : idx;
}

static void *from_fint(MPI_Fint f)
{
    if (f >= 0 && f < SMPI_FINT_FIRST) return (void *)(intptr_t)f;
    unsigned n = (unsigned)f - SMPI_FINT_FIRST;
    if (f < 0 || n >= (unsigned)NCHUNKS * CHUNK) return (void *)(intptr_t)BAD_HANDLE;
    slot_t *c = atomic_load_explicit(&chunks[n >> CHUNK_BITS], memory_order_acquire);
    void *p = c ? atomic_load_explicit(&c[n & (CHUNK - 1)], memory_order_acquire) : NULL;
    return p ? p : (void *)(intptr_t)BAD_HANDLE;
}

/* PMPI_X_f2c / PMPI_X_c2f for each handle type, and their MPI_ names (weak,
 * as every routine's: a profiling tool may define them). */
#define SMPI_FINT_PAIR(X, T) \
    T PMPI_##X##_f2c(MPI_Fint h) { return (T)from_fint(h); } \
    MPI_Fint PMPI_##X##_c2f(T h) { return to_fint((const void *)h); } \
    T MPI_##X##_f2c(MPI_Fint h) __attribute__((weak, alias("PMPI_" #X "_f2c"))); \
    MPI_Fint MPI_##X##_c2f(T h) __attribute__((weak, alias("PMPI_" #X "_c2f")));
SMPI_FINT_PAIR(Comm, MPI_Comm)
SMPI_FINT_PAIR(Type, MPI_Datatype)
SMPI_FINT_PAIR(Group, MPI_Group)
SMPI_FINT_PAIR(Op, MPI_Op)
SMPI_FINT_PAIR(Request, MPI_Request)
SMPI_FINT_PAIR(Errhandler, MPI_Errhandler)
SMPI_FINT_PAIR(Message, MPI_Message)
SMPI_FINT_PAIR(Info, MPI_Info)
SMPI_FINT_PAIR(Win, MPI_Win)

/* Statuses: the same bytes in each form. Converting an IGNORE is erroneous
 * (MPI 3.1 §17.2.5); it is reported, not copied from. */
static int status_copy(const void *from, void *to, const char *routine)
{
    if (!from || !to || from == (const void *)MPI_F_STATUS_IGNORE || from == (const void *)MPI_F_STATUSES_IGNORE)
        return smpi_error(NULL, MPI_ERR_ARG, routine, "a status argument is %s",
                          !from || !to ? "MPI_STATUS_IGNORE (NULL)" : "MPI_F_STATUS(ES)_IGNORE");
    memcpy(to, from, sizeof(MPI_Status));
    return MPI_SUCCESS;
}
#define SMPI_STATUS_CONV(name, From, To) \
    int PMPI_Status_##name(const From *f, To *t) { return status_copy(f, t, "MPI_Status_" #name); } \
    int MPI_Status_##name(const From *f, To *t) __attribute__((weak, alias("PMPI_Status_" #name)));
SMPI_STATUS_CONV(f2c, MPI_Fint, MPI_Status)
SMPI_STATUS_CONV(c2f, MPI_Status, MPI_Fint)
SMPI_STATUS_CONV(f082c, MPI_F08_status, MPI_Status)
SMPI_STATUS_CONV(c2f08, MPI_Status, MPI_F08_status)
SMPI_STATUS_CONV(f082f, MPI_F08_status, MPI_Fint)
SMPI_STATUS_CONV(f2f08, MPI_Fint, MPI_F08_status)
