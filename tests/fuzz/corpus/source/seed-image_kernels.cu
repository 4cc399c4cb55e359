// Kernels whose parameter layouts image_parse checks against the compiled
// code (cubin .nv.info, fatbin entries, PTX).  Bodies only keep parameters used.
struct image_pair { void *a, *b; };

__global__ void mixed(float *p, int n, struct image_pair s, double d)
{
    if (p) p[n] = (float)d + (s.a != s.b ? 1.f : 0.f);
}

namespace ns {
template <typename T> __global__ void kernel(T *x) { x[0] = 1; }
template __global__ void kernel<float>(float *);
}

__global__ void noparams() {}

extern "C" __global__ void cfunc(char c, short s, int *p)
{
    if (p) *p = c + s;
}

struct image_big { double v[5]; char tail; };
__global__ void big(struct image_big b, char c, float4 f, int *out)
{
    out[0] = (int)b.v[4] + b.tail + c + (int)f.w;
}

// Large parameters: nvcc records them with EIATTR 0x45 instead of 0x17.
struct image_huge { char b[16000]; };
__global__ void huge(int *out, struct image_huge h) { out[0] = h.b[15999]; }
