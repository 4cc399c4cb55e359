"""A C++/CUDA extension built with torch.utils.cpp_extension, correct and buggy.

    ext_add.py          correct: on each device, the extension's kernel
                        (guard_add) runs with that device current and every
                        tensor there; prints `ext_add: OK devices=N result=[...]`
    ext_add.py --build  builds the extension (or finds it built) and exits:
                        no CUDA call (make test does it before the tests)
    ext_add.py --bug    the missing-device-guard shape: the extension launches
                        on the current device (cuda:0) with no
                        c10::cuda::CUDAGuard while x lives on cuda:1: torch
                        raises an illegal memory access at the next
                        synchronizing call; prints `ext_add: fault: <torch's
                        message>`, exits 3 (`ext_add: result=[...]` when it
                        ran: devcheck --mode migrate).

The extension exports the kernel's host twin (simcuda_twin_guard_add), which
the simulated GPUs run in its place; Python loads the extension RTLD_LOCAL.
Its build directory is TORCH_EXTENSIONS_DIR (the tests keep it outside the
clone)."""
import os
import sys

# One build command whoever runs this: torch's load_inline rebuilds when the
# command line differs from the one recorded in the shared build directory
# (ninja's log), and the compiler flags follow the environment: the
# architecture list (named, so that building without a device, before the
# tests, and running on the sim's sm_90 agree) and CC / CXX (nvcc's -ccbin,
# the C++ compiler; `make` sets CC for some callers and not others).  With
# them differing, runs from make and from a shell rebuilt the extension in
# turn, each waiting minutes on the other's build lock.
os.environ["TORCH_CUDA_ARCH_LIST"] = "9.0"
os.environ.pop("CC", None)
os.environ.pop("CXX", None)

import torch  # noqa: E402
from torch.utils.cpp_extension import load_inline  # noqa: E402

CUDA_SRC = r'''
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void guard_add(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = x[i] + y[i];
}

// The simulated GPUs' stand-in for guard_add: parameter i is *(T *)args[i].
extern "C" __attribute__((visibility("default"))) void
simcuda_twin_guard_add(void **args, const unsigned grid[3], const unsigned block[3])
{
    const float *x = *(const float **)args[0], *y = *(const float **)args[1];
    float *out = *(float **)args[2];
    int n = *(int *)args[3];
    for (unsigned i = 0; i < grid[0] * block[0] && (int)i < n; i++)
        out[i] = x[i] + y[i];
}

// No CUDAGuard: runs on whatever device is current (the bug when x is elsewhere).
torch::Tensor add(torch::Tensor x, torch::Tensor y)
{
    auto out = torch::empty_like(y);
    int n = (int)y.numel();
    guard_add<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), out.data_ptr<float>(), n);
    return out;
}
'''
CPP_SRC = "torch::Tensor add(torch::Tensor x, torch::Tensor y);"

ext = load_inline(name="devcheck_ext_add", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC, functions=["add"],
                  extra_cuda_cflags=["-O1"], verbose=False)
if "--build" in sys.argv:
    print(f"ext_add: built {ext.__file__}")
    sys.exit(0)
X, Y = [1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]
WANT = [11.0, 22.0, 33.0, 44.0]
if "--bug" in sys.argv:
    first = torch.empty(256, device="cuda:1")   # x is not its segment's first block
    x = torch.tensor(X, device="cuda:1")
    y = torch.tensor(Y, device="cuda:0")
    out = ext.add(x, y)                          # BUG: x on cuda:1, kernel on cuda:0
    try:
        torch.cuda.synchronize()
    except RuntimeError as e:
        print(f"ext_add: fault: {str(e).splitlines()[0]}")
        sys.exit(3)
    print(f"ext_add: result={out.cpu().tolist()}")
    sys.exit(0)
n = torch.cuda.device_count()
assert n >= 2, f"need 2 or more CUDA devices, found {n}"
for d in range(n):
    with torch.cuda.device(d):
        out = ext.add(torch.tensor(X, device=f"cuda:{d}"), torch.tensor(Y, device=f"cuda:{d}"))
        result = out.cpu().tolist()
        assert result == WANT, result
print(f"ext_add: OK devices={n} result={result}")
