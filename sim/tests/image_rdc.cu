// Relocatable device code: a device function (not a kernel) with its own
// .nv.info section, and a static kernel named __nv_static_..._Z..._.
__device__ __noinline__ int image_helper(int *x) { return x[0] * 3; }
__global__ void rdc_kernel(int *p) { p[0] = image_helper(p); }
static __global__ void rdc_static(int *p, long q) { p[0] = (int)q; }
void image_rdc_launch(int *p)
{
    rdc_static<<<1, 1>>>(p, 2);
    rdc_kernel<<<1, 1>>>(p);
}
