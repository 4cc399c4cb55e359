"""Buggy numba-cuda: an array made on device 1 passed to a kernel launched on
device 0 (no peer access).  Under devcheck: one device_mismatch on parameter
4 (the array's data pointer: numba passes an array as 7 parameters).  On the
sim its host twin faults at that access (DEVCHECK_CLIENT_TWINS); without a
twin nothing dereferences it (numba's cubins carry no pointer evidence).
Prints `numba_bug: fault: ...` and exits 3, or `numba_bug: result=[...]`."""
import sys

import numpy as np
from numba import cuda

import twins


@cuda.jit
def add(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + y[i]


twins.load()
with cuda.gpus[1]:
    x = cuda.to_device(np.arange(8, dtype=np.float32))        # lives on device 1
with cuda.gpus[0]:
    y = cuda.to_device(np.full(8, 10, dtype=np.float32))
    out = cuda.device_array(8, dtype=np.float32)
    add[1, 8](x, y, out)                                        # BUG: launched on device 0
    try:
        cuda.synchronize()
    except Exception as e:  # numba's CudaAPIError
        print(f"numba_bug: fault: {e}")
        sys.exit(3)
    print(f"numba_bug: result={out.copy_to_host().tolist()}")
