/* smrun.h: the launcher's shared types: parsed options, app contexts and the
 * per-rank state of a running job, plus the functions the smrun files share. */
#ifndef SMRUN_H
#define SMRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sm_job.h"

#ifndef SMRUN_VERSION
#define SMRUN_VERSION "0.0.0"
#endif
#ifndef SMRUN_BIN_TO_LIB
#define SMRUN_BIN_TO_LIB "../lib"  /* libdir relative to bindir, set by CMake */
#endif

/* Exit codes of smrun itself (a failed rank's own code is passed through). */
enum {
    SMRUN_EXIT_INTERNAL = 1,    /* the job could not be started or run */
    SMRUN_EXIT_USAGE    = 2,    /* bad arguments: nothing was started */
    SMRUN_EXIT_TIMEOUT  = 124,  /* --timeout expired (as timeout(1)) */
};

/* One app context: "-n N program args" (MPMD jobs have several, joined by ':'). */
struct app {
    int    nranks;
    int    first_rank;
    char  *path;       /* the executable, resolved through PATH */
    char **argv;       /* NULL-terminated; argv[0] as the user wrote it */
    char **env;        /* -x given in this context only (contexts after the first) */
    int    nenv;
    uint64_t heap_bytes;   /* per rank of this context, a multiple of SM_HEAP_ALIGN */
    const char *mem_arg;   /* --mem-per-rank as given in this context; NULL if not */
    int    world_base, world_size;  /* the world its ranks belong to: all contexts, or one spawn's */
    int    appnum;                  /* its index in that world's contexts (MPI_APPNUM) */
    char  *parent;                  /* a spawn's: the spawner's text (SMARTMAP_PARENT); else NULL */
};

struct options {
    struct app *apps;
    int         napps;
    int         nranks;          /* over all contexts */
    int         universe;        /* slots: nranks, or --universe-size (MPI_Comm_spawn uses the rest) */
    uint64_t    heap_bytes;      /* the largest heap of a rank (each context has its own) */
    uint64_t    heap_total;      /* the heaps of all ranks */
    uint64_t    mem_limit;       /* the memory smrun may use (machine or cgroup); 0: unknown */
    const char *pages;           /* "4k" or "2m" after the THP check */
    bool        tag_output;
    double      timeout;         /* seconds; 0: none */
    bool        bind_core;
    bool        preload;
    const char *preload_lib;     /* with --preload: the library's absolute path */
    int         verbose;
    char      **genv;            /* -x of the first context: every rank */
    int         ngenv;
    const char *univ_name;       /* --universe NAME: serve the universe to other smruns */
    const char *join_name;       /* --join NAME: run in the free slots of that universe */
};

/* smrun.c: a rank's unfinished line on stream s (0 stdout, 1 stderr) is
 * ended before anything else is written there. */
void end_partial_line(int s);

/* info.c: the SMARTMAP_* settings (the core's table) */
void print_settings_info(const char *format);
void print_smrun_settings(void);
void check_settings(const struct options *o);

/* options.c */
void parse_options(int argc, char **argv, struct options *o);
char *find_program(const char *name, char *why, size_t whylen);
_Noreturn void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xstrdup(const char *s);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
const char *signal_name(int sig, char buf[16]);
void format_bytes(uint64_t bytes, char *buf, size_t len);

#endif
