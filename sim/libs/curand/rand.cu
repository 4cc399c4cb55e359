// The sim cuRAND's kernel (sim/libs/curand/): the library's code image
// (sim/libs/README.md), launched by curand.c into the generator's stream.
// On the sim its host twin (curand.c) computes the values; the device code
// says which parameter the kernel writes (the sim's fault model reads the
// image's PTX): the output.  SimWork travels by value and points to the
// library's host memory, which only the twin reads.
struct SimWork {
    const void *work;
};

extern "C" __global__ void curandSimGenerate(unsigned char *out, SimWork w)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        out[0] = 0;
}
