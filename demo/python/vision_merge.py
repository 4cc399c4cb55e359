"""Vision-language merge (GLM-4v, MiniCPM-V, CogVLM): image features computed
on the vision tower's GPU (cuda:1) are concatenated with the text embeddings
on cuda:0.  PyTorch refuses the op on the host; devcheck says where each
tensor was made and how to fix it.  --fixed: the features are moved first."""
import sys

import torch


def vision_tower(pixels):
    return pixels * 2.0                                   # on the tower's GPU, cuda:1


def merge(inputs_embeds, image_features, fixed):
    if fixed:
        image_features = image_features.to(inputs_embeds.device)
    return torch.cat([inputs_embeds, image_features], dim=1)


def main():
    inputs_embeds = torch.zeros(1, 8, 16, device="cuda:0")   # text embeddings
    pixels = torch.ones(1, 4, 16, device="cuda:1")
    image_features = vision_tower(pixels)
    merged = merge(inputs_embeds, image_features, "--fixed" in sys.argv)
    print(f"vision_merge: OK {merged.device} {tuple(merged.shape)}")


main()
