"""Correct multi-GPU PyTorch: reductions on every device (sum, mean, max,
argmax, softmax, norm, cumsum), full and along a dimension.
Prints `torch_reduce: OK devices=N`."""
import torch

n = torch.cuda.device_count()
assert n >= 2, f"need 2 or more CUDA devices, found {n}"
for d in range(n):
    dev = torch.device("cuda", d)
    x = torch.arange(96, device=dev, dtype=torch.float32).reshape(8, 12)
    outs = [x.sum(), x.mean(), x.max(), x.sum(dim=1), x.amax(dim=0), x.argmax(dim=1),
            torch.softmax(x, dim=-1), x.norm(), torch.cumsum(x, dim=1), x.var(dim=0)]
    assert all(o.device == dev for o in outs)
    assert outs[3].shape == (8,) and outs[4].shape == (12,) and outs[6].shape == (8, 12)
    torch.cuda.synchronize(dev)
print(f"torch_reduce: OK devices={n}")
