"""CuPy and JAX programs of the real-GPU battery (tests/gpu/run.sh).  Each
prints `gpu-prog: NAME OK` and `METRIC key value` lines.  The battery runs
the CuPy ones with an empty CUPY_CACHE_DIR of their own, so that each run
compiles its kernels with NVRTC (devcheck reads the RawKernel's source at
nvrtcCreateProgram) instead of loading cached cubins.

    other_progs.py cupy          matmul (cuBLAS), FFT (cuFFT), an extern "C"
                                 RawKernel, a reduction: correct
    other_progs.py cupy_bug      a typed RawModule kernel (add1<float>, a
                                 mangled name: its parameters are known)
                                 handed a numpy array's pointer: pageable host
                                 memory; the GPU faults: prints
                                 `gpu-prog: cupy_bug fault: ...`, exits 3
    other_progs.py cupy_untyped  the same bug through an extern "C" RawKernel
                                 (no types: the record proves nothing by
                                 itself); under --sync, the async_error names
                                 the culprit
    other_progs.py cupy_repeat   a typed kernel reading pinned host memory
                                 (legal) 2000 times: under --host-memory warn
                                 one finding repeated at every launch, its
                                 cost per launch measured
    other_progs.py jax           jit matmul, grad, conv: correct
"""
import sys
import time

import numpy as np

TYPED = r"""
template <typename T> __global__ void add1(const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + 1;
}
"""
UNTYPED = r"""
extern "C" __global__ void add1_c(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + 1;
}
"""


def cupy():
    import cupy as cp
    a = cp.random.rand(256, 256, dtype=cp.float32)
    b = a @ a
    f = cp.fft.fft(a[0])
    k = cp.RawKernel(UNTYPED, "add1_c")
    y = cp.empty(1000, dtype=cp.float32)
    x = cp.arange(1000, dtype=cp.float32)
    k((4,), (256,), (x, y, np.int32(1000)))
    s = float(b.sum()) + float(cp.abs(f).sum())
    assert abs(float(y[999]) - 1000.0) < 1e-3 and s == s
    t = time.perf_counter()
    for _ in range(2000):
        k((4,), (256,), (x, y, np.int32(1000)))
    cp.cuda.runtime.deviceSynchronize()
    print(f"METRIC rawkernel_launch_us {(time.perf_counter() - t) / 2000 * 1e6:.6g}")


def cupy_bug(typed):
    import cupy as cp
    host = np.ones(1000, dtype=np.float32)
    y = cp.empty(1000, dtype=cp.float32)
    if typed:
        mod = cp.RawModule(code=TYPED, name_expressions=["add1<float>"])
        k = mod.get_function("add1<float>")
    else:
        k = cp.RawKernel(UNTYPED, "add1_c")
    try:
        k((4,), (256,), (np.uint64(host.ctypes.data), y, np.int32(1000)))   # the bug: a host pointer
        cp.cuda.runtime.deviceSynchronize()
        got = float(y[999])
    except Exception as e:          # noqa: BLE001 -- the fault is the point
        print(f"gpu-prog: {sys.argv[1]} fault: {e}", flush=True)
        sys.exit(3)
    if got != 2.0:
        print(f"gpu-prog: {sys.argv[1]} wrong result {got}")
        sys.exit(1)


def cupy_repeat():
    import cupy as cp
    import cupyx
    pinned = cupyx.empty_pinned(1000, dtype=np.float32)
    pinned[:] = 1
    y = cp.empty(1000, dtype=cp.float32)
    k = cp.RawModule(code=TYPED, name_expressions=["add1<float>"]).get_function("add1<float>")
    args = (np.uint64(pinned.ctypes.data), y, np.int32(1000))
    # every launch from one line (a finding's stack is its Python lines too):
    # one finding, reported at the first launch, repeated at the 2000 timed
    t = 0.0
    for i in range(2001):
        k((4,), (256,), args)
        if i == 0:
            cp.cuda.runtime.deviceSynchronize()
            assert float(y[999]) == 2.0
            t = time.perf_counter()
    cp.cuda.runtime.deviceSynchronize()
    print(f"METRIC repeat_launch_us {(time.perf_counter() - t) / 2000 * 1e6:.6g}")


def jax_():
    import jax
    import jax.numpy as jnp
    key = jax.random.PRNGKey(0)
    a = jax.random.normal(key, (256, 256))
    mm = jax.jit(lambda x: (x @ x).sum())
    g = jax.jit(jax.grad(lambda x: jnp.tanh(x @ x).sum()))
    img = jax.random.normal(key, (4, 3, 32, 32))
    w = jax.random.normal(key, (8, 3, 3, 3))
    conv = jax.jit(lambda i, k: jax.lax.conv(i, k, (1, 1), "SAME").sum())
    vals = [float(mm(a)), float(g(a).sum()), float(conv(img, w))]
    assert all(v == v for v in vals), vals


if __name__ == "__main__":
    name = sys.argv[1]
    {"cupy": cupy, "cupy_bug": lambda: cupy_bug(True), "cupy_untyped": lambda: cupy_bug(False),
     "cupy_repeat": cupy_repeat, "jax": jax_}[name]()
    print(f"gpu-prog: {name} OK", flush=True)
