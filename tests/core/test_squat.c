/* A program with something of its own where the slots go (a section linked
 * at 32 TiB + 1 GiB, inside rank 0's slot): init must refuse, naming what is
 * in the way, rather than map over it (MAP_FIXED_NOREPLACE). */
#include <stdio.h>
#include <smartmap.h>

__attribute__((section(".squat"), used)) char squat[4096] = { 1 };

int main(void)
{
    /* Not squat itself: a PC-relative reference cannot reach 32 TiB. */
    printf("rank %d ran over its own data\n", sm_rank());
    return 1;
}
