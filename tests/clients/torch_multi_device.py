"""Correct multi-GPU PyTorch: a model split layer-wise over every device (a
pipeline, as device_map="auto" makes), the activation handed to the next
stage's device with .to() in a loop of several steps.
Prints `torch_multi_device: OK devices=N steps=S`."""
import torch

n = torch.cuda.device_count()
assert n >= 2, f"need 2 or more CUDA devices, found {n}"
stages = [torch.nn.Sequential(torch.nn.LayerNorm(16), torch.nn.ReLU()).to(f"cuda:{d}") for d in range(n)]
steps = 3
for step in range(steps):
    x = torch.full((4, 16), float(step), device="cuda:0")
    for d, stage in enumerate(stages):
        x = stage(x.to(f"cuda:{d}"))
        assert x.device == torch.device("cuda", d)
    out = x.to("cuda:0").sum(dim=1)
    torch.cuda.synchronize()
print(f"torch_multi_device: OK devices={n} steps={steps}")
