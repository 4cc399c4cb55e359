#!/bin/sh
# The user's placement bugs around a Hugging Face model split by accelerate
# (hf_bugs.py: host_ids, embed, loss), under the devcheck wrapper:
#  - on 2 simulated GPUs, each bug uncaught: PyTorch's own RuntimeError and
#    exit status 1, unchanged, and exactly one framework_device_error: at the
#    line marked `# the bug`, each tensor named as the program names it, with
#    its device (the lm_head's GPU, cuda:0 where the embedding table and
#    model.device are, the CPU) and the line that allocated it (a CPU
#    tensor's making line), and the fix;
#  - on 4 simulated GPUs, the three caught in one process (--catch): the
#    same three findings, the lm_head's GPU now cuda:3;
#  - --fixed, the three in one process on 4 GPUs: their OK lines, 0 findings.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/clients/hf_lib.sh"
P=$CL/hf_bugs.py
bug_line() { at "$P" "# the bug: $1"; }
want() {    # want NAME LAST: the canonical line of bug NAME with the lm_head on cuda:LAST
    case $1 in
        host_ids) echo "framework_device_error at=$(bug_line targets) tensors=logp@cuda:$2@$(at "$P" 'logp = logits.log_softmax'),targets@cpu@made:$(at "$P" 'targets = input_ids\[') nvtx=- hint=targets = targets.to(logp.device)" ;;
        embed) echo "framework_device_error at=$(bug_line ids) tensors=table@cuda:0@$(at "$CL/hf_tiny.py" 'return dispatch_model'),next_id@cuda:$2@$(at "$P" 'next_id = logits\[') nvtx=- hint=next_id = next_id.to(table.device)" ;;
        loss) echo "framework_device_error at=$(bug_line labels) tensors=shift_logits@cuda:$2@$(at "$P" 'shift_logits = logits'),shift_labels@cuda:0@$(at "$P" 'shift_labels = batch') nvtx=- hint=shift_labels = shift_labels.to(shift_logits.device)" ;;
    esac
}
message() { # message NAME LAST: PyTorch's refusal
    case $1 in
        host_ids) echo "Expected all tensors to be on the same device, but got index is on cpu, different from other tensors on cuda:$2 (when checking argument in method wrapper_CUDA_gather)" ;;
        embed) echo "Expected all tensors to be on the same device, but got index is on cuda:$2, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA__index_select)" ;;
        loss) echo "Expected all tensors to be on the same device, but got target is on cuda:0, different from other tensors on cuda:$2 (when checking argument in method wrapper_CUDA_nll_loss_forward)" ;;
    esac
}
for b in host_ids embed loss; do
    run $b 2 hf_bugs.py $b
    expect_eq "hf_bugs.py $b: status (PyTorch's error, unchanged)" 1 "$rc"
    grep -Fxq "RuntimeError: $(message $b 1)" "$TMPD/$b.err" ||
        { sed 's/^/    > /' "$TMPD/$b.err" >&2; fail "hf_bugs.py $b: not PyTorch's refusal"; }
    expect_eq "hf_bugs.py $b on 2 GPUs" "$(want $b 1)
summary errors=1 launches=$(launches $b)" "$(canon "$TMPD/$b.json")"
done

run caught 4 hf_bugs.py --catch host_ids embed loss
expect_eq "hf_bugs.py --catch: status" 0 "$rc"
for b in host_ids embed loss; do
    grep -Fxq "hf_bugs $b: refused: $(message $b 3)" "$TMPD/caught.out" ||
        { sed 's/^/    > /' "$TMPD/caught.out" >&2; fail "hf_bugs.py --catch $b: not PyTorch's refusal"; }
done
expect_eq "hf_bugs.py --catch on 4 GPUs" "$(want host_ids 3)
$(want embed 3)
$(want loss 3)
summary errors=3 launches=$(launches caught)" "$(canon "$TMPD/caught.json")"

run fixed 4 hf_bugs.py --fixed host_ids embed loss
clean fixed "hf_bugs.py --fixed on 4 GPUs"
expect_eq "hf_bugs.py --fixed: OK lines" "hf_bugs host_ids: OK (2, 7, 1)
hf_bugs embed: OK (1, 1, 128)
hf_bugs loss: OK ()" "$(cat "$TMPD/fixed.out")"
echo "hf_bugs: ok"
