/* fortran.c: the Fortran layer's helpers that are not generated: statuses,
 * strings and argv lists, callback trampoline slots, MPI-1 INTEGER
 * addresses, the error report, and the Fortran-only routines MPI_SIZEOF and
 * MPI_F_SYNC_REG. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "fortran.h"

char smpi_f_nomem_mark;

MPI_Status *smpi_f_statuses(MPI_Fint *f, MPI_Status *small, size_t small_size, int n)
{
    if (f == mpi_fortran_statuses_ignore_ || f == mpi_fortran_status_ignore_) return MPI_STATUSES_IGNORE;
    if ((uintptr_t)f % _Alignof(MPI_Status) == 0) return (MPI_Status *)(void *)f;
    MPI_Status *c = smpi_f_tmp(small, small_size, n, sizeof *c);
    if (!c) return SMPI_F_NOMEM;
    memcpy(c, f, (size_t)n * sizeof *c);
    return c;
}

void smpi_f_statuses_back(MPI_Fint *f, MPI_Status *c, MPI_Status *small, int n)
{
    if (c == MPI_STATUSES_IGNORE || c == SMPI_F_NOMEM || (void *)c == (void *)f) return;
    memcpy(f, c, (size_t)n * sizeof *c);
    if (c != small) free(c);
}

char *smpi_f_cstr(const char *s, size_t len, char *buf, size_t size)
{
    while (len && s[len - 1] == ' ') len--;
    while (len && *s == ' ') s++, len--;
    char *c = len < size ? buf : malloc(len + 1);
    if (!c) return NULL;
    memcpy(c, s, len);
    c[len] = 0;
    return c;
}

void smpi_f_fstr(char *dst, size_t len, const char *src)
{
    size_t n = strnlen(src, len);
    memcpy(dst, src, n);
    memset(dst + n, ' ', len - n);
}

/* n Fortran strings from s (each len long) as a NULL-terminated argv. */
static char **argv_of(const char *s, size_t len, int n, size_t stride)
{
    char **v = calloc((size_t)n + 1, sizeof *v);
    for (int i = 0; v && i < n; i++) {
        if (!(v[i] = smpi_f_cstr(s + (size_t)i * stride, len, NULL, 0))) {
            smpi_f_argv_free(v);
            return SMPI_F_NOMEM;
        }
    }
    return v ? v : SMPI_F_NOMEM;
}

static int blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ') return 0;
    return 1;
}

char **smpi_f_argv(const char *s, size_t len, const void *sentinel, int count, int blank_ends)
{
    if ((const void *)s == sentinel) return NULL;
    if (blank_ends)
        for (count = 0; !blank(s + (size_t)count * len, len); count++) {}
    return argv_of(s, len, count, len);
}

void smpi_f_argv_free(char **v)
{
    if (!v || (void *)v == SMPI_F_NOMEM) return;
    for (char **p = v; *p; p++) free(*p);
    free(v);
}

char ***smpi_f_argvs(const char *s, size_t len, const void *sentinel, int count)
{
    if ((const void *)s == sentinel) return NULL;
    char ***v = calloc((size_t)count + 1, sizeof *v);
    if (!v) return SMPI_F_NOMEM;
    /* Row i of a (count, *) array: elements i, i + count, ... until a blank one. */
    for (int i = 0; i < count; i++) {
        int n = 0;
        while (!blank(s + (size_t)(i + n * count) * len, len)) n++;
        v[i] = argv_of(s + (size_t)i * len, len, n, (size_t)count * len);
        if ((void *)v[i] == SMPI_F_NOMEM) {
            v[i] = NULL;
            smpi_f_argvs_free(v, count);
            return SMPI_F_NOMEM;
        }
    }
    return v;
}

void smpi_f_argvs_free(char ***v, int count)
{
    if (!v || (void *)v == SMPI_F_NOMEM) return;
    for (int i = 0; i < count; i++) smpi_f_argv_free(v[i]);
    free(v);
}

smpi_f_fn *smpi_f_tramp(smpi_f_fn *_Atomic *slots, smpi_f_fn *const *tramps, int n, smpi_f_fn *fn)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    for (int i = 0; i < n; i++) {
        smpi_f_fn *f = atomic_load_explicit(&slots[i], memory_order_acquire);
        if (f == fn) return tramps[i];
        if (!f) break;
    }
    smpi_f_fn *t = NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n && !t; i++) {
        smpi_f_fn *f = atomic_load_explicit(&slots[i], memory_order_relaxed);
        if (!f) atomic_store_explicit(&slots[i], fn, memory_order_release);
        if (!f || f == fn) t = tramps[i];
    }
    pthread_mutex_unlock(&lock);
    return t;
}

/* Raise code in routine as the C layer would, with the Fortran layer's words. */
static int fail(const char *routine, int code, const char *msg)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &e);
    if (e != MPI_ERRORS_RETURN) {
        fprintf(stderr, "smartmap: %s (Fortran): %s\n", routine, msg);
        MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
    }
    if (e != MPI_ERRORS_RETURN && e != MPI_ERRORS_ARE_FATAL && e != MPI_ERRHANDLER_NULL) MPI_Errhandler_free(&e);
    return code;
}

int smpi_f_fail(const char *routine, int what)
{
    if (what == SMPI_F_POOLFULL)
        return fail(routine, MPI_ERR_INTERN, "too many distinct Fortran callback functions of this kind "
                    "(a fixed set of C trampolines serves them)");
    return fail(routine, MPI_ERR_NO_MEM, "no memory to convert the Fortran arguments");
}

int smpi_f_aint_to_fint(MPI_Aint v, MPI_Fint *out, const char *routine, const char *arg)
{
    if (v == (MPI_Fint)v) {
        *out = (MPI_Fint)v;
        return MPI_SUCCESS;
    }
    char msg[160];
    snprintf(msg, sizeof msg, "%s = %lld does not fit the default INTEGER of this MPI-1 routine "
             "(use its MPI-2 form, with INTEGER(KIND=MPI_ADDRESS_KIND))", arg, (long long)v);
    return fail(routine, MPI_ERR_ARG, msg);
}

/* MPI_F_SYNC_REG (MPI 3.1 §17.1.17): a call the compiler cannot see into,
 * so that it keeps no copy of buf in a register across it. */
SMPI_F_ENTRY void mpi_f_sync_reg_(void *buf) { __asm__ volatile("" : : "r"(buf) : "memory"); }
SMPI_F_ENTRY void pmpi_f_sync_reg_(void *buf) __attribute__((alias("mpi_f_sync_reg_")));
SMPI_F_ENTRY void mpi_f_sync_reg_f08_(void *buf) __attribute__((alias("mpi_f_sync_reg_")));
SMPI_F_ENTRY void pmpi_f_sync_reg_f08_(void *buf) __attribute__((alias("mpi_f_sync_reg_")));
