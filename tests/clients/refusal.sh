#!/bin/sh
# Issue 36: the refusal before any launch, explained (report/FORMAT.md,
# pointer_refused).  refusal.py on 2 simulated GPUs under the wrapper:
#  - caught / uncaught: Triton handed x on cuda:1 with cuda:0 current raises
#    its own ValueError (as on a GPU), no kernel runs; devcheck reports one
#    pointer_refused naming cuda:1 (owner), cuda:0 (current), parameter 0,
#    the call's line and x's allocation line, the fix; the note is on the
#    exception whether the program catches it or dies of it; SARIF (rule
#    pointer_refused) and JUnit say the same;
#  - the legal neighbours report no error: peer access enabled (a
#    peer_access warning, no refusal), the pointer's own device current, a
#    probe that handles the refusal itself, managed memory, pinned memory, a
#    CUDA graph capture;
#  - cp_caught / cp_uncaught: the same refusal asked for by the program
#    itself through cuda-python (cuda.bindings.driver.cuPointerGetAttribute)
#    and turned into its own RuntimeError: one pointer_refused naming the
#    query's line, the caller's, x's allocation line; the note on the
#    exception, caught or not;
#  - cp_exit: the same query; the program checks the status and exits 3
#    without raising: one pointer_refused at exit (probe, exiting 0 after
#    its refusal, has none);
#  - retry: a refusal answered later (peer access enabled since) is
#    forgotten, so a real CPU tensor refused next is not blamed on it.
. "$ROOT/tests/lib.sh"
need_pyenv
DEVCHECK=$BUILD/bin/devcheck
CL=$ROOT/tests/clients
R=$CL/refusal.py
at() { echo "$(basename "$1"):$(grep -n "$2" "$1" | head -n 1 | cut -d: -f1)"; }
canon() { python3 "$CL/pyfindings.py" "$1" || fail "no JSON report: $1"; }
run() { "$DEVCHECK" --sim 2 --json "$TMPD/$1.json" --sarif "$TMPD/$1.sarif" --junit "$TMPD/$1.xml" -- "$PY" "$R" "$1" \
          >"$TMPD/$1.out" 2>"$TMPD/$1.err"; }

X="x@cuda:1@$(at "$R" 'x = torch.tensor(X')"
YO="y@cuda:0@$(at "$R" 'y = torch.tensor(Y, device="cuda:0")'),out@cuda:0@$(at "$R" 'out = torch.empty(4, device="cuda:0")')"
HINT='x = x.to("cuda:0")  (or make cuda:1 current: with torch.cuda.device(x.device))'

cd "$CL"
run caught
expect_eq "caught: status" 0 "$?"
expect_grep '^refusal: caught ValueError: Pointer argument cannot be accessed from Triton \(cpu tensor\?\)$' "$TMPD/caught.out"
expect_grep "^refusal: note: devcheck: pointer_refused: not a CPU tensor: cuda:1's memory, refused with cuda:0 current\$" \
    "$TMPD/caught.out"
expect_eq "caught: findings" "pointer_refused owner=cuda:1 current=cuda:0 param=0 at=$(at "$R" '# CALL$') tensors=$X,$YO nvtx=- hint=$HINT
summary errors=1 launches=0" "$(canon "$TMPD/caught.json")"
expect_grep "^==devcheck== ERROR: pointer_refused: triton refused a pointer of cuda:1 with cuda:0 current: Pointer argument cannot be accessed from Triton \\(cpu tensor\\?\\)\$" \
    "$TMPD/caught.err"
expect_grep "^    parameter 0 \\(x\\) is cuda:1's memory; cuda:0 is current and has no access to it" "$TMPD/caught.err"

# SARIF and JUnit carry the kind and say it in words
python3 - "$TMPD/caught.sarif" "$TMPD/caught.xml" <<'PY' || fail "caught: SARIF/JUnit"
import json, sys
import xml.etree.ElementTree as ET
s = json.load(open(sys.argv[1]))
res = s["runs"][0]["results"]
rules = s["runs"][0]["tool"]["driver"]["rules"]
assert len(res) == 1 and res[0]["ruleId"] == "pointer_refused", res
assert rules[res[0]["ruleIndex"]]["id"] == "pointer_refused"
want = ("pointer_refused: triton refused a pointer of cuda:1 with cuda:0 current (parameter 0): "
        "Pointer argument cannot be accessed from Triton (cpu tensor?)")
assert res[0]["message"]["text"].startswith(want), res[0]["message"]["text"]
fails = ET.parse(sys.argv[2]).getroot().findall(".//failure")
assert len(fails) == 1 and fails[0].get("message").startswith(want), [f.attrib for f in fails]
PY
python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/tests/schemas/sarif-schema-2.1.0.json" "$TMPD/caught.sarif" ||
    fail "caught.sarif: not valid SARIF 2.1.0"

run uncaught
expect_eq "uncaught: status" 1 "$?"
expect_grep '^ValueError: Pointer argument cannot be accessed from Triton \(cpu tensor\?\)$' "$TMPD/uncaught.err"
expect_grep "^devcheck: pointer_refused: not a CPU tensor: cuda:1's memory, refused with cuda:0 current \(devcheck's report above\)\$" "$TMPD/uncaught.err"
expect_eq "uncaught: findings" "pointer_refused owner=cuda:1 current=cuda:0 param=0 at=$(at "$R" '# CALL2$') tensors=$X,$YO nvtx=- hint=$HINT
summary errors=1 launches=0" "$(canon "$TMPD/uncaught.json")"

run peer
expect_eq "peer: status" 0 "$?"
expect_grep '^refusal: peer result=\[11\.0, 22\.0, 33\.0, 44\.0\]$' "$TMPD/peer.out"
expect_eq "peer: findings" "peer_access kernel=add_kernel launch=$(at "$R" '# CALL2$') alloc=$(at "$R" 'x = torch.tensor(X') nvtx=-
summary errors=0 launches=1" "$(canon "$TMPD/peer.json")"

# a refusal later answered (peer access enabled since) is forgotten: the
# next refusal, of a real CPU tensor, is not blamed on it
run retry
expect_eq "retry: status" 0 "$?"
expect_grep '^refusal: retry refused$' "$TMPD/retry.out"
expect_grep '^refusal: retry refused again, notes=0$' "$TMPD/retry.out"
expect_eq "retry: findings" "pointer_refused at=$(at "$R" '# RETRY1$')" \
    "$(canon "$TMPD/retry.json" | grep -v '^summary' | sed 's/ owner=[^ ]* current=[^ ]* param=[^ ]*//; s/ tensors=.*//')"

# cuda-python: the program queries the driver itself (cuda.bindings, in a
# helper) and raises over the refusal; devcheck names the query's line (the
# helper's), the caller's line, the tensor's allocation line; the note is on
# the RuntimeError, caught or not
CPX="t@cuda:1@$(at "$R" 'x = torch.tensor(X')"
CPHINT='t = t.to("cuda:0")  (or make cuda:1 current: with torch.cuda.device(t.device))'
run cp_caught
expect_eq "cp_caught: status" 0 "$?"
expect_grep '^refusal: cp_caught RuntimeError: cuPointerGetAttribute failed: CUDA_ERROR_INVALID_VALUE$' "$TMPD/cp_caught.out"
expect_grep "^refusal: note: devcheck: pointer_refused: not a CPU tensor: cuda:1's memory, refused with cuda:0 current\$" \
    "$TMPD/cp_caught.out"
expect_eq "cp_caught: findings" "pointer_refused owner=cuda:1 current=cuda:0 param=None at=$(at "$R" '# QUERY$') tensors=$CPX nvtx=- hint=$CPHINT
summary errors=1 launches=0" "$(canon "$TMPD/cp_caught.json")"
expect_grep "^==devcheck== ERROR: pointer_refused: cuda-python refused a pointer of cuda:1 with cuda:0 current: cuPointerGetAttribute failed: CUDA_ERROR_INVALID_VALUE\$" \
    "$TMPD/cp_caught.err"
expect_grep "^      #1 <module> at $(at "$R" '# CPCALL$')\$" "$TMPD/cp_caught.err"
run cp_uncaught
expect_eq "cp_uncaught: status" 1 "$?"
expect_grep '^RuntimeError: cuPointerGetAttribute failed: CUDA_ERROR_INVALID_VALUE$' "$TMPD/cp_uncaught.err"
expect_grep "^devcheck: pointer_refused: not a CPU tensor: cuda:1's memory, refused with cuda:0 current \(devcheck's report above\)\$" "$TMPD/cp_uncaught.err"
expect_eq "cp_uncaught: findings" "pointer_refused owner=cuda:1 current=cuda:0 param=None at=$(at "$R" '# QUERY$') tensors=$CPX nvtx=- hint=$CPHINT
summary errors=1 launches=0" "$(canon "$TMPD/cp_uncaught.json")"

# cp_exit: the program checks the status and exits 3, raising nothing:
# reported at exit (framework "driver"), at the query's line, the callers'
# below it, the pointer's allocation line; exit status kept
run cp_exit
expect_eq "cp_exit: status" 3 "$?"
expect_grep '^refusal: cp_exit CUDA_ERROR_INVALID_VALUE$' "$TMPD/cp_exit.out"
expect_eq "cp_exit: findings" "pointer_refused owner=cuda:1 current=cuda:0 param=None at=$(at "$R" '# QUERY$') tensors=the refused pointer@cuda:1@$(at "$R" 'x = torch.tensor(X') nvtx=- hint=make cuda:1 current (torch.cuda.device(1)) or move the memory to cuda:0
summary errors=1 launches=0" "$(canon "$TMPD/cp_exit.json")"
expect_grep "^==devcheck== ERROR: pointer_refused: driver refused a pointer of cuda:1 with cuda:0 current: the program exited with status 3 after this refusal, with no launch over it and no exception devcheck saw\$" \
    "$TMPD/cp_exit.err"
expect_grep "^      #0 device_ptr at $(at "$R" '# QUERY$')\$" "$TMPD/cp_exit.err"
expect_grep "^      #1 <module> at $(at "$R" '# CPCALL2$')\$" "$TMPD/cp_exit.err"

# probe_fail: the probe carries on (a launch) and later exits 5: the
# refusal is not blamed for it
run probe_fail
expect_eq "probe_fail: status" 5 "$?"
expect_eq "probe_fail: findings" "summary errors=0 launches=1" "$(canon "$TMPD/probe_fail.json")"

# probe: the program handles the refusal itself (and an exception of its
# own naming it, caught in its frame): no finding
for m in own probe managed pinned graph; do
    run "$m"
    expect_eq "$m: status" 0 "$?"
    expect_grep "^refusal: $m result=\\[11\\.0, 22\\.0, 33\\.0, 44\\.0\\]\$" "$TMPD/$m.out"
    expect_eq "$m: findings" "" "$(canon "$TMPD/$m.json" | grep -v '^summary')"
    expect_eq "$m: errors" 0 "$(canon "$TMPD/$m.json" | sed -n 's/^summary errors=\([0-9]*\) .*/\1/p')"
done
expect_grep '^refusal: probe CUDA_ERROR_INVALID_VALUE$' "$TMPD/probe.out"

python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/report/finding.schema.json" "$TMPD"/*.json ||
    fail "JSON records do not match report/finding.schema.json"
