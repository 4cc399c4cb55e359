#!/bin/sh
# Hugging Face programs (transformers, accelerate; tiny models built from
# their configs, nothing downloaded) under `devcheck --sim 2` and `--sim 4`:
#  - hf_correct.py: a Llama split by infer_auto_device_map + dispatch_model
#    over every GPU (forward, transformers' loss, backward, 3 greedy steps
#    by hand with the KV cache), a device_map with "cpu" and accelerate's
#    cpu_offload, from_pretrained(device_map="auto") of a model saved to a
#    temporary directory: each part's OK line with its device map (every
#    GPU holds a part), exit 0, 0 findings, no devcheck report;
#  - demo/python/llava_merge.py: a tiny LLaVA (CLIP vision tower on the
#    last GPU, convolution through the sim's cuDNN; Llama language model on
#    cuda:0), image features merged into the text embeddings by the
#    program: PyTorch's masked_scatter refusal (exit 1) explained as one
#    framework_device_error at the merge's line, naming inputs_embeds
#    (cuda:0), image_mask (cuda:0) and image_features (the tower's GPU) with
#    the lines that made them, and the fix; --fixed (on 4 GPUs): its OK
#    line, 0 findings.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/clients/hf_lib.sh"
VM=$ROOT/demo/python/llava_merge.py
for n in 2 4; do
    last=$((n - 1))
    run correct$n $n hf_correct.py
    clean correct$n "hf_correct.py on $n GPUs"
    case $n in
        2) map=0,0,0,1,1,1,1,1 ;;
        4) map=0,1,1,2,2,2,2,3 ;;
    esac
    expect_grep "^hf_correct split: OK devices=$n map=$map steps=3\$" "$TMPD/correct$n.out"
    expect_grep "^hf_correct offload: OK map=0,0,0,cpu,cpu,$last,$last,$last cpu_offload=cuda:$last\$" \
        "$TMPD/correct$n.out"
    expect_grep "^hf_correct pretrained: OK devices=$n map=$map\$" "$TMPD/correct$n.out"

    run llava$n $n "$VM"
    expect_eq "llava_merge.py on $n GPUs: status (PyTorch's error, unchanged)" 1 "$rc"
    expect_grep "^RuntimeError: Expected all tensors to be on the same device, but got source is on cuda:$last, different from other tensors on cuda:0 \(when checking argument in method wrapper_CUDA__masked_scatter_\)\$" \
        "$TMPD/llava$n.err"
    expect_eq "llava_merge.py on $n GPUs" \
        "framework_device_error at=$(at "$VM" 'return inputs_embeds.masked_scatter') tensors=inputs_embeds@cuda:0@$(at "$VM" 'inputs_embeds = model.get_input_embeddings'),image_mask@cuda:0@$(at "$VM" 'image_mask = (input_ids'),image_features@cuda:$last@$(at "$VM" 'image_features = model.model.get_image_features') nvtx=- hint=image_features = image_features.to(inputs_embeds.device)
summary errors=1 launches=$(launches llava$n)" \
        "$(canon "$TMPD/llava$n.json")"
done
run llava_fixed 4 "$VM" --fixed
clean llava_fixed "llava_merge.py --fixed on 4 GPUs"
expect_grep '^llava_merge: OK cuda:0 \(1, 21, 128\)$' "$TMPD/llava_fixed.out"
echo "hf_sim: ok"
