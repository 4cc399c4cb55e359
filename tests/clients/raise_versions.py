"""tests/clients/raise_versions.sh's program, for every CPython: a device
error raised through the stand-in libtorch_python.so (fake_torch_python.cc,
argv[1]) and caught, twice; once more 40 library frames below the user's
line; then an unrelated one.  The stand-in torch package (fake_torch/) and
the library (fake_torch/site-packages/deep.py) are on sys.path."""
import ctypes
import sys

import deep
import torch

ctypes.CDLL("libcuda.so.1").cuInit(0)           # devcheck starts with the first CUDA call
lib = ctypes.PyDLL(sys.argv[1])
MSG = b"Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:1!"


def op(a, b):
    return (a, b) and lib.fake_op(MSG)          # OP


hidden = torch.Tensor("cuda:0", 0)
input_ids = torch.Tensor("cpu", 0)
for request in range(2):
    try:
        op(hidden, input_ids)
    except RuntimeError as e:
        notes = [n for n in getattr(e, "__notes__", []) if n.startswith("devcheck: ")]
        print("caught", type(e).__name__, str(e), "tb", e.__traceback__.tb_next.tb_frame.f_code.co_name,
              "notes", len(notes))
try:
    deep.call(40, lib, MSG, hidden, input_ids)  # DEEP
except RuntimeError as e:
    print("deep: notes", len(getattr(e, "__notes__", [])))
try:
    lib.fake_op(b"index 5 is out of bounds for dimension 0 with size 2")
except RuntimeError as e:
    print("unrelated", str(e), "notes", len(getattr(e, "__notes__", [])))
print("raise_versions: done")
