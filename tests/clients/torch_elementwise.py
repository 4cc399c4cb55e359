"""Correct multi-GPU PyTorch: elementwise ops on every device, each tensor on
the device its op runs on.  Prints `torch_elementwise: OK devices=N ops=K`."""
import torch

n = torch.cuda.device_count()
assert n >= 2, f"need 2 or more CUDA devices, found {n}"
ops = 0
for d in range(n):
    dev = torch.device("cuda", d)
    a = torch.arange(64, device=dev, dtype=torch.float32)
    b = torch.full((64,), 2.0, device=dev)
    for r in (a + b, a * b, a - 1, torch.relu(a - 3), torch.where(a > b, a, b), torch.sigmoid(a),
              torch.exp(a / 64), a.clamp(0, 10), a.float().half(), torch.sin(a) * torch.cos(b)):
        assert r.device == dev and r.shape == (64,)
        ops += 1
    a.mul_(0.5).add_(b)
    ops += 2
    torch.cuda.synchronize(dev)
print(f"torch_elementwise: OK devices={n} ops={ops}")
