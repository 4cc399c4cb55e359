"""PyTorch's FFTs on the simulated GPUs (sim/tests/fft_torch.sh), the sim's
cuFFT computing (sim/libs/cufft/).

    torch_fft.py values   on every visible GPU: torch.fft.fft (complex64,
                          complex128, along the last axis and along axis 0
                          of a 2-d tensor: PyTorch's strided embeds), rfft
                          (float32, float64, and float16 of a power-of-two
                          length), irfft, fft2, rfft2, fftn of a 3-d tensor,
                          ifft: each result copied back equals the CPU's
                          (float to 1e-5 of the largest magnitude, double
                          1e-12, half 1e-2).  Inputs are made on the CPU and
                          copied (a conversion on the device is PyTorch's own
                          kernel, which the sim does not compute); the
                          inverse transforms use norm="forward" and the
                          forward ones the default, so that no scaling by
                          PyTorch's kernels is needed, and fft's inputs are
                          complex (a real input's missing half is filled in by
                          PyTorch's kernel).  Prints `torch_fft values: ok N`.
    torch_fft.py wrong    cufftExecC2C through ctypes with a plan made on
                          cuda:0 and the input a tensor of cuda:1: the call
                          returns 0, torch.cuda.synchronize() raises the
                          illegal memory access, as on a GPU (exit 3).
"""
import ctypes
import sys
import warnings

import torch

# rfft of float16 returns complex32, which PyTorch calls experimental
warnings.filterwarnings("ignore", "ComplexHalf support is experimental")

torch.manual_seed(0)


def values():
    n = 0
    bad = []
    z = torch.randn(4, 24, dtype=torch.complex64)
    r = torch.randn(3, 20)
    r16 = torch.randn(2, 16).half()
    spec = torch.fft.rfft(torch.randn(3, 18))
    z3 = torch.randn(2, 3, 4, 5, dtype=torch.complex64)
    r2 = torch.randn(2, 6, 8)
    for dev in [f"cuda:{i}" for i in range(torch.cuda.device_count())]:
        def on(f, x, **kw):
            return f(x.to(dev), **kw)
        checks = [
            ("fft complex64", on(torch.fft.fft, z), torch.fft.fft(z), 1e-5),
            ("fft complex128", on(torch.fft.fft, z.to(torch.complex128)), torch.fft.fft(z.to(torch.complex128)),
             1e-12),
            ("fft dim 0", on(torch.fft.fft, z, dim=0), torch.fft.fft(z, dim=0), 1e-5),
            ("ifft norm=forward", on(torch.fft.ifft, z, norm="forward"), torch.fft.ifft(z, norm="forward"), 1e-5),
            ("rfft float32", on(torch.fft.rfft, r), torch.fft.rfft(r), 1e-5),
            ("rfft float64", on(torch.fft.rfft, r.double()), torch.fft.rfft(r.double()), 1e-12),
            ("rfft float16", on(torch.fft.rfft, r16), torch.fft.rfft(r16.float()), 1e-2),
            ("irfft norm=forward", on(torch.fft.irfft, spec, n=18, norm="forward"),
             torch.fft.irfft(spec, n=18, norm="forward"), 1e-5),
            ("fft2", on(torch.fft.fft2, z), torch.fft.fft2(z), 1e-5),
            ("rfft2", on(torch.fft.rfft2, r2), torch.fft.rfft2(r2), 1e-5),
            ("fftn 3-d", on(torch.fft.fftn, z3, dim=(1, 2, 3)), torch.fft.fftn(z3, dim=(1, 2, 3)), 1e-5),
        ]
        for what, got, want, tol in checks:
            n += 1
            got = got.cpu().to(want.dtype)
            err = (got - want).abs().max().item()
            if not err <= tol * want.abs().max().item():
                bad.append(f"{dev} {what} (error {err:.3g})")
    if bad:
        print("torch_fft values: wrong " + ", ".join(bad))
        sys.exit(1)
    print(f"torch_fft values: ok {n}")


def wrong():
    lib = ctypes.CDLL("libcufft.so.12")
    lib.cufftExecC2C.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    x = torch.ones(64, dtype=torch.complex64, device="cuda:1")      # the bug: the input on the other GPU
    y = torch.zeros(64, dtype=torch.complex64, device="cuda:0")
    torch.cuda.set_device(0)
    plan = ctypes.c_int()
    print(f"torch_fft wrong: cufftPlan1d returned {lib.cufftPlan1d(ctypes.byref(plan), 64, 0x29, 1)}", flush=True)
    status = lib.cufftExecC2C(plan.value, x.data_ptr(), y.data_ptr(), -1)
    print(f"torch_fft wrong: cufftExecC2C returned {status}", flush=True)
    try:
        torch.cuda.synchronize(0)
    except RuntimeError as e:
        print(f"torch_fft wrong: synchronize raised: {str(e).splitlines()[0]}", flush=True)
        sys.exit(3)
    print("torch_fft wrong: no fault")


if __name__ == "__main__":
    {"values": values, "wrong": wrong}[sys.argv[1]]()
