/* A stand-in for NVIDIA's libcufft.so.12 (tests/libapi/README): plans are
 * small integers; making one records nothing devcheck could read (cuFFT has
 * no getters for a plan's device, stream or work area); execution does no
 * math. */
#include <cufft.h>
#include <cufftXt.h>

#define MAXPLANS 64
static int used[MAXPLANS];

cufftResult CUFFTAPI cufftCreate(cufftHandle *handle)
{
    for (int i = 1; i < MAXPLANS; i++)
        if (!used[i]) {
            used[i] = 1;
            *handle = i;
            return CUFFT_SUCCESS;
        }
    return CUFFT_ALLOC_FAILED;
}

static int valid(cufftHandle p) { return p > 0 && p < MAXPLANS && used[p]; }

cufftResult CUFFTAPI cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch, size_t *workSize)
{
    if (workSize)
        *workSize = 1024;
    return valid(plan) && nx > 0 && batch > 0 ? CUFFT_SUCCESS : CUFFT_INVALID_VALUE;
}

cufftResult CUFFTAPI cufftPlan1d(cufftHandle *plan, int nx, cufftType type, int batch)
{
    cufftResult r = cufftCreate(plan);
    return r ? r : cufftMakePlan1d(*plan, nx, type, batch, NULL);
}

cufftResult CUFFTAPI cufftSetStream(cufftHandle plan, cudaStream_t stream)
{
    return valid(plan) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

cufftResult CUFFTAPI cufftSetAutoAllocation(cufftHandle plan, int autoAllocate)
{
    return valid(plan) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

cufftResult CUFFTAPI cufftSetWorkArea(cufftHandle plan, void *workArea)
{
    return valid(plan) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

cufftResult CUFFTAPI cufftDestroy(cufftHandle plan)
{
    if (!valid(plan))
        return CUFFT_INVALID_PLAN;
    used[plan] = 0;
    return CUFFT_SUCCESS;
}

cufftResult CUFFTAPI cufftExecC2C(cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction)
{
    return valid(plan) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

cufftResult CUFFTAPI cufftExecR2C(cufftHandle plan, cufftReal *idata, cufftComplex *odata)
{
    return valid(plan) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

cufftResult CUFFTAPI cufftXtExec(cufftHandle plan, void *input, void *output, int direction)
{
    return valid(plan) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}
