"""PyTorch's own calls into NVIDIA's libraries on the simulated GPUs, seen by
devcheck's library hooks (tests/clients/torch_libcalls.sh): nn.Linear with
a bias is one cublasLtMatmul with cuBLASLt's BIAS epilogue (the bias a
descriptor attribute, CUBLASLT_MATMUL_DESC_BIAS_POINTER), nn.Conv2d is
cuDNN's (its graph API's cudnnBackendExecute, or cudnnConvolutionForward
with TORCH_CUDNN_V8_API_DISABLED=1).

PyTorch checks its tensors' devices before such a call, so its own calls
carry a wrong operand only when a tensor says it is on one GPU and its
memory is on another: here a DLPack capsule whose exporter names the wrong
device (`on_cuda0`), which torch.from_dlpack believes.

    torch_libcalls.py ok       nn.Linear and nn.Conv2d on cuda:1, their
                               results equal the CPU's
                               -> `torch_libcalls ok: OK linear=1 conv=1`
    torch_libcalls.py linear   nn.Linear on cuda:0 whose weight and bias
                               are cuda:1's memory: the cublasLtMatmul
                               gets them as A and as the bias pointer
    torch_libcalls.py conv     nn.Conv2d on cuda:0 whose weight is cuda:1's
                               memory: cuDNN gets it as the filter

The wrong calls return; the kernels the library launched fault, and the
next synchronisation raises the illegal memory access, as on a GPU:
`torch_libcalls NAME: fault: MESSAGE`, exit 3.
"""
import ctypes
import sys

import torch
import torch.nn.functional as F
from torch.utils.dlpack import from_dlpack, to_dlpack


class DLDevice(ctypes.Structure):           # dlpack.h
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLTensor(ctypes.Structure):           # dlpack.h: its first two fields
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice)]


def on_cuda0(t):
    """t's memory, in a tensor that says it is on cuda:0."""
    capsule = to_dlpack(t)
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    DLTensor.from_address(get(capsule, b"dltensor")).device.device_id = 0
    return from_dlpack(capsule)


def ok():
    torch.manual_seed(0)
    lin, conv = torch.nn.Linear(16, 4), torch.nn.Conv2d(3, 8, 3, padding=1, bias=False)
    x, img = torch.randn(2, 5, 16), torch.randn(2, 3, 8, 8)
    with torch.no_grad():
        got_lin = lin.to("cuda:1")(x.to("cuda:1")).cpu()
        got_conv = conv.to("cuda:1")(img.to("cuda:1")).cpu()
        lin.cpu(), conv.cpu()
        good_lin = torch.allclose(got_lin, lin(x), rtol=1e-5, atol=1e-5)
        good_conv = torch.allclose(got_conv, conv(img), rtol=1e-5, atol=1e-5)
    print(f"torch_libcalls ok: OK linear={int(good_lin)} conv={int(good_conv)}")


def linear():
    lin = torch.nn.Linear(16, 4).to("cuda:0")
    weight = torch.randn(4, 16, device="cuda:1")
    bias = torch.randn(4, device="cuda:1")
    lin.weight = torch.nn.Parameter(on_cuda0(weight))
    lin.bias = torch.nn.Parameter(on_cuda0(bias))
    x = torch.randn(2, 5, 16, device="cuda:0")
    with torch.no_grad():
        return lin(x)                                   # the library call


def conv():
    conv = torch.nn.Conv2d(3, 8, 3, padding=1, bias=False).to("cuda:0")
    weight = torch.randn(8, 3, 3, 3, device="cuda:1")
    conv.weight = torch.nn.Parameter(on_cuda0(weight))
    img = torch.randn(2, 3, 8, 8, device="cuda:0")
    with torch.no_grad():
        return conv(img)                                # the library call


if __name__ == "__main__":
    name = sys.argv[1]
    if name == "ok":
        ok()
        sys.exit(0)
    out = {"linear": linear, "conv": conv}[name]()
    print(f"torch_libcalls {name}: returned {out.device}", flush=True)
    try:
        torch.cuda.synchronize(0)
    except RuntimeError as e:
        print(f"torch_libcalls {name}: fault: {str(e).splitlines()[0]}")
        sys.exit(3)
    print(f"torch_libcalls {name}: no fault")
