"""A 2-rank torchrun job (tests/outputs/torchrun.sh): gloo process group,
each rank on its own (simulated) GPU cuda:RANK, rank 1 with the bug: its
kernel's operand lives on cuda:0.  The kernels are libpylaunch.so's, loaded
with ctypes before torch (so torch binds to the same CUDA runtime).
Usage: torchrun ... torchrun_job.py LIBPYLAUNCH"""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])

import torch.distributed as dist  # noqa: E402

dist.init_process_group("gloo")
rank = dist.get_rank()
assert lib.pylaunch_bad(rank, 0 if rank == 1 else rank) == 0
dist.barrier()
dist.destroy_process_group()
print("rank %d done" % rank)
