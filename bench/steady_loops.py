"""bench/steady.sh's program (issue 38): launch loops of a Triton kernel and
of torch ops on the simulated GPUs, a clean launch beside launches whose
finding devcheck knows already, measured side by side in one process: CPU
time of the whole process (time.process_time_ns: every thread), ROUNDS
rounds of N launches of each case in turn, the minimum per launch of each.
Cases (cuda:0 current; peer access cuda:0 -> cuda:1 enabled by PyTorch
itself, with a copy between them):
  triton_clean  add_kernel(x0, y0, out0): every operand on cuda:0
  triton_host   add_kernel(pinned host tensor, y0, out0): a host_memory
                warning under host_memory=warn, repeated (keyed by its stack)
  triton_peer   add_kernel(x1, y0, out0): cuda:1's memory over peer access,
                a peer_access warning (legal), repeated; the same is the
                suppressed and the ignored case under those options
  torch_clean   out0.copy_(h0): a converting copy on cuda:0
  torch_peer    out0.copy_(h1): the same from cuda:1's memory: PyTorch
                enables peer access cuda:1 -> cuda:0 and launches its copy
                kernel on cuda:1, writing cuda:0's memory (a peer_access
                warning, legal)
Also each case's first call (the warm one below: its first launch, its first
report), "CASE first_ns=...": bench/steady.sh runs processes of one clean
case and its peer twin for the first report in a torch (or Triton) process.
usage: steady_loops.py N ROUNDS CASE..."""
import sys
import time

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


n, rounds, cases = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
torch.cuda.set_device(0)
x0 = torch.ones(16, device="cuda:0")
y0 = torch.ones(16, device="cuda:0")
out0 = torch.empty(16, device="cuda:0")
x1 = torch.ones(16, device="cuda:1")
xh = torch.ones(16).pin_memory()
h0 = torch.ones(16, device="cuda:0", dtype=torch.float16)
h1 = torch.ones(16, device="cuda:1", dtype=torch.float16)
torch.ones(1, device="cuda:0").to("cuda:1")     # PyTorch enables peer access cuda:0 -> cuda:1


def triton_clean():
    for _ in range(n):
        add_kernel[(1,)](x0, y0, out0, 16, BLOCK=16)


def triton_host():
    for _ in range(n):
        add_kernel[(1,)](xh, y0, out0, 16, BLOCK=16)


def triton_peer():
    for _ in range(n):
        add_kernel[(1,)](x1, y0, out0, 16, BLOCK=16)


def torch_clean():
    for _ in range(n):
        out0.copy_(h0)


def torch_peer():
    for _ in range(n):
        out0.copy_(h1)


best, first = {}, {}
fns = [globals()[c] for c in cases]
for c, fn in zip(cases, fns):
    t0 = time.process_time_ns()
    fn()                                    # warm: compiles, first launches, first reports
    first[c] = time.process_time_ns() - t0
    torch.cuda.synchronize()
for _ in range(rounds):
    for c, fn in zip(cases, fns):
        t0 = time.process_time_ns()
        fn()
        t = (time.process_time_ns() - t0) / n
        torch.cuda.synchronize()
        best[c] = min(best.get(c, t), t)
for c in cases:
    print("%s cpu_ns=%.0f" % (c, best[c]))
    print("%s first_ns=%d" % (c, first[c]))
