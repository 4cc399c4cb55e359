// A kernel without types (issue 28): extern "C", built into a cubin whose
// parameter records give sizes only.  x is a pointer, m an 8-byte integer, s
// a struct passed by value (its p a pointer the kernel does not read).  Built
// plain and with -G (the cubin then carries DWARF with every parameter's
// type); tests/e2e/untyped.sh, tests/clients/untyped_sim.sh and
// tests/unit/test_evidence.c load it.
struct untyped_s {
    float *p;
    long long n;
};

extern "C" __global__ void scale_rows(int n, float a, float *x, long long m, struct untyped_s s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] * a + (float)(m & 1) + (float)(s.n & 1);
}
