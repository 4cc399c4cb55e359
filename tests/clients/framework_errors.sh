#!/bin/sh
# PyTorch's own device errors explained (framework_device_error), on the
# four seeds of demo/python/ under the wrapper, where they are raised:
#  - uncaught: each buggy program dies of PyTorch's error as it would without
#    devcheck (status 1), and devcheck's JSON leads with the user's line
#    (`at`), names each tensor as the script names it (model[0].weight), with
#    its device and the .py line that allocated it (a CPU tensor: the line
#    that made it), and the fix; the text block says the same; the note is
#    on the exception (in the traceback), explained once (count 1: the
#    excepthook does not explain it again).  Each fixed twin runs to its OK
#    line with no framework_device_error.
#  - under pytest (the four seeds as parametrized tests in one session): the
#    note in each failure report, the same four findings;
#  - in IPython (%run of each seed, one session fed on stdin): the note under
#    each traceback, the same four findings;
#  - swallowed by try/except, three times per seed (a server's request loop):
#    the program sees the same exception type, message and traceback lines as
#    without devcheck, each exception carries one note, and each finding is
#    counted 3 times; torch errors that are not device errors and Python
#    exceptions in a loop get no note and no finding.
#  - a device error raised by Python code (not through torch's C++), uncaught:
#    explained by the excepthook, after the traceback.
#  - a model whose code is in site-packages and that says where it is
#    (`model.device`, as a Hugging Face model does): the report leads with the
#    script's `model(input_ids)`, names `model.embed_tokens.weight` (module
#    `model`) and gives `input_ids = input_ids.to(model.device)`.
# PyTorch's caching allocator is on (the wrapper changes nothing in how the
# program allocates): each tensor's allocation line is its own block's
# (core/owner/blocks.h), never the segment's; with caching turned off by the
# program's own environment (PYTORCH_NO_CUDA_MEMORY_CACHING=1, passed on)
# the finding is the same.  (That a fixed twin gives no finding at all
# is the precision work's: PyTorch's kernels carry stale words.)  A program that does not import torch runs
# with devcheck's sitecustomize chained to the program's own, untouched.
. "$ROOT/tests/lib.sh"
need_pyenv
DEVCHECK=$BUILD/bin/devcheck
D=$ROOT/demo/python
canon() { python3 "$ROOT/tests/clients/pyfindings.py" "$1" || fail "no JSON report: $1"; }
# count FILE SEED.py: the count of the framework finding whose user line is in SEED.py
count() {
    python3 - "$1" "$2" <<'PY'
import json, os, sys
recs = {}
for l in open(sys.argv[1]):
    if l.strip():
        r = json.loads(l)
        if r.get("kind") == "framework_device_error" and os.path.basename((r.get("at") or {}).get("file", "")) == sys.argv[2]:
            recs[r["id"]] = r
print(",".join(str(r["count"]) for r in recs.values()) or 0)
PY
}
at() { echo "$(basename "$1"):$(grep -n "$2" "$1" | head -n 1 | cut -d: -f1)"; }
seed() {    # seed NAME WANT
    name=$1 want=$2
    "$DEVCHECK" --json "$TMPD/$name.json" -- "$PY" "$D/$name.py" \
        >"$TMPD/$name.out" 2>"$TMPD/$name.err"
    rc=$?
    expect_eq "$name: status (PyTorch's error, unchanged)" 1 "$rc"
    expect_grep "^RuntimeError: Expected all tensors to be on the same device" "$TMPD/$name.err"
    expect_eq "$name" "$want" "$(canon "$TMPD/$name.json" | grep '^framework_device_error')"
    expect_grep '^==devcheck== ERROR: framework_device_error: torch refused an op over devices: Expected all tensors' \
        "$TMPD/$name.err"
    # the note, right under PyTorch's message in the traceback, one line
    # pointing at the report printed above it on the same stream: the
    # explanation printed once (issue 41), its fix in the report
    grep -A1 '^RuntimeError: Expected all tensors' "$TMPD/$name.err" | tail -n 1 |
        grep -q "^devcheck: framework_device_error: the op's tensors are on different devices (devcheck's report above)$" ||
        fail "$name: no devcheck note under the exception"
    grep -Fxq "    hint: put every tensor of the op on one device: ${want##*hint=}" "$TMPD/$name.err" ||
        fail "$name: the report gives no fix"
    grep -q '^  fix: ' "$TMPD/$name.err" && fail "$name: the explanation printed twice (the report, then the note)"
    expect_eq "$name: count (explained once)" 1 "$(count "$TMPD/$name.json" "$name.py")"
    # no kernel ran: the summary counts the op, not "0 kernels" (issue 41)
    expect_grep '^devcheck: SUMMARY: 1 finding \(1 error, 0 warnings\) in 1 framework op; ' "$TMPD/$name.err"
    "$DEVCHECK" --json "$TMPD/$name.fixed.json" -- "$PY" "$D/$name.py" --fixed >"$TMPD/$name.fixed.out" 2>&1 ||
        { tail "$TMPD/$name.fixed.out" >&2; fail "$name --fixed failed"; }
    expect_grep "^$name: OK" "$TMPD/$name.fixed.out"
    canon "$TMPD/$name.fixed.json" | grep '^framework_device_error' &&
        fail "$name --fixed: devcheck reported the fixed program"
    return 0
}
VM=$D/vision_merge.py EL=$D/embedding_lookup.py CE=$D/cross_entropy.py HT=$D/host_tokens.py
WANT_vision_merge="framework_device_error at=$(at "$VM" 'torch.cat') tensors=inputs_embeds@cuda:0@$(at "$VM" 'inputs_embeds = torch.zeros'),image_features@cuda:1@$(at "$VM" 'return pixels \* 2.0') nvtx=- hint=image_features = image_features.to(inputs_embeds.device)"
WANT_embedding_lookup="framework_device_error at=$(at "$EL" 'hidden = embed_tokens(input_ids)') tensors=embed_tokens.weight@cuda:0@$(at "$EL" 'embed_tokens = torch.nn.Embedding'),input_ids@cuda:1@$(at "$EL" 'torch.arange') nvtx=- hint=input_ids = input_ids.to(embed_tokens.weight.device)"
WANT_cross_entropy="framework_device_error at=$(at "$CE" 'loss = F.cross_entropy') tensors=logits@cuda:3@$(at "$CE" 'return hidden.sum'),labels@cuda:1@$(at "$CE" 'labels = torch.zeros') nvtx=- hint=labels = labels.to(logits.device)"
WANT_host_tokens="framework_device_error at=$(at "$HT" 'out = model(input_ids)') tensors=model[0].weight@cuda:0@$(at "$HT" 'model = torch.nn.Sequential'),input_ids@cpu@made:$(at "$HT" 'input_ids = torch.tensor') nvtx=- hint=input_ids = input_ids.to(model[0].weight.device)"
SEEDS="vision_merge embedding_lookup cross_entropy host_tokens"
for name in $SEEDS; do
    eval "seed $name \"\$WANT_$name\""
done
# the lead: the user's statement, with its source
expect_grep '^    at demo/python/host_tokens.py:[0-9]+ in main: out = model\(input_ids\)$' "$TMPD/host_tokens.err"
expect_grep '^      input_ids: cpu, made at demo/python/host_tokens.py:[0-9]+ in main$' "$TMPD/host_tokens.err"
# the text block: each tensor's allocation line, the fix
expect_grep '^      image_features: cuda:1, allocated at .*vision_merge.py:[0-9]+ in vision_tower$' "$TMPD/vision_merge.err"
expect_grep '^    hint: put every tensor of the op on one device: image_features = image_features.to\(inputs_embeds.device\)$' \
    "$TMPD/vision_merge.err"

# same_findings FILE WHAT: FILE's framework findings are the four seeds' (in any order)
same_findings() {
    for name in $SEEDS; do eval "echo \"\$WANT_$name\""; done | sort >"$TMPD/want.canon"
    canon "$1" | grep '^framework_device_error' | sort >"$TMPD/got.canon"
    diff -u "$TMPD/want.canon" "$TMPD/got.canon" >&2 || fail "$2: not the seeds' findings"
}
# notes FILE WHAT PREFIX: each seed's note (its fix) in FILE, each line after PREFIX
notes() {
    for name in $SEEDS; do
        eval "w=\$WANT_$name"
        grep -Eq "^$3devcheck: framework_device_error: the op's tensors are on different devices\$" "$1" ||
            fail "$2: no devcheck note"
        grep -Fq "fix: ${w##*hint=}" "$1" || fail "$2: no note with the fix for $name"
    done
}

# pytest catches every exception: the note is in each failure report
cat >"$TMPD/test_seeds.py" <<PY
import runpy, sys
import pytest

@pytest.mark.parametrize("name", "$SEEDS".split())
def test_seed(name, monkeypatch):
    monkeypatch.setattr(sys, "argv", [name])
    runpy.run_path("$D/%s.py" % name, run_name="__main__")
PY
"$DEVCHECK" --json "$TMPD/pytest.json" -- "$PY" -m pytest -q -p no:cacheprovider "$TMPD/test_seeds.py" \
    >"$TMPD/pytest.out" 2>"$TMPD/pytest.err"
expect_eq "pytest: status (the tests failed)" 1 "$?"
expect_grep '^4 failed' "$TMPD/pytest.out"
expect_eq "pytest: notes" 4 "$(grep -Ec "^E +devcheck: framework_device_error: the op's tensors are on different devices\$" "$TMPD/pytest.out")"
notes "$TMPD/pytest.out" pytest 'E +'
same_findings "$TMPD/pytest.json" pytest

# IPython never calls sys.excepthook: %run of each seed in one session
for name in $SEEDS; do echo "%run $D/$name.py"; done >"$TMPD/cells"
echo 'print("ipython: done")' >>"$TMPD/cells"
IPYTHONDIR=$TMPD/ipython "$DEVCHECK" --json "$TMPD/ipython.json" -- "$PY" -m IPython --simple-prompt --no-banner \
    --colors=nocolor <"$TMPD/cells" >"$TMPD/ipython.out" 2>"$TMPD/ipython.err" ||
    { tail "$TMPD/ipython.err" >&2; fail "ipython failed"; }
expect_grep 'ipython: done' "$TMPD/ipython.out"
expect_eq "ipython: notes" 4 "$(grep -c "^devcheck: framework_device_error: the op's tensors are on different devices\$" "$TMPD/ipython.out")"
notes "$TMPD/ipython.out" ipython ''
same_findings "$TMPD/ipython.json" ipython

# swallowed, three requests per seed; unrelated errors in a loop
cat >"$TMPD/swallow.py" <<'PY'
import runpy, sys, traceback
import torch
seeds, requests = sys.argv[1], int(sys.argv[2])
for name in sys.argv[3:]:
    for request in range(requests):
        sys.argv = [name]
        try:
            runpy.run_path("%s/%s.py" % (seeds, name), run_name="__main__")
        except Exception as e:
            tb = [(f.filename.rsplit("/", 1)[-1], f.lineno, f.name) for f in traceback.extract_tb(e.__traceback__)]
            print("caught", name, request, type(e).__name__, str(e), tb)
            print("notes", name, request, len([n for n in getattr(e, "__notes__", []) if n.startswith("devcheck: ")]))
unrelated = 0
for i in range(50):
    for bad in (lambda: torch.zeros(2)[5], lambda: torch.zeros(2) + torch.zeros(3), lambda: {}["k"]):
        try:
            bad()
        except (IndexError, RuntimeError, KeyError) as e:
            unrelated += len(getattr(e, "__notes__", []))
print("swallow: done, notes on unrelated errors:", unrelated)
PY
"$DEVCHECK" --json "$TMPD/swallow.json" -- "$PY" "$TMPD/swallow.py" "$D" 3 $SEEDS >"$TMPD/swallow.out" 2>"$TMPD/swallow.err" ||
    { tail "$TMPD/swallow.err" >&2; fail "swallow.py failed under devcheck"; }
on_sim_rt "$PY" "$TMPD/swallow.py" "$D" 3 $SEEDS >"$TMPD/swallow.plain.out" 2>"$TMPD/swallow.plain.err" ||
    { tail "$TMPD/swallow.plain.err" >&2; fail "swallow.py failed without devcheck"; }
expect_grep '^swallow: done, notes on unrelated errors: 0$' "$TMPD/swallow.out"
grep '^caught' "$TMPD/swallow.out" >"$TMPD/caught"
grep '^caught' "$TMPD/swallow.plain.out" >"$TMPD/caught.plain"
expect_eq "swallow: exceptions caught" 12 "$(wc -l <"$TMPD/caught")"
diff -u "$TMPD/caught.plain" "$TMPD/caught" >&2 || fail "swallow: the exceptions differ from those without devcheck"
expect_eq "swallow: one note per exception" 12 "$(grep -c '^notes .* 1$' "$TMPD/swallow.out")"
expect_eq "swallow: no note without devcheck" 12 "$(grep -c '^notes .* 0$' "$TMPD/swallow.plain.out")"
same_findings "$TMPD/swallow.json" swallow
for name in $SEEDS; do
    expect_eq "swallow: $name counted per request" 3 "$(count "$TMPD/swallow.json" "$name.py")"
done

# raised by Python code, uncaught: the excepthook explains it, after the traceback
cat >"$TMPD/pyraise.py" <<'PY'
import torch


def check(a, b):
    if a.device != b.device:
        raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, %s and %s!" % (a.device, b.device))


hidden = torch.zeros(2, device="cuda:0")
mask = torch.zeros(2, device="cuda:1")
check(hidden, mask)
PY
"$DEVCHECK" --json "$TMPD/pyraise.json" -- "$PY" "$TMPD/pyraise.py" >"$TMPD/pyraise.out" 2>"$TMPD/pyraise.err"
expect_eq "pyraise: status" 1 "$?"
expect_eq "pyraise" "framework_device_error at=pyraise.py:6 tensors=a@cuda:0@pyraise.py:9,b@cuda:1@pyraise.py:10 nvtx=- hint=b = b.to(a.device)" \
    "$(canon "$TMPD/pyraise.json" | grep '^framework_device_error')"
expect_eq "pyraise: count" 1 "$(count "$TMPD/pyraise.json" pyraise.py)"

# a model that says where it is (a Hugging Face model's .device), its code in
# site-packages: the report leads with the script's line, the fix names the model
mkdir -p "$TMPD/site-packages"
cat >"$TMPD/site-packages/hfmodel_lib.py" <<'PY'
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = torch.nn.Embedding(10, 4)

    @property
    def device(self):
        return self.embed_tokens.weight.device

    def forward(self, ids):
        return self.embed_tokens(ids)
PY
cat >"$TMPD/hfmodel.py" <<'PY'
import torch
from hfmodel_lib import Model

model = Model().to("cuda:0")
input_ids = torch.tensor([[1, 2]])
try:
    model(input_ids)
except RuntimeError as e:
    print("hfmodel: caught, notes:", len(e.__notes__))
PY
PYTHONPATH=$TMPD/site-packages "$DEVCHECK" --json "$TMPD/hfmodel.json" -- "$PY" "$TMPD/hfmodel.py" \
    >"$TMPD/hfmodel.out" 2>"$TMPD/hfmodel.err" || { tail "$TMPD/hfmodel.err" >&2; fail "hfmodel.py failed"; }
expect_grep '^hfmodel: caught, notes: 1$' "$TMPD/hfmodel.out"
expect_eq "hfmodel" "framework_device_error at=hfmodel.py:7 tensors=model.embed_tokens.weight@cuda:0@hfmodel.py:4,input_ids@cpu@made:hfmodel.py:5 nvtx=- hint=input_ids = input_ids.to(model.device)" \
    "$(canon "$TMPD/hfmodel.json" | grep '^framework_device_error')"
python3 - "$TMPD/hfmodel.json" <<'PY' || fail "hfmodel: the parameter's module is not model"
import json, sys
f = [json.loads(l) for l in open(sys.argv[1]) if '"framework_device_error"' in l][0]
sys.exit(0 if f["tensors"][0].get("module") == "model" and f["at"]["source"] == "model(input_ids)" else 1)
PY

python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/report/finding.schema.json" "$TMPD"/*.json ||
    fail "JSON records do not match report/finding.schema.json"

# caching on (above): the tensors' own blocks, never a segment
python3 - "$TMPD/vision_merge.json" <<'PY' || fail "caching on: a tensor named by its segment"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
f = [r for r in recs if r.get("kind") == "framework_device_error"][0]
sys.exit(1 if any(t.get("alloc_segment") for t in f["tensors"]) else 0)
PY
grep -q 'in a segment allocated at' "$TMPD/vision_merge.err" && fail "caching on: the text names a segment"
# caching off by the program's own environment: the same finding
PYTORCH_NO_CUDA_MEMORY_CACHING=1 "$DEVCHECK" --json "$TMPD/nocache.json" -- "$PY" "$VM" >/dev/null 2>"$TMPD/nocache.err"
expect_eq "vision_merge (caching off)" "$WANT_vision_merge" "$(canon "$TMPD/nocache.json" | grep '^framework_device_error')"

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
