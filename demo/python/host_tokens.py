"""Inputs left on the host: the tokenizer's output never moved to the model's
device (cuda:0).  --fixed: the ids are moved to the embedding's device."""
import sys

import torch


def main():
    model = torch.nn.Sequential(torch.nn.Embedding(100, 16), torch.nn.ReLU()).to("cuda:0")
    input_ids = torch.tensor([[5, 6, 7, 8]])                  # the tokenizer's output, on the CPU
    if "--fixed" in sys.argv:
        input_ids = input_ids.to("cuda:0")
    out = model(input_ids)
    print(f"host_tokens: OK {out.device} {tuple(out.shape)}")


main()
