/* sm_settings.h: the one table of SMARTMAP_* environment settings (name,
 * default, values, meaning) and their parsers. libsmartmap reads the table
 * once at start-up (init.c, into sm_core.setting[]); smrun, a program of its
 * own, links the same settings.c to check them before a job starts and to
 * print them (smrun --info); README's Environment table is generated from it
 * (smrun --info=markdown, checked by a test). No state, no malloc. */
#ifndef SM_SETTINGS_H
#define SM_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sm_setting_id {
    /* Read by libsmartmap in every rank */
    SM_SET_STATS, SM_SET_FALLBACK, SM_SET_TRANSPORT, SM_SET_EAGER_MAX, SM_SET_NODE_SIZE,
    /* Set by smrun for each rank (the ABI between them, sm_job.h) */
    SM_SET_RANK, SM_SET_SIZE, SM_SET_PID, SM_SET_FD0, SM_SET_PAGES, SM_SET_HEAP,
    SM_SET_LAUNCHER, SM_SET_JOB, SM_SET_WBASE, SM_SET_WSIZE, SM_SET_APPNUM, SM_SET_SPAWNFD, SM_SET_PARENT,
    /* Read by the compiler wrappers */
    SM_SET_CC, SM_SET_CXX, SM_SET_FC,
    SM_SET_COUNT
};

enum sm_setting_kind {
    SM_KIND_BOOL,    /* 0/1 (also no/yes, false/true, off/on) */
    SM_KIND_CHOICE,  /* one of `choices`; the value is its index */
    SM_KIND_BYTES,   /* a size: 4096, 4K, 1.5MiB (binary units); "max" where the default is "max" */
    SM_KIND_INT,     /* a non-negative decimal integer */
    SM_KIND_TEXT,    /* any text; not parsed */
};

enum sm_setting_reader { SM_READ_LIB, SM_READ_SMRUN, SM_READ_SMCC };

struct sm_setting {
    const char *name;
    enum sm_setting_kind kind;
    enum sm_setting_reader reader;
    const char *dflt;       /* the value when unset, as a user writes it; "" : none */
    const char *choices;    /* SM_KIND_CHOICE: "smartmap|cma|copy" */
    const char *meaning;    /* one sentence */
};
extern const struct sm_setting sm_settings[SM_SET_COUNT];

/* The number for an unset setting without a default, and for "max". */
#define SM_SETTING_UNSET UINT64_MAX

/* Parse text as setting id. BOOL gives 0/1, CHOICE the index into choices,
 * BYTES and INT the number, TEXT 0. On an invalid text returns false and
 * puts into why what is wrong ("is not one of smartmap, cma, copy"). */
bool sm_setting_parse(enum sm_setting_id id, const char *text, uint64_t *out, char *why, size_t whylen);
/* What the setting's values may be, for messages and docs: "smartmap, cma,
 * copy", "0, 1", "SIZE, max", "N", "TEXT". */
const char *sm_setting_values(enum sm_setting_id id, char *buf, size_t len);
/* Every setting from the environment (getenv; no malloc): val[id] gets the
 * parsed value, the default's where unset, SM_SETTING_UNSET where there is
 * none. A setting that smrun sets and that does not parse counts as unset;
 * returns the first user setting that does not parse (and says why), or -1. */
int sm_settings_read(uint64_t val[SM_SET_COUNT], char *why, size_t whylen);
/* The id of a setting's name, or -1. */
int sm_setting_find(const char *name);
/* A size with an optional binary unit K, M, G, T, P (and B or iB): 512M,
 * 1.5G, 4096KiB, 1073741824; rounded up to whole bytes, saturating. */
bool sm_parse_size(const char *s, uint64_t *out);

#endif
