"""The refusal before any launch, and its legal neighbours (issue 36).  One
mode per run; each prints `refusal: MODE ...` lines.

    caught      Triton handed x on cuda:1 with cuda:0 current, inside
                try/except (as pytest, a server's handler or a notebook
                would): Triton's ValueError, caught; prints its message and
                the notes the exception carries (`note: ...`), exits 0
    uncaught    the same, not caught: the program dies with the ValueError
    peer        the same after PyTorch enabled peer access cuda:0 -> cuda:1:
                the kernel runs (legal); prints the result
    own         x on cuda:1 and cuda:1 current (torch.cuda.device): runs
    probe_fail  probe, then exits 5 (a failure after it carried on)
    probe       the program asks the driver itself (cuda.bindings) for x's
                device pointer with cuda:0 current, is refused, and handles
                it: moves x to cuda:0 and calls the kernel there; runs
    managed     a kernel over managed memory (cuMemAllocManaged) made on
                cuda:1, called with cuda:0 current: the pointer is
                accessible from every device; runs
    pinned      a pinned host tensor, cuda:0 current: accessible; runs
    graph       the kernel captured into a CUDA graph on cuda:1 and
                replayed: runs
    cp_caught   cuda-python: the program asks the driver (cuda.bindings) for
                x's device pointer with cuda:0 current, in a helper that
                raises RuntimeError naming the CUresult; the caller catches
                it and prints the notes, exits 0
    cp_uncaught the same, not caught: the program dies with the RuntimeError
    cp_exit     the same query; the program checks the status, says so and
                exits 3 without raising (sys.exit)
    retry       caught refused as in `caught`; then, after PyTorch enabled
                peer access, x is accepted and a real CPU tensor is refused
                (Triton's ValueError again, caught): that one is no
                device's memory, and its exception gets no note
Results are computed where the kernel has a host twin (DEVCHECK_CLIENT_TWINS)."""
import sys

import torch
import triton
import triton.language as tl

import twins


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


class Raw:
    """A pointer Triton takes as a tensor: data_ptr() and dtype."""
    def __init__(self, ptr):
        self.ptr, self.dtype = ptr, torch.float32

    def data_ptr(self):
        return self.ptr


twins.load()
X, Y = [1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]
mode = sys.argv[1]
torch.cuda.set_device(0)
x = torch.tensor(X, device="cuda:1")                    # x lives on cuda:1
if mode in ("caught", "uncaught", "peer"):
    y = torch.tensor(Y, device="cuda:0")
    out = torch.empty(4, device="cuda:0")
    if mode == "peer":
        y.to("cuda:1")                                  # PyTorch enables peer access cuda:0 -> cuda:1
    if mode == "caught":
        try:
            add_kernel[(1,)](x, y, out, 4, BLOCK=4)     # CALL
        except ValueError as e:
            print(f"refusal: caught {type(e).__name__}: {e}")
            for n in getattr(e, "__notes__", []):
                print(f"refusal: note: {n.splitlines()[0]}")
            sys.exit(0)
    add_kernel[(1,)](x, y, out, 4, BLOCK=4)             # CALL2
elif mode == "retry":
    y = torch.tensor(Y, device="cuda:0")
    out = torch.empty(4, device="cuda:0")
    try:
        add_kernel[(1,)](x, y, out, 4, BLOCK=4)         # RETRY1
    except ValueError:
        print("refusal: retry refused")
    y.to("cuda:1")                                      # peer access cuda:0 -> cuda:1
    try:
        add_kernel[(1,)](x, torch.tensor(Y), out, 4, BLOCK=4)   # RETRY2: a CPU tensor
    except ValueError as e:
        print(f"refusal: retry refused again, notes={len(getattr(e, '__notes__', []))}")
    sys.exit(0)
elif mode == "own":
    with torch.cuda.device(x.device):
        y = torch.tensor(Y, device="cuda:1")
        out = torch.empty(4, device="cuda:1")
        add_kernel[(1,)](x, y, out, 4, BLOCK=4)
elif mode in ("cp_caught", "cp_uncaught", "cp_exit"):
    from cuda.bindings import driver

    def device_ptr(t):
        attr = driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_POINTER
        err, p = driver.cuPointerGetAttribute(attr, t.data_ptr())             # QUERY
        if err != driver.CUresult.CUDA_SUCCESS:
            if mode == "cp_exit":
                print(f"refusal: cp_exit {err.name}")
                sys.exit(3)
            raise RuntimeError(f"cuPointerGetAttribute failed: {err.name}")     # RAISE
        return p

    if mode == "cp_caught":
        try:
            device_ptr(x)                               # CPCALL
        except RuntimeError as e:
            print(f"refusal: cp_caught {type(e).__name__}: {e}")
            for n in getattr(e, "__notes__", []):
                print(f"refusal: note: {n.splitlines()[0]}")
        sys.exit(0)
    device_ptr(x)                                       # CPCALL2
    sys.exit(0)
elif mode in ("probe", "probe_fail"):
    from cuda.bindings import driver
    err, _ = driver.cuPointerGetAttribute(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_POINTER, x.data_ptr())
    print(f"refusal: probe {err.name}")
    if err != driver.CUresult.CUDA_SUCCESS:
        try:                                            # the program's own exceptions, handled, after it
            raise KeyError("CUDA_ERROR_INVALID_VALUE handled")
        except KeyError:
            pass
        x = x.to("cuda:0")                              # the program handles the refusal itself
    y = torch.tensor(Y, device="cuda:0")
    out = torch.empty(4, device="cuda:0")
    add_kernel[(1,)](x, y, out, 4, BLOCK=4)
elif mode == "managed":
    from cuda.bindings import driver
    with torch.cuda.device(1):
        err, p = driver.cuMemAllocManaged(16, driver.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL.value)
        assert err == driver.CUresult.CUDA_SUCCESS, err
        err, = driver.cuMemcpyHtoD(p, torch.tensor(X).numpy().tobytes(), 16)
    y = torch.tensor(Y, device="cuda:0")
    out = torch.empty(4, device="cuda:0")
    add_kernel[(1,)](Raw(int(p)), y, out, 4, BLOCK=4)
elif mode == "pinned":
    xp = torch.tensor(X).pin_memory()
    y = torch.tensor(Y, device="cuda:0")
    out = torch.empty(4, device="cuda:0")
    add_kernel[(1,)](xp, y, out, 4, BLOCK=4)
elif mode == "graph":
    with torch.cuda.device(1):
        y = torch.tensor(Y, device="cuda:1")
        out = torch.empty(4, device="cuda:1")
        add_kernel[(1,)](x, y, out, 4, BLOCK=4)         # compiled before the capture
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            add_kernel[(1,)](x, y, out, 4, BLOCK=4)
        g.replay()
else:
    sys.exit(f"refusal: unknown mode {mode}")
torch.cuda.synchronize()
print(f"refusal: {mode} result={out.cpu().tolist()}")
if mode == "probe_fail":
    sys.exit(5)
