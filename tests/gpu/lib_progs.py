"""Library programs of the real-GPU battery (tests/gpu/run.sh; issue 26): a
correct and a buggy program per NVIDIA library, each calling the library
through ctypes (dlopen RTLD_LOCAL + dlsym(handle), as JAX/XLA bind them),
with device memory from libcudart (cudaMalloc, cudaMemcpy) and host arrays
from numpy; no torch needed.  The operands live on cuda:0, the calls run on
a stream of cuda:0.

    lib_progs.py cublas        cublasSgemm_v2, alpha/beta on the host (host
                               pointer mode): C = A B of ones is n everywhere
    lib_progs.py cublas_bug    B a numpy array
    lib_progs.py cublaslt      cublasLtMatmul with epilogue BIAS, the bias
                               (CUBLASLT_MATMUL_DESC_BIAS_POINTER) on cuda:0:
                               D = k + bias
    lib_progs.py cublaslt_bug  the bias a numpy array; on cuda:1 (no peer
                               access) when 2 GPUs are visible
    lib_progs.py cufft         cufftPlan1d, cufftSetStream, cufftExecC2C of
                               ones: n, then zeros
    lib_progs.py cufft_bug     idata a numpy array
    lib_progs.py cudnn         cudnnConvolutionForward (tensor, filter and
                               convolution descriptors, implicit GEMM): a 3x3
                               filter of ones over ones gives 9 everywhere
    lib_progs.py cudnn_bug     w a numpy array
    lib_progs.py nccl          a one-rank communicator (ncclGetUniqueId,
                               ncclCommInitRank), ncclAllReduce with ncclAvg:
                               the input back
    lib_progs.py nccl_bug      sendbuff a numpy array (pageable)
    lib_progs.py cusolver      cusolverDnSpotrf of 4 I: L = 2 I, devInfo 0
    lib_progs.py cusolver_bug  A a numpy array

Why ncclAvg: with one rank, ncclSum is a cudaMemcpyAsync (cudaMemcpyDefault),
which reads pageable memory legally and would hide the bug; ncclAvg runs
NCCL's oneRankReduce kernel, which reads sendbuff on the device as a ring of
several ranks does.

A correct program prints `gpu-prog: NAME OK`.  On a GPU a buggy one gets an
error from the library or a fault at the next synchronization (sticky: no
later call waits on it), prints `gpu-prog: NAME failed: ...` and exits 3; a
correct one that fails exits 1.

Libraries are found by soname (libcudart.so.13, libcublas.so.13, ...): torch
is imported first when it is importable, so its wheels' libraries are the
ones already loaded; else the loader's search path, then the nvidia-*
wheels' lib directories (cuSOLVER: torch loads it only at its first linalg
call).

LIB_PROGS_SIM=1: the libraries are tests/libapi's on the simulated GPUs
(tests/libapi/gpu_progs.sh), the sim's own cuBLAS, cuBLASLt, cuFFT, cuDNN,
NCCL and cuSOLVER, which compute: torch is not imported; every result is
checked and a buggy program fails as on a GPU.
"""
import ctypes
import glob
import os
import sys

import numpy as np

ON_SIM = os.environ.get("LIB_PROGS_SIM") == "1"   # on the sim: torch is not imported
if not ON_SIM:
    try:
        import torch  # noqa: F401 -- its libraries, loaded now, are the ones the programs use
    except ImportError:
        pass

vp, byref = ctypes.c_void_p, ctypes.byref
H2D, D2H = 1, 2


class Failed(Exception):
    pass


def load(soname):
    try:
        return ctypes.CDLL(soname)
    except OSError:
        pass
    try:
        import nvidia
        for d in nvidia.__path__:
            for path in glob.glob(os.path.join(d, "*", "lib", soname)):
                return ctypes.CDLL(path)
    except ImportError:
        pass
    raise Failed(f"{soname} not found")


RT = load("libcudart.so.13")
RT.cudaMalloc.argtypes = [ctypes.POINTER(vp), ctypes.c_size_t]
RT.cudaMemcpy.argtypes = [vp, vp, ctypes.c_size_t, ctypes.c_int]
RT.cudaStreamSynchronize.argtypes = [vp]


def ck(what, status):
    if status != 0:
        raise Failed(f"{what} returned {status}")


def malloc(nbytes):
    p = vp()
    ck("cudaMalloc", RT.cudaMalloc(byref(p), nbytes))
    return p.value


def to_device(a):
    p = malloc(a.nbytes)
    ck("cudaMemcpy", RT.cudaMemcpy(p, a.ctypes.data, a.nbytes, H2D))
    return p


def to_host(p, like):
    a = np.empty_like(like)
    ck("cudaMemcpy", RT.cudaMemcpy(a.ctypes.data, p, a.nbytes, D2H))
    return a


def stream():
    s = vp()
    ck("cudaStreamCreate", RT.cudaStreamCreate(byref(s)))
    return s


def sync(s):
    ck("cudaStreamSynchronize", RT.cudaStreamSynchronize(s))


def expect(what, p, like, want):
    """The device buffer p, shaped like the array `like`, holds want."""
    got = to_host(p, like)
    if not np.allclose(got, want, atol=1e-3):
        raise Failed(f"{what} = {got.ravel()[:4]}..., want {np.ravel(want)[:4]}...")


def cublas(bug):
    lib = load("libcublas.so.13")
    n = 64
    s = stream()
    h = vp()
    ck("cublasCreate_v2", lib.cublasCreate_v2(byref(h)))
    ck("cublasSetStream_v2", lib.cublasSetStream_v2(h, s))
    ones = np.ones((n, n), np.float32)
    a, c = to_device(ones), malloc(ones.nbytes)
    b = ones.ctypes.data if bug else to_device(ones)            # the bug: B on the host
    alpha, beta = ctypes.c_float(1), ctypes.c_float(0)
    ck("cublasSgemm_v2", lib.cublasSgemm_v2(h, 0, 0, n, n, n, byref(alpha), vp(a), n, vp(b), n, byref(beta),
                                            vp(c), n))
    sync(s)
    expect("C", c, ones, n)
    ck("cublasDestroy_v2", lib.cublasDestroy_v2(h))


def cublaslt(bug):
    CUBLAS_COMPUTE_32F, CUDA_R_32F = 68, 0
    CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_MATMUL_DESC_BIAS_POINTER, CUBLASLT_EPILOGUE_BIAS = 7, 8, 4
    lib = load("libcublasLt.so.13")
    n = 16
    s = stream()
    h, desc, layout = vp(), vp(), vp()
    ck("cublasLtCreate", lib.cublasLtCreate(byref(h)))
    ck("cublasLtMatmulDescCreate", lib.cublasLtMatmulDescCreate(byref(desc), CUBLAS_COMPUTE_32F, CUDA_R_32F))
    ck("cublasLtMatrixLayoutCreate", lib.cublasLtMatrixLayoutCreate(byref(layout), CUDA_R_32F, ctypes.c_uint64(n),
                                                                    ctypes.c_uint64(n), ctypes.c_int64(n)))
    ones = np.ones((n, n), np.float32)
    bias_h = np.arange(n, dtype=np.float32)
    count = ctypes.c_int()
    ck("cudaGetDeviceCount", RT.cudaGetDeviceCount(byref(count)))
    if not bug:
        bias = to_device(bias_h)
    elif count.value > 1:
        ck("cudaSetDevice", RT.cudaSetDevice(1))
        bias = to_device(bias_h)                                # the bug: the bias on cuda:1
        ck("cudaSetDevice", RT.cudaSetDevice(0))
    else:
        bias = bias_h.ctypes.data                               # the bug: the bias on the host
    epilogue, bias_p = ctypes.c_int(CUBLASLT_EPILOGUE_BIAS), vp(bias)
    ck("cublasLtMatmulDescSetAttribute", lib.cublasLtMatmulDescSetAttribute(
        desc, CUBLASLT_MATMUL_DESC_EPILOGUE, byref(epilogue), ctypes.c_size_t(ctypes.sizeof(epilogue))))
    ck("cublasLtMatmulDescSetAttribute", lib.cublasLtMatmulDescSetAttribute(
        desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, byref(bias_p), ctypes.c_size_t(ctypes.sizeof(bias_p))))
    a, b, d = to_device(ones), to_device(ones), malloc(ones.nbytes)
    alpha, beta = ctypes.c_float(1), ctypes.c_float(0)
    ck("cublasLtMatmul", lib.cublasLtMatmul(h, desc, byref(alpha), vp(a), layout, vp(b), layout, byref(beta), vp(d),
                                            layout, vp(d), layout, None, None, ctypes.c_size_t(0), s))
    sync(s)
    expect("D", d, ones, n + bias_h[None, :])          # column-major: D[i, j] = k + bias[i]
    lib.cublasLtMatrixLayoutDestroy(layout)
    lib.cublasLtMatmulDescDestroy(desc)
    ck("cublasLtDestroy", lib.cublasLtDestroy(h))


def cufft(bug):
    CUFFT_C2C, CUFFT_FORWARD = 0x29, -1
    lib = load("libcufft.so.12")
    n = 64
    s = stream()
    plan = ctypes.c_int()
    ck("cufftPlan1d", lib.cufftPlan1d(byref(plan), n, CUFFT_C2C, 1))
    ck("cufftSetStream", lib.cufftSetStream(plan, s))
    x = np.ones(n, np.complex64)
    idata = x.ctypes.data if bug else to_device(x)             # the bug: idata on the host
    odata = malloc(x.nbytes)
    ck("cufftExecC2C", lib.cufftExecC2C(plan, vp(idata), vp(odata), CUFFT_FORWARD))
    sync(s)
    want = np.zeros(n, np.complex64)
    want[0] = n
    expect("FFT", odata, x, want)
    ck("cufftDestroy", lib.cufftDestroy(plan))


def cudnn(bug):
    NCHW, FLOAT, CROSS_CORRELATION, IMPLICIT_GEMM = 0, 0, 1, 0
    lib = load("libcudnn.so.9")
    s = stream()
    h, xd, yd, wd, cd = vp(), vp(), vp(), vp(), vp()
    ck("cudnnCreate", lib.cudnnCreate(byref(h)))
    ck("cudnnSetStream", lib.cudnnSetStream(h, s))
    for name, d in (("Tensor", xd), ("Tensor", yd), ("Filter", wd), ("Convolution", cd)):
        ck(f"cudnnCreate{name}Descriptor", getattr(lib, f"cudnnCreate{name}Descriptor")(byref(d)))
    ck("cudnnSetTensor4dDescriptor", lib.cudnnSetTensor4dDescriptor(xd, NCHW, FLOAT, 1, 1, 8, 8))
    ck("cudnnSetTensor4dDescriptor", lib.cudnnSetTensor4dDescriptor(yd, NCHW, FLOAT, 1, 1, 6, 6))
    ck("cudnnSetFilter4dDescriptor", lib.cudnnSetFilter4dDescriptor(wd, FLOAT, NCHW, 1, 1, 3, 3))
    ck("cudnnSetConvolution2dDescriptor", lib.cudnnSetConvolution2dDescriptor(cd, 0, 0, 1, 1, 1, 1,
                                                                              CROSS_CORRELATION, FLOAT))
    xh, wh, yh = np.ones((8, 8), np.float32), np.ones((3, 3), np.float32), np.zeros((6, 6), np.float32)
    x, y = to_device(xh), to_device(yh)
    w = wh.ctypes.data if bug else to_device(wh)                # the bug: w on the host
    alpha, beta = ctypes.c_float(1), ctypes.c_float(0)
    ck("cudnnConvolutionForward", lib.cudnnConvolutionForward(h, byref(alpha), xd, vp(x), wd, vp(w), cd,
                                                              IMPLICIT_GEMM, None, ctypes.c_size_t(0),
                                                              byref(beta), yd, vp(y)))
    sync(s)
    expect("y", y, yh, 9)
    for name, d in (("Tensor", xd), ("Tensor", yd), ("Filter", wd), ("Convolution", cd)):
        getattr(lib, f"cudnnDestroy{name}Descriptor")(d)
    ck("cudnnDestroy", lib.cudnnDestroy(h))


class NcclUniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]


def nccl(bug):
    ncclFloat32, ncclAvg = 7, 4
    lib = load("libnccl.so.2")
    n = 1024
    s = stream()
    uid, comm = NcclUniqueId(), vp()
    lib.ncclCommInitRank.argtypes = [ctypes.POINTER(vp), ctypes.c_int, NcclUniqueId, ctypes.c_int]
    ck("ncclGetUniqueId", lib.ncclGetUniqueId(byref(uid)))
    ck("ncclCommInitRank", lib.ncclCommInitRank(byref(comm), 1, uid, 0))
    xh = np.arange(n, dtype=np.float32)
    send = xh.ctypes.data if bug else to_device(xh)             # the bug: sendbuff on the host
    recv = malloc(xh.nbytes)
    ck("ncclAllReduce", lib.ncclAllReduce(vp(send), vp(recv), ctypes.c_size_t(n), ncclFloat32, ncclAvg, comm, s))
    sync(s)
    expect("recvbuff", recv, xh, xh)
    ck("ncclCommDestroy", lib.ncclCommDestroy(comm))


def cusolver(bug):
    LOWER = 0
    lib = load("libcusolver.so.12")
    n = 8
    s = stream()
    h = vp()
    ck("cusolverDnCreate", lib.cusolverDnCreate(byref(h)))
    ck("cusolverDnSetStream", lib.cusolverDnSetStream(h, s))
    ah = 4 * np.eye(n, dtype=np.float32)
    a = ah.ctypes.data if bug else to_device(ah)                # the bug: A on the host
    lwork = ctypes.c_int()
    ck("cusolverDnSpotrf_bufferSize", lib.cusolverDnSpotrf_bufferSize(h, LOWER, n, vp(a), n, byref(lwork)))
    work, info = malloc(max(lwork.value, 1) * 4), malloc(4)
    ck("cusolverDnSpotrf", lib.cusolverDnSpotrf(h, LOWER, n, vp(a), n, vp(work), lwork, vp(info)))
    sync(s)
    expect("devInfo", info, np.zeros(1, np.int32), 0)
    expect("A", a, ah, 2 * np.eye(n))                           # L = 2 I (the upper part held zeros)
    ck("cusolverDnDestroy", lib.cusolverDnDestroy(h))


PROGS = {"cublas": cublas, "cublaslt": cublaslt, "cufft": cufft, "cudnn": cudnn, "nccl": nccl, "cusolver": cusolver}

if __name__ == "__main__":
    name = sys.argv[1]
    bug = name.endswith("_bug")
    try:
        PROGS[name[:-4] if bug else name](bug)
    except Failed as e:
        print(f"gpu-prog: {name} failed: {e}", flush=True)
        sys.exit(3 if bug else 1)
    print(f"gpu-prog: {name} OK", flush=True)
