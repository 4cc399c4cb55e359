"""Buggy cuda-core: a buffer of Device(1)'s memory passed to a kernel launched
on a stream of Device(0).  Prints `cuda_core_bug: fault: ...` and exits 3
when the launch fails, `cuda_core_bug: ran` when it ran (devcheck --mode
migrate)."""
import sys

import numpy as np
from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch

SRC = 'extern "C" __global__ void scale(float *x, float a, int n) { int i = threadIdx.x; if (i < n) x[i] *= a; }'

d1 = Device(1)
d1.set_current()
buf = d1.allocate(8 * 4, stream=d1.create_stream())           # the buffer lives on device 1
d0 = Device(0)
d0.set_current()
stream = d0.create_stream()
kernel = Program(SRC, code_type="c++", options=ProgramOptions(arch="sm_80")).compile("ptx").get_kernel("scale")
try:
    launch(stream, LaunchConfig(grid=1, block=8), kernel, buf, np.float32(2.0), np.int32(8))   # BUG: on device 0
    stream.sync()
except Exception as e:
    print(f"cuda_core_bug: fault: {str(e).splitlines()[0]}")
    sys.exit(3)
print("cuda_core_bug: ran")
