"""Correct multi-GPU PyTorch: an embedding table per device, looked up with
token ids on the table's device (nn.Embedding, F.embedding, index_select).
Prints `torch_embedding: OK devices=N`."""
import torch
import torch.nn.functional as F

n = torch.cuda.device_count()
assert n >= 2, f"need 2 or more CUDA devices, found {n}"
for d in range(n):
    dev = torch.device("cuda", d)
    emb = torch.nn.Embedding(32, 16).to(dev)
    ids = torch.tensor([[1, 5, 7], [2, 0, 31]], device=dev)
    out = emb(ids)
    out2 = F.embedding(ids, emb.weight)
    out3 = emb.weight.index_select(0, ids.flatten())
    assert out.shape == (2, 3, 16) and out2.shape == (2, 3, 16) and out3.shape == (6, 16)
    assert out.device == dev
    torch.cuda.synchronize(dev)
print(f"torch_embedding: OK devices={n}")
