/* hooks_cufft: cuFFT calls checked at their API (preload/hooks_lib.h has the
 * machinery, preload/hooks_lib.def the table): a plan's device, stream and
 * work area, remembered from the calls that set them (cuFFT has no
 * getters), and the executions' input and output. */
#include "preload/hooks_lib.h"

#define LIB_THIS CUFFT

/* A plan runs on the device current when it was made (cuFFT makes a
 * single-GPU plan's kernels and work area there), or the one
 * cufftXtSetGPUs named; a multi-GPU plan takes descriptors, not device
 * pointers: not checked. */
/* A plan's key: its number in version lib_v's cuFFT (both number plans
 * from 1). */
#define FFT_KEY(plan, lib_v) ((uint64_t)(unsigned)(plan) | (uint64_t)(lib_v) << 32)

/* A plan was made (workSize: the work area it needs, as cufftMakePlan*
 * said; NULL: not said). */
static void fft_made(int lib_v, cufftHandle plan, const size_t *workSize)
{
    if (!dc_enter())
        return;
    int d = dc_current_device();
    if (d >= 0 && !dc_libh_get(DC_LIBH_CUFFT, FFT_KEY(plan, lib_v), NULL))    /* cufftXtSetGPUs said */
        dc_libh_set(DC_LIBH_CUFFT, FFT_KEY(plan, lib_v), (uint64_t)d);
    if (workSize)
        dc_libh_set(DC_LIBH_CUFFT_WSIZE, FFT_KEY(plan, lib_v), (uint64_t)*workSize);
    else
        dc_libh_forget(DC_LIBH_CUFFT_WSIZE, FFT_KEY(plan, lib_v));
    dc_leave();
}

/* The device plan's calls run on: its own, else its stream's, else the
 * current one; -1 for a multi-GPU plan.  *stream: cufftSetStream's. */
static int fft_device(int lib_v, cufftHandle plan, uintptr_t *stream)
{
    uint64_t v, s = 0;
    uint64_t key = FFT_KEY(plan, lib_v);
    dc_libh_get(DC_LIBH_CUFFT_STREAM, key, &s);
    *stream = (uintptr_t)s;
    if (dc_libh_get(DC_LIBH_CUFFT, key, &v))
        return v == DC_LIBH_MULTI ? -1 : (int)v;
    return dc_stream_device((CUstream)(uintptr_t)s);
}

static void fft_check(int lib_v, const char *api, cufftHandle plan, const char *in_name, const void *in,
                      const char *out_name, const void *out)
{
    uintptr_t stream;
    int d = fft_device(lib_v, plan, &stream);
    struct dc_lib_arg a[] = { ARG(in_name, in), ARG(out_name, out) };
    dc_lib_check(api, d, stream, a, NARGS(a));
}

/* The work area is checked where the program hands it over (made after the
 * plan, as cuFFT requires): once, at the line that chose it. */
/* A plan that needs no work area (cufftMakePlan* said 0 bytes) never
 * reads it: not checked. */
static void fft_work_area(int lib_v, cufftHandle plan, void *workArea)
{
    uint64_t size;
    if (dc_libh_get(DC_LIBH_CUFFT_WSIZE, FFT_KEY(plan, lib_v), &size) && !size)
        return;
    uintptr_t stream;
    int d = fft_device(lib_v, plan, &stream);
    struct dc_lib_arg a[] = { ARG("workArea", workArea) };
    dc_check_libcall("cufftSetWorkArea", d, stream, a, NARGS(a));  /* no work of its own: never synchronised */
}

#define FFT_PLAN_HOOK(name, params, args, planv, ws)                                \
    LIB_BODY(cufftResult, name, params)                                             \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return dc_lib_missing(#name), CUFFT_INTERNAL_ERROR;                        \
        cufftResult r = real args;                                                  \
        if (r == CUFFT_SUCCESS)                                                     \
            fft_made(lib_v, planv, ws);                                             \
        return r;                                                                   \
    }                                                                               \
    LIB_ENTRIES(cufftResult, CUFFTAPI, name, params, args)
FFT_PLAN_HOOK(cufftPlan1d, (cufftHandle *plan, int nx, cufftType type, int batch), (plan, nx, type, batch), *plan, NULL)
FFT_PLAN_HOOK(cufftPlan2d, (cufftHandle *plan, int nx, int ny, cufftType type), (plan, nx, ny, type), *plan, NULL)
FFT_PLAN_HOOK(cufftPlan3d, (cufftHandle *plan, int nx, int ny, int nz, cufftType type), (plan, nx, ny, nz, type),
              *plan, NULL)
FFT_PLAN_HOOK(cufftPlanMany,
    (cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed, int ostride, int odist,
     cufftType type, int batch),
    (plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch), *plan, NULL)
FFT_PLAN_HOOK(cufftMakePlan1d, (cufftHandle plan, int nx, cufftType type, int batch, size_t *workSize),
              (plan, nx, type, batch, workSize), plan, workSize)
FFT_PLAN_HOOK(cufftMakePlan2d, (cufftHandle plan, int nx, int ny, cufftType type, size_t *workSize),
              (plan, nx, ny, type, workSize), plan, workSize)
FFT_PLAN_HOOK(cufftMakePlan3d, (cufftHandle plan, int nx, int ny, int nz, cufftType type, size_t *workSize),
              (plan, nx, ny, nz, type, workSize), plan, workSize)
FFT_PLAN_HOOK(cufftMakePlanMany,
    (cufftHandle plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed, int ostride, int odist,
     cufftType type, int batch, size_t *workSize),
    (plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize), plan, workSize)
FFT_PLAN_HOOK(cufftMakePlanMany64,
    (cufftHandle plan, int rank, long long int *n, long long int *inembed, long long int istride,
     long long int idist, long long int *onembed, long long int ostride, long long int odist, cufftType type,
     long long int batch, size_t *workSize),
    (plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize), plan, workSize)
FFT_PLAN_HOOK(cufftXtMakePlanMany,
    (cufftHandle plan, int rank, long long int *n, long long int *inembed, long long int istride,
     long long int idist, cudaDataType inputtype, long long int *onembed, long long int ostride,
     long long int odist, cudaDataType outputtype, long long int batch, size_t *workSize,
     cudaDataType executiontype),
    (plan, rank, n, inembed, istride, idist, inputtype, onembed, ostride, odist, outputtype, batch, workSize,
     executiontype), plan, workSize)

/* The hooks that only remember what a plan was given (guard held for it). */
#define FFT_NOTE_HOOK(name, params, args, note)                                     \
    LIB_BODY(cufftResult, name, params)                                             \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return dc_lib_missing(#name), CUFFT_INTERNAL_ERROR;                        \
        cufftResult r = real args;                                                  \
        if (r == CUFFT_SUCCESS && dc_enter()) {                                     \
            note;                                                                   \
            dc_leave();                                                             \
        }                                                                           \
        return r;                                                                   \
    }                                                                               \
    LIB_ENTRIES(cufftResult, CUFFTAPI, name, params, args)
FFT_NOTE_HOOK(cufftXtSetGPUs, (cufftHandle handle, int nGPUs, int *whichGPUs), (handle, nGPUs, whichGPUs),
              dc_libh_set(DC_LIBH_CUFFT, FFT_KEY(handle, lib_v),
                          nGPUs > 1 ? DC_LIBH_MULTI : (uint64_t)(whichGPUs ? whichGPUs[0] : 0)))
FFT_NOTE_HOOK(cufftSetStream, (cufftHandle plan, cudaStream_t stream), (plan, stream),
              dc_libh_set(DC_LIBH_CUFFT_STREAM, FFT_KEY(plan, lib_v), P(stream)))
FFT_NOTE_HOOK(cufftSetWorkArea, (cufftHandle plan, void *workArea), (plan, workArea),
              fft_work_area(lib_v, plan, workArea))
FFT_NOTE_HOOK(cufftDestroy, (cufftHandle plan), (plan),
              (dc_libh_forget(DC_LIBH_CUFFT, FFT_KEY(plan, lib_v)),
               dc_libh_forget(DC_LIBH_CUFFT_STREAM, FFT_KEY(plan, lib_v)),
              dc_libh_forget(DC_LIBH_CUFFT_WSIZE, FFT_KEY(plan, lib_v))))

#define FFT_EXEC_HOOK(name, params, args, in_name, in, out_name, out)               \
    LIB_HOOK(cufftResult, CUFFTAPI, name, params, args, CUFFT_INTERNAL_ERROR, CUFFT_SUCCESS, \
             (fft_check(lib_v, #name, plan, in_name, in, out_name, out)))
FFT_EXEC_HOOK(cufftExecC2C, (cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction),
              (plan, idata, odata, direction), "idata", idata, "odata", odata)
FFT_EXEC_HOOK(cufftExecR2C, (cufftHandle plan, cufftReal *idata, cufftComplex *odata), (plan, idata, odata),
              "idata", idata, "odata", odata)
FFT_EXEC_HOOK(cufftExecC2R, (cufftHandle plan, cufftComplex *idata, cufftReal *odata), (plan, idata, odata),
              "idata", idata, "odata", odata)
FFT_EXEC_HOOK(cufftExecZ2Z, (cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata, int direction),
              (plan, idata, odata, direction), "idata", idata, "odata", odata)
FFT_EXEC_HOOK(cufftExecD2Z, (cufftHandle plan, cufftDoubleReal *idata, cufftDoubleComplex *odata),
              (plan, idata, odata), "idata", idata, "odata", odata)
FFT_EXEC_HOOK(cufftExecZ2D, (cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleReal *odata),
              (plan, idata, odata), "idata", idata, "odata", odata)
FFT_EXEC_HOOK(cufftXtExec, (cufftHandle plan, void *input, void *output, int direction),
              (plan, input, output, direction), "input", input, "output", output)

/* cufftXtExecDescriptor and its typed forms (issue 37 item 5; JAX's plugin
 * binds them by dlsym, sim/libs/imports.tsv): the data are a host
 * cudaLibXtDesc (cufftXtMalloc's), whose descriptor lists for each of its
 * nGPUs the device GPUs[i] and that device's part data[i]; cuFFT reads the
 * list on the host and runs part i on GPUs[i].  So each data[i] is checked
 * on GPUs[i], read element by element as cuFFT does (at most
 * MAX_CUDA_DESCRIPTOR_GPUS). */
static void fft_desc_check(const char *api, const char *name, const cudaLibXtDesc *d)
{
    if (!d || !d->descriptor)
        return;
    const cudaXtDesc *x = d->descriptor;
    int n = x->nGPUs < 0 ? 0 : x->nGPUs > MAX_CUDA_DESCRIPTOR_GPUS ? MAX_CUDA_DESCRIPTOR_GPUS : x->nGPUs;
    for (int i = 0; i < n; i++) {
        if (x->GPUs[i] < 0 || x->GPUs[i] >= DC_MAX_DEVICES)
            continue;           /* not a device: cuFFT refuses the descriptor */
        struct dc_lib_arg a[] = { ARG(name, x->data[i]) };
        dc_check_libcall(api, x->GPUs[i], 0, a, NARGS(a));
    }
}
#define FFT_DESC_HOOK(name, params, args)                                           \
    LIB_HOOK(cufftResult, CUFFTAPI, name, params, args, CUFFT_INTERNAL_ERROR, CUFFT_SUCCESS, \
             (fft_desc_check(#name, "input->descriptor->data[i]", input);           \
              fft_desc_check(#name, "output->descriptor->data[i]", output);         \
              dc_libcall_active = 1;))
FFT_DESC_HOOK(cufftXtExecDescriptor, (cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output, int direction),
              (plan, input, output, direction))
FFT_DESC_HOOK(cufftXtExecDescriptorC2C,
              (cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output, int direction),
              (plan, input, output, direction))
FFT_DESC_HOOK(cufftXtExecDescriptorZ2Z,
              (cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output, int direction),
              (plan, input, output, direction))
FFT_DESC_HOOK(cufftXtExecDescriptorR2C, (cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output),
              (plan, input, output))
FFT_DESC_HOOK(cufftXtExecDescriptorC2R, (cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output),
              (plan, input, output))
FFT_DESC_HOOK(cufftXtExecDescriptorD2Z, (cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output),
              (plan, input, output))
FFT_DESC_HOOK(cufftXtExecDescriptorZ2D, (cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output),
              (plan, input, output))
