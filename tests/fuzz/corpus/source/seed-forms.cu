extern "C" {
__global__ void k(const float * __restrict__ x, int n, double *y[], void (*f)(int), S s) {}
}
template <typename T> __global__ void t(T *p) {}
/* comment __global__ void no(int) */
#define X __global__ void m(int)
__global__ void u(unsigned long long a, char b, size_t c) { }
