"""Correct multi-GPU PyTorch: indexing with index tensors on the indexed
tensor's device (index, index_put_, index_select, gather, scatter_,
masked_fill, index_add_).  Prints `torch_indexing: OK devices=N`."""
import torch

n = torch.cuda.device_count()
assert n >= 2, f"need 2 or more CUDA devices, found {n}"
for d in range(n):
    dev = torch.device("cuda", d)
    x = torch.arange(40, device=dev, dtype=torch.float32).reshape(8, 5)
    idx = torch.tensor([0, 3, 7], device=dev)
    rows = x[idx]
    x[idx] = 0.0
    sel = torch.index_select(x, 1, torch.tensor([1, 4], device=dev))
    g = torch.gather(x, 1, torch.zeros(8, 1, dtype=torch.long, device=dev))
    s = torch.zeros(8, 5, device=dev).scatter_(1, torch.ones(8, 1, dtype=torch.long, device=dev), 1.0)
    m = x.masked_fill(x > 10, -1.0)
    a = torch.zeros(8, device=dev).index_add_(0, idx, torch.ones(3, device=dev))
    assert rows.shape == (3, 5) and sel.shape == (8, 2) and g.shape == (8, 1)
    assert all(t.device == dev for t in (rows, sel, g, s, m, a))
    torch.cuda.synchronize(dev)
print(f"torch_indexing: OK devices={n}")
