/* Info objects (MPI 3.1 §9): ordered (key, value) string pairs. smartmap
 * reads no hints yet; programs still build infos to pass to the calls that
 * take one (MPI_Comm_split_type, MPI_Alloc_mem), so the objects are real. */
#include <stdlib.h>
#include <string.h>

#include "sm_core.h"
#include "smpi.h"

#define SMPI_MAGIC_INFO 0x494e464fu

struct smpi_info {
    uint32_t magic;
    int      n, cap;
    struct kv { char *key, *val; } *kv;   /* in the order keys were first set */
};

/* MPI_INFO_ENV: how the program was started. Empty, which MPI allows. */
static struct smpi_info info_env = { SMPI_MAGIC_INFO, 0, 0, NULL };

struct smpi_info *smpi_info(MPI_Info h)
{
    if (h == MPI_INFO_ENV) return &info_env;
    if (!smpi_object(h, sizeof *h) || h->magic != SMPI_MAGIC_INFO) return NULL;
    return h;
}

#define GET_INFO(var, h, R) \
    struct smpi_info *var = smpi_info(h); \
    if (!var) return smpi_error(NULL, MPI_ERR_INFO, R, "info %s", smpi_hstr((const void *)(h), "MPI_INFO_NULL"))

/* A key's checks: present, not empty, not too long. */
static int check_key(const char *key, const char *R)
{
    if (!key) return smpi_error(NULL, MPI_ERR_INFO_KEY, R, "key is NULL");
    size_t len = strlen(key);
    if (!len || len > MPI_MAX_INFO_KEY)
        return smpi_error(NULL, MPI_ERR_INFO_KEY, R, "key '%.40s%s' has %zu characters, not 1 to %d", key,
                          len > 40 ? "..." : "", len, MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

static struct kv *find(struct smpi_info *in, const char *key)
{
    for (int i = 0; i < in->n; i++)
        if (!strcmp(in->kv[i].key, key)) return &in->kv[i];
    return NULL;
}

/* Set key to val in in (a new pair goes last). */
static int put(struct smpi_info *in, const char *key, const char *val, const char *R)
{
    char *v = strdup(val);
    if (!v) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no memory for the value of '%s'", key);
    struct kv *e = find(in, key);
    if (e) { free(e->val); e->val = v; return MPI_SUCCESS; }
    if (in->n == in->cap) {
        int cap = in->cap ? 2 * in->cap : 4;
        struct kv *nkv = realloc(in->kv, sizeof *nkv * (size_t)cap);
        if (!nkv) { free(v); return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no memory for key '%s'", key); }
        in->kv = nkv, in->cap = cap;
    }
    char *k = strdup(key);
    if (!k) { free(v); return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no memory for key '%s'", key); }
    in->kv[in->n++] = (struct kv){ k, v };
    return MPI_SUCCESS;
}

int PMPI_Info_create(MPI_Info *info)
{
    static const char R[] = "MPI_Info_create";
    if (!info) return smpi_error(NULL, MPI_ERR_ARG, R, "info is NULL");
    struct smpi_info *in = calloc(1, sizeof *in);
    if (!in) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no memory for an info object");
    in->magic = SMPI_MAGIC_INFO;
    *info = in;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_create = PMPI_Info_create

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    static const char R[] = "MPI_Info_set";
    GET_INFO(in, info, R);
    int rc = check_key(key, R);
    if (rc) return rc;
    if (in == &info_env) return smpi_error(NULL, MPI_ERR_INFO, R, "MPI_INFO_ENV cannot be changed");
    if (!value) return smpi_error(NULL, MPI_ERR_INFO_VALUE, R, "value of '%s' is NULL", key);
    size_t len = strlen(value);
    if (!len || len > MPI_MAX_INFO_VAL)
        return smpi_error(NULL, MPI_ERR_INFO_VALUE, R, "value of '%s' has %zu characters, not 1 to %d", key, len,
                          MPI_MAX_INFO_VAL);
    return put(in, key, value, R);
}
#pragma weak MPI_Info_set = PMPI_Info_set

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    static const char R[] = "MPI_Info_get";
    GET_INFO(in, info, R);
    int rc = check_key(key, R);
    if (rc) return rc;
    if (valuelen < 0) return smpi_error(NULL, MPI_ERR_ARG, R, "valuelen %d is negative", valuelen);
    if (!flag || (!value && valuelen)) return smpi_error(NULL, MPI_ERR_ARG, R, "NULL argument");
    struct kv *e = find(in, key);
    *flag = e != NULL;
    if (e && value) {                    /* at most valuelen characters, then the terminator */
        size_t n = strnlen(e->val, (size_t)valuelen);
        memcpy(value, e->val, n);
        value[n] = 0;
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get = PMPI_Info_get

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    static const char R[] = "MPI_Info_get_valuelen";
    GET_INFO(in, info, R);
    int rc = check_key(key, R);
    if (rc) return rc;
    if (!valuelen || !flag) return smpi_error(NULL, MPI_ERR_ARG, R, "NULL argument");
    struct kv *e = find(in, key);
    *flag = e != NULL;
    if (e) *valuelen = (int)strlen(e->val);
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    static const char R[] = "MPI_Info_delete";
    GET_INFO(in, info, R);
    int rc = check_key(key, R);
    if (rc) return rc;
    struct kv *e = find(in, key);
    if (!e) return smpi_error(NULL, MPI_ERR_INFO_NOKEY, R, "key '%s' is not set", key);
    free(e->key), free(e->val);
    memmove(e, e + 1, sizeof *e * (size_t)(in->kv + in->n - (e + 1)));   /* keep the order */
    in->n--;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_delete = PMPI_Info_delete

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    static const char R[] = "MPI_Info_get_nkeys";
    GET_INFO(in, info, R);
    if (!nkeys) return smpi_error(NULL, MPI_ERR_ARG, R, "nkeys is NULL");
    *nkeys = in->n;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    static const char R[] = "MPI_Info_get_nthkey";
    GET_INFO(in, info, R);
    if (n < 0 || n >= in->n) return smpi_error(NULL, MPI_ERR_ARG, R, "n %d not in [0, %d)", n, in->n);
    if (!key) return smpi_error(NULL, MPI_ERR_ARG, R, "key is NULL");
    strcpy(key, in->kv[n].key);          /* at most MPI_MAX_INFO_KEY characters, checked when set */
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    static const char R[] = "MPI_Info_dup";
    GET_INFO(in, info, R);
    if (!newinfo) return smpi_error(NULL, MPI_ERR_ARG, R, "newinfo is NULL");
    MPI_Info d;
    int rc = PMPI_Info_create(&d);
    if (rc) return rc;
    for (int i = 0; !rc && i < in->n; i++) rc = put(d, in->kv[i].key, in->kv[i].val, R);
    if (rc) { PMPI_Info_free(&d); return rc; }
    *newinfo = d;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_dup = PMPI_Info_dup

/* --- Hints kept without an info object --------------------------------------
 * A communicator keeps its hints as one malloc'd block of "key\0value\0"
 * pairs ended by an empty key (keys are never empty): objects.c frees it
 * with free() and so does not depend on this file (info.c reports through
 * err.c, which depends on objects.c). */
#define EACH_HINT(k, v, h) \
    for (const char *k = (h), *v = k ? k + strlen(k) + 1 : NULL; k && *k; k = v + strlen(v) + 1, v = k + strlen(k) + 1)

static char *hints_pack(const struct smpi_info *in)
{
    size_t len = 1;
    for (int i = 0; i < in->n; i++) len += strlen(in->kv[i].key) + strlen(in->kv[i].val) + 2;
    char *b = malloc(len), *q = b;
    for (int i = 0; b && i < in->n; i++)
        for (int j = 0; j < 2; j++) {
            const char *x = j ? in->kv[i].val : in->kv[i].key;
            size_t n = strlen(x) + 1;
            memcpy(q, x, n), q += n;
        }
    if (b) *q = 0;
    return b;
}

int smpi_hints_merge(char **hints, MPI_Info info, const char *R)
{
    struct smpi_info *in = smpi_info(info);
    if (!in || !in->n) return MPI_SUCCESS;
    struct smpi_info all = { SMPI_MAGIC_INFO, 0, 0, NULL };
    int rc = MPI_SUCCESS;
    EACH_HINT(k, v, *hints) if (!rc) rc = put(&all, k, v, R);
    for (int i = 0; !rc && i < in->n; i++) rc = put(&all, in->kv[i].key, in->kv[i].val, R);
    char *b = rc ? NULL : hints_pack(&all);
    if (!rc && !b) rc = smpi_error(NULL, MPI_ERR_NO_MEM, R, "no memory for %d hints", all.n);
    if (b) free(*hints), *hints = b;
    for (int i = 0; i < all.n; i++) free(all.kv[i].key), free(all.kv[i].val);
    free(all.kv);
    return rc;
}

int smpi_hints_copy(char **dst, const char *src, const char *R)
{
    if (!src) return MPI_SUCCESS;
    size_t len = 1;
    EACH_HINT(k, v, src) len = (size_t)(v + strlen(v) + 1 - src) + 1;
    char *b = malloc(len);
    if (!b) return smpi_error(NULL, MPI_ERR_NO_MEM, R, "no memory for the hints");
    memcpy(b, src, len);
    free(*dst), *dst = b;
    return MPI_SUCCESS;
}

int smpi_hints_info(const char *hints, MPI_Info *out, const char *R)
{
    MPI_Info d;
    int rc = PMPI_Info_create(&d);
    if (rc) return rc;
    EACH_HINT(k, v, hints) if (!rc) rc = put(d, k, v, R);
    if (rc) { PMPI_Info_free(&d); return rc; }
    *out = d;
    return MPI_SUCCESS;
}

int PMPI_Info_free(MPI_Info *info)
{
    static const char R[] = "MPI_Info_free";
    if (!info) return smpi_error(NULL, MPI_ERR_ARG, R, "info is NULL");
    GET_INFO(in, *info, R);
    if (in == &info_env) return smpi_error(NULL, MPI_ERR_INFO, R, "MPI_INFO_ENV cannot be freed");
    for (int i = 0; i < in->n; i++) free(in->kv[i].key), free(in->kv[i].val);
    free(in->kv);
    in->magic = 0;
    free(in);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_free = PMPI_Info_free
