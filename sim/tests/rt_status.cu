// Prints what initialisation reports: "count <error name> <n> driver <v>".
// Used by rt_nodriver.sh without a driver and without devices.
#include "rt_check.h"

int main()
{
    int n = -1, v = -1;
    cudaError_t e = cudaGetDeviceCount(&n);
    cudaError_t ev = cudaDriverGetVersion(&v);
    void *p = NULL;
    cudaError_t em = cudaMalloc(&p, 16);
    printf("count %s %d driver %s %d malloc %s\n", cudaGetErrorName(e), n, cudaGetErrorName(ev), v,
           cudaGetErrorName(em));
    return 0;
}
