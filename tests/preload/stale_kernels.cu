// Two kernels with different parameter layouts, loaded as a cubin by
// stale_main.c: a function handle of one may come back as the other's after
// a context's end.
__global__ void one(int *p) { p[threadIdx.x] = 1; }
__global__ void three(int a, int b, int *p) { p[threadIdx.x] = a + b; }
