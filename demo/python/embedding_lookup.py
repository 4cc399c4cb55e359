"""Embedding lookup (BERT in privateGPT, Gemma2): the token ids are on cuda:1,
the embedding table on cuda:0.  --fixed: the ids are moved to the table's
device first."""
import sys

import torch


def tokenize(n, device):
    return torch.arange(n, device=device).reshape(1, n)    # token ids


def main():
    embed_tokens = torch.nn.Embedding(100, 16).to("cuda:0")
    input_ids = tokenize(6, "cuda:1")
    if "--fixed" in sys.argv:
        input_ids = input_ids.to(embed_tokens.weight.device)
    hidden = embed_tokens(input_ids)
    print(f"embedding_lookup: OK {hidden.device} {tuple(hidden.shape)}")


main()
