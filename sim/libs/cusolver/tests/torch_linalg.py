"""torch.linalg on the sim's cuSOLVER (sim/libs/cusolver/): each call on a
simulated GPU gives the CPU's numbers (LAPACK's), for float64, float32 and
complex64, on cuda:0 and cuda:1.

PyTorch's own kernels compute nothing on the sim (README.md, "What the sim
computes"), so what reaches cuSOLVER and what comes back go by copies:
inputs are made column-major on the host (PyTorch's column-major clone of
them is then a cudaMemcpy), column-major results are read back as their
transposes (contiguous: a cudaMemcpy), and what PyTorch's own kernels would
do afterwards is not compared (tril/triu of a factor: only the factor's
triangle is; R of torch.linalg.qr comes from triu_, so only Q is; the
checks of info: see below).
torch.linalg.solve is not here: its getrs goes through cuBLAS's
getrsBatched with an array of matrix pointers that PyTorch's arange kernel
writes, which the sim does not compute (sim/libs/cublas/README.md).
Prints `torch_linalg: ok`."""
import sys

import torch

torch.manual_seed(0)
n = 6
bad = []


def colmajor(t):
    return t.mT.contiguous().mT


def back(t):
    return t.mT.cpu().mT


def close(what, got, want, tol):
    err = (got - want).abs().max().item()
    if not err <= tol:
        bad.append(f"{what}: error {err:.3g} > {tol:.1g}")


CASES = [(dt, tol, dev) for dt, tol in ((torch.float64, 1e-10), (torch.float32, 1e-4), (torch.complex64, 1e-4))
         for dev in ("cuda:0", "cuda:1")]
inputs = {}
for dt, tol, dev in CASES:
    B = torch.randn(n, n, dtype=dt)
    inputs[dt, dev] = B, B @ B.mH + n * torch.eye(n, dtype=dt)       # A: Hermitian positive definite

# eigh and svd first: each ends with PyTorch's own check of its info
# (infos.any(), a reduction kernel, which computes nothing on the sim and
# leaves its fresh one-byte result as the memory held: zero in a process
# that has not reused memory yet, so they come before anything else)
for dt, tol, dev in CASES:
    tag, (B, A) = f"{dt} on {dev}", inputs[dt, dev]
    w, V = torch.linalg.eigh(colmajor(A).to(dev))
    w, V = w.cpu(), back(V)
    close(f"eigh eigenvalues {tag}", w, torch.linalg.eigvalsh(A), tol * 10)
    close(f"eigh V diag(w) V^H = A {tag}", V @ torch.diag(w).to(dt) @ V.mH, A, tol * 10)
    U, S, Vh = torch.linalg.svd(colmajor(B).to(dev), full_matrices=False)
    # Vh is cuSOLVER's V seen conjugate-transposed (a view for complex):
    # read V itself
    V = Vh.mH
    U, S, Vh = back(U), S.cpu(), (V.cpu() if V.is_contiguous() else back(V)).mH
    close(f"svd singular values {tag}", S, torch.linalg.svdvals(B), tol)
    close(f"svd U S Vh = B {tag}", U @ torch.diag(S).to(dt) @ Vh, B, tol * 10)
# the others return their info (the _ex forms) or check none
for dt, tol, dev in CASES:
    tag, (B, A) = f"{dt} on {dev}", inputs[dt, dev]
    L, info = torch.linalg.cholesky_ex(colmajor(A).to(dev))
    close(f"cholesky {tag}", back(L).tril(), torch.linalg.cholesky(A), tol)
    if info.cpu().item() != 0:
        bad.append(f"cholesky_ex info {tag}: {info.cpu().item()}")
    LU, piv, info = torch.linalg.lu_factor_ex(colmajor(B).to(dev))
    LUc, pivc = torch.linalg.lu_factor(B)
    close(f"lu_factor {tag}", back(LU), LUc, tol)
    if not torch.equal(piv.cpu(), pivc) or info.cpu().item() != 0:
        bad.append(f"lu_factor pivots {tag}: {piv.cpu().tolist()}, want {pivc.tolist()}")
    b = torch.randn(n, 2, dtype=dt)
    Lc = torch.linalg.cholesky(A)
    x = torch.cholesky_solve(colmajor(b).to(dev), colmajor(Lc).to(dev))
    close(f"cholesky_solve {tag}", back(x), torch.cholesky_solve(b, Lc), tol * 10)
    Q, _ = torch.linalg.qr(colmajor(B).to(dev))
    close(f"qr Q {tag}", back(Q), torch.linalg.qr(B)[0], tol)
for b_ in bad:
    print(b_)
print("torch_linalg: " + ("ok" if not bad else "FAILED"))
sys.exit(1 if bad else 0)
