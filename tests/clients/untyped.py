"""A kernel without types (issue 28): tests/e2e/untyped.cu's extern "C"
scale_rows(int n, float a, float *x, long long m, struct {float *p; long long n;} s),
loaded from a cubin through ctypes (libcuda's own entry points) or cuda-bindings,
or compiled from its source by NVRTC (cuda-bindings, nvrtcGetCUBIN), and launched
on device 0 with x in:
  other     device 1's memory (no peer access): faults like a GPU
  pageable  a numpy array (host memory a real GPU cannot access; the sim's twin can)
  pinned    pinned host memory (cuMemAllocHost: legal)
  correct   device 0's memory
  integer   device 0's memory, and m equal to an address of device 1's memory
  struct    device 0's memory, and s.p a stale pointer to device 1's memory
Prints `untyped: result=[...]` (exit 0), or `untyped: fault: ERR` (exit 3).
nvrtc_ctypes: NVRTC and the driver through ctypes (libnvrtc loaded RTLD_LOCAL).
    untyped.py ctypes|bindings|nvrtc|nvrtc_ctypes CASE [CUBIN]"""
import ctypes
import os
import sys

import numpy as np

import twins

SRC = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e", "untyped.cu"), "rb").read()
via, case = sys.argv[1], sys.argv[2]
N = 8


class UntypedS(ctypes.Structure):
    _fields_ = [("p", ctypes.c_void_p), ("n", ctypes.c_longlong)]


def fail(what):
    sys.exit(f"untyped: FAILED: {what}")


if via in ("ctypes", "nvrtc_ctypes"):
    cu = ctypes.CDLL("libcuda.so.1")            # RTLD_LOCAL; names through dlsym

    def call(name, *args):
        r = getattr(cu, name)(*args)
        if r != 0:
            fail(f"{name}: {r}")

    def dev_alloc(nbytes):
        p = ctypes.c_uint64()
        call("cuMemAlloc_v2", ctypes.byref(p), ctypes.c_size_t(nbytes))
        return p.value

    def host_alloc(nbytes):
        p = ctypes.c_void_p()
        call("cuMemAllocHost_v2", ctypes.byref(p), ctypes.c_size_t(nbytes))
        return p.value

    call("cuInit", 0)
    ctx = []
    for d in (0, 1):
        dev, c = ctypes.c_int(), ctypes.c_void_p()
        call("cuDeviceGet", ctypes.byref(dev), d)
        call("cuDevicePrimaryCtxRetain", ctypes.byref(c), dev)
        ctx.append(c)
    set_ctx = lambda d: call("cuCtxSetCurrent", ctx[d])  # noqa: E731
    h2d = lambda dst, src, n: call("cuMemcpyHtoD_v2", ctypes.c_uint64(dst), ctypes.c_void_p(src), ctypes.c_size_t(n))  # noqa: E731
    d2h = lambda dst, src, n: call("cuMemcpyDtoH_v2", ctypes.c_void_p(dst), ctypes.c_uint64(src), ctypes.c_size_t(n))  # noqa: E731

    def load(image):
        mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
        call("cuModuleLoadData", ctypes.byref(mod), ctypes.c_char_p(image))
        call("cuModuleGetFunction", ctypes.byref(fn), mod, b"scale_rows")
        return fn

    def launch(fn, params):
        call("cuLaunchKernel", fn, 1, 1, 1, N, 1, 1, 0, None, ctypes.c_void_p(params), None)

    def sync():
        return cu.cuCtxSynchronize()
else:
    from cuda.bindings import driver as cu

    def ok(r):
        err = r[0] if isinstance(r, tuple) else r
        if int(err) != 0:
            fail(str(err))
        return r[1] if isinstance(r, tuple) and len(r) == 2 else None

    ok(cu.cuInit(0))
    ctx = [ok(cu.cuDevicePrimaryCtxRetain(ok(cu.cuDeviceGet(d)))) for d in (0, 1)]
    set_ctx = lambda d: ok(cu.cuCtxSetCurrent(ctx[d]))  # noqa: E731
    dev_alloc = lambda n: int(ok(cu.cuMemAlloc(n)))  # noqa: E731
    host_alloc = lambda n: int(ok(cu.cuMemAllocHost(n)))  # noqa: E731
    h2d = lambda dst, src, n: ok(cu.cuMemcpyHtoD(dst, src, n))  # noqa: E731
    d2h = lambda dst, src, n: ok(cu.cuMemcpyDtoH(dst, src, n))  # noqa: E731

    def load(image):
        return ok(cu.cuModuleGetFunction(ok(cu.cuModuleLoadData(image)), b"scale_rows"))

    def launch(fn, params):
        ok(cu.cuLaunchKernel(fn, 1, 1, 1, N, 1, 1, 0, 0, params, 0))

    def sync():
        return int(cu.cuCtxSynchronize()[0])

twins.load()
if via == "nvrtc":
    from cuda.bindings import nvrtc

    prog = ok(nvrtc.nvrtcCreateProgram(SRC, b"untyped.cu", 0, [], []))
    ok(nvrtc.nvrtcCompileProgram(prog, 1, [b"--gpu-architecture=sm_80"]))
    image = b" " * ok(nvrtc.nvrtcGetCUBINSize(prog))
    ok(nvrtc.nvrtcGetCUBIN(prog, image))
    ok(nvrtc.nvrtcDestroyProgram(prog))
elif via == "nvrtc_ctypes":
    # libnvrtc loaded RTLD_LOCAL: its names are found with dlsym(handle)
    import nvidia
    lib = os.path.join(os.path.dirname(list(nvidia.__path__)[0]), "nvidia", "cu13", "lib", "libnvrtc.so.13")
    nv = ctypes.CDLL(lib)
    prog, size = ctypes.c_void_p(), ctypes.c_size_t()
    opts = (ctypes.c_char_p * 1)(b"--gpu-architecture=sm_80")
    for name, *args in (("nvrtcCreateProgram", ctypes.byref(prog), SRC, b"untyped.cu", 0, None, None),
                        ("nvrtcCompileProgram", prog, 1, opts), ("nvrtcGetCUBINSize", prog, ctypes.byref(size))):
        if getattr(nv, name)(*args) != 0:
            fail(name)
    buf = ctypes.create_string_buffer(size.value)
    if nv.nvrtcGetCUBIN(prog, buf) != 0 or nv.nvrtcDestroyProgram(ctypes.byref(prog)) != 0:
        fail("nvrtcGetCUBIN")
    image = buf.raw
else:
    image = open(sys.argv[3], "rb").read()

host = np.arange(N, dtype=np.float32)
set_ctx(1)
on1 = dev_alloc(4096)
set_ctx(0)
fn = load(image)
on0 = dev_alloc(host.nbytes)
m, stale, back = 0, 0, None
if case == "other":
    set_ctx(1)
    h2d(on1, host.ctypes.data, host.nbytes)
    set_ctx(0)
    x, back = on1, (1, on1)
elif case == "pageable":
    x = host.ctypes.data
elif case == "pinned":
    x = host_alloc(host.nbytes)
    ctypes.memmove(x, host.ctypes.data, host.nbytes)
    back = (None, x)
else:
    h2d(on0, host.ctypes.data, host.nbytes)
    x, back = on0, (0, on0)
    if case == "integer":
        m = on1 + 64                            # an integer that equals device 1's address (even: adds 0)
    elif case == "struct":
        stale = on1 + 128                       # a stale pointer the kernel never reads
n_, a_, x_, m_ = ctypes.c_int(N), ctypes.c_float(2.0), ctypes.c_uint64(x), ctypes.c_longlong(m)
s_ = UntypedS(stale, 2)
params = (ctypes.c_void_p * 5)(*[ctypes.addressof(v) for v in (n_, a_, x_, m_, s_)])
launch(fn, ctypes.addressof(params))           # the launch
err = sync()
if err != 0:
    print(f"untyped: fault: {err}")
    sys.exit(3)
if back is not None and back[0] is not None:
    set_ctx(back[0])
    d2h(host.ctypes.data, back[1], host.nbytes)
elif back is not None:
    ctypes.memmove(host.ctypes.data, back[1], host.nbytes)
print(f"untyped: result={host.tolist()}")
