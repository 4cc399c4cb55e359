// CUDA called from another library's constructor (rt_ctor_lib.c), then from
// main: both work, and the memory allocated in the constructor is usable.
#include "rt_check.h"

extern "C" int rt_ctor_count;
extern "C" cudaError_t rt_ctor_status;
extern "C" void *rt_ctor_buffer;

int main()
{
    CHECK(rt_ctor_status);
    EXPECT(rt_ctor_count == 4);
    CHECK(cudaMemset(rt_ctor_buffer, 1, 4096));
    unsigned char h[4096];
    CHECK(cudaMemcpy(h, rt_ctor_buffer, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 1 && h[4095] == 1);
    CHECK(cudaFree(rt_ctor_buffer));
    printf("ok\n");
    return 0;
}
