"""Buggy cuda-bindings: the kernel is launched in device 0's context with a
buffer of device 1 (no peer access): the GPU raises an illegal address at the
next synchronization, and so does the sim.  Prints
`cuda_bindings_bug: fault: CUDA_ERROR_ILLEGAL_ADDRESS` and exits 3 then,
`cuda_bindings_bug: result=[...]` when the launch ran (devcheck --mode migrate)."""
import ctypes
import sys

import numpy as np
from cuda.bindings import driver as cu, nvrtc

import twins

SRC = b'extern "C" __global__ void scale(float *x, float a, int n) { int i = threadIdx.x; if (i < n) x[i] *= a; }'


def ok(r):
    err = r[0] if isinstance(r, tuple) else r
    if int(err) != 0:
        sys.exit(f"cuda_bindings_bug: FAILED: {err}")
    return r[1] if isinstance(r, tuple) and len(r) == 2 else None


twins.load()
prog = ok(nvrtc.nvrtcCreateProgram(SRC, b"scale.cu", 0, [], []))
ok(nvrtc.nvrtcCompileProgram(prog, 1, [b"--gpu-architecture=compute_80"]))
buf = b" " * ok(nvrtc.nvrtcGetPTXSize(prog))
ok(nvrtc.nvrtcGetPTX(prog, buf))
ok(cu.cuInit(0))
ctx = [ok(cu.cuDevicePrimaryCtxRetain(ok(cu.cuDeviceGet(d)))) for d in (0, 1)]
ok(cu.cuCtxSetCurrent(ctx[1]))
host = np.arange(8, dtype=np.float32)
on1 = ok(cu.cuMemAlloc(host.nbytes))                  # the buffer lives on device 1
ok(cu.cuMemcpyHtoD(on1, host.ctypes.data, host.nbytes))
ok(cu.cuCtxSetCurrent(ctx[0]))
fn = ok(cu.cuModuleGetFunction(ok(cu.cuModuleLoadData(buf)), b"scale"))
a, cnt, ptr = ctypes.c_float(2.0), ctypes.c_int(8), ctypes.c_void_p(int(on1))
params = (ctypes.c_void_p * 3)(ctypes.addressof(ptr), ctypes.addressof(a), ctypes.addressof(cnt))
ok(cu.cuLaunchKernel(fn, 1, 1, 1, 8, 1, 1, 0, 0, ctypes.addressof(params), 0))   # BUG: on device 0
err = cu.cuCtxSynchronize()[0]
if int(err) != 0:
    print(f"cuda_bindings_bug: fault: {err.name}")
    sys.exit(3)
ok(cu.cuCtxSetCurrent(ctx[1]))
ok(cu.cuMemcpyDtoH(host.ctypes.data, on1, host.nbytes))
print(f"cuda_bindings_bug: result={host.tolist()}")
