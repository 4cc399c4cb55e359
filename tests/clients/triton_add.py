"""Triton on several GPUs, correct and buggy.

    triton_add.py          correct: on each device, x, y and out all there,
                           the kernel launched with that device current;
                           prints `triton_add: OK devices=N result=[...]`
    triton_add.py --bug    the missing-device-guard shape: x lives on cuda:1,
                           the kernel is called with cuda:0 current.  As on
                           a GPU, Triton's launcher asks the driver for a
                           device pointer of x in the current context
                           (cuPointerGetAttribute DEVICE_POINTER), is
                           refused, and raises before any launch; prints
                           `triton_add: refused: <Triton's message>`, exits 3
    triton_add.py --bug --peer
                           the same after PyTorch enabled peer access from
                           cuda:0 to cuda:1 (it does so itself for a copy
                           between them): the pointer is accessible, the
                           kernel runs on cuda:0 over cuda:1's memory
                           (legal, slow); prints `triton_add: result=[...]`
Results are computed where the kernel has a host twin (DEVCHECK_CLIENT_TWINS)."""
import sys

import torch
import triton
import triton.language as tl

import twins


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


computed = twins.load()
X, Y = [1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]
WANT = [11.0, 22.0, 33.0, 44.0]
if "--bug" in sys.argv:
    first = torch.empty(256, device="cuda:1")   # x is not its segment's first block
    x = torch.tensor(X, device="cuda:1")
    y = torch.tensor(Y, device="cuda:0")
    out = torch.empty(4, device="cuda:0")
    if "--peer" in sys.argv:
        torch.ones(1, device="cuda:0").to("cuda:1")     # PyTorch enables peer access cuda:0 -> cuda:1
    try:
        add_kernel[(1,)](x, y, out, 4, BLOCK=4)      # BUG: no torch.cuda.device(x.device) guard
    except ValueError as e:
        print(f"triton_add: refused: {e}")
        sys.exit(3)
    try:
        torch.cuda.synchronize()
    except RuntimeError as e:
        print(f"triton_add: fault: {str(e).splitlines()[0]}")
        sys.exit(3)
    print(f"triton_add: result={out.cpu().tolist()}")
    sys.exit(0)
n = torch.cuda.device_count()
assert n >= 2, f"need 2 or more CUDA devices, found {n}"
for d in range(n):
    with torch.cuda.device(d):
        x = torch.tensor(X, device=f"cuda:{d}")
        y = torch.tensor(Y, device=f"cuda:{d}")
        out = torch.empty(4, device=f"cuda:{d}")
        add_kernel[(1,)](x, y, out, 4, BLOCK=4)
        result = out.cpu().tolist()
        if computed:
            assert result == WANT, result
print(f"triton_add: OK devices={n} result={result if computed else 'not computed (no twins)'}")
