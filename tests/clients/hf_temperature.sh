#!/bin/sh
# The user's own Triton kernel in the sampling code around a Hugging Face
# model split by accelerate (hf_triton.py temperature: a sampler's
# temperature applied in place to the last logits, launched once with no
# device guard while cuda:0 is current), under the devcheck wrapper, no peer
# access (SIMCUDA_PEER=none):
#  - on 2 and 4 GPUs exactly one finding: device_mismatch error on
#    temperature_kernel's param 0, launched on cuda:0, owned by the last
#    GPU, at the launch's line, allocated at the line that made the logits'
#    copy; then the illegal memory access (exit 3);
#  - --fixed on 4 GPUs: its OK line, 0 findings.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/clients/hf_lib.sh"
P=$CL/hf_triton.py
TL=$(at "$P" 'temperature_kernel\[(')
for n in 2 4; do
    SIMCUDA_PEER=none run temp$n $n hf_triton.py temperature
    expect_eq "hf_triton.py temperature on $n GPUs: status" 3 "$rc"
    expect_grep '^hf_triton: fault: CUDA error: an illegal memory access was encountered$' "$TMPD/temp$n.out"
    expect_eq "hf_triton.py temperature on $n GPUs" "device_mismatch error call=temperature_kernel operand=p0 launch=0 owner=$((n - 1)) at=$TL
summary errors=1 launches=$(launches temp$n)" "$(facts "$TMPD/temp$n.json")"
    expect_eq "hf_triton.py temperature on $n GPUs: one finding" "device_mismatch kernel=temperature_kernel launch=$TL alloc=$(at "$P" 'last = model.lm_head') nvtx=-
summary errors=1 launches=$(launches temp$n)" "$(canon "$TMPD/temp$n.json")"
done
SIMCUDA_PEER=none run temp_fixed 4 hf_triton.py temperature --fixed
clean temp_fixed "hf_triton.py temperature --fixed on 4 GPUs without peer access"
expect_grep '^hf_triton temperature: OK devices=4$' "$TMPD/temp_fixed.out"
echo "hf_temperature: ok"
