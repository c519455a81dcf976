/* fortran.h: what the generated Fortran entry points (fortran_mpi.c, made by
 * genfortran.py from mpi.h) share: the sentinels Fortran passes, statuses,
 * strings and temporaries, callback trampolines, and the error report.
 * The layer uses mpi.h's public API only (MPI_X_f2c/c2f for handles). */
#ifndef SMPI_FORTRAN_H
#define SMPI_FORTRAN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

#define SMPI_F_ENTRY __attribute__((visibility("default")))
#define SMPI_F_SMALL 16            /* handles or statuses converted on the stack */

typedef void smpi_f_fn(void);      /* a Fortran procedure, whatever its arguments */

/* A conversion that found no memory (distinct from every valid result, NULL included). */
extern char smpi_f_nomem_mark;
#define SMPI_F_NOMEM ((void *)&smpi_f_nomem_mark)

/* The COMMON blocks MPI_BOTTOM and MPI_IN_PLACE (fortran_common.c, or the
 * program's own copy, which preempts it: hence compared through the GOT). */
extern MPI_Fint mpi_fortran_bottom_[], mpi_fortran_in_place_[];
static inline void *smpi_f_buf(const void *b)
{
    if (b == (const void *)mpi_fortran_bottom_) return MPI_BOTTOM;
    if (b == (const void *)mpi_fortran_in_place_) return MPI_IN_PLACE;
    return (void *)b;
}

/* A count as an array length. */
static inline int smpi_f_len(MPI_Fint n) { return n > 0 ? n : 0; }
/* MPI_Info_get's valuelen: no more than the Fortran string or the C buffer hold. */
static inline int smpi_f_clamp(MPI_Fint v, size_t len, int max)
{
    if ((size_t)v > len) v = (MPI_Fint)len;
    return v > max ? max : v;
}

/* A Fortran status is an MPI_Status's bytes, but only 4-byte aligned: used
 * in place when aligned, else through a copy. */
static inline MPI_Status *smpi_f_status(MPI_Fint *f, MPI_Status *tmp)
{
    if (f == mpi_fortran_status_ignore_ || f == mpi_fortran_statuses_ignore_) return MPI_STATUS_IGNORE;
    if ((uintptr_t)f % _Alignof(MPI_Status) == 0) return (MPI_Status *)(void *)f;
    memcpy(tmp, f, sizeof *tmp);
    return tmp;
}
static inline void smpi_f_status_back(MPI_Fint *f, const MPI_Status *c)
{
    if (c != MPI_STATUS_IGNORE && (const void *)c != (const void *)f) memcpy(f, c, sizeof *c);
}
/* n statuses: MPI_STATUSES_IGNORE, the array in place, a copy (small, or
 * allocated), or SMPI_F_NOMEM. */
MPI_Status *smpi_f_statuses(MPI_Fint *f, MPI_Status *small, size_t small_size, int n);
void smpi_f_statuses_back(MPI_Fint *f, MPI_Status *c, MPI_Status *small, int n);

/* Room for n elements: small when they fit, else allocated (NULL: no memory). */
static inline void *smpi_f_tmp(void *small, size_t small_size, int n, size_t elem)
{
    return (size_t)n * elem <= small_size ? small : malloc((size_t)n * elem);
}

/* Strings. A Fortran string argument as a C string without its leading and
 * trailing blanks (in buf when it fits, else allocated; NULL: no memory). */
char *smpi_f_cstr(const char *s, size_t len, char *buf, size_t size);
/* A C string into a Fortran one: truncated or padded with blanks. */
void smpi_f_fstr(char *dst, size_t len, const char *src);
/* Arrays of Fortran strings as argv: count of them, or (count 0) up to the
 * first blank one; NULL for the sentinel; SMPI_F_NOMEM. argvs: count argv
 * lists, element (i, j) of a (count, *) array. */
char **smpi_f_argv(const char *s, size_t len, const void *sentinel, int count, int blank_ends);
void smpi_f_argv_free(char **v);
char ***smpi_f_argvs(const char *s, size_t len, const void *sentinel, int count);
void smpi_f_argvs_free(char ***v, int count);

/* The C trampoline for Fortran function fn: slots[i] holds the function the
 * C trampoline tramps[i] calls; NULL when all n are taken by others. */
smpi_f_fn *smpi_f_tramp(smpi_f_fn *_Atomic *slots, smpi_f_fn *const *tramps, int n, smpi_f_fn *fn);

/* Keyvals: the Fortran copy and delete functions and extra state, carried as
 * the C extra state (NULL: no memory). */
struct smpi_f_kv { smpi_f_fn *copy, *del; MPI_Aint extra; };
static inline struct smpi_f_kv *smpi_f_kv_new(smpi_f_fn *copy, smpi_f_fn *del, MPI_Aint extra)
{
    struct smpi_f_kv *k = malloc(sizeof *k);
    if (k) *k = (struct smpi_f_kv){copy, del, extra};
    return k;
}

/* MPI-1's INTEGER addresses: v into *out, or an error when it does not fit. */
int smpi_f_aint_to_fint(MPI_Aint v, MPI_Fint *out, const char *routine, const char *arg);

/* A failure of the Fortran layer itself in routine, raised like the C
 * layer's: under MPI_ERRORS_RETURN on MPI_COMM_WORLD the code is returned,
 * else the line is printed and the handler called. */
enum { SMPI_F_NOMEMMSG, SMPI_F_POOLFULL };
int smpi_f_fail(const char *routine, int what);

#endif
