"""Placement bugs in the user's code around a Hugging Face model split over
every visible GPU by accelerate (hf_tiny.split: the embedding on cuda:0,
the lm_head on the last GPU), as bug reports show them
(tests/clients/hf_bugs.sh).  accelerate's hooks move what goes into the
model's modules; the user's own code after them gets no such help.  Each
bug makes PyTorch refuse the op (RuntimeError, exit status 1); devcheck
explains it at the line marked `# the bug`.  --fixed: the `if FIXED:` above
that line moves the tensor first, and the program prints its OK line,
`hf_bugs NAME: OK SHAPE`.  Several names run one after the other in one
process; with --catch each refusal is caught, as a notebook or a test
runner would, and printed (`hf_bugs NAME: refused: MESSAGE`).

    hf_bugs.py host_ids   per-token log-probabilities of a prompt (scoring,
                          RLHF): the ids stay on the CPU, where the
                          tokenizer made them; the model took them (its
                          hook moved them), the gather on the lm_head's GPU
                          does not
    hf_bugs.py embed      greedy decoding by hand that embeds the chosen
                          token itself (F.embedding with the model's table,
                          as a speculative-decoding or soft-prompt loop
                          does): the token ids come from the logits on the
                          last GPU, the table is on cuda:0
    hf_bugs.py loss       a loss by hand: the batch moved to model.device
                          (the first GPU), the logits on the last
"""
import gc
import sys
import time

import torch
import torch.nn.functional as F

import hf_tiny

FIXED = "--fixed" in sys.argv


def logits_of(model, input_ids, use_cache=False):
    """The model's body through accelerate's hooks, then its lm_head, whose
    output stays on the lm_head's GPU (calling the whole model would bring
    the logits back to the input's device)."""
    out = model.model(input_ids=input_ids, use_cache=use_cache)
    return model.lm_head(out.last_hidden_state), out.cache


def host_ids(model):
    input_ids = torch.randint(0, hf_tiny.VOCAB, (2, 8))          # the tokenizer's output, on the CPU
    with torch.no_grad():
        logits, _ = logits_of(model, input_ids)
        logp = logits.log_softmax(-1)
        targets = input_ids[:, 1:, None]
        if FIXED:
            targets = targets.to(logp.device)
        token_logp = logp[:, :-1].gather(-1, targets)             # the bug: targets on the CPU
    return tuple(token_logp.shape)


def embed(model):
    table = model.get_input_embeddings().weight                  # on cuda:0
    input_ids = torch.randint(0, hf_tiny.VOCAB, (1, 6))
    with torch.no_grad():
        logits, cache = logits_of(model, input_ids, use_cache=True)
        for _ in range(2):
            next_id = logits[:, -1:].argmax(-1)                   # on the lm_head's GPU
            if FIXED:
                next_id = next_id.to(table.device)
            inputs_embeds = F.embedding(next_id, table)           # the bug: ids on the last GPU
            out = model.model(inputs_embeds=inputs_embeds, cache=cache, use_cache=True)
            logits, cache = model.lm_head(out.last_hidden_state), out.cache
    return tuple(logits.shape)


def loss(model):
    batch = {"input_ids": torch.randint(0, hf_tiny.VOCAB, (2, 8))}
    batch["labels"] = batch["input_ids"].clone()
    batch = {k: v.to(model.device) for k, v in batch.items()}      # model.device: the first GPU
    logits, _ = logits_of(model, batch["input_ids"])
    shift_logits = logits[:, :-1].flatten(0, 1)
    shift_labels = batch["labels"][:, 1:].flatten()
    if FIXED:
        shift_labels = shift_labels.to(shift_logits.device)
    value = F.cross_entropy(shift_logits, shift_labels)           # the bug: labels on cuda:0
    value.backward()
    return tuple(value.shape)


if __name__ == "__main__":
    model = hf_tiny.split(hf_tiny.llama(), torch.cuda.device_count())
    for name in [a for a in sys.argv[1:] if not a.startswith("--")]:
        try:
            shape = {"host_ids": host_ids, "embed": embed, "loss": loss}[name](model)
        except RuntimeError as e:
            if "--catch" not in sys.argv:
                raise
            print(f"hf_bugs {name}: refused: {e}")
            continue
        print(f"hf_bugs {name}: OK {shape}")
    # PyTorch's exit race (pytorch/pytorch#38228, #190489): an autograd device
    # thread that drops its last Python reference while the interpreter
    # finalizes is pthread_exit-ed through a noexcept frame ("terminate called
    # without an active exception", status 134; one run in about ten of
    # `--fixed ... loss` on 4 simulated GPUs of a loaded machine, gdb: thread
    # pt_autograd_0 in __do_cancel during Py_FinalizeEx).  The threads drain
    # before the program's own exit.
    gc.collect()
    time.sleep(0.2)
