"""Loss on a model split with device_map="auto" (GLM-4 fine-tuning): the
logits come out of the last GPU (cuda:3), the labels were put on cuda:1.
--fixed: the labels are moved to the logits' device."""
import sys

import torch
import torch.nn.functional as F


def lm_head(hidden):
    return hidden.sum(dim=1, keepdim=True) + torch.zeros(1, 32, device=hidden.device)   # logits, on the last stage's GPU


def main():
    hidden = torch.zeros(4, 16, device="cuda:3")
    logits = lm_head(hidden)
    labels = torch.zeros(4, dtype=torch.long, device="cuda:1")
    if "--fixed" in sys.argv:
        labels = labels.to(logits.device)
    loss = F.cross_entropy(logits, labels)
    print(f"cross_entropy: OK {loss.device}")


main()
