#!/bin/sh
# The user's own Triton kernel in the sampling code around a Hugging Face
# model split by accelerate (hf_triton.py temperature: a sampler's
# temperature applied in place to the last logits, launched once with no
# device guard while cuda:0 is current), under the devcheck wrapper, no peer
# access (SIMCUDA_PEER=none):
#  - on 2 and 4 GPUs, as on a GPU, Triton's launcher is refused the logits'
#    device address in cuda:0's context and raises its ValueError before any
#    launch (the program's `refused` line, exit 4); devcheck reports exactly
#    one finding: pointer_refused, owner the last GPU, current cuda:0,
#    parameter 0 (logits), at the launch's line, the logits allocated at the
#    line that made their copy, the fix;
#  - --fixed on 4 GPUs: its OK line, 0 findings.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/clients/hf_lib.sh"
P=$CL/hf_triton.py
TL=$(at "$P" 'temperature_kernel\[(')
for n in 2 4; do
    SIMCUDA_PEER=none run temp$n $n hf_triton.py temperature
    last=$((n - 1))
    expect_eq "hf_triton.py temperature on $n GPUs: status" 4 "$rc"
    expect_grep '^hf_triton: refused: Pointer argument cannot be accessed from Triton \(cpu tensor\?\)$' "$TMPD/temp$n.out"
    expect_eq "hf_triton.py temperature on $n GPUs: one finding" "pointer_refused owner=cuda:$last current=cuda:0 param=0 at=$TL tensors=logits@cuda:$last@$(at "$P" 'last = model.lm_head') nvtx=- hint=logits = logits.to(\"cuda:0\")  (or make cuda:$last current: with torch.cuda.device(logits.device))
summary errors=1 launches=$(launches temp$n)" "$(canon "$TMPD/temp$n.json")"
    expect_grep "^==devcheck== ERROR: pointer_refused: triton refused a pointer of cuda:$last with cuda:0 current: Pointer argument cannot be accessed from Triton \\(cpu tensor\\?\\)\$" \
        "$TMPD/temp$n.err"
done
SIMCUDA_PEER=none run temp_fixed 4 hf_triton.py temperature --fixed
clean temp_fixed "hf_triton.py temperature --fixed on 4 GPUs without peer access"
expect_grep '^hf_triton temperature: OK devices=4$' "$TMPD/temp_fixed.out"
echo "hf_temperature: ok"
