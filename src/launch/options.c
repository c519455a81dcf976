/* options.c: smrun's command line (mpirun conventions: options end at the
 * program, ':' separates MPMD app contexts), its validation, and --help. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sm_memlimit.h"
#include "sm_settings.h"
#include "smrun.h"

/* ---- small helpers shared by the smrun files ---------------------------- */

void msg(const char *fmt, ...)
{
    /* One line, one write(): smrun's messages never split rank output lines. */
    char line[1024];
    int n = snprintf(line, sizeof line, "smrun: ");
    int room = (int)sizeof line - n - 1;          /* keep one byte for the '\n' */
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, (size_t)room, fmt, ap);
    va_end(ap);
    n += m < 0 ? 0 : m < room ? m : room - 1;     /* a long message is cut */
    line[n++] = '\n';
    end_partial_line(1);
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}

_Noreturn void usage_error(const char *fmt, ...)
{
    char text[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    msg("%s", text);
    exit(SMRUN_EXIT_USAGE);
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) { msg("out of memory"); exit(SMRUN_EXIT_INTERNAL); }
    return p;
}

void *xrealloc(void *p, size_t size)
{
    p = realloc(p, size ? size : 1);
    if (!p) { msg("out of memory"); exit(SMRUN_EXIT_INTERNAL); }
    return p;
}

char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d) { msg("out of memory"); exit(SMRUN_EXIT_INTERNAL); }
    return d;
}

const char *signal_name(int sig, char buf[16])
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev) snprintf(buf, 16, "SIG%s", abbrev);
    else snprintf(buf, 16, "signal %d", sig);
    return buf;
}

void format_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) { v /= 1024; u++; }
    snprintf(buf, len, v == floor(v) ? "%.0f %s" : "%.1f %s", v, unit[u]);
}

/* ---- values ------------------------------------------------------------- */

/* "4", not "+4", "-4", "4x", " 4" or "0x4". */
static bool parse_uint(const char *s, long *out)
{
    if (!isdigit((unsigned char)s[0])) return false;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || errno) { if (errno == ERANGE) { *out = LONG_MAX; return true; } return false; }
    *out = v;
    return true;
}

static int parse_count(const char *opt, const char *s)
{
    long v;
    if (*s == '=') s++;                      /* -n=4 */
    if (!parse_uint(s, &v) || v <= 0)
        usage_error("%s: '%s' is not a positive integer", opt, s);
    if (v > SM_NMAX)
        usage_error("%s: %s ranks are more than a job can have (%d)", opt, s, SM_NMAX);
    return (int)v;
}

static double parse_timeout(const char *s)
{
    char *end;
    if (!isdigit((unsigned char)s[0]) && s[0] != '.')
        usage_error("--timeout: '%s' is not a positive number of seconds", s);
    errno = 0;
    double v = strtod(s, &end);
    if (*end == 's' && end[1] == '\0') end++;
    if (*end || errno == EINVAL || isnan(v) || v <= 0)
        usage_error("--timeout: '%s' is not a positive number of seconds", s);
    if (v > 1e8 || errno == ERANGE)
        usage_error("--timeout: '%s' is too large (at most 100000000 seconds, about 3 years)", s);
    return v;
}

static bool valid_env_name(const char *s, size_t len)
{
    if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
    for (size_t i = 1; i < len; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return false;
    return true;
}

static void check_env_arg(const char *s)
{
    const char *eq = strchr(s, '=');
    size_t len = eq ? (size_t)(eq - s) : strlen(s);
    if (!valid_env_name(s, len))
        usage_error("-x: '%s' is not VAR or VAR=VALUE with a valid variable name", s);
}

/* The executable for program name, as execvp would find it; NULL if there
 * is none, with why saying so ("prog: command not found in PATH"). */
char *find_program(const char *name, char *why, size_t whylen)
{
    struct stat st;
    if (!*name) { snprintf(why, whylen, "'': no such file"); return NULL; }
    if (strchr(name, '/')) {
        if (stat(name, &st) != 0)
            snprintf(why, whylen, "%s: %s", name, errno == ENOENT || errno == ENOTDIR ? "no such file" : strerror(errno));
        else if (S_ISDIR(st.st_mode)) snprintf(why, whylen, "%s: is a directory", name);
        else if (!S_ISREG(st.st_mode) || access(name, X_OK) != 0) snprintf(why, whylen, "%s: not executable", name);
        else return xstrdup(name);
        return NULL;
    }
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    char *found_noexec = NULL;
    for (const char *p = path;; ) {
        const char *colon = strchr(p, ':');
        size_t dlen = colon ? (size_t)(colon - p) : strlen(p);
        char *cand = xcalloc(dlen + strlen(name) + 3, 1);
        if (dlen == 0) sprintf(cand, "./%s", name);  /* empty PATH element: "." */
        else sprintf(cand, "%.*s/%s", (int)dlen, p, name);
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(cand, X_OK) == 0) { free(found_noexec); return cand; }
            if (!found_noexec) { found_noexec = cand; cand = NULL; }
        }
        free(cand);
        if (!colon) break;
        p = colon + 1;
    }
    if (found_noexec) snprintf(why, whylen, "%s: not executable (%s)", name, found_noexec);
    else snprintf(why, whylen, "%s: command not found in PATH", name);
    free(found_noexec);
    return NULL;
}

/* find_program, or one line and exit 2. */
static char *resolve_program(const char *name)
{
    char why[PATH_MAX + 64];
    char *path = find_program(name, why, sizeof why);
    if (!path) usage_error("%s", why);
    return path;
}

/* --pages 2m needs THP for shared memory (memfds are shmem). */
static const char *check_pages(const char *want)
{
    if (strcmp(want, "2m") != 0) return "4k";
    char buf[256] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/shmem_enabled", "re");
    if (f) {
        if (!fgets(buf, sizeof buf, f)) buf[0] = '\0';
        fclose(f);
    }
    char sel[64] = "unavailable";
    char *l = strchr(buf, '['), *r = l ? strchr(l, ']') : NULL;
    if (l && r && r - l - 1 < (long)sizeof sel) {
        memcpy(sel, l + 1, (size_t)(r - l - 1));
        sel[r - l - 1] = '\0';
    }
    static const char *ok[] = { "always", "within_size", "advise", "force" };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (strcmp(sel, ok[i]) == 0) return "2m";
    msg("warning: 2 MiB pages are not available for shared memory here "
        "(shmem_enabled=%s); using 4 KiB pages", sel);
    return "4k";
}

/* libsmartmap.so next to smrun: <bindir>/SMRUN_BIN_TO_LIB (the install
 * layout, from GNUInstallDirs) or <bindir>/../lib (the build tree). */
static const char *find_preload_lib(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) usage_error("--preload: cannot find smrun's own executable: %s", strerror(errno));
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    *slash = '\0';
    static char lib[PATH_MAX + 64];
    const char *rel[] = { SMRUN_BIN_TO_LIB, "../lib" };
    for (int i = 0; i < 2; i++) {
        /* A clean directory, but the name kept: libsmartmap.so, not the
         * versioned file it links to. */
        snprintf(lib, sizeof lib, "%s/%s", exe, rel[i]);
        char *dir = realpath(lib, NULL);
        if (dir) {
            snprintf(lib, sizeof lib, "%s/libsmartmap.so", dir);
            free(dir);
            if (access(lib, R_OK) == 0) return lib;
        }
    }
    snprintf(lib, sizeof lib, "%s/%s/libsmartmap.so", exe, SMRUN_BIN_TO_LIB);
    usage_error("--preload: %s: no such file", lib);
}

/* A universe's name: part of an abstract socket's name, so short and plain. */
static const char *parse_universe_name(const char *opt, const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > SM_UNIVERSE_NAME || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
        usage_error("%s: '%s' is not a universe name (1 to %d letters, digits, '.', '_' or '-')", opt, s,
                    SM_UNIVERSE_NAME);
    return s;
}

/* ---- help --------------------------------------------------------------- */

static void print_help(void)
{
    char lo[32], hi[32];
    format_bytes(SM_HEAP_MIN, lo, sizeof lo);
    format_bytes(SM_HEAP_MAX, hi, sizeof hi);
    printf(
"Usage: smrun [options] [-n N] program [args...] [: [-n N] [-x VAR] program [args...]]...\n"
"\n"
"Start a smartmap job: N processes (ranks) of program on this machine, each\n"
"rank's heap, globals and main stack mapped into every other rank (SMARTMAP).\n"
"Options end at the program name: everything after it goes to the program.\n"
"' : ' starts another app context (MPMD); ranks are numbered consecutively\n"
"across contexts. The program is looked up in PATH unless it has a '/'.\n"
"\n"
"Options:\n"
"  -n N, -np N, --np N     ranks for this app context (1..%d in all;\n"
"                          default: the number of CPUs smrun may run on)\n"
"  -x VAR                  export VAR from smrun's environment (all of it is\n"
"                          passed through anyway)\n"
"  -x VAR=VALUE            set VAR in the ranks' environment; before the first\n"
"                          ':' for every rank, after it for that context only\n"
"  --mem-per-rank SIZE     heap of each rank: 512M, 2G, 1.5GiB, 1073741824 ...\n"
"                          (binary units; rounded up to 64 MiB; %s..%s);\n"
"                          before the first ':' for every context, after it\n"
"                          for that context only. Address space until touched:\n"
"                          the ranks' heaps may add up to more than memory.\n"
"                          Default: 90%% of the memory smrun may use (physical,\n"
"                          or its memory cgroup's limit) shared by the ranks\n"
"                          (by --universe-size processes if given).\n"
"  --pages 4k|2m           page size for the ranks' shared memory (default 4k;\n"
"                          2m needs transparent huge pages for shmem)\n"
"  --bind-to core|none     pin rank i to the i-th CPU smrun may run on, wrapping\n"
"                          round when there are more ranks (default core)\n"
"  --tag-output            prefix every output line with \"[rank] \"\n"
"  --timeout SECONDS       kill the job after SECONDS and exit 124\n"
"  --universe-size U       slots for U processes in all (MPI_UNIVERSE_SIZE):\n"
"                          the job starts with -n of them, MPI_Comm_spawn\n"
"                          starts more in the others, each slot used once\n"
"                          (default: the ranks of all app contexts, no spawn)\n"
"  --universe NAME         let other smrun jobs of this user join the universe\n"
"                          (--join NAME) in its free slots; see below\n"
"  --join NAME             start this job's ranks in free slots of universe\n"
"                          NAME, which another smrun serves (--universe NAME)\n"
"  --preload               add libsmartmap.so to LD_PRELOAD, for programs not\n"
"                          linked with -lsmartmap\n"
"  -v, --verbose           say what smrun does\n"
"  -h, --help              this text\n"
"  -V, --version           smrun's version\n"
"  --info                  the SMARTMAP_* settings the ranks read from the\n"
"                          environment: each one's value now, default, meaning\n"
"                          (--info=markdown: as a Markdown table)\n"
"Long options may also be given with one dash (-np, -tag-output ...).\n"
"-n, -x and --mem-per-rank belong to an app context; the others to the whole\n"
"job, before the first program.\n"
"--oversubscribe and --allow-run-as-root are accepted for mpirun's sake and\n"
"do nothing: more ranks than CPUs are always allowed.\n"
"\n"
"Each rank gets smrun's environment plus:\n", SM_NMAX, lo, hi);
    print_smrun_settings();
    printf(
"Ranks run in a process group of their own, their programs with address\n"
"space randomisation off (what a program starts once it uses the job has it\n"
"back). Each rank runs one smartmap program: a wrapper may exec it, and any\n"
"other smartmap program in the rank fails when it uses the job. Rank 0 reads\n"
"smrun's stdin, the others /dev/null. Output is forwarded line by line, so\n"
"lines of different ranks never mix.\n"
"\n"
"MPI_Comm_spawn (and _multiple) asks smrun to start the new processes in\n"
"free slots: they form a world of their own and belong to the job like the\n"
"first ranks (output, signals, failure); smrun ends when all have exited.\n"
"Spawning more processes than there are free slots fails with MPI_ERR_SPAWN.\n"
"\n"
"Separately started jobs connect through a shared universe (as Open MPI's\n"
"ompi-server or MPICH's hydra_nameserver let theirs): the first job is\n"
"started with --universe NAME --universe-size U and listens on an abstract\n"
"Unix socket named after NAME and the user (nothing in the file system;\n"
"other users are refused); smrun --join NAME -n N prog starts N ranks in\n"
"free slots of it, with their own MPI_COMM_WORLD, stdio, signals and exit\n"
"code. MPI_Open_port, MPI_Comm_accept/_connect, MPI_Publish_name/\n"
"_Lookup_name and MPI_Comm_join then work between the jobs as within one.\n"
"Slots are used once, by the first job's spawns and by every joined job; a\n"
"--join that finds too few free slots, or no smrun serving NAME, ends with\n"
"one line saying so. A rank that is connected to a process of another job\n"
"that dies without finalizing (or waits for a connection with one that\n"
"ends) ends its job, with a line naming it. The first job may end before\n"
"the others: what is connected lives on, but no job can join any more.\n"
"\n"
"A rank that is killed by a signal, exits non-zero, exits without finalizing\n"
"(e.g. without MPI_Finalize) or aborts ends the job: smrun kills the other\n"
"ranks, and everything they started, and says which rank died and how. So\n"
"does a rank that exits without initialising smartmap (a program not linked\n"
"with it) in a job whose other ranks did: they would wait for it forever.\n"
"SIGINT, SIGTERM, SIGHUP and SIGQUIT are forwarded to the ranks and end the\n"
"job (SIGKILL after 1 s); SIGUSR1 and SIGUSR2 are forwarded; SIGTSTP (^Z)\n"
"stops the ranks with smrun, SIGCONT resumes them. If smrun itself is killed,\n"
"even by SIGKILL, the ranks and what they started are killed too.\n"
"\n"
"Exit status:\n"
"  0        every rank exited with 0\n"
"  1..      the exit code of the rank that ended the job (1 if it exited 0\n"
"           without finalizing), or 1 if smrun could not start the job\n"
"  2        bad arguments (nothing was started)\n"
"  124      --timeout expired\n"
"  128+S    a rank was killed by signal S, or smrun received signal S\n"
"\n"
"Examples:\n"
"  smrun -n 4 ./ring\n"
"  smrun -np 8 --mem-per-rank 2G --tag-output ./solver input.dat\n"
"  smrun -n 1 ./master : -n 7 ./worker\n"
"  smrun -n 1 --universe-size 8 ./manager   (it spawns up to 7 workers)\n"
"  smrun --universe srv --universe-size 8 -n 2 ./server &\n"
"  smrun --join srv -n 4 ./client          (client and server connect)\n"
"  smrun -n 2 --preload -x OMP_NUM_THREADS=1 ./prog\n");
}

/* ---- the command line --------------------------------------------------- */

enum { OPT_MEM = 256, OPT_PAGES, OPT_TAG, OPT_TIMEOUT, OPT_BIND, OPT_PRELOAD, OPT_INFO, OPT_UNIVERSE, OPT_UNAME,
       OPT_JOIN, OPT_NOOP };

static const struct option longopts[] = {
    { "np",           required_argument, NULL, 'n' },
    { "n",            required_argument, NULL, 'n' },
    { "mem-per-rank", required_argument, NULL, OPT_MEM },
    { "pages",        required_argument, NULL, OPT_PAGES },
    { "tag-output",   no_argument,       NULL, OPT_TAG },
    { "timeout",      required_argument, NULL, OPT_TIMEOUT },
    { "bind-to",      required_argument, NULL, OPT_BIND },
    { "preload",      no_argument,       NULL, OPT_PRELOAD },
    { "universe-size", required_argument, NULL, OPT_UNIVERSE },
    { "universe",     required_argument, NULL, OPT_UNAME },
    { "join",         required_argument, NULL, OPT_JOIN },
    { "verbose",      no_argument,       NULL, 'v' },
    { "help",         no_argument,       NULL, 'h' },
    { "version",      no_argument,       NULL, 'V' },
    { "info",         optional_argument, NULL, OPT_INFO },
    /* Open MPI options that mean nothing here; accepted so scripts run. */
    { "oversubscribe",      no_argument, NULL, OPT_NOOP },
    { "allow-run-as-root",  no_argument, NULL, OPT_NOOP },
    { NULL, 0, NULL, 0 },
};
static const char shortopts[] = "+:n:x:vhV";

/* mpirun accepts long options with one dash (-np 4, -tag-output): turn an
 * exact match into its "--" form, up to the program name, so that
 * getopt_long sees the usual syntax. */
static void rewrite_single_dash(char **seg, int n)
{
    for (int i = 1; i < n; i++) {
        char *a = seg[i];
        if (a[0] != '-' || a[1] == '\0') return;             /* the program */
        if (strcmp(a, "--") == 0) return;
        const struct option *lo = NULL;
        if (a[1] == '-') {
            size_t len = strcspn(a + 2, "=");
            for (const struct option *o = longopts; o->name; o++)
                if (strncmp(o->name, a + 2, len) == 0) { lo = o; break; }
        } else {
            size_t len = strcspn(a + 1, "=");
            for (const struct option *o = longopts; o->name; o++)
                if (len > 1 && strlen(o->name) == len && strncmp(o->name, a + 1, len) == 0) lo = o;
            if (lo) {
                char *d = xcalloc(strlen(a) + 2, 1);
                sprintf(d, "-%s", a);
                seg[i] = a = d;
            } else {
                const char *sp = strchr(shortopts + 2, a[1]);
                if (sp && sp[1] == ':' && a[2] == '\0') i++;  /* "-n 4": skip the value */
                continue;
            }
        }
        if (lo && lo->has_arg == required_argument && !strchr(a, '=')) i++;
    }
}

static void add_env(char ***env, int *n, const char *s)
{
    check_env_arg(s);
    *env = xrealloc(*env, sizeof(char *) * (size_t)(*n + 1));
    (*env)[(*n)++] = xstrdup(s);
}

/* Options of the whole job, which mpirun takes before the first program
 * only: after a ':' they are refused rather than silently applied to all. */
static bool is_global(int c)
{
    return c == OPT_PAGES || c == OPT_TAG || c == OPT_TIMEOUT || c == OPT_BIND || c == OPT_PRELOAD ||
           c == OPT_UNIVERSE || c == OPT_UNAME || c == OPT_JOIN || c == 'v';
}

/* One app context: seg[1..n-1] (seg[0] is a name for getopt). */
static void parse_context(char **seg, int n, int ctx, struct options *o, const char **pages_req)
{
    struct app *a = &o->apps[ctx];
    a->nranks = -1;
    rewrite_single_dash(seg, n);
    optind = 0;                                   /* glibc: full re-initialisation */
    opterr = 0;
    int c, li;
    while ((c = getopt_long(n, seg, shortopts, longopts, &li)) != -1) {
        if (ctx > 0 && is_global(c))
            usage_error("%s%s is an option of the whole job: give it before the first program, not in app "
                        "context %d (after ':' number %d)", c == 'v' ? "-" : "--",
                        c == 'v' ? "v" : longopts[li].name, ctx + 1, ctx);
        switch (c) {
        case 'n':
            if (a->nranks >= 0)
                usage_error("-n: given twice in app context %d (%d and %s)", ctx + 1, a->nranks, optarg);
            a->nranks = parse_count("-n", optarg);
            break;
        case 'x':
            if (ctx == 0) add_env(&o->genv, &o->ngenv, optarg);
            else add_env(&a->env, &a->nenv, optarg);
            break;
        case OPT_MEM:
            if (a->mem_arg)
                usage_error("--mem-per-rank: given twice in app context %d ('%s' and '%s')", ctx + 1, a->mem_arg,
                            optarg);
            if (!sm_parse_size(optarg, &a->heap_bytes))
                usage_error("--mem-per-rank: '%s' is not a size (e.g. 512M, 2G, 1.5GiB)", optarg);
            a->mem_arg = optarg;
            break;
        case OPT_PAGES:
            if (strcasecmp(optarg, "4k") == 0) *pages_req = "4k";
            else if (strcasecmp(optarg, "2m") == 0) *pages_req = "2m";
            else usage_error("--pages: '%s' is not 4k or 2m", optarg);
            break;
        case OPT_TAG: o->tag_output = true; break;
        case OPT_TIMEOUT: o->timeout = parse_timeout(optarg); break;
        case OPT_BIND:
            if (strcmp(optarg, "core") == 0) o->bind_core = true;
            else if (strcmp(optarg, "none") == 0) o->bind_core = false;
            else usage_error("--bind-to: '%s' is not core or none", optarg);
            break;
        case OPT_PRELOAD: o->preload = true; break;
        case OPT_UNIVERSE: o->universe = parse_count("--universe-size", optarg); break;
        case OPT_UNAME: o->univ_name = parse_universe_name("--universe", optarg); break;
        case OPT_JOIN: o->join_name = parse_universe_name("--join", optarg); break;
        case OPT_NOOP: break;
        case 'v': o->verbose++; break;
        case 'h': print_help(); exit(0);
        case 'V': printf("smrun (smartmap) %s\n", SMRUN_VERSION); exit(0);
        case OPT_INFO: print_settings_info(optarg); exit(0);
        case ':':
            usage_error("%s: needs a value", seg[optind - 1]);
        default:
            if (optopt > 0 && optopt < 128 && seg[optind - 1][1] != '-')
                usage_error("unknown option '-%c' (try 'smrun --help')", optopt);
            usage_error("unknown option '%s' (try 'smrun --help')", seg[optind - 1]);
        }
    }
    if (optind >= n) {
        if (ctx == 0 && o->napps == 1) usage_error("no program given (try 'smrun --help')");
        usage_error("app context %d (after ':' number %d): no program given", ctx + 1, ctx);
    }
    a->path = resolve_program(seg[optind]);
    int nargs = n - optind;
    a->argv = xcalloc((size_t)nargs + 1, sizeof(char *));
    for (int i = 0; i < nargs; i++) a->argv[i] = seg[optind + i];
}

void parse_options(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->bind_core = true;
    const char *pages_req = "4k";

    o->napps = 1;
    for (int i = 1; i < argc; i++) if (strcmp(argv[i], ":") == 0) o->napps++;
    o->apps = xcalloc((size_t)o->napps, sizeof(struct app));

    /* Each context gets its own argv for getopt: "smrun", args up to ':'. */
    char **seg = xcalloc((size_t)argc + 1, sizeof(char *));
    int start = 1;
    for (int ctx = 0; ctx < o->napps; ctx++) {
        int end = start;
        while (end < argc && strcmp(argv[end], ":") != 0) end++;
        seg[0] = argv[0];
        int n = 1;
        for (int i = start; i < end; i++) seg[n++] = argv[i];
        seg[n] = NULL;
        char **copy = xcalloc((size_t)n + 1, sizeof(char *));
        memcpy(copy, seg, sizeof(char *) * (size_t)n);
        parse_context(copy, n, ctx, o, &pages_req);
        free(copy);                   /* a->argv points at the strings, not at copy */
        start = end + 1;
    }
    free(seg);

    cpu_set_t set;
    int ncpu = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    for (int ctx = 0; ctx < o->napps; ctx++) {
        struct app *a = &o->apps[ctx];
        if (a->nranks < 0) a->nranks = ncpu;      /* mpirun: one rank per slot */
        a->first_rank = o->nranks;
        o->nranks += a->nranks;
    }
    if (o->nranks > SM_NMAX)
        usage_error("-n: %d ranks in all are more than a job can have (%d)", o->nranks, SM_NMAX);
    if (o->join_name && o->univ_name)
        usage_error("--join and --universe: a job joins a universe or serves one, not both");
    if (o->join_name && o->universe)
        usage_error("--join %s: the universe's size is its first job's (--universe-size goes with --universe there)",
                    o->join_name);
    if (o->universe && o->universe < o->nranks)
        usage_error("--universe-size: %d is less than the %d ranks the job starts with", o->universe, o->nranks);
    if (!o->universe) o->universe = o->nranks;

    /* Memory. A heap is address space until touched, so a job may ask for
     * more than the machine has in all (only a rank that fills its heap
     * needs the memory); what cannot work is refused: a size the slot
     * cannot hold. --mem-per-rank before the first ':' is every context's
     * default, after it that context's own. Without one, a fair share of
     * what smrun may use (the machine, or its memory cgroup's limit), so
     * that a rank filling its heap gets NULL from malloc, not the OOM killer. */
    o->mem_limit = sm_memory_limit();
    uint64_t share = o->mem_limit ? (uint64_t)((double)o->mem_limit * 0.9 / o->universe) : SM_HEAP_MIN;
    share = share / SM_HEAP_ALIGN * SM_HEAP_ALIGN;
    if (share < SM_HEAP_MIN) share = SM_HEAP_MIN;
    if (share > SM_HEAP_MAX) share = SM_HEAP_MAX;
    for (int ctx = 0; ctx < o->napps; ctx++) {
        struct app *a = &o->apps[ctx];
        char lim[32];
        if (a->mem_arg && a->heap_bytes < SM_HEAP_MIN) {
            format_bytes(SM_HEAP_MIN, lim, sizeof lim);
            usage_error("--mem-per-rank: '%s' is below the minimum of %s", a->mem_arg, lim);
        }
        if (a->mem_arg && a->heap_bytes > SM_HEAP_MAX) {
            format_bytes(SM_HEAP_MAX, lim, sizeof lim);
            usage_error("--mem-per-rank: '%s' is above the maximum of %s", a->mem_arg, lim);
        }
        if (a->mem_arg) a->heap_bytes = (a->heap_bytes + SM_HEAP_ALIGN - 1) / SM_HEAP_ALIGN * SM_HEAP_ALIGN;
        else a->heap_bytes = o->apps[0].mem_arg ? o->apps[0].heap_bytes : share;
        if (a->heap_bytes > o->heap_bytes) o->heap_bytes = a->heap_bytes;
        o->heap_total += a->heap_bytes * (uint64_t)a->nranks;
    }
    o->pages = check_pages(pages_req);
    if (o->preload) o->preload_lib = find_preload_lib();
    check_settings(o);
}
