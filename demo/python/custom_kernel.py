"""A custom Triton kernel called under the wrong current device: x lives on
cuda:1, but cuda:0 is current, and Triton does no device check of its own.
Its launcher asks the driver for x's device pointer in the current context
(cuPointerGetAttribute, CU_POINTER_ATTRIBUTE_DEVICE_POINTER); without peer
access there is none, and Triton raises before any kernel runs:
`ValueError: Pointer argument cannot be accessed from Triton (cpu tensor?)`,
a tensor on another GPU called a CPU tensor.  A GPU and the simulated GPUs
refuse it alike.  The call happens inside the NVTX range "decoder.layer.3".
--fixed: the call runs under torch.cuda.device(x.device)."""
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
    torch.cuda.synchronize(x.device)
    print(f"custom_kernel: OK {out.device}")


main()
