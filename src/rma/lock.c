/* lock.c: locks in shared memory that any rank takes on any rank's memory
 * (rma.h): an exclusive ticket lock and a phase-fair reader-writer ticket
 * lock. Waiters spin, then sleep on the word they wait for. */
#include "rma.h"

/* Wait while *w == seen: asleep on the word; across nodes running UCX
 * (a release from another node is its worker's atomic here). */
static void wait_word(_Atomic uint32_t *w, uint32_t seen)
{
    if (SM_UNLIKELY(rma_remote_up)) rma_remote_wait_word(w, seen);
    else sm_wait_word((volatile uint32_t *)w, seen);
}

/* Wait until *w == want (*w only moves forward, so each other value seen
 * is waited out with sm_wait_word). */
static void await_eq(_Atomic uint32_t *w, uint32_t want)
{
    uint32_t v;
    while ((v = atomic_load_explicit(w, memory_order_acquire)) != want)
        wait_word(w, v);
}

static void bump(_Atomic uint32_t *w, uint32_t by)
{
    atomic_fetch_add_explicit(w, by, memory_order_release);
    sm_wake_word((volatile uint32_t *)w);
}

/* --- Exclusive ticket lock ----------------------------------------------------- */

void rma_lock_acquire(struct rma_lock *l)
{
    await_eq(&l->serving, atomic_fetch_add(&l->next, 1));
}

bool rma_lock_try(struct rma_lock *l)
{
    /* Free when the next ticket is the one being served: take it. */
    uint32_t s = atomic_load_explicit(&l->serving, memory_order_acquire);
    return atomic_compare_exchange_strong(&l->next, &s, s + 1);
}

void rma_lock_release(struct rma_lock *l) { bump(&l->serving, 1); }

/* --- Phase-fair reader-writer ticket lock (PF-T) ------------------------------------
 * rin's low bits: a writer is present (PRES) and its phase (PHID, the low
 * bit of its ticket, so consecutive writers differ); readers count above
 * them in RMA_RW_READER units, in rin when they arrive and in rout when
 * they leave. */
#define RW_PHID  0x1u
#define RW_PRES  0x2u
#define RW_WBITS (RW_PRES | RW_PHID)

void rma_rwlock_acquire(struct rma_rwlock *l, enum rma_lock_mode mode)
{
    if (mode == RMA_LOCK_SHARED) {
        /* Wait only if a writer is present, and only until its phase ends. */
        uint32_t w = atomic_fetch_add(&l->rin, RMA_RW_READER) & RW_WBITS, r;
        while (w && ((r = atomic_load_explicit(&l->rin, memory_order_acquire)) & RW_WBITS) == w)
            wait_word(&l->rin, r);
        return;
    }
    uint32_t ticket = atomic_fetch_add(&l->win, 1);
    await_eq(&l->wout, ticket);                     /* the writers before me are done */
    uint32_t readers = atomic_fetch_add(&l->rin, RW_PRES | (ticket & RW_PHID));
    await_eq(&l->rout, readers);                    /* so are the readers that came before me */
}

void rma_rwlock_release(struct rma_rwlock *l, enum rma_lock_mode mode)
{
    if (mode == RMA_LOCK_SHARED) {
        bump(&l->rout, RMA_RW_READER);
        return;
    }
    atomic_fetch_and_explicit(&l->rin, ~RW_WBITS, memory_order_release);   /* the waiting readers go */
    sm_wake_word((volatile uint32_t *)&l->rin);
    bump(&l->wout, 1);                                                     /* then the next writer */
}

/* --- The reader-writer lock on another node's memory: the protocol above
 * on UCX atomics (a fetch-add of 0 reads), which are CPU atomics at the
 * target over TCP and shared memory, so local holders and remote ones mix.
 * Every step fetches, so it has happened at the target when it returns. */
static sm_status_t remote_add(int pe, _Atomic uint32_t *w, uint32_t add, uint32_t *old)
{
    uint64_t v = 0;
    sm_status_t st = rma_remote_amo(pe, (void *)w, RMA_AMO_ADD, 4, add, 0, &v);
    *old = (uint32_t)v;
    return st;
}

static sm_status_t remote_await_eq(int pe, _Atomic uint32_t *w, uint32_t want)
{
    uint32_t v;
    sm_status_t st;
    while (!(st = remote_add(pe, w, 0, &v)) && v != want) rma_remote_idle();
    return st;
}

sm_status_t rma_remote_rwlock_acquire(int pe, struct rma_rwlock *l, enum rma_lock_mode mode)
{
    uint32_t v, r;
    sm_status_t st;
    if (mode == RMA_LOCK_SHARED) {
        if ((st = remote_add(pe, &l->rin, RMA_RW_READER, &v))) return st;
        uint32_t w = v & RW_WBITS;
        while (w && !(st = remote_add(pe, &l->rin, 0, &r)) && (r & RW_WBITS) == w) rma_remote_idle();
        return st;
    }
    uint32_t ticket, readers;
    if ((st = remote_add(pe, &l->win, 1, &ticket)) || (st = remote_await_eq(pe, &l->wout, ticket)) ||
        (st = remote_add(pe, &l->rin, RW_PRES | (ticket & RW_PHID), &readers)))
        return st;
    return remote_await_eq(pe, &l->rout, readers);
}

sm_status_t rma_remote_rwlock_release(int pe, struct rma_rwlock *l, enum rma_lock_mode mode)
{
    sm_status_t st = rma_remote_quiet();   /* our operations complete before the next holder's */
    uint32_t old;
    uint64_t o64;
    if (st) return st;
    if (mode == RMA_LOCK_SHARED) return remote_add(pe, &l->rout, RMA_RW_READER, &old);
    /* rin's writer bits cleared (with a fetch: done at the target), then the next writer */
    if ((st = rma_remote_amo(pe, (void *)&l->rin, RMA_AMO_AND, 4, ~RW_WBITS, 0, &o64))) return st;
    return remote_add(pe, &l->wout, 1, &old);
}
