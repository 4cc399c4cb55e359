// Kernel launches through the nvcc 13 path (<<<>>> -> __cudaGetKernel +
// __cudaLaunchKernel) and through cudaLaunchKernel / cudaLaunchKernelExC /
// cudaLaunchCooperativeKernel; the host twin computes the result.  Kernel
// handles and attributes, __device__ variables, launch configuration errors,
// and a launch into another device's stream.
#include "rt_check.h"

__device__ int dev_scale;
__device__ float dev_table[8];
__managed__ int managed_counter;

__global__ void fill(int *p, int v) { p[threadIdx.x] = v * dev_scale; }

// A kernel loaded by the program itself from PTX (cudaLibraryLoadData), run
// by its twin.
static const char lib_ptx[] =
    ".version 8.0\n.target sm_52\n.address_size 64\n"
    ".visible .entry libkern(.param .u64 p, .param .u32 v)\n{\n ret;\n}\n";
extern "C" __attribute__((visibility("default"), used)) void
simcuda_twin_libkern(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid;
    (void)block;
    **(int **)args[0] = *(int *)args[1];
}

static void check_sum(const float *dc, const float *ha, const float *hb, int n)
{
    float *hc = (float *)malloc(n * sizeof(float));
    CHECK(cudaMemcpy(hc, dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        if (hc[i] != ha[i] + hb[i]) {
            fprintf(stderr, "c[%d] = %g, expected %g\n", i, hc[i], ha[i] + hb[i]);
            exit(1);
        }
    free(hc);
}

int main()
{
    const int n = 1000;
    float ha[n], hb[n];
    for (int i = 0; i < n; i++) {
        ha[i] = (float)i;
        hb[i] = (float)(2 * i + 1);
    }
    for (int d = 0; d < 4; d++) {
        CHECK(cudaSetDevice(d));
        float *a, *b, *c;
        CHECK(cudaMalloc(&a, n * sizeof(float)));
        CHECK(cudaMalloc(&b, n * sizeof(float)));
        CHECK(cudaMalloc(&c, n * sizeof(float)));
        CHECK(cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice));

        CHECK(cudaMemset(c, 0, sizeof ha));
        vadd<<<(n + 255) / 256, 256>>>(a, b, c, n);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        check_sum(c, ha, hb, n);

        cudaStream_t s;
        CHECK(cudaStreamCreate(&s));
        CHECK(cudaMemset(c, 0, sizeof ha));
        vadd<<<4, 256, 0, s>>>(a, b, c, n);
        CHECK(cudaStreamSynchronize(s));
        check_sum(c, ha, hb, n);

        int nn = n;
        void *args[] = { &a, &b, &c, &nn };
        CHECK(cudaMemset(c, 0, sizeof ha));
        CHECK(cudaLaunchKernel((const void *)vadd, dim3(4), dim3(256), args, 0, s));
        CHECK(cudaStreamSynchronize(s));
        check_sum(c, ha, hb, n);

        CHECK(cudaMemset(c, 0, sizeof ha));
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(4);
        cfg.blockDim = dim3(256);
        cfg.stream = s;
        cudaLaunchAttribute attr[1] = {};
        attr[0].id = cudaLaunchAttributeCooperative;
        attr[0].val.cooperative = 0;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        CHECK(cudaLaunchKernelExC(&cfg, (const void *)vadd, args));
        CHECK(cudaStreamSynchronize(s));
        check_sum(c, ha, hb, n);

        CHECK(cudaMemset(c, 0, sizeof ha));
        CHECK(cudaLaunchCooperativeKernel((const void *)vadd, dim3(4), dim3(256), args, 0, s));
        CHECK(cudaStreamSynchronize(s));
        check_sum(c, ha, hb, n);

        // Handles: cudaGetKernel gives the kernel nvcc's path launches, which
        // cudaLaunchKernel also accepts; cudaGetFuncBySymbol a CUfunction.
        cudaKernel_t k = NULL;
        CHECK(cudaGetKernel(&k, (const void *)vadd));
        EXPECT(k != NULL);
        CHECK(cudaMemset(c, 0, sizeof ha));
        CHECK(cudaLaunchKernel((const void *)k, dim3(4), dim3(256), args, 0, s));
        CHECK(cudaStreamSynchronize(s));
        check_sum(c, ha, hb, n);
        cudaFunction_t f = NULL;
        CHECK(cudaGetFuncBySymbol(&f, (const void *)vadd));
        EXPECT(f != NULL);
        cudaFuncAttributes fa;
        CHECK(cudaFuncGetAttributes(&fa, (const void *)vadd));
        EXPECT(fa.maxThreadsPerBlock > 0);
        CHECK(cudaFuncSetAttribute((const void *)vadd, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024));
        int blocks = 0;
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, vadd, 256, 0));
        EXPECT(blocks > 0);
        size_t dyn = 0;
        CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&dyn, (const void *)vadd, 1, 256));
        int min_grid = 0, block_size = 0; // header-inline helper over the runtime's queries
        CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block_size, vadd, 0, 0));
        EXPECT(min_grid > 0 && block_size > 0 && block_size <= 1024);

        // Name and parameter layout of a registered kernel, read from its code.
        const char *kname = NULL;
        CHECK(cudaFuncGetName(&kname, (const void *)vadd));
        EXPECT_STR(kname, "_Z4vaddPKfS0_Pfi");
        size_t off = 0, psz = 0;
        CHECK(cudaFuncGetParamInfo((const void *)vadd, 3, &off, &psz));
        EXPECT(off == 24 && psz == 4);
        EXPECT(cudaFuncGetParamInfo((const void *)vadd, 4, &off, &psz) != cudaSuccess);
        cudaGetLastError();
        CHECK(cudaFuncSetCacheConfig((const void *)vadd, cudaFuncCachePreferL1));

        // A library of the program's own: its kernel launches like a stub.
        cudaLibrary_t lib = NULL;
        CHECK(cudaLibraryLoadData(&lib, lib_ptx, NULL, NULL, 0, NULL, NULL, 0));
        unsigned nk = 0;
        CHECK(cudaLibraryGetKernelCount(&nk, lib));
        EXPECT(nk == 1);
        cudaKernel_t lk = NULL;
        CHECK(cudaLibraryGetKernel(&lk, lib, "libkern"));
        int *flag = NULL;
        CHECK(cudaMallocManaged(&flag, sizeof(int), cudaMemAttachGlobal));
        *flag = 0;
        int val = 77 + d;
        void *largs[] = { &flag, &val };
        CHECK(cudaLaunchKernel((const void *)lk, dim3(1), dim3(1), largs, 0, 0));
        CHECK(cudaDeviceSynchronize());
        EXPECT(*flag == 77 + d);
        CHECK(cudaFree(flag));
        CHECK(cudaLibraryUnload(lib));

        // __device__ variables, per device.
        int scale = 3 + d;
        CHECK(cudaMemcpyToSymbol(dev_scale, &scale, sizeof scale));
        int back = 0;
        CHECK(cudaMemcpyFromSymbol(&back, dev_scale, sizeof back));
        EXPECT(back == scale);
        float tab[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, tab2[8] = { 0 };
        CHECK(cudaMemcpyToSymbol(dev_table, tab + 2, 4 * sizeof(float), 2 * sizeof(float)));
        CHECK(cudaMemcpyFromSymbol(tab2, dev_table, sizeof tab2));
        EXPECT(tab2[2] == 3 && tab2[5] == 6 && tab2[0] == 0);
        size_t sz = 0;
        void *addr = NULL;
        CHECK(cudaGetSymbolSize(&sz, dev_table));
        CHECK(cudaGetSymbolAddress(&addr, dev_table));
        EXPECT(sz == sizeof tab && addr != NULL);
        EXPECT_ERR(cudaMemcpyToSymbol(dev_table, tab, sizeof tab, 4), cudaErrorInvalidValue);
        EXPECT_ERR(cudaMemcpyToSymbol((const void *)ha, tab, 4), cudaErrorInvalidSymbol);
        CHECK(cudaGetLastError() == cudaErrorInvalidSymbol ? cudaSuccess : cudaErrorUnknown);

        // __managed__ variables: the host slot and the symbol agree.
        managed_counter = 40 + d;
        int mc = 0;
        CHECK(cudaMemcpyFromSymbol(&mc, managed_counter, sizeof mc, 0, cudaMemcpyDefault));
        EXPECT(mc == 40 + d);

        // Configuration errors surface through cudaGetLastError.
        vadd<<<0, 256>>>(a, b, c, n);
        EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
        vadd<<<1, 2048>>>(a, b, c, n);
        EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
        EXPECT_ERR(cudaLaunchKernel((const void *)check_sum, dim3(1), dim3(1), args, 0, 0),
                   cudaErrorInvalidDeviceFunction);
        CHECK(cudaGetLastError() == cudaErrorInvalidDeviceFunction ? cudaSuccess : cudaErrorUnknown);

        // A kernel launch into a stream of another device fails.
        CHECK(cudaSetDevice((d + 1) % 4));
        cudaError_t e = cudaLaunchKernel((const void *)vadd, dim3(4), dim3(256), args, 0, s);
        if (e == cudaSuccess) {
            fprintf(stderr, "launch into device %d's stream from device %d succeeded\n", d, (d + 1) % 4);
            return 1;
        }
        vadd<<<4, 256, 0, s>>>(a, b, c, n);
        EXPECT(cudaGetLastError() != cudaSuccess);
        // ... while a copy through it succeeds.
        CHECK(cudaMemcpyAsync(c, a, sizeof ha, cudaMemcpyDefault, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaSetDevice(d));

        CHECK(cudaStreamDestroy(s));
        CHECK(cudaFree(a));
        CHECK(cudaFree(b));
        CHECK(cudaFree(c));
    }
    CHECK(cudaDeviceSynchronize());
    printf("ok\n");
    return 0;
}
