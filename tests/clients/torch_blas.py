"""PyTorch's GEMMs on the simulated GPUs (tests/clients/torch_blas.sh), the
sim's cuBLAS and cuBLASLt computing (sim/libs/cublas/).

    torch_blas.py values   on every visible GPU: matmul, nn.Linear, addmm,
                           bmm, F.linear with a bias (cuBLASLt's BIAS
                           epilogue), a GELU(tanh) addmm (_addmm_activation,
                           GELU_BIAS), in float32, and matmul / F.linear in
                           float16, bfloat16, float64, complex64 and
                           complex128: each result copied back equals the
                           CPU's (float32 to 1e-5).  Inputs are made on the
                           CPU and copied: a conversion on the device is
                           PyTorch's own kernel, which the sim does not
                           compute.  Prints `torch_blas values: ok N`.
    torch_blas.py wrong    cublasSgemm_v2 through ctypes on PyTorch's own
                           handle of cuda:0 (torch.cuda.current_blas_handle)
                           with B a tensor of cuda:1: the call returns 0,
                           torch.cuda.synchronize() raises the illegal memory
                           access, as on a GPU (exit 3).
"""
import ctypes
import sys

import torch
import torch.nn.functional as F

torch.manual_seed(0)


def close(got, want, tol):
    return torch.allclose(got.cpu().to(want.dtype), want, rtol=tol, atol=tol)


def values():
    n = 0
    bad = []
    a, b, bias = torch.randn(8, 16), torch.randn(16, 4), torch.randn(4)
    x, y = torch.randn(3, 5, 6), torch.randn(3, 6, 2)
    lin = torch.nn.Linear(16, 4)
    for dev in [f"cuda:{i}" for i in range(torch.cuda.device_count())]:
        ad, bd, biasd = a.to(dev), b.to(dev), bias.to(dev)
        ld = torch.nn.Linear(16, 4).to(dev)
        ld.load_state_dict(lin.state_dict())
        checks = [
            ("matmul", ad @ bd, a @ b),
            ("nn.Linear", ld(ad), lin(a)),
            ("addmm", torch.addmm(biasd, ad, bd), torch.addmm(bias, a, b)),
            ("bmm", torch.bmm(x.to(dev), y.to(dev)), torch.bmm(x, y)),
            ("F.linear", F.linear(ad, bd.t(), biasd), F.linear(a, b.t(), bias)),
            ("addmm gelu", torch._addmm_activation(biasd, ad, bd, use_gelu=True),
             F.gelu(torch.addmm(bias, a, b), approximate="tanh")),
        ]
        for what, got, want in checks:
            n += 1
            if not close(got, want.detach(), 1e-5):
                bad.append(f"{dev} {what}")
        for dt, tol in ((torch.half, 1e-2), (torch.bfloat16, 5e-2), (torch.double, 1e-12),
                        (torch.cfloat, 1e-5), (torch.cdouble, 1e-12)):
            ref_t = torch.cdouble if dt.is_complex else torch.double
            A, B = a.to(dt), b.to(dt)
            n += 1
            if not close(A.to(dev) @ B.to(dev), A.to(ref_t) @ B.to(ref_t), tol):
                bad.append(f"{dev} matmul {dt}")
            if not dt.is_complex:
                n += 1
                got = F.linear(A.to(dev), B.t().contiguous().to(dev), bias.to(dt).to(dev))
                if not close(got, F.linear(A.double(), B.t().double(), bias.to(dt).double()), tol):
                    bad.append(f"{dev} F.linear {dt}")
    if bad:
        print("torch_blas values: wrong " + ", ".join(bad))
        sys.exit(1)
    print(f"torch_blas values: ok {n}")


def wrong():
    lib = ctypes.CDLL("libcublas.so.13")
    lib.cublasSgemm_v2.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                   ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                                   ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    a = torch.ones(8, 8, device="cuda:0")
    b = torch.ones(8, 8, device="cuda:1")           # the bug: B on the other GPU
    c = torch.zeros(8, 8, device="cuda:0")
    torch.cuda.set_device(0)
    handle = torch.cuda.current_blas_handle()
    alpha, beta = ctypes.c_float(1), ctypes.c_float(0)
    status = lib.cublasSgemm_v2(handle, 0, 0, 8, 8, 8, ctypes.byref(alpha), a.data_ptr(), 8, b.data_ptr(), 8,
                                ctypes.byref(beta), c.data_ptr(), 8)
    print(f"torch_blas wrong: cublasSgemm_v2 returned {status}", flush=True)
    try:
        torch.cuda.synchronize(0)
    except RuntimeError as e:
        print(f"torch_blas wrong: synchronize raised: {str(e).splitlines()[0]}", flush=True)
        sys.exit(3)
    print("torch_blas wrong: no fault")


if __name__ == "__main__":
    {"values": values, "wrong": wrong}[sys.argv[1]]()
