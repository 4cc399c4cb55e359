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
#    GPUs, as on a GPU, Triton's launcher asks the driver for the first
#    decoder layer on cuda:1's hidden states in cuda:0's context, is refused,
#    and raises its ValueError before any launch (the program's `refused`
#    line, exit 4); devcheck reports exactly one pointer_refused: owner
#    cuda:1, current cuda:0, parameter 0 (x), at the launch's line, each
#    tensor of the call with the line that allocated it, the fix.
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

# issue 41: each block names the parameter as the kernel's source does
# (x_ptr, w_ptr, out_ptr: Triton's signature), says who enabled peer access
# (PyTorch, in the user's model call), gives the fix, and fits in a screen
# (library frames folded); verbosity=1 unfolds them
block=$(awk '/^==devcheck==/ { n++ } n == 1' "$TMPD/peer.err")
expect_eq "hf_triton.py with peer access: the first block's operand" \
    "    operand: param 0 (x_ptr), word +0" "$(printf '%s\n' "$block" | grep '^    operand:' | sed 's/ = 0x.*//')"
expect_eq "hf_triton.py with peer access: who enabled it" \
    "    peer access: cuda:0 -> cuda:1 enabled by PyTorch itself, for a copy between the GPUs at $(at "$P" 'model(input_ids=torch.randint') in forward" \
    "$(printf '%s\n' "$block" | grep '^    peer access:')"
printf '%s\n' "$block" | grep -q '^    hint: the kernel runs on cuda:0 but the tensor lives on cuda:1: launch it where its data is (with torch.cuda.device("cuda:1"): around the launch)' ||
    fail "hf_triton.py with peer access: no fix in the hint"
lines=$(printf '%s\n' "$block" | wc -l)
[ "$lines" -le 25 ] || { printf '%s\n' "$block" >&2; fail "hf_triton.py with peer access: a finding's block is $lines lines (at most 25)"; }
printf '%s\n' "$block" | grep -q '^      \.\.\. [0-9]* library frames (accelerate, torch, transformers)$' ||
    fail "hf_triton.py with peer access: no folded library frames"
# ... and so do its JSON record (peer_enabled_by) and SARIF's message
expect_eq "hf_triton.py with peer access: JSON peer_enabled_by" "pytorch $(at "$P" 'model(input_ids=torch.randint') forward" \
    "$(python3 -c 'import json, sys
print(" ".join(sorted({"%s %s:%s %s" % (p["by"], p["at"]["file"].rsplit("/", 1)[-1], p["at"]["line"], p["at"]["function"])
                       for p in (json.loads(l).get("peer_enabled_by") for l in open(sys.argv[1]) if "\"finding\"" in l) if p})))' "$TMPD/peer.json")"
"$DEVCHECK_BIN" report --sarif "$TMPD/peer.sarif" "$TMPD/peer.json" >/dev/null
expect_eq "hf_triton.py with peer access: SARIF messages name who enabled it" "peer_access True" \
    "$(python3 -c 'import json, sys
rs = json.load(open(sys.argv[1]))["runs"][0]["results"]
print(" ".join(sorted({r["ruleId"] for r in rs})), bool(rs) and all(
    "; peer access enabled by PyTorch itself, for a copy between the GPUs at " in r["message"]["text"] and
    "/hf_triton.py:%s in forward." % sys.argv[2] in r["message"]["text"] for r in rs))' "$TMPD/peer.sarif" \
    "$(at "$P" 'model(input_ids=torch.randint' | cut -d: -f2)")"
expect_eq "hf_triton.py with peer access: JSON param names" "out_ptr w_ptr x_ptr" \
    "$(python3 -c 'import json, sys
print(" ".join(sorted({json.loads(l)["operand"].get("param_name", "-") for l in open(sys.argv[1]) if "\"finding\"" in l})))' "$TMPD/peer.json")"

# the call's tensors: x (the hidden states the decoder layer on cuda:1 made,
# the user's line that ran the model), the norm's weight (accelerate's
# dispatch in hf_tiny.split) and out (torch.empty_like in the patched norm)
TENSORS="x@cuda:1@$(at "$P" 'model(input_ids=torch.randint'),self.weight@cuda:1@$(at "$CL/hf_tiny.py" 'return dispatch_model'),out@cuda:1@$(at "$P" 'out = torch.empty_like(x)')"
for n in 2 4; do
    SIMCUDA_PEER=none run nopeer$n $n hf_triton.py
    expect_eq "hf_triton.py without peer access on $n GPUs: status" 4 "$rc"
    expect_grep '^hf_triton: refused: Pointer argument cannot be accessed from Triton \(cpu tensor\?\)$' "$TMPD/nopeer$n.out"
    expect_eq "hf_triton.py without peer access on $n GPUs" "pointer_refused owner=cuda:1 current=cuda:0 param=0 at=$LAUNCH tensors=$TENSORS nvtx=- hint=with torch.cuda.device(x.device): launch the kernel there (every tensor is on cuda:1)
summary errors=1 launches=$(launches nopeer$n)" "$(canon "$TMPD/nopeer$n.json")"
    expect_grep '^==devcheck== ERROR: pointer_refused: triton refused a pointer of cuda:1 with cuda:0 current: Pointer argument cannot be accessed from Triton \(cpu tensor\?\)$' \
        "$TMPD/nopeer$n.err"
    expect_grep "^    parameter 0 \\(x\\) is cuda:1's memory; cuda:0 is current and has no access to it" "$TMPD/nopeer$n.err"
done

SIMCUDA_PEER=none run fixed 4 hf_triton.py --fixed
clean fixed "hf_triton.py --fixed on 4 GPUs without peer access"
expect_grep '^hf_triton: OK devices=4$' "$TMPD/fixed.out"
echo "hf_triton: ok"
