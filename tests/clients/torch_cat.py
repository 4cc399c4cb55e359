"""Correct multi-GPU PyTorch: torch.cat / torch.stack of tensors that are all
on one device, the operands from other devices moved there first with .to()
(the fix of the vision-language merge bug).  Prints `torch_cat: OK devices=N`."""
import torch

n = torch.cuda.device_count()
assert n >= 2, f"need 2 or more CUDA devices, found {n}"
for d in range(n):
    dev = torch.device("cuda", d)
    other = torch.device("cuda", (d + 1) % n)
    text = torch.ones(4, 8, device=dev)
    image = torch.full((2, 8), 3.0, device=other)
    merged = torch.cat([text, image.to(dev)], dim=0)
    stacked = torch.stack([text[0], image[0].to(dev)])
    assert merged.shape == (6, 8) and merged.device == dev
    assert stacked.shape == (2, 8) and stacked.device == dev
    torch.cuda.synchronize(dev)
print(f"torch_cat: OK devices={n}")
