"""Vision-language merge on a real transformers model (MiniCPM-V, GLM-4v,
CogVLM style): a tiny LLaVA (random weights, built from its config, nothing
downloaded) split by accelerate, its vision tower on the last GPU and its
language model on cuda:0.  The program merges the image features into the
text embeddings itself, as those models' own code does, and forgets that the
features are on the vision tower's GPU: PyTorch refuses the masked_scatter,
and devcheck says where each tensor was made and how to fix it.
--fixed: the features are moved to the text embeddings' device first (what
transformers' LlavaModel.forward does)."""
import sys

import torch
from accelerate import dispatch_model
from transformers import CLIPVisionConfig, LlamaConfig, LlavaConfig, LlavaForConditionalGeneration

IMAGE_TOKEN = 127                 # the placeholder of one image feature in the prompt
IMAGE_FEATURES = 17               # (32 / 8)^2 patches and the class token


def tiny_llava():
    torch.manual_seed(0)
    vision = CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                              image_size=32, patch_size=8)
    text = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                       num_key_value_heads=2, vocab_size=128)
    config = LlavaConfig(vision_config=vision, text_config=text, image_token_id=IMAGE_TOKEN,
                         vision_feature_layer=-1, vision_feature_select_strategy="full")
    return LlavaForConditionalGeneration(config).eval()


def merge(model, input_ids, pixel_values, fixed):
    inputs_embeds = model.get_input_embeddings()(input_ids)                # the text model's GPU, cuda:0
    image_features = model.model.get_image_features(pixel_values=pixel_values).pooler_output[0]
    if fixed:
        image_features = image_features.to(inputs_embeds.device)
    image_mask = (input_ids == IMAGE_TOKEN).unsqueeze(-1).to(inputs_embeds.device)
    return inputs_embeds.masked_scatter(image_mask, image_features)


def main():
    tower = torch.cuda.device_count() - 1
    model = dispatch_model(tiny_llava(), {"model.vision_tower": tower, "model.multi_modal_projector": tower,
                                          "model.language_model": 0, "lm_head": 0})
    input_ids = torch.tensor([[1] + [IMAGE_TOKEN] * IMAGE_FEATURES + [5, 6, 7]])   # the processor's prompt
    pixel_values = torch.rand(1, 3, 32, 32)                                        # one image
    with torch.no_grad():
        inputs_embeds = merge(model, input_ids, pixel_values, "--fixed" in sys.argv)
        logits = model(inputs_embeds=inputs_embeds).logits
    print(f"llava_merge: OK {logits.device} {tuple(logits.shape)}")


main()
