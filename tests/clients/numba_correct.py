"""Correct multi-GPU numba-cuda: per device, arrays copied to that device and
a @cuda.jit kernel launched there.  Prints
`numba_correct: OK devices=N result=[...]` (computed where the kernel has a
host twin: DEVCHECK_CLIENT_TWINS)."""
import numpy as np
from numba import cuda

import twins


@cuda.jit
def add(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + y[i]


computed = twins.load()
n = len(cuda.gpus)
assert n >= 2, f"need 2 or more CUDA devices, found {n}"
result = None
for d in range(n):
    with cuda.gpus[d]:
        x = cuda.to_device(np.arange(8, dtype=np.float32))
        y = cuda.to_device(np.full(8, 10, dtype=np.float32))
        out = cuda.device_array(8, dtype=np.float32)
        add[1, 8](x, y, out)
        cuda.synchronize()
        result = out.copy_to_host().tolist()
        if computed:
            assert result == [10.0 + i for i in range(8)], result
print(f"numba_correct: OK devices={n} result={result if computed else 'not computed (no twins)'}")
