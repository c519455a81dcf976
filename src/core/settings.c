/* settings.c: the table of SMARTMAP_* settings and their parsers, linked
 * into libsmartmap and into smrun (see sm_settings.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sm_job.h"
#include "sm_settings.h"

const struct sm_setting sm_settings[SM_SET_COUNT] = {
    [SM_SET_STATS] = { "SMARTMAP_STATS", SM_KIND_BOOL, SM_READ_LIB, "0", NULL,
        "At exit, each rank prints its counters: the bytes sm_put/sm_get moved on each path (direct, kernel, "
        "staged), the point-to-point paths taken (blocking receives straight from the ring, those that "
        "watched it first, sends complete when started, messages kept aside, receives posted behind a "
        "matching one, a receive window's pauses behind its sender, sends queued for room; with threads, "
        "the locks taken through the spin lock), its "
        "waits' sleeps and idle yields, the CPUs its machine's ranks may run on (the union of their affinity "
        "masks) and whether they are oversubscribed, and the bytes sent to other nodes." },
    [SM_SET_FALLBACK] = { "SMARTMAP_FALLBACK", SM_KIND_CHOICE, SM_READ_LIB, "kernel", "kernel|staged",
        "How sm_put/sm_get reach memory a peer has not exposed: through the kernel "
        "(process_vm_readv/writev) where permitted, else staged; or always staged by the owner's service thread." },
    [SM_SET_TRANSPORT] = { "SMARTMAP_TRANSPORT", SM_KIND_CHOICE, SM_READ_LIB, "smartmap", "smartmap|cma|copy",
        "How point-to-point copies large messages: once, in user space (smartmap); once, through the kernel "
        "(cma); twice, through a shared buffer, as POSIX-shm MPIs do (copy). For comparisons." },
    [SM_SET_EAGER_MAX] = { "SMARTMAP_EAGER_MAX", SM_KIND_BYTES, SM_READ_LIB, "max", NULL,
        "Messages up to this size travel inline in the receiver's ring; max: as large as a ring record "
        "allows (8152 B below 16 ranks). Lowering it is for tests and tuning." },
    [SM_SET_NODE_SIZE] = { "SMARTMAP_NODE_SIZE", SM_KIND_INT, SM_READ_LIB, "0", NULL,
        "Under a PMIx launcher: every N consecutive ranks form a node of their own, as if the job ran on "
        "several machines (for tests); 0: the nodes the launcher reports." },

    [SM_SET_RANK] = { SM_ENV_RANK, SM_KIND_INT, SM_READ_SMRUN, "", NULL, "The rank, 0..SIZE-1: its slot." },
    [SM_SET_SIZE] = { SM_ENV_SIZE, SM_KIND_INT, SM_READ_SMRUN, "", NULL, "The number of slots: the universe, ranks that may exist (smrun --universe-size; default -n)." },
    [SM_SET_PID] = { SM_ENV_PID, SM_KIND_INT, SM_READ_SMRUN, "", NULL, "The pid of the rank process itself." },
    [SM_SET_FD0] = { SM_ENV_FD0, SM_KIND_INT, SM_READ_SMRUN, "", NULL,
        "Fds FD0..FD0+SIZE-1 are the memfds of slots 0..SIZE-1." },
    [SM_SET_PAGES] = { SM_ENV_PAGES, SM_KIND_CHOICE, SM_READ_SMRUN, "4k", "4k|2m",
        "The page size of the ranks' shared memory (smrun --pages)." },
    [SM_SET_HEAP] = { SM_ENV_HEAP, SM_KIND_BYTES, SM_READ_SMRUN, "", NULL,
        "The heap of each rank (smrun --mem-per-rank, rounded)." },
    [SM_SET_LAUNCHER] = { SM_ENV_LAUNCHER, SM_KIND_TEXT, SM_READ_SMRUN, "", NULL, "\"smrun VERSION\"." },
    [SM_SET_JOB] = { SM_ENV_JOB, SM_KIND_TEXT, SM_READ_SMRUN, "", NULL,
        "A mark unique to the job, inherited by whatever the ranks start: how smrun finds the job's "
        "processes if it is killed itself." },
    [SM_SET_WBASE] = { SM_ENV_WBASE, SM_KIND_INT, SM_READ_SMRUN, "0", NULL,
        "The first rank of the rank's world (MPI_COMM_WORLD): 0, or the first process a spawn started." },
    [SM_SET_WSIZE] = { SM_ENV_WSIZE, SM_KIND_INT, SM_READ_SMRUN, "", NULL,
        "The ranks in the rank's world: smrun's -n, or the processes one spawn started." },
    [SM_SET_APPNUM] = { SM_ENV_APPNUM, SM_KIND_INT, SM_READ_SMRUN, "0", NULL,
        "The rank's app context: its ':' context, or its command's index in a spawn (MPI_APPNUM)." },
    [SM_SET_SPAWNFD] = { SM_ENV_SPAWNFD, SM_KIND_INT, SM_READ_SMRUN, "", NULL,
        "The socket on which a rank asks smrun to start processes (MPI_Comm_spawn)." },
    [SM_SET_PARENT] = { SM_ENV_PARENT, SM_KIND_TEXT, SM_READ_SMRUN, "", NULL,
        "In a spawned process: how to reach the processes that spawned it." },

    [SM_SET_CC] = { "SMARTMAP_CC", SM_KIND_TEXT, SM_READ_SMCC, "", NULL,
        "The C compiler smcc runs (default: the one smartmap was built with)." },
    [SM_SET_CXX] = { "SMARTMAP_CXX", SM_KIND_TEXT, SM_READ_SMCC, "", NULL,
        "The C++ compiler smc++ runs (default: the one found when smartmap was built)." },
    [SM_SET_FC] = { "SMARTMAP_FC", SM_KIND_TEXT, SM_READ_SMCC, "", NULL,
        "The Fortran compiler smfort runs (default: the gfortran smartmap was built with)." },
};

int sm_setting_find(const char *name)
{
    for (int i = 0; i < SM_SET_COUNT; i++)
        if (strcmp(sm_settings[i].name, name) == 0) return i;
    return -1;
}

bool sm_parse_size(const char *s, uint64_t *out)
{
    const char *p = s;
    long double v = 0;
    int digits = 0;
    while (isdigit((unsigned char)*p)) { v = v * 10 + (*p++ - '0'); digits++; }
    if (*p == '.') {
        p++;
        long double scale = 0.1L;
        while (isdigit((unsigned char)*p)) { v += scale * (*p++ - '0'); scale /= 10; digits++; }
    }
    if (!digits) return false;
    const char *units = "KMGTP";
    const char *u = *p ? strchr(units, toupper((unsigned char)*p)) : NULL;
    if (u) {
        for (long i = 0; i <= u - units; i++) v *= 1024;
        p++;
        if (*p == 'i' || *p == 'I') {
            p++;
            if (*p != 'B' && *p != 'b') return false;
        }
    }
    if (*p == 'B' || *p == 'b') p++;
    if (*p) return false;
    if (v >= 18446744073709551615.0L) { *out = UINT64_MAX; return true; }
    uint64_t whole = (uint64_t)v;
    *out = whole + ((long double)whole < v);   /* rounded up: 1.5 bytes are 2 */
    return true;
}

/* The index of text among the '|'-separated choices, or -1. */
static int choice_index(const char *choices, const char *text)
{
    size_t len = strlen(text);
    int i = 0;
    for (const char *c = choices; *c; i++) {
        size_t n = strcspn(c, "|");
        if (n == len && strncasecmp(c, text, len) == 0) return i;
        c += n;
        if (*c == '|') c++;
    }
    return -1;
}

const char *sm_setting_values(enum sm_setting_id id, char *buf, size_t len)
{
    const struct sm_setting *s = &sm_settings[id];
    const char *v = s->kind == SM_KIND_BOOL   ? "0|1"
                  : s->kind == SM_KIND_CHOICE ? s->choices
                  : s->kind == SM_KIND_BYTES  ? (strcmp(s->dflt, "max") == 0 ? "SIZE|max" : "SIZE")
                  : s->kind == SM_KIND_INT    ? "N" : "TEXT";
    size_t o = 0;
    for (; *v && o + 3 < len; v++) {
        if (*v == '|') buf[o++] = ',', buf[o++] = ' ';
        else buf[o++] = *v;
    }
    buf[o] = '\0';
    return buf;
}

bool sm_setting_parse(enum sm_setting_id id, const char *text, uint64_t *out, char *why, size_t whylen)
{
    const struct sm_setting *s = &sm_settings[id];
    *out = 0;
    switch (s->kind) {
    case SM_KIND_BOOL: {
        int i = choice_index("0|1|no|yes|false|true|off|on", text);
        if (i >= 0) { *out = (uint64_t)(i & 1); return true; }
        snprintf(why, whylen, "is not 0 or 1");
        return false;
    }
    case SM_KIND_CHOICE: {
        int i = choice_index(s->choices, text);
        if (i >= 0) { *out = (uint64_t)i; return true; }
        char list[160];
        snprintf(why, whylen, "is not one of %s", sm_setting_values(id, list, sizeof list));
        return false;
    }
    case SM_KIND_BYTES:
        if (strcmp(s->dflt, "max") == 0 && strcasecmp(text, "max") == 0) { *out = SM_SETTING_UNSET; return true; }
        if (sm_parse_size(text, out)) return true;
        snprintf(why, whylen, "is not a size (4096, 4K, 1.5MiB%s)", strcmp(s->dflt, "max") ? "" : " or max");
        return false;
    case SM_KIND_INT: {
        char *end;
        if (isdigit((unsigned char)text[0])) {
            unsigned long long v = strtoull(text, &end, 10);
            if (!*end && v < INT32_MAX) { *out = v; return true; }
        }
        snprintf(why, whylen, "is not a non-negative integer");
        return false;
    }
    case SM_KIND_TEXT:
        return true;
    }
    return false;
}

int sm_settings_read(uint64_t val[SM_SET_COUNT], char *why, size_t whylen)
{
    int bad = -1;
    for (int i = 0; i < SM_SET_COUNT; i++) {
        const struct sm_setting *s = &sm_settings[i];
        const char *text = getenv(s->name);
        char reason[160];
        if (text && *text && sm_setting_parse(i, text, &val[i], reason, sizeof reason)) continue;
        if (text && *text && s->reader == SM_READ_LIB && bad < 0) {
            bad = i;
            snprintf(why, whylen, "%s: '%s' %s", s->name, text, reason);
        }
        if (!*s->dflt || !sm_setting_parse(i, s->dflt, &val[i], reason, sizeof reason))
            val[i] = SM_SETTING_UNSET;
    }
    return bad;
}
