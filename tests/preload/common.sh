# Helpers of the interposer tests (sourced by tests/preload/*.sh, not a test).
. "$ROOT/tests/lib.sh"
PT=$BUILD/tests/preload
export SIMCUDA_DEVICES=4
unset DEVCHECK_OPTIONS SIMCUDA_PEER SIMCUDA_HMM SIMCUDA_FAIL SIMCUDA_MEM_MB

need() { for f in "$@"; do [ -e "$f" ] || fail "not built: $f (run make first)"; done; }

# run PREFIX CMD...: stdout, stderr and exit status in PREFIX.out/.err/.rc.
run() {
    _p=$1; shift
    "$@" >"$_p.out" 2>"$_p.err"
    echo $? >"$_p.rc"
}
rc_of() { cat "$1.rc"; }

# findings JSON: one line per unique finding (last line per id wins):
#   KIND kernel=K param=P launch=D owner=O api=A
# then `summary errors=E warnings=W`.
findings() {
    python3 - "$1" <<'PY'
import json, re, sys
last, summary = {}, None
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    o = json.loads(line)
    if o.get("type") == "finding":
        last[o["id"]] = o
    elif o.get("type") == "summary":
        summary = o
for i in sorted(last):
    o = last[i]
    k = o.get("kernel_mangled") or o.get("kernel") or "-"
    op = o.get("operand") or {}
    print("%s kernel=%s param=%s launch=%s owner=%s api=%s" % (
        o["kind"], k, op.get("param", "-"), o["launch"]["device"], op.get("owner_device", "-"),
        o["launch"].get("api")))
if summary is None:
    print("no-summary")
else:
    print("summary errors=%d warnings=%d" % (summary["errors"], summary["warnings"]))
PY
}
