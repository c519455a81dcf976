/* test_xlate.c: the symmetric translation (rma.h): the symmetric heap and
 * the globals (inline), the main stack and global addresses (the exposed-
 * memory extension), a rank's heap memory on that rank only; refusals with
 * their reasons (private heap memory for another rank, a peer's heap on a
 * third, control regions, ranges beyond a region, unexposed memory, a bad
 * rank, a negative size, a closed view); the small inline put and get. */
#include <setjmp.h>
#include <sys/mman.h>

#include "rma_test.h"

static struct rma_sym v;
static long glob[8];

#define REFUSED(pe, addr, len, reason)                                                        \
    do {                                                                                      \
        CHECK(rma_sym_xlate(&v, pe, addr, len) == NULL, "%s (%p, %zu bytes, PE %d) was translated", \
              #addr, (void *)(addr), (size_t)(len), pe);                                      \
        CHECK_REASON(reason);                                                                 \
    } while (0)

static jmp_buf back;
static const char *failed_what;
static void on_fail(const char *what) { failed_what = what; longjmp(back, 1); }

int main(void)
{
    test_start();
    int right = (me + 1) % n, third = (me + 2) % n;
    REFUSED(0, glob, 8, "the symmetric view is closed");
    CHECK_ST(rma_sym_open(&v, 1 << 20, NULL), SM_OK);
    void *hp;
    CHECK_ST(rma_heap_alloc(&v, 4096, 1, true, &hp), SM_OK);
    char *h = hp;
    long st[4] = {0};

    /* symmetric memory and the extension: pe's instance, as sm_remote has it */
    CHECK(rma_sym_xlate(&v, right, h + 8, 64) == sm_remote(right, h + 8), "symmetric heap");
    CHECK(rma_sym_xlate(&v, right, glob, sizeof glob) == sm_remote(right, glob), "globals");
    CHECK(rma_sym_xlate(&v, right, st, sizeof st) == sm_remote(right, st), "main stack");
    CHECK(rma_sym_xlate(&v, right, sm_global(glob), 8) == sm_remote(right, glob), "global address of a global");
    CHECK(rma_sym_xlate(&v, right, sm_global(st), 8) == sm_remote(right, st), "global address of the stack");
    CHECK(rma_sym_xlate(&v, right, sm_remote(third, h), 8) == sm_remote(right, h), "global address in a third rank's heap");
    void *p;
    CHECK(rma_sym_fast(&v, right, h, 1, &p) && p == sm_remote(right, h), "inline: the symmetric heap");
    CHECK(rma_sym_fast(&v, right, &glob[7], 8, &p) && p == sm_remote(right, &glob[7]), "inline: the globals");
    CHECK(!rma_sym_fast(&v, right, st, 8, &p) && !rma_sym_fast(&v, right, h, 0, &p), "inline: not the stack, not empty");
    CHECK(rma_sym_xlate(&v, me, h, 4096) == h, "this rank's own instance");

    /* heap (malloc) memory: exposed, not symmetric */
    char *m = malloc(64);   /* (the core's, in the slot, even under the sanitizers: an engine program) */
    CHECK(rma_sym_xlate(&v, me, m, 64) == m, "a rank's heap memory on the rank itself");
    if (n > 1) REFUSED(right, m, 8, "is not symmetric: it is private heap memory (malloc), target PE");
    static void *pub;
    pub = m;   /* m is its own global address: the heap lives in the slot */
    sm_barrier();
    char *pm = *(char **)sm_remote(right, &pub);
    CHECK(rma_sym_xlate(&v, right, pm, 64) == pm, "the right rank's heap memory, by its global address, on it");
    if (n > 2) REFUSED(third, pm, 8, "of PE");
    sm_barrier();

    /* refused */
    REFUSED(right, (void *)sm_slot_base(me), 8, "control region");
    REFUSED(right, (char *)sm_slot_base(third) + 4096, 8, "control region");
    char *priv = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REFUSED(right, priv, 8, "is not symmetric (not exposed by smartmap)");
    REFUSED(right, (char *)v.heap_lo + v.heap_len - 8, 16, "extends beyond the symmetric heap");
    REFUSED(right, (char *)v.globals_lo + v.globals_len - 4, 8, "extends beyond the globals");
    REFUSED(right, (char *)sm_core.stack_lo + sm_core.stack_len - 4, 8, "extends beyond the stack");
    REFUSED(n, glob, 8, "out of range");
    REFUSED(-1, glob, 8, "PE -1 out of range");
    REFUSED(right, glob, (size_t)-3, "size -3 is negative");
    /* empty ranges: any address, a valid rank */
    CHECK(rma_sym_xlate(&v, right, NULL, 0) == (void *)sm_slot_base(right), "an empty range");
    CHECK(rma_sym_xlate(&v, right, priv, 0) != NULL, "an empty range of unexposed memory");
    REFUSED(n, NULL, 0, "out of range");

    /* the reporting form: the binding's report gets its routine */
    if (!setjmp(back)) {
        rma_sym_xlate_or(&v, right, priv, 8, on_fail, "test_routine");
        CHECK(0, "rma_sym_xlate_or returned for unexposed memory");
    }
    CHECK(failed_what && !strcmp(failed_what, "test_routine"), "the report's routine");
    CHECK(rma_sym_xlate_or(&v, right, st, 8, on_fail, "x") == sm_remote(right, st), "rma_sym_xlate_or, stack");

    /* small puts and gets, 1 to 16 bytes, inline: exactly the bytes asked */
    unsigned char src[16];
    for (int i = 0; i < 16; i++) src[i] = (unsigned char)(0xA0 + i);
    for (size_t len = 1; len <= 16; len++) {
        memset(h, 0, 64);
        sm_barrier();
        CHECK(rma_sym_put_small(&v, right, h + 8, src, len), "put_small of %zu bytes declined", len);
        sm_barrier();
        for (size_t i = 0; i < 64; i++)
            CHECK((unsigned char)h[i] == (i >= 8 && i < 8 + len ? src[i - 8] : 0), "put of %zu: byte %zu", len, i);
        unsigned char got[24];
        memset(got, 0x55, sizeof got);
        CHECK(rma_sym_get_small(&v, right, got + 4, h + 8, len), "get_small of %zu bytes declined", len);
        for (size_t i = 0; i < sizeof got; i++)
            CHECK(got[i] == (i >= 4 && i < 4 + len ? src[i - 4] : 0x55), "get of %zu: byte %zu", len, i);
        sm_barrier();
    }
    /* the last RMA_SMALL bytes of the heap go the general way (one compare inline) */
    char *last = (char *)v.heap_lo + v.heap_len - 8;
    CHECK(!rma_sym_put_small(&v, right, last, src, 8) && rma_sym_xlate(&v, right, last, 8) == sm_remote(right, last),
          "the heap's last bytes");
    CHECK(!rma_sym_put_small(&v, right, h, src, 17) && !rma_sym_put_small(&v, right, st, src, 8) &&
          !rma_sym_put_small(&v, right, h, src, 0) &&
          !rma_sym_get_small(&v, right, src, priv, 8), "the small paths take only small, non-empty ranges of symmetric heap and globals");

    CHECK_ST(rma_heap_free(&v, h), SM_OK);
    rma_sym_close(&v);
    REFUSED(right, glob, 8, "closed");
    free(m);
    sm_barrier();
    return 0;
}
