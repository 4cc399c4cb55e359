"""Correct multi-GPU cuda-core: per device, a Program compiled with NVRTC,
launched on that device's stream over a buffer of that device's memory, the
buffer copied back through pinned host memory.  Prints
`cuda_core_correct: OK devices=N result=[...]` (computed where the kernel has
a host twin: DEVCHECK_CLIENT_TWINS)."""
import numpy as np
from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
from cuda.bindings import driver as cu

import twins

SRC = 'extern "C" __global__ void scale(float *x, float a, int n) { int i = threadIdx.x; if (i < n) x[i] *= a; }'

computed = twins.load()
cu.cuInit(0)
n = cu.cuDeviceGetCount()[1]
assert n >= 2, f"need 2 or more CUDA devices, found {n}"
result = None
for d in range(n):
    dev = Device(d)
    dev.set_current()
    stream = dev.create_stream()
    prog = Program(SRC, code_type="c++", options=ProgramOptions(arch="sm_80"))
    kernel = prog.compile("ptx").get_kernel("scale")
    buf = dev.allocate(8 * 4, stream=stream)
    host = np.arange(8, dtype=np.float32)
    cu.cuMemcpyHtoDAsync(int(buf.handle), host.ctypes.data, host.nbytes, int(stream.handle))
    launch(stream, LaunchConfig(grid=1, block=8), kernel, buf, np.float32(2.0), np.int32(8))
    cu.cuMemcpyDtoHAsync(host.ctypes.data, int(buf.handle), host.nbytes, int(stream.handle))
    stream.sync()
    if computed:
        assert host.tolist() == [2.0 * i for i in range(8)], host.tolist()
    result = host.tolist()
    buf.close(stream)
print(f"cuda_core_correct: OK devices={n} result={result if computed else 'not computed (no twins)'}")
