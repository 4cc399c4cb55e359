"""A convolution whose module was never moved to the GPU, called on a GPU
input inside try/except (as pytest, a server or a notebook would): PyTorch
says `Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)
should be the same`, a device mismatch in a type's words (issue 36).
Prints the message and the notes the exception carries."""
import torch

conv = torch.nn.Conv2d(3, 4, kernel_size=3)           # WEIGHT: stays on the CPU
x = torch.ones(1, 3, 8, 8, device="cuda:0")           # INPUT
try:
    y = conv(x)                                         # CALL
except RuntimeError as e:
    print(f"conv: caught {type(e).__name__}: {str(e).splitlines()[0]}")
    for n in getattr(e, "__notes__", []):
        print(f"conv: note: {n.splitlines()[0]}")
