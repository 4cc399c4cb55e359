#!/bin/sh
# devcheck replay over the launches recorded on a real H200
# (tests/traces/h200-2026-11, with its origins.tsv):
#  - every correct program's trace: 0 errors and 0 warnings (with the
#    library-kernel rules: NVIDIA's closed libraries' host words and pinned
#    host memory are counted, not reported);
#  - probe_pageable: exactly one host_memory error, param 0, kernel
#    `k_copy(float const*, float*, int)`, on cuda:0;
#  - cupy_bug (an extern "C" RawKernel, no types): no error; one warning,
#    host_memory at param 0, whose only evidence is the launch's shape (an
#    8-byte parameter of a JIT kernel holding a heap address: weak);
#  - the same findings whether the trace is gzip'd or plain;
#  - a malformed line and a truncated last line are named (file:line) and
#    the other lines still judged; a missing file is an error naming it
#    (exit status 2), the other traces still judged.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/lib.sh"
T=$ROOT/tests/traces/h200-2026-11
O=$T/origins.tsv
[ -x "$DEVCHECK_BIN" ] || fail "no $DEVCHECK_BIN"

# replay NAME [ARGS...]: devcheck replay of trace NAME's file(s); .json, .err, .rc
replay() {
    n=$1; shift
    "$DEVCHECK_BIN" replay --origins "$O" --json "$TMPD/$n.json" "$@" >"$TMPD/$n.out" 2>"$TMPD/$n.err"
    echo $? >"$TMPD/$n.rc"
}
# summary FILE: "errors warnings" of a JSON report's summary object
summary() {
    python3 -c '
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
s = [x for x in s if x.get("type") == "summary"][-1]
print(s["errors"], s["warnings"])' "$1"
}

for t in torch_real llama_bf16 mlp_step torch_compiled triton cupy nccl probe_correct; do
    replay "$t" "$T/$t.jsonl.gz"
    expect_eq "$t: exit status" 0 "$(cat "$TMPD/$t.rc")"
    expect_eq "$t: errors and warnings" "0 0" "$(summary "$TMPD/$t.json")"
    expect_grep "^devcheck: replay: .*$t.jsonl.gz: [1-9][0-9]* launch(es)? of [1-9][0-9]* kernels? judged" "$TMPD/$t.err"
    expect_no_grep 'skipped' "$TMPD/$t.err"
done

# probe_pageable: exactly one finding, the bug
replay pp "$T/probe_pageable.jsonl.gz"
expect_eq "probe_pageable: exit status" 1 "$(cat "$TMPD/pp.rc")"
python3 - "$TMPD/pp.json" <<'PY' || fail "probe_pageable: not exactly the one host_memory error (see above)"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
f = list({r["id"]: r for r in recs if r.get("type") == "finding"}.values())
assert len(f) == 1, f
f = f[0]
assert f["kind"] == "host_memory" and f["severity"] == "error", f
assert f["operand"]["param"] == 0 and f["operand"]["memory"] == "pageable", f
assert f["launch"]["device"] == 0, f
assert f["kernel"] == "k_copy(float const*, float*, int)", f
PY
expect_grep '^==devcheck== ERROR: host_memory: kernel k_copy\(float const\*, float\*, int\) launched on cuda:0' "$TMPD/pp.err"
expect_grep 'operand: param 0, word \+0 = 0x55f3225c99e0: pageable host memory' "$TMPD/pp.err"
# a trace holds no launch stack: the replay's own frames are none
expect_grep '^    launch stack: \(not recorded\)$' "$TMPD/pp.err"
expect_no_grep 'replay\.c|check\.c' "$TMPD/pp.err"

# options after the trace and between traces, as devcheck report takes them;
# after --, a trace named like an option
"$DEVCHECK_BIN" replay "$T/probe_pageable.jsonl.gz" --origins "$O" --json "$TMPD/after.json" "$T/triton.jsonl.gz" \
    --host-memory auto >"$TMPD/after.out" 2>"$TMPD/after.err"
expect_eq "options after the traces: exit status" 1 "$?"
expect_eq "options after the traces: errors and warnings" "1 0" "$(summary "$TMPD/after.json")"
cp "$T/probe_pageable.jsonl.gz" "$TMPD/--json"
(cd "$TMPD" && "$DEVCHECK_BIN" replay --json dash.json -- --json >dash.out 2>dash.err)
expect_eq "a trace named --json after --: exit status" 1 "$?"
expect_eq "a trace named --json after --: errors and warnings" "1 0" "$(summary "$TMPD/dash.json")"

# cupy_bug: no error; the launch shape's weak warning at param 0
replay cb "$T/cupy_bug.jsonl.gz"
expect_eq "cupy_bug: exit status" 0 "$(cat "$TMPD/cb.rc")"
expect_eq "cupy_bug: errors and warnings" "0 1" "$(summary "$TMPD/cb.json")"
expect_grep '^==devcheck== WARNING: host_memory: kernel add1 launched on cuda:0' "$TMPD/cb.err"
expect_grep '^    operand: param 0, word \+0 = 0x28aa7df0: pageable host memory' "$TMPD/cb.err"
expect_grep '^    evidence: weak: launch shape only: ' "$TMPD/cb.err"

# plain (not gzip'd) traces give the same findings
gzip -dc "$T/probe_pageable.jsonl.gz" >"$TMPD/probe_pageable.jsonl"
replay plain "$TMPD/probe_pageable.jsonl"
expect_eq "plain probe_pageable: exit status" 1 "$(cat "$TMPD/plain.rc")"
expect_grep '^==devcheck== ERROR: host_memory: kernel k_copy' "$TMPD/plain.err"

# a malformed line (3), a parameter with too few hex digits (4), a truncated
# last line (6): each named; the bug on line 5 is still found; a missing
# file is named, exit status 2, and the good trace still judged
{
    gzip -dc "$T/probe_correct.jsonl.gz" | sed -n 1,2p
    echo '{"seq":1,"api":"cuLaunchKernel",'
    gzip -dc "$T/probe_correct.jsonl.gz" | sed -n 3p | sed -E 's/"hex":"[0-9a-f]{10}/"hex":"/'
    gzip -dc "$T/probe_pageable.jsonl.gz" | sed -n 2p
    gzip -dc "$T/probe_correct.jsonl.gz" | sed -n 4p | cut -c1-200 | tr -d '\n'
} >"$TMPD/bad.jsonl"
replay bad "$TMPD/bad.jsonl" "$TMPD/missing.jsonl.gz"
expect_eq "bad trace + missing file: exit status" 2 "$(cat "$TMPD/bad.rc")"
expect_grep "^devcheck: $TMPD/bad.jsonl:3: not a JSON object \(malformed or truncated at byte [0-9]+\); skipped" "$TMPD/bad.err"
expect_grep "^devcheck: $TMPD/bad.jsonl:4: malformed launch record \(a parameter without" "$TMPD/bad.err"
expect_grep "^devcheck: $TMPD/bad.jsonl:6: not a JSON object" "$TMPD/bad.err"
expect_grep "^devcheck: ERROR: replay: cannot read '$TMPD/missing.jsonl.gz': No such file or directory" "$TMPD/bad.err"
expect_grep '^==devcheck== ERROR: host_memory: kernel k_copy\(float const\*, float\*, int\)' "$TMPD/bad.err"
expect_grep "bad.jsonl: 2 launches of 1 kernel judged" "$TMPD/bad.err"

# a truncated gzip stream: named, the lines before it judged
head -c 60000 "$T/llama_bf16.jsonl.gz" >"$TMPD/cut.jsonl.gz"
replay cut "$TMPD/cut.jsonl.gz"
expect_eq "truncated gzip: exit status" 0 "$(cat "$TMPD/cut.rc")"
expect_grep "^devcheck: $TMPD/cut.jsonl.gz:[0-9]+: the file ends early or is damaged" "$TMPD/cut.err"
expect_grep "cut.jsonl.gz: [1-9][0-9]* launches of [0-9]+ kernels judged" "$TMPD/cut.err"
echo "ok: devcheck replay of the H200 traces"
