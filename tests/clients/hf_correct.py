"""Correct Hugging Face programs on every visible GPU (tests/clients/hf_sim.sh):
a tiny Llama (hf_tiny.py) placed by accelerate, run through transformers'
own forward, loss and backward.  Each part prints one line; under devcheck
none may give a finding.

    hf_correct.py split       infer_auto_device_map + dispatch_model over
                              all GPUs: forward with labels (transformers'
                              loss), backward (each gradient on its
                              parameter's GPU), then 3 greedy steps by hand
                              with the KV cache, the prompt left on the CPU
                              (accelerate's hooks move it, and bring the
                              logits back to it)
                              -> `hf_correct split: OK devices=N map=D,D,... steps=3`
    hf_correct.py offload     a device_map with "cpu" (the middle layers'
                              weights stay on the CPU and are brought to
                              GPU 0 for each forward), then accelerate's
                              cpu_offload of a whole model onto the last GPU
                              -> `hf_correct offload: OK map=D,D,... cpu_offload=cuda:N`
    hf_correct.py pretrained  save_pretrained into a temporary directory,
                              then from_pretrained(device_map="auto") with
                              an equal share of memory per GPU: every GPU
                              holds a part, the weights come back equal
                              -> `hf_correct pretrained: OK devices=N map=D,D,...`
    hf_correct.py             all three, in one process
"""
import sys
import tempfile

import torch
from accelerate import cpu_offload, dispatch_model
from transformers import AutoModelForCausalLM

import hf_tiny


def devices_of(model):
    return ",".join(str(d) for d in model.hf_device_map.values())


def split():
    n = torch.cuda.device_count()
    model = hf_tiny.split(hf_tiny.llama(), n)
    assert {d for d in model.hf_device_map.values()} == set(range(n)), model.hf_device_map
    ids = torch.randint(0, hf_tiny.VOCAB, (2, 8))                 # the tokenizer's output, on the CPU
    out = model(input_ids=ids, labels=ids)
    assert out.logits.device == ids.device and out.loss.device == ids.device, (out.logits.device, out.loss.device)
    # on this thread: PyTorch's device threads release the graph task after
    # backward() returns, and one that does it while the interpreter finalizes
    # aborts the process (tests/clients/torch_conv.py has the backtrace)
    with torch.autograd.set_multithreading_enabled(False):
        out.loss.backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.device == p.device, name
    model.zero_grad(set_to_none=True)
    with torch.no_grad():                                         # greedy decoding by hand, with the cache
        step = model(input_ids=ids, use_cache=True)
        steps = 0
        for _ in range(3):
            next_id = step.logits[:, -1:].argmax(-1)
            ids = torch.cat([ids, next_id], dim=1)
            step = model(input_ids=next_id, cache=step.cache, use_cache=True)
            steps += 1
    assert ids.shape == (2, 11), ids.shape
    print(f"hf_correct split: OK devices={n} map={devices_of(model)} steps={steps}")


def offload():
    n = torch.cuda.device_count()
    model = hf_tiny.llama()
    device_map = {"model.embed_tokens": 0, "model.rotary_emb": 0, "model.layers.0": 0, "model.layers.1": "cpu",
                  "model.layers.2": "cpu", "model.layers.3": n - 1, "model.norm": n - 1, "lm_head": n - 1}
    model = dispatch_model(model, device_map, main_device=0)
    assert model.model.layers[1].mlp.up_proj.weight.device.type == "meta"
    ids = torch.randint(0, hf_tiny.VOCAB, (1, 8))
    with torch.no_grad():
        logits = model(input_ids=ids).logits
    assert logits.shape == (1, 8, hf_tiny.VOCAB) and logits.device == ids.device

    whole = cpu_offload(hf_tiny.llama(), execution_device=torch.device(n - 1))
    with torch.no_grad():
        logits = whole(input_ids=ids.to(n - 1)).logits
    assert logits.device == torch.device(n - 1), logits.device
    print(f"hf_correct offload: OK map={devices_of(model)} cpu_offload={logits.device}")


def pretrained():
    n = torch.cuda.device_count()
    model = hf_tiny.llama()
    max_memory = hf_tiny.balanced_memory(model, n, ("LlamaDecoderLayer",))
    with tempfile.TemporaryDirectory() as d:
        model.save_pretrained(d)
        loaded = AutoModelForCausalLM.from_pretrained(d, device_map="auto", max_memory=max_memory)
    assert {d for d in loaded.hf_device_map.values()} == set(range(n)), loaded.hf_device_map
    mine = model.state_dict()
    for name, p in loaded.state_dict().items():
        assert torch.equal(p.cpu(), mine[name]), name
    with torch.no_grad():
        logits = loaded(input_ids=torch.randint(0, hf_tiny.VOCAB, (1, 8))).logits
    assert logits.shape == (1, 8, hf_tiny.VOCAB)
    print(f"hf_correct pretrained: OK devices={n} map={devices_of(loaded)}")


if __name__ == "__main__":
    parts = {"split": split, "offload": offload, "pretrained": pretrained}
    for part in sys.argv[1:] or parts:
        parts[part]()
