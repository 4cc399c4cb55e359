// Kernels whose images tests/unit/test_evidence.c reads with devcheck's own
// reader (core/kernel/cubin.c): built by nvcc into a fatbin (PTX compressed with
// zstd, nvcc's default), a fatbin compressed with LZ4 (-compress-mode=speed),
// one with every entry zstd-compressed (-compress-mode=size), a cubin and PTX
// (tests/unit.mk).  Never run.
struct Args {
    const float *in;
    float *out;
    int n;
};

__global__ void ev_cpp(const float *a, float *b, int n, Args s, double d, long long q, char c)
{
    if (n)
        b[0] = a[0] + s.in[0] + (float)d + (float)q + c;
}

extern "C" __global__ void ev_plain(float *p, unsigned long long count, int n)
{
    if (n)
        p[0] = (float)count;
}

extern "C" __global__ void ev_none() {}
