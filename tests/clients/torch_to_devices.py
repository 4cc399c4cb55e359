"""Correct multi-GPU PyTorch: data moved between devices with .to(), copy_(),
pinned host memory with non_blocking=True, and back to the host; the values
survive every hop (copies are real on the simulated GPUs).
Prints `torch_to_devices: OK devices=N values=...`."""
import torch

n = torch.cuda.device_count()
assert n >= 2, f"need 2 or more CUDA devices, found {n}"
values = [1.5, 2.5, -3.0, 4.25]
x = torch.tensor(values, device="cuda:0")
for d in list(range(1, n)) + [0]:
    x = x.to(f"cuda:{d}")
    assert x.device == torch.device("cuda", d)
assert x.cpu().tolist() == values, x.cpu().tolist()
pinned = torch.tensor(values).pin_memory()
y = pinned.to(f"cuda:{n - 1}", non_blocking=True)
torch.cuda.synchronize(f"cuda:{n - 1}")
assert y.cpu().tolist() == values
z = torch.empty(4, device="cuda:1")
z.copy_(y)
assert z.cpu().tolist() == values
print(f"torch_to_devices: OK devices={n} values={z.cpu().tolist()}")
