"""torch_conv.py: PyTorch's cuDNN convolutions on simulated GPUs give the
CPU's numbers (sim/tests/dnn_torch.sh; the sim's cuDNN, sim/libs/cudnn).

Every case runs on the last GPU (cuda:1 of 2: not the current device, so a
convolution placed on the wrong one would show) and on the CPU, from the
same values, and prints `case NAME: max error E (tolerance T) ok`.  Only
what the sim computes is on the GPU path: the inputs are made on the CPU
and moved (`.to()` is a copy), the layers have no bias (a bias add is one
of PyTorch's own kernels, which compute nothing on the sim), the results
come back with `.cpu()`.  Tolerances, relative to 1 + |value|: float 1e-5
(both sides sum in float, in other orders); half and bfloat16 compare with
the CPU's float convolution of the same rounded values: 2^-10 and 2^-7 (one
rounding of the result).  With TORCH_CUDNN_V8_API_DISABLED=1 PyTorch uses
cuDNN's legacy API (cudnnConvolutionForward ...) instead of the graph API.
"""
import os
import sys

import torch

torch.manual_seed(0)
dev = torch.device("cuda:%d" % (torch.cuda.device_count() - 1))
cl = torch.channels_last
failed = 0


def compare(name, got, want, tol):
    global failed
    err = ((got.double() - want.double()).abs() / (1 + want.double().abs())).max().item()
    ok = err <= tol
    failed += not ok
    print("case %s: max error %.3g (tolerance %.3g) %s" % (name, err, tol, "ok" if ok else "FAILED"))


def layer(name, mod, x, channels_last=False, dtype=None, tol=1e-5):
    want = mod(x)
    if dtype is not None:
        # the CPU's reference: float, on the values the GPU holds
        mod, x = mod.to(dtype), x.to(dtype)
        want = mod.float()(x.float())
        mod = mod.to(dtype)
    if channels_last:
        mod, x = mod.to(memory_format=cl), x.contiguous(memory_format=cl)
    got = mod.to(dev)(x.to(dev))
    if channels_last and not got.is_contiguous(memory_format=cl):
        print("case %s: the result is not channels_last" % name)
        global failed
        failed += 1
    compare(name, got.cpu(), want.detach(), tol)


layer("conv2d", torch.nn.Conv2d(3, 8, 3, padding=1, stride=2, bias=False), torch.randn(2, 3, 17, 15))
layer("conv2d_groups_dilation", torch.nn.Conv2d(4, 6, (3, 2), padding=(2, 1), dilation=(2, 1), groups=2,
                                                bias=False), torch.randn(2, 4, 9, 8))
layer("conv2d_patch_embed", torch.nn.Conv2d(3, 16, 8, stride=8, bias=False), torch.randn(1, 3, 32, 32))
layer("conv1d", torch.nn.Conv1d(3, 5, 4, padding=2, stride=3, bias=False), torch.randn(2, 3, 31))
layer("conv3d", torch.nn.Conv3d(2, 3, 3, padding=1, bias=False), torch.randn(1, 2, 5, 6, 4))
layer("conv_transpose2d", torch.nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1, bias=False),
      torch.randn(2, 3, 5, 6))
layer("conv2d_channels_last", torch.nn.Conv2d(3, 8, 3, padding=1, bias=False), torch.randn(2, 3, 9, 8),
      channels_last=True)
layer("conv2d_half", torch.nn.Conv2d(4, 4, 3, padding=1, bias=False), torch.randn(2, 4, 6, 6),
      dtype=torch.float16, tol=2 ** -10)
if not os.environ.get("TORCH_CUDNN_V8_API_DISABLED"):
    # the legacy (v7) path does not take bfloat16 to cuDNN: PyTorch's own
    # kernels and cuBLAS do it
    layer("conv2d_bfloat16", torch.nn.Conv2d(4, 4, 3, padding=1, bias=False), torch.randn(2, 4, 6, 6),
          dtype=torch.bfloat16, tol=2 ** -7)

# backward: the gradients of the input and of the weight (backward data and
# backward filter), the output's gradient made on the CPU
x = torch.randn(2, 3, 9, 9, requires_grad=True)
conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1, bias=False)
grad = torch.randn(2, 4, 5, 5)
conv(x).backward(grad)
want_gx, want_gw = x.grad.clone(), conv.weight.grad.clone()
conv.weight.grad = None
xd = x.detach().to(dev).requires_grad_()
convd = conv.to(dev)
# On this thread, not on PyTorch's device thread for cuda:1 (pt_autograd_1):
# that thread drops the graph task's last reference after backward()
# returns here, and its saved thread-local state holds a Python object
# (c10::SafePyObject) whose decref takes the GIL; when this program has
# reached its exit by then, the interpreter is finalizing, take_gil ends the
# thread with pthread_exit, and the forced unwind through the noexcept
# destructor aborts the process ("terminate called without an active
# exception", status 134; the backtrace: ~GraphTask, ~ThreadLocalState,
# ConcretePyInterpreterVTable::decref, gil_scoped_acquire, take_gil,
# PyThread_exit_thread).  Seen once in CI, and 5 times in 30 runs of a
# backward-then-exit program on the sim without devcheck on a loaded machine;
# 0 in 30 with the backward on the calling thread.
with torch.autograd.set_multithreading_enabled(False):
    convd(xd).backward(grad.to(dev))
compare("conv2d_backward_input", xd.grad.cpu(), want_gx, 1e-5)
compare("conv2d_backward_weight", convd.weight.grad.cpu(), want_gw, 1e-5)

print("torch_conv: %s cudnn=%d device=%s" % ("OK" if not failed else "FAILED %d" % failed,
                                            torch.backends.cudnn.version(), dev))
sys.exit(1 if failed else 0)
