/* ctx.c: OpenSHMEM contexts. Every operation completes before it returns, so
 * a context adds only its team's PE numbering (and checks); the context
 * forms of RMA and atomics are generated with the plain ones (shmem_rma.c). */
#include <stdlib.h>

#include "shmem_internal.h"

struct shmem_ctx_s shmem_ctx_default_s = { .team = &shmem_team_world_s };

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    (void)options;
    if (!ctx) shmem_fail("shmem_team_create_ctx: ctx is NULL");
    if (!team) { *ctx = SHMEM_CTX_INVALID; return -1; }   /* as the specification says */
    struct shmem_team_s *t = shmem_team_check(team, "shmem_team_create_ctx");
    *ctx = malloc(sizeof **ctx);
    if (!*ctx) return -1;
    **ctx = (struct shmem_ctx_s){ .team = t };
    return 0;
}
int shmem_ctx_create(long options, shmem_ctx_t *ctx) { return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx); }

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (!ctx) return;
    if (ctx == SHMEM_CTX_DEFAULT) shmem_fail("shmem_ctx_destroy: SHMEM_CTX_DEFAULT cannot be destroyed");
    if (ctx->destroyed) shmem_fail("shmem_ctx_destroy: context %p was destroyed already", (void *)ctx);
    shmem_order(true, "shmem_ctx_destroy");
    ctx->destroyed = 1;   /* kept, not freed: later use is reported */
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (!team) return -1;
    if (!ctx || ctx->destroyed) { *team = SHMEM_TEAM_INVALID; return -1; }
    *team = ctx->team;
    return 0;
}

void shmem_ctx_fence(shmem_ctx_t ctx) { (void)ctx; shmem_require_init("shmem_ctx_fence"); shmem_order(false, "shmem_ctx_fence"); }
void shmem_ctx_quiet(shmem_ctx_t ctx) { (void)ctx; shmem_require_init("shmem_ctx_quiet"); shmem_order(true, "shmem_ctx_quiet"); }

_Noreturn void shmem_ctx_bad(shmem_ctx_t ctx, int pe, const char *routine)
{
    shmem_require_init(routine);
    if (!ctx) shmem_fail("%s: context is SHMEM_CTX_INVALID", routine);
    if (ctx->destroyed) shmem_fail("%s: context %p was destroyed", routine, (void *)ctx);
    if (ctx->team->destroyed) shmem_fail("%s: the team of context %p was destroyed", routine, (void *)ctx);
    shmem_fail("%s: PE %d out of range (0..%d) in the context's team", routine, pe, ctx->team->g.m.size - 1);
}

