"""Correct multi-GPU PyTorch: cross-entropy with logits and labels on the same
device (labels moved to the logits' device: the fix of the GLM-4 loss bug),
forward and backward.  Prints `torch_cross_entropy: OK devices=N`.

The backward pass runs on this thread: with a worker thread per device,
PyTorch 2.15 on CPython 3.11 may abort at exit ("terminate called without an
active exception") when a worker drops its last graph reference while the
interpreter finalizes (pthread_exit out of take_gil through a noexcept
frame), on any device, real or simulated."""
import torch
import torch.nn.functional as F

torch.autograd.set_multithreading_enabled(False)

n = torch.cuda.device_count()
assert n >= 2, f"need 2 or more CUDA devices, found {n}"
for d in range(n):
    dev = torch.device("cuda", d)
    logits = torch.tensor([[0.1, 2.0, -1.0], [1.5, 0.2, 0.3]], device=dev, requires_grad=True)
    labels = torch.tensor([1, 0], device=torch.device("cuda", (d + 1) % n)).to(dev)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    nll = F.nll_loss(torch.log_softmax(logits.detach(), dim=1), labels)
    assert loss.device == dev and logits.grad.shape == (2, 3) and nll.device == dev
    torch.cuda.synchronize(dev)
print(f"torch_cross_entropy: OK devices={n}")
