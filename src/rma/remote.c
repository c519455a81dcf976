/* remote.c: the one-sided engine's path to ranks on other nodes (rma.h):
 * puts, gets, atomics and the ticket lock over UCX (src/net), on the same
 * translated addresses as on the node: the numbers a rank's own slot has in
 * its own address space, which the net layer registered once. */
#include <sched.h>

#include "rma.h"
#include "net.h"

bool rma_remote_up;

sm_status_t rma_remote_open(void)
{
    if (net_mem_up() || !sm_spans_nodes()) return SM_OK;
    /* The symmetric region (the slot below it was registered with the
     * worker, net_init): peers translate into both. */
    size_t len;
    void *base = sm_symmetric_base(&len);
    sm_status_t st = net_mem_init(base, len);
    if (!st) rma_remote_up = true;
    return st;
}

sm_status_t rma_remote_close(void)
{
    if (!net_mem_up()) return SM_OK;
    return net_mem_finalize();
}

void rma_remote_start(void) { rma_remote_up = true; }

sm_status_t rma_remote_put(int pe, void *raddr, const void *src, size_t len)
{
    sm_status_t st = net_put(pe, (uintptr_t)raddr, src, len);
    sm_status_t wt = net_wait_local();
    return st ? st : wt;
}

sm_status_t rma_remote_get(int pe, void *dst, const void *raddr, size_t len)
{
    sm_status_t st = net_get(pe, dst, (uintptr_t)raddr, len);
    sm_status_t wt = net_wait_local();
    return st ? st : wt;
}

sm_status_t rma_remote_put_nbi(int pe, void *raddr, const void *src, size_t len)
{
    return net_put(pe, (uintptr_t)raddr, src, len);
}
sm_status_t rma_remote_get_nbi(int pe, void *dst, const void *raddr, size_t len)
{
    return net_get(pe, dst, (uintptr_t)raddr, len);
}
sm_status_t rma_remote_local(void) { return net_wait_local(); }

/* One operation per contiguous block, all in flight together. */
static sm_status_t strided(bool put, int pe, char *r, const ptrdiff_t *rs, char *l, const ptrdiff_t *ls,
                           const size_t *count, int level)
{
    if (level == 0) return put ? net_put(pe, (uintptr_t)r, l, count[0]) : net_get(pe, l, (uintptr_t)r, count[0]);
    for (size_t i = 0; i < count[level]; i++) {
        sm_status_t st = strided(put, pe, r + (ptrdiff_t)i * rs[level - 1], rs, l + (ptrdiff_t)i * ls[level - 1], ls,
                                 count, level - 1);
        if (st) return st;
    }
    return SM_OK;
}

sm_status_t rma_remote_strided(bool put, int pe, void *raddr, const ptrdiff_t *rstride, void *local,
                               const ptrdiff_t *lstride, const size_t *count, int levels)
{
    for (int i = 0; i <= levels; i++)
        if (!count[i]) return SM_OK;
    sm_status_t st = strided(put, pe, raddr, rstride, local, lstride, count, levels);
    sm_status_t wt = net_wait_local();
    return st ? st : wt;
}

_Static_assert((int)RMA_AMO_ADD == (int)NET_AMO_ADD && (int)RMA_AMO_CSWAP == (int)NET_AMO_CSWAP &&
               (int)RMA_AMO_SWAP == (int)NET_AMO_SWAP && (int)RMA_AMO_XOR == (int)NET_AMO_XOR, "the same operations");

sm_status_t rma_remote_amo(int pe, void *raddr, enum rma_amo_op op, size_t width, uint64_t value, uint64_t compare,
                           uint64_t *result)
{
    return net_amo(pe, (uintptr_t)raddr, (enum net_amo)op, width, value, compare, result);
}

sm_status_t rma_remote_fence(void) { return rma_remote_up ? net_fence() : SM_OK; }
sm_status_t rma_remote_quiet(void) { return rma_remote_up ? net_flush() : SM_OK; }

/* Wait for cond, running UCX (with TCP, a peer's puts and atomics into this
 * rank are done by this rank's worker): asleep where UCX's events ring the
 * doorbell (net_wakes; the core's wait runs it), else spinning on it,
 * yielding when nothing happened. */
void rma_remote_wait(bool (*cond)(void *), void *arg)
{
    if (net_wakes()) {
        sm_wait_for(SM_WAKE_ON(SM_WAKE_RMA), cond, arg);
        return;
    }
    while (!cond(arg))
        if (!net_progress()) sched_yield();
}

/* Wait while *w == seen (a lock's word in this rank's memory, released from
 * this node or another). */
void rma_remote_wait_word(_Atomic uint32_t *w, uint32_t seen)
{
    if (net_wakes()) sm_wait_word((volatile uint32_t *)w, seen);
    else rma_remote_idle();
}

void rma_remote_idle(void)
{
    if (!net_progress()) sched_yield();
}

void rma_remote_poll(void) { (void)net_progress(); }

/* --- The ticket lock on another node's memory: remote fetch-and-add on its
 * words; the wait reads serving until it reaches the ticket. */
sm_status_t rma_remote_lock_acquire(int pe, struct rma_lock *l)
{
    uint64_t ticket, serving;
    sm_status_t st = rma_remote_amo(pe, &l->next, RMA_AMO_ADD, 4, 1, 0, &ticket);
    while (!st) {
        if ((st = rma_remote_amo(pe, &l->serving, RMA_AMO_ADD, 4, 0, 0, &serving))) break;
        if ((uint32_t)serving == (uint32_t)ticket) break;
        rma_remote_idle();
    }
    return st;
}

sm_status_t rma_remote_lock_try(int pe, struct rma_lock *l, bool *taken)
{
    /* Free when next == serving: take the next ticket with a 64-bit
     * compare-and-swap of both words (next is the low one). */
    uint64_t both, got;
    *taken = false;
    sm_status_t st = rma_remote_amo(pe, l, RMA_AMO_ADD, 8, 0, 0, &both);
    if (st) return st;
    uint32_t next = (uint32_t)both, serving = (uint32_t)(both >> 32);
    if (next != serving) return SM_OK;
    uint64_t want = (uint64_t)serving << 32 | (uint32_t)(next + 1);
    if ((st = rma_remote_amo(pe, l, RMA_AMO_CSWAP, 8, want, both, &got))) return st;
    *taken = got == both;
    return SM_OK;
}

sm_status_t rma_remote_lock_release_to(int pe, struct rma_lock *l)
{
    sm_status_t st = net_fence();
    return st ? st : rma_remote_amo(pe, &l->serving, RMA_AMO_ADD, 4, 1, 0, NULL);
}

sm_status_t rma_remote_lock_release(int pe, struct rma_lock *l)
{
    sm_status_t st = rma_remote_quiet();
    uint64_t old;
    sm_status_t rs = rma_remote_amo(pe, &l->serving, RMA_AMO_ADD, 4, 1, 0, &old);
    return st ? st : rs;
}
