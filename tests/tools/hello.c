/* The smallest smartmap program, built by the smcc test. */
#include <smartmap.h>
#include <stdio.h>
static int value;
int main(void)
{
    *(int *)sm_remote((sm_rank() + 1) % sm_size(), &value) = sm_rank() + 1;
    sm_barrier();
    printf("hello from rank %d of %d, got %d\n", sm_rank(), sm_size(), value);
    return value == (sm_rank() + sm_size() - 1) % sm_size() + 1 ? 0 : 1;
}
