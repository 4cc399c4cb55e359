"""Correct multi-GPU cuda-bindings (driver API only: cuda.bindings.runtime
carries NVIDIA's runtime, which cannot run on the simulated GPUs): per device,
an NVRTC-compiled kernel scales a buffer of that device's memory.
Prints `cuda_bindings_correct: OK devices=N result=[...]` (the result only
computed where the kernel has a host twin: DEVCHECK_CLIENT_TWINS)."""
import ctypes
import sys

import numpy as np
from cuda.bindings import driver as cu, nvrtc

import twins

SRC = b'extern "C" __global__ void scale(float *x, float a, int n) { int i = threadIdx.x; if (i < n) x[i] *= a; }'


def ok(r):
    err = r[0] if isinstance(r, tuple) else r
    if int(err) != 0:
        sys.exit(f"cuda_bindings_correct: FAILED: {err}")
    return r[1] if isinstance(r, tuple) and len(r) == 2 else r[1:] if isinstance(r, tuple) else None


def ptx():
    prog = ok(nvrtc.nvrtcCreateProgram(SRC, b"scale.cu", 0, [], []))
    ok(nvrtc.nvrtcCompileProgram(prog, 1, [b"--gpu-architecture=compute_80"]))
    size = ok(nvrtc.nvrtcGetPTXSize(prog))
    buf = b" " * size
    ok(nvrtc.nvrtcGetPTX(prog, buf))
    return buf


computed = twins.load()
ok(cu.cuInit(0))
n = ok(cu.cuDeviceGetCount())
assert n >= 2, f"need 2 or more CUDA devices, found {n}"
code = ptx()
result = None
for d in range(n):
    dev = ok(cu.cuDeviceGet(d))
    ctx = ok(cu.cuDevicePrimaryCtxRetain(dev))
    ok(cu.cuCtxSetCurrent(ctx))
    mod = ok(cu.cuModuleLoadData(code))
    fn = ok(cu.cuModuleGetFunction(mod, b"scale"))
    host = np.arange(8, dtype=np.float32)
    dptr = ok(cu.cuMemAlloc(host.nbytes))
    ok(cu.cuMemcpyHtoD(dptr, host.ctypes.data, host.nbytes))
    a, cnt = ctypes.c_float(2.0), ctypes.c_int(8)
    ptr = ctypes.c_void_p(int(dptr))
    params = (ctypes.c_void_p * 3)(ctypes.addressof(ptr), ctypes.addressof(a), ctypes.addressof(cnt))
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 8, 1, 1, 0, 0, ctypes.addressof(params), 0))
    ok(cu.cuCtxSynchronize())
    ok(cu.cuMemcpyDtoH(host.ctypes.data, dptr, host.nbytes))
    if computed:
        assert host.tolist() == [2.0 * i for i in range(8)], host.tolist()
    result = host.tolist()
    ok(cu.cuMemFree(dptr))
    ok(cu.cuModuleUnload(mod))
print(f"cuda_bindings_correct: OK devices={n} result={result if computed else 'not computed (no twins)'}")
