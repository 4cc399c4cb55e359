// Injected driver failures surface as the runtime's documented errors:
// run with SIMCUDA_FAIL=cuMemAlloc_v2:1, the first cudaMalloc fails with
// cudaErrorMemoryAllocation, the next one succeeds.
#include "rt_check.h"

int main()
{
    void *p = NULL;
    EXPECT_ERR(cudaMalloc(&p, 1024), cudaErrorMemoryAllocation);
    EXPECT(p == NULL);
    EXPECT_ERR(cudaGetLastError(), cudaErrorMemoryAllocation);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess); // not sticky
    CHECK(cudaMalloc(&p, 1024));
    CHECK(cudaFree(p));
    printf("ok\n");
    return 0;
}
