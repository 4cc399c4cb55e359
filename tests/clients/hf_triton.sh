#!/bin/sh
# A Triton RMSNorm patched into a Hugging Face Llama split by accelerate
# (hf_triton.py, Liger-Kernel's pattern), launched without a device guard
# while cuda:0 is current, under the devcheck wrapper:
#  - every pair of GPUs can peer (a GPU machine with NVLink or P2P over
#    PCIe; the sim's default): accelerate's copies between the GPUs make
#    PyTorch enable peer access, so the kernels on cuda:0 read cuda:1's
#    tensors legally, across the interconnect: the forward completes (exit
#    0) and devcheck warns, peer_access on rms_norm_kernel's params 0
#    (x_ptr), 1 (w_ptr) and 2 (out_ptr), launched on cuda:0, owned by cuda:1,
#    at the launch's line, and nothing else;
#  - no pair can peer (SIMCUDA_PEER=none; a machine without P2P): on 2 and 4
#    GPUs, the launches carry another GPU's tensors with no access: one
#    device_mismatch error per parameter and owner GPU (cuda:1; on 4 GPUs
#    cuda:1 and cuda:2, where the layers with RMSNorms are) at the launch's
#    line, and the forward fails with the illegal memory access (exit 3).
#    (Pending, issue 36: with the sim answering pointer queries as the
#    driver does, Triton refuses before launching with its ValueError, and
#    devcheck explains the refusal at the user's line.)
#  - --fixed (torch.cuda.device(x.device) around the launch), 4 GPUs, no
#    peer: the forward completes, 0 findings.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/clients/hf_lib.sh"
P=$CL/hf_triton.py
LAUNCH=$(at "$P" 'rms_norm_kernel\[(')
# operand_facts KIND SEVERITY OWNER...: the facts for params 0-2 and each owner GPU
operand_facts() {
    kind=$1 sev=$2; shift 2
    for p in 0 1 2; do
        for o in "$@"; do
            echo "$kind $sev call=rms_norm_kernel operand=p$p launch=0 owner=$o at=$LAUNCH"
        done
    done
}

SIMCUDA_PEER=all run peer 2 hf_triton.py
[ $rc = 0 ] || { sed 's/^/    > /' "$TMPD/peer.err" >&2; fail "hf_triton.py with peer access: exit status $rc"; }
expect_grep '^hf_triton: OK devices=2$' "$TMPD/peer.out"
expect_eq "hf_triton.py with peer access" "$(operand_facts peer_access warning 1)
summary errors=0 launches=$(launches peer)" "$(facts "$TMPD/peer.json")"

for n in 2 4; do
    owners=1
    [ $n = 4 ] && owners="1 2"
    SIMCUDA_PEER=none run nopeer$n $n hf_triton.py
    expect_eq "hf_triton.py without peer access on $n GPUs: status" 3 "$rc"
    expect_grep '^hf_triton: fault: CUDA error: an illegal memory access was encountered$' "$TMPD/nopeer$n.out"
    errors=$(sed -n 's/.*"errors":\([0-9]*\).*/\1/p' "$TMPD/nopeer$n.json" | tail -n 1)
    expect_eq "hf_triton.py without peer access on $n GPUs" "$(operand_facts device_mismatch error $owners)
summary errors=$errors launches=$(launches nopeer$n)" "$(facts "$TMPD/nopeer$n.json")"
done

SIMCUDA_PEER=none run fixed 4 hf_triton.py --fixed
clean fixed "hf_triton.py --fixed on 4 GPUs without peer access"
expect_grep '^hf_triton: OK devices=4$' "$TMPD/fixed.out"
echo "hf_triton: ok"
