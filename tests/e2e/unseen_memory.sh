#!/bin/sh
# Memory devcheck never saw allocated, passed to kernels on another device
# (tests/e2e/unseen_memory.cu): a __device__ variable from cudaGetSymbolAddress
# and a module global from cuModuleGetGlobal.  Exactly one device_mismatch
# each, with the owner device the driver told (operand owner_from "driver"),
# never host_memory; the same memory on its own device gives nothing.  Each
# backend.
. "$ROOT/tests/lib.sh"
prog=$BUILD/tests/e2e/unseen_memory
fatbin=$BUILD/tests/e2e/unseen_kernel.fatbin
[ -x "$prog" ] || fail "missing $prog"
for backend in both interpose cupti; do
    t=$TMPD/$backend
    under_devcheck env SIMCUDA_DEVICES=2 DEVCHECK_OPTIONS="json_path=$t.json:backend=$backend" \
        "$prog" "$fatbin" >"$t.out" 2>"$t.err"
    rc=$?
    expect_eq "unseen_memory ($backend): status" 0 "$rc"
    expect_grep '^unseen_memory: driver ' "$t.out"
    python3 - "$t.json" "$backend" <<'PY' || fail "unseen_memory ($backend): findings (above)"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
last = list({r["id"]: r for r in recs if r["type"] == "finding"}.values())
got = sorted((r["kind"], r["kernel_mangled"], r["launch"]["device"], r["operand"]["param"],
              r["operand"]["owner_device"], r["operand"]["memory"], r["operand"].get("owner_from"))
             for r in last)
want = [("device_mismatch", "_Z10read_tablePKfPfi", 0, 0, 1, "device", "driver"),
        ("device_mismatch", "scale_from", 1, 1, 0, "device", "driver")]
if got != want:
    print("    %s: got %r" % (sys.argv[2], got), file=sys.stderr)
    sys.exit(1)
PY
    expect_grep 'owned by cuda:1 \(told by the driver: devcheck did not see it allocated\)' "$t.err"
    expect_no_grep 'host_memory' "$t.err"
done
