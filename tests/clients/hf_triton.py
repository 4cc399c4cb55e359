"""A Triton kernel in a Hugging Face model split over every visible GPU
(tests/clients/hf_triton.sh): the model's RMSNorm replaced by a Triton one,
as Liger-Kernel's apply_liger_kernel_to_llama patches it, launched with no
device guard.  The current device stays cuda:0; the decoder layers that
accelerate put on the other GPUs hand it their hidden states, so Triton
launches on cuda:0 with another GPU's tensors (Liger-Kernel #401, triton
#5205).  --fixed: the launch runs under torch.cuda.device(x.device).

On a GPU without peer access Triton refuses before launching: its launcher
asks the driver for a device pointer of each tensor in the current context,
gets CUDA_ERROR_INVALID_VALUE, and raises `ValueError: Pointer argument
cannot be accessed from Triton (cpu tensor?)` (Triton 3.9's words).  Prints
`hf_triton: OK devices=N` when the forward completes, `hf_triton: refused:
MESSAGE` (exit 4) when Triton raised its ValueError and `hf_triton: fault:
MESSAGE` (exit 3) when a CUDA error surfaced.

    hf_triton.py              the RMSNorm above, every norm of the model
    hf_triton.py temperature  one Triton launch by the user's own sampling
                              code (a sampler's temperature applied in place,
                              as vLLM's Triton samplers do) on the logits of
                              the lm_head's GPU, no device guard: one operand
                              of another GPU in one launch
                              -> `hf_triton temperature: OK devices=N`
"""
import contextlib
import sys

import torch
import triton
import triton.language as tl
from transformers.models.llama import modeling_llama

import hf_tiny

FIXED = "--fixed" in sys.argv


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(out_ptr + row * n_cols + cols, x * rstd * w, mask=mask)


def triton_rms_norm(self, hidden_states):
    x = hidden_states.contiguous()
    out = torch.empty_like(x)
    n_cols = x.shape[-1]
    guard = torch.cuda.device(x.device) if FIXED else contextlib.nullcontext()
    with guard:
        rms_norm_kernel[(x.numel() // n_cols,)](x, self.weight, out, n_cols, self.variance_epsilon,
                                                BLOCK=triton.next_power_of_2(n_cols))
    return out


@triton.jit
def temperature_kernel(x_ptr, n, inv_t, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(x_ptr + offs, x * inv_t, mask=mask)


def temperature_(logits, t):
    """logits /= t in place, in one launch."""
    guard = torch.cuda.device(logits.device) if FIXED else contextlib.nullcontext()
    with guard:
        n = logits.numel()
        temperature_kernel[(triton.cdiv(n, 128),)](logits, n, 1.0 / t, BLOCK=128)


def forward(model):
    model(input_ids=torch.randint(0, hf_tiny.VOCAB, (1, 8)))


def temperature(model):
    input_ids = torch.randint(0, hf_tiny.VOCAB, (1, 8))
    hidden = model.model(input_ids=input_ids).last_hidden_state
    last = model.lm_head(hidden)[:, -1].contiguous()            # on the lm_head's GPU
    temperature_(last, 0.7)
    return last.argmax(-1)


def main():
    part = "temperature" if "temperature" in sys.argv else None
    if part is None:
        modeling_llama.LlamaRMSNorm.forward = triton_rms_norm
    n = torch.cuda.device_count()
    model = hf_tiny.split(hf_tiny.llama(), n)
    try:
        with torch.no_grad():
            (temperature if part else forward)(model)
        for d in range(n):
            torch.cuda.synchronize(d)
    except ValueError as e:
        print(f"hf_triton: refused: {e}")
        sys.exit(4)
    except RuntimeError as e:
        print(f"hf_triton: fault: {str(e).splitlines()[0]}")
        sys.exit(3)
    print(f"hf_triton{' ' + part if part else ''}: OK devices={n}")


main()
