"""A custom Triton kernel launched under the wrong current device: x and y
live on cuda:1, but the launch goes to the current device, cuda:0 (Triton
does no device check; on a GPU this is an illegal memory access reported
later, at an unrelated call).  The launch happens inside the NVTX range
"decoder.layer.3", which devcheck names.  --fixed: the launch runs under
torch.cuda.device(x.device)."""
import contextlib
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def scale(x):
    out = torch.empty_like(x)
    guard = torch.cuda.device(x.device) if "--fixed" in sys.argv else contextlib.nullcontext()
    with guard:
        scale_kernel[(1,)](x, out, x.numel(), BLOCK=16)
    return out


def main():
    torch.cuda.set_device(0)                              # the process's default GPU
    x = torch.ones(16, device="cuda:1")                   # this layer's data, on cuda:1
    torch.cuda.nvtx.range_push("decoder.layer.3")
    out = scale(x)
    torch.cuda.nvtx.range_pop()
    try:
        torch.cuda.synchronize(x.device)
        torch.cuda.synchronize(0)
    except RuntimeError as e:
        print(f"custom_kernel: fault: {str(e).splitlines()[0]}")
        sys.exit(3)
    print(f"custom_kernel: OK {out.device}")


main()
