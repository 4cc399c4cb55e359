"""Tiny Hugging Face models for the tests of tests/clients/hf_*.py and the
demo's vision-language act: built from configs in the process (random
weights, nothing downloaded), small enough that a forward pass on the
simulated GPUs takes a fraction of a second.

    llama()            a LlamaForCausalLM: hidden 64, 4 decoder layers,
                       vocabulary 128
    split(model, n, classes)
                       accelerate's infer_auto_device_map over GPUs 0..n-1,
                       each given an equal share of the model's size (plus
                       its largest block), so that every GPU holds a part,
                       then dispatch_model
"""
import torch
from accelerate import dispatch_model, infer_auto_device_map
from accelerate.utils import compute_module_sizes
from transformers import LlamaConfig, LlamaForCausalLM

VOCAB = 128


def llama_config(layers=4):
    return LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=layers, num_attention_heads=4,
                       num_key_value_heads=2, vocab_size=VOCAB, max_position_embeddings=64)


def llama(layers=4):
    torch.manual_seed(0)
    return LlamaForCausalLM(llama_config(layers)).eval()


def balanced_memory(model, n, classes):
    """An equal share of the model for each of GPUs 0..n-1, plus the
    largest block that cannot be split (infer_auto_device_map keeps room
    for it): every GPU gets a part."""
    sizes = compute_module_sizes(model)
    block = max([sizes[name] for name, m in model.named_modules() if type(m).__name__ in classes] or [0])
    return {i: sizes[""] // n + block for i in range(n)}


def split(model, n, classes=("LlamaDecoderLayer",)):
    device_map = infer_auto_device_map(model, max_memory=balanced_memory(model, n, classes),
                                      no_split_module_classes=list(classes))
    return dispatch_model(model, device_map)
