#!/bin/sh
# PyTorch's own device errors explained (framework_device_error), on the
# seeds of demo/python/ under the wrapper (caching allocator off by default):
# each buggy program dies of PyTorch's error as it would without devcheck,
# and devcheck's JSON names the op's line, each tensor as the script names
# it with its device and the .py line that allocated it, and the fix; the
# text block on stderr says the same.  Each fixed twin runs to its OK line
# with no framework_device_error.  With
# --framework-caching the tensors' memory is a caching allocator's segment
# ("in a segment allocated at").  (That a fixed twin gives no finding at all
# is the precision work's: PyTorch's kernels carry stale words.)  A program that does not import torch runs
# with devcheck's sitecustomize chained to the program's own, untouched.
. "$ROOT/tests/lib.sh"
need_pyenv
DEVCHECK=$BUILD/bin/devcheck
D=$ROOT/demo/python
canon() { python3 "$ROOT/tests/clients/pyfindings.py" "$1" || fail "no JSON report: $1"; }
at() { echo "$(basename "$1"):$(grep -n "$2" "$1" | head -n 1 | cut -d: -f1)"; }
seed() {    # seed NAME WANT
    name=$1 want=$2
    "$DEVCHECK" --json "$TMPD/$name.json" -- "$PY" "$D/$name.py" >"$TMPD/$name.out" 2>"$TMPD/$name.err"
    rc=$?
    expect_eq "$name: status (PyTorch's error, unchanged)" 1 "$rc"
    expect_grep "^RuntimeError: Expected all tensors to be on the same device" "$TMPD/$name.err"
    expect_eq "$name" "$want" "$(canon "$TMPD/$name.json" | grep '^framework_device_error')"
    expect_grep '^==devcheck== ERROR: framework_device_error: torch refused an op over devices: Expected all tensors' \
        "$TMPD/$name.err"
    "$DEVCHECK" --json "$TMPD/$name.fixed.json" -- "$PY" "$D/$name.py" --fixed >"$TMPD/$name.fixed.out" 2>&1 ||
        { tail "$TMPD/$name.fixed.out" >&2; fail "$name --fixed failed"; }
    expect_grep "^$name: OK" "$TMPD/$name.fixed.out"
    canon "$TMPD/$name.fixed.json" | grep '^framework_device_error' &&
        fail "$name --fixed: devcheck reported the fixed program"
    return 0
}
VM=$D/vision_merge.py EL=$D/embedding_lookup.py CE=$D/cross_entropy.py HT=$D/host_tokens.py
seed vision_merge "framework_device_error at=$(at "$VM" 'torch.cat') tensors=inputs_embeds@cuda:0@$(at "$VM" 'inputs_embeds = torch.zeros'),image_features@cuda:1@$(at "$VM" 'return pixels \* 2.0') nvtx=- hint=image_features = image_features.to(inputs_embeds.device)"
seed embedding_lookup "framework_device_error at=$(at "$EL" 'hidden = embed_tokens(input_ids)') tensors=embed_tokens.weight@cuda:0@$(at "$EL" 'embed_tokens = torch.nn.Embedding'),input_ids@cuda:1@$(at "$EL" 'torch.arange') nvtx=- hint=input_ids = input_ids.to(embed_tokens.weight.device)"
seed cross_entropy "framework_device_error at=$(at "$CE" 'loss = F.cross_entropy') tensors=logits@cuda:3@$(at "$CE" 'return hidden.sum'),labels@cuda:1@$(at "$CE" 'labels = torch.zeros') nvtx=- hint=labels = labels.to(logits.device)"
seed host_tokens "framework_device_error at=$(at "$HT" 'out = model(input_ids)') tensors=model[0].weight@cuda:0@$(at "$HT" 'model = torch.nn.Sequential'),input_ids@cpu@- nvtx=- hint=input_ids = input_ids.to(model[0].weight.device)"
# the text block: each tensor's allocation line, the fix
expect_grep '^      image_features: cuda:1, allocated at .*vision_merge.py:[0-9]+ in vision_tower$' "$TMPD/vision_merge.err"
expect_grep '^    hint: put every tensor of the op on one device: image_features = image_features.to\(inputs_embeds.device\)$' \
    "$TMPD/vision_merge.err"

python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/report/finding.schema.json" "$TMPD"/*.json ||
    fail "JSON records do not match report/finding.schema.json"

# caching kept: a segment
"$DEVCHECK" --framework-caching --json "$TMPD/seg.json" -- "$PY" "$VM" >/dev/null 2>"$TMPD/seg.err"
expect_grep '^      image_features: cuda:1, in a segment allocated at ' "$TMPD/seg.err"
python3 - "$TMPD/seg.json" <<'PY' || fail "--framework-caching: tensors not marked alloc_segment"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
f = [r for r in recs if r.get("kind") == "framework_device_error"][0]
sys.exit(0 if all(t.get("alloc_segment") for t in f["tensors"]) else 1)
PY

# no torch: untouched, the program's own sitecustomize still runs
mkdir -p "$TMPD/site"
echo 'import builtins; builtins.OWN_SITECUSTOMIZE = 1' >"$TMPD/site/sitecustomize.py"
cat >"$TMPD/plain.py" <<'PY'
import builtins, sys
print("own sitecustomize:", getattr(builtins, "OWN_SITECUSTOMIZE", 0), "torch:", "torch" in sys.modules)
raise RuntimeError("Expected all tensors to be on the same device (not torch's)")
PY
PYTHONPATH=$TMPD/site "$DEVCHECK" --json "$TMPD/plain.json" -- "$PY" "$TMPD/plain.py" >"$TMPD/plain.out" 2>"$TMPD/plain.err"
expect_eq "no torch: status" 1 $?
expect_grep '^own sitecustomize: 1 torch: False$' "$TMPD/plain.out"
grep -qs framework_device_error "$TMPD/plain.json" "$TMPD/plain.err" && fail "a program without torch got a framework finding"
exit 0
