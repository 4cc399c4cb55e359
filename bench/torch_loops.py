"""bench/torch.sh's program: PyTorch loops on the simulated GPUs, each a
callgrind section (bench/cgmark.c, through ctypes) of N iterations:
  add          x.add_(1) on cuda:0: launch-bound, the wrapper's cost per launch
  torch_error  a torch error that is not a device error, raised by torch's
               C++ (through torch::translate_exception_to_python) and caught
  py_error     a Python KeyError, raised and caught
  device_error PyTorch's device error, raised, explained and caught (a
               repeat: what a request loop that keeps failing pays)
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
