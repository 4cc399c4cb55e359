"""bench/torch.sh's program: PyTorch loops on the simulated GPUs, each a
callgrind section (bench/cgmark.c, through ctypes) of N iterations:
  add          x.add_(1) on cuda:0: launch-bound, the wrapper's cost per launch
  torch_error  a torch error that is not a device error, raised by torch's
               C++ (through torch::translate_exception_to_python) and caught
  py_error     a Python KeyError, raised and caught
  device_error PyTorch's device error, raised, explained and caught (a
               repeat: what a request loop that keeps failing pays)
  copy         out.copy_(h0): a converting copy (float16 -> float32) on
               cuda:0, clean
  copy_peer    out.copy_(h1): the same from cuda:1's memory: PyTorch enables
               peer access cuda:1 -> cuda:0 and launches its copy kernel on
               cuda:1, writing cuda:0's memory: legal peer traffic, a
               peer_access warning repeated by every copy (issue 38)
usage: torch_loops.py LIBCGMARK N [SECTION...]"""
import ctypes
import sys

import torch

mark = ctypes.CDLL(sys.argv[1])
n = int(sys.argv[2])
sections = sys.argv[3:] or ["add", "torch_error", "py_error", "device_error"]
x = torch.zeros(16, device="cuda:0")
y = torch.zeros(16, device="cuda:1")
c = torch.zeros(2)
d = {}
out = torch.zeros(16, device="cuda:0")
h0 = torch.zeros(16, device="cuda:0", dtype=torch.float16)
h1 = torch.zeros(16, device="cuda:1", dtype=torch.float16)


def add():
    for _ in range(n):
        x.add_(1)


def torch_error():
    for _ in range(n):
        try:
            c[5]
        except IndexError:
            pass


def py_error():
    for _ in range(n):
        try:
            d["k"]
        except KeyError:
            pass


def copy():
    for _ in range(n):
        out.copy_(h0)


def copy_peer():
    for _ in range(n):
        out.copy_(h1)


def device_error():
    for _ in range(n):
        try:
            x + y
        except RuntimeError:
            pass


for name in sections:
    fn = globals()[name]
    fn()                                    # warm: first calls, caches, the first report
    torch.cuda.synchronize()
    mark.cgmark_start()
    fn()
    mark.cgmark_stop(name.encode())
print("torch_loops: done", n, " ".join(sections))
