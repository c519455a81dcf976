/* ctx.c: OpenSHMEM contexts. Every operation completes before it returns, so
 * a context adds only its team's PE numbering (and checks); the context
 * forms translate the PE and call the default-context routines. */
#include <stdlib.h>

#include "shmem_internal.h"

struct shmem_ctx_s { struct shmem_team_s *team; int destroyed; };
struct shmem_ctx_s shmem_ctx_default_s = {&shmem_team_world_s, 0};

/* The world PE of the context's team PE pe. */
static int ctx_pe(shmem_ctx_t ctx, int pe, const char *routine)
{
    if (!ctx) rma_fail("%s: context is SHMEM_CTX_INVALID", routine);
    if (ctx->destroyed) rma_fail("%s: context %p was destroyed", routine, (void *)ctx);
    struct shmem_team_s *t = ctx->team;
    if (t->destroyed) rma_fail("%s: the team of context %p was destroyed", routine, (void *)ctx);
    if (pe < 0 || pe >= t->size) rma_fail("%s: PE %d out of range (0..%d) in the context's team", routine, pe, t->size - 1);
    return shmem_team_pe(t, pe);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    (void)options;
    struct shmem_team_s *t = shmem_team_check(team, "shmem_team_create_ctx");
    if (!ctx) rma_fail("shmem_team_create_ctx: ctx is NULL");
    *ctx = malloc(sizeof **ctx);
    if (!*ctx) return -1;
    **ctx = (struct shmem_ctx_s){t, 0};
    return 0;
}
int shmem_ctx_create(long options, shmem_ctx_t *ctx) { return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx); }

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (!ctx) return;
    if (ctx == SHMEM_CTX_DEFAULT) rma_fail("shmem_ctx_destroy: SHMEM_CTX_DEFAULT cannot be destroyed");
    if (ctx->destroyed) rma_fail("shmem_ctx_destroy: context %p was destroyed already", (void *)ctx);
    rma_quiet();
    ctx->destroyed = 1;   /* kept, not freed: later use is reported */
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (!team) return -1;
    if (!ctx || ctx->destroyed) { *team = SHMEM_TEAM_INVALID; return -1; }
    *team = ctx->team;
    return 0;
}

void shmem_ctx_fence(shmem_ctx_t ctx) { (void)ctx; rma_fence(); }
void shmem_ctx_quiet(shmem_ctx_t ctx) { (void)ctx; rma_quiet(); }

#define C(N, op) ctx_pe(ctx, pe, "shmem_ctx_" #N "_" #op)
#define DEF_CTX_RMA(N, T) \
void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) { shmem_##N##_put(dest, source, nelems, C(N, put)); } \
void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) { shmem_##N##_get(dest, source, nelems, C(N, get)); } \
void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) { shmem_##N##_put(dest, source, nelems, C(N, put_nbi)); } \
void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) { shmem_##N##_get(dest, source, nelems, C(N, get_nbi)); } \
void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe) { shmem_##N##_p(dest, value, C(N, p)); } \
T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe) { return shmem_##N##_g(source, C(N, g)); } \
void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
{ shmem_##N##_iput(dest, source, dst, sst, nelems, C(N, iput)); } \
void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
{ shmem_##N##_iget(dest, source, dst, sst, nelems, C(N, iget)); } \
void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
{ shmem_##N##_put_signal(dest, source, nelems, sig_addr, signal, sig_op, C(N, put_signal)); } \
void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
{ shmem_##N##_put_signal(dest, source, nelems, sig_addr, signal, sig_op, C(N, put_signal_nbi)); }
SHMEM_RMA_TYPES(DEF_CTX_RMA)

void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{ shmem_putmem(dest, source, nelems, ctx_pe(ctx, pe, "shmem_ctx_putmem")); }
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{ shmem_getmem(dest, source, nelems, ctx_pe(ctx, pe, "shmem_ctx_getmem")); }
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{ shmem_putmem(dest, source, nelems, ctx_pe(ctx, pe, "shmem_ctx_putmem_nbi")); }
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{ shmem_getmem(dest, source, nelems, ctx_pe(ctx, pe, "shmem_ctx_getmem_nbi")); }
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{ shmem_putmem_signal(dest, source, nelems, sig_addr, signal, sig_op, ctx_pe(ctx, pe, "shmem_ctx_putmem_signal")); }

#define DEF_CTX_AMO_EXT(N, T) \
T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe) { return shmem_##N##_atomic_fetch(source, C(N, atomic_fetch)); } \
void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe) { shmem_##N##_atomic_set(dest, value, C(N, atomic_set)); } \
T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe) { return shmem_##N##_atomic_swap(dest, value, C(N, atomic_swap)); }
#define DEF_CTX_AMO_STD(N, T) \
T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe) \
{ return shmem_##N##_atomic_compare_swap(dest, cond, value, C(N, atomic_compare_swap)); } \
T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe) { return shmem_##N##_atomic_fetch_inc(dest, C(N, atomic_fetch_inc)); } \
void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe) { shmem_##N##_atomic_inc(dest, C(N, atomic_inc)); } \
T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe) { return shmem_##N##_atomic_fetch_add(dest, value, C(N, atomic_fetch_add)); } \
void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe) { shmem_##N##_atomic_add(dest, value, C(N, atomic_add)); }
#define DEF_CTX_AMO_BIT1(N, T, op) \
T shmem_ctx_##N##_atomic_fetch_##op(shmem_ctx_t ctx, T *dest, T value, int pe) { return shmem_##N##_atomic_fetch_##op(dest, value, C(N, atomic_fetch_##op)); } \
void shmem_ctx_##N##_atomic_##op(shmem_ctx_t ctx, T *dest, T value, int pe) { shmem_##N##_atomic_##op(dest, value, C(N, atomic_##op)); }
#define DEF_CTX_AMO_BIT(N, T) DEF_CTX_AMO_BIT1(N, T, and) DEF_CTX_AMO_BIT1(N, T, or) DEF_CTX_AMO_BIT1(N, T, xor)
SHMEM_AMO_EXT_TYPES(DEF_CTX_AMO_EXT)
SHMEM_AMO_STD_TYPES(DEF_CTX_AMO_STD)
SHMEM_AMO_BIT_TYPES(DEF_CTX_AMO_BIT)
