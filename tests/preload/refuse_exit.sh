#!/bin/sh
# Issue 36: a refusal with no launch and no exception.  refuse_exit.c asks
# the driver for device 1's memory's device address with device 0's context
# current (refused, cuda.h) and checks the answer itself:
#  - exit: gives up with exit(2): one pointer_refused at exit, framework
#    "driver", at the query's line (device_address), main's call line below
#    it, the buffer's allocation line; the program's status 2 kept;
#  - probe: carries on and exits 0: a refusal it survived, nothing;
#  - peer: the same query answered after peer access was enabled, then
#    exit(2): the refusal was answered since, nothing.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/refuse_exit" "$SIM_DIR/libcuda.so.1"
S=$ROOT/tests/preload/refuse_exit.c
line() { grep -n "$1" "$S" | head -n 1 | cut -d: -f1; }
for m in exit probe peer; do
    run "$TMPD/$m" under_devcheck env DEVCHECK_OPTIONS="json_path=$TMPD/$m.json" "$PT/refuse_exit" $m
    sed "s/^/    $m> /" "$TMPD/$m.err"
    expect_grep '^refuse_exit: refused$' "$TMPD/$m.out"
done
expect_eq "exit: status" 2 "$(rc_of "$TMPD/exit")"
expect_eq "probe: status" 0 "$(rc_of "$TMPD/probe")"
expect_eq "peer: status" 2 "$(rc_of "$TMPD/peer")"
expect_grep '^refuse_exit: answered$' "$TMPD/peer.out"
q=$(line '/\* QUERY \*/'); c=$(line '/\* CALL \*/'); a=$(line '/\* ALLOC')
facts() {
    python3 - "$1" <<'PY'
import json, sys
last, summary = {}, None
for l in open(sys.argv[1]):
    l = l.strip()
    if not l:
        continue
    o = json.loads(l)
    if o.get("type") == "finding":
        last[o["id"]] = o
    elif o.get("type") == "summary":
        summary = o
for i in sorted(last):
    o = last[i]
    at = o.get("at") or {}
    t = (o.get("tensors") or [{}])[0]
    al = t.get("allocation") or {}
    assert o["launch"]["device"] == o["launch"].get("current_device"), "launch.device is not the current device"
    cs = [f for f in o.get("launch_stack") or [] if (f.get("file") or "").endswith("refuse_exit.c")]
    print("%s framework=%s owner=%s current=%s at=%s:%s alloc_line=%s c_stack=%s python_stack=%d" % (
        o["kind"], o.get("framework"), o.get("owner_device"), o["launch"].get("current_device"),
        (at.get("file") or "").rsplit("/", 1)[-1], at.get("line"), al.get("line", t.get("alloc_line")),
        ",".join("%s:%s" % (f["function"], f["line"]) for f in cs) or "-", len(o.get("launch_python_stack") or [])))
print("summary errors=%d" % summary["errors"] if summary else "no-summary")
PY
}
facts "$TMPD/exit.json" >"$TMPD/exit.f"
sed "s/^/    exit: /" "$TMPD/exit.f"
expect_grep "^pointer_refused framework=driver owner=1 current=0 at=refuse_exit.c:$q .* c_stack=device_address:$q,main:$c python_stack=0\$" "$TMPD/exit.f"
# a C program: its call stack and a C fix, no Python heading nor torch fix
expect_grep '^    call stack:$' "$TMPD/exit.err"
expect_grep '^    hint: .*: make cuda:1 current \(cudaSetDevice\(1\), or cuCtxSetCurrent with its context\) before asking for its address, or copy the memory to cuda:0 \(cudaMemcpyPeer\)$' "$TMPD/exit.err"
expect_no_grep 'op stack \(Python\)|torch' "$TMPD/exit.err"
expect_grep '^summary errors=1$' "$TMPD/exit.f"
expect_grep "^==devcheck== ERROR: pointer_refused: driver refused a pointer of cuda:1 with cuda:0 current: the program exited with status 2 after this refusal, with no launch over it and no exception devcheck saw\$" \
    "$TMPD/exit.err"
expect_grep "^      #1 main at .*refuse_exit.c:$c\$" "$TMPD/exit.err"
expect_grep "^      the refused pointer: cuda:1, allocated at .*refuse_exit.c:$a in main\$" "$TMPD/exit.err"
for m in probe peer; do
    expect_eq "$m: findings" "summary errors=0" "$(facts "$TMPD/$m.json")"
done
python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/report/finding.schema.json" "$TMPD"/*.json ||
    fail "JSON records do not match report/finding.schema.json"
