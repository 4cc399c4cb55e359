#!/bin/sh
# Kernels without types (issue 28) from Python on the sim, under devcheck
# (tests/clients/untyped.py): tests/e2e/untyped.cu's extern "C" scale_rows
# launched on device 0, x in device 1's memory (other), a numpy array
# (pageable), pinned memory, device 0's memory (correct); m equal to device
# 1's address (integer); a stale pointer in the struct passed by value.
#  - a cubin loaded through ctypes (libcuda's own names, dlsym) and through
#    cuda-bindings: plain, the launch's shape finds other and pageable at the
#    launch (param 2, devices 0 and 1, the .py line) as weak warnings; -G, its
#    DWARF makes them errors and the integer quiet;
#  - NVRTC through cuda-bindings (dlopen + dlsym of libnvrtc, nvrtcGetCUBIN):
#    the source types x, so the numpy pointer is a host_memory error at the
#    launch and device 1's memory a device_mismatch error; the integer and the
#    struct are quiet; mode=migrate moves both and the program prints the
#    right result (the device 1 case faults without it);
#  - NVRTC through ctypes (libnvrtc loaded RTLD_LOCAL, names found with
#    dlsym(handle): only the dlsym hook reaches it): typed from its source.
. "$ROOT/tests/lib.sh"
need_pyenv
cd "$ROOT/tests/clients"
C=$BUILD/tests/e2e/untyped.cubin G=$BUILD/tests/e2e/untyped_G.cubin
[ -s "$C" ] && [ -s "$G" ] || fail "not built: $C, $G"
LINE=$(grep -n '# the launch$' untyped.py | cut -d: -f1)
RIGHT='^untyped: result=\[0\.0, 2\.0, 4\.0, 6\.0, 8\.0, 10\.0, 12\.0, 14\.0\]$'

# one T OPTIONS ARGS...: untyped.py under devcheck; $T.{out,err,json}, $T.got
one() {
    t=$TMPD/$1 opts=$2; shift 2
    under_devcheck_rt env SIMCUDA_DEVICES=2 DEVCHECK_OPTIONS="json_path=$t.json${opts:+:$opts}" "$PY" untyped.py "$@" \
        >"$t.out" 2>"$t.err"
    echo $? >"$t.rc"
    python3 - "$t.json" >"$t.got" <<'PY' || fail "$t: no report"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
f = list({r["id"]: r for r in recs if r.get("type") == "finding"}.values())
for r in sorted(f, key=lambda r: r["kind"]):
    o = r["operand"]
    py = [fr for fr in r.get("launch_python_stack") or [] if fr.get("function") == "<module>"]
    print(r["kind"], r["severity"], r["kernel_mangled"], o["param"], r["launch"]["device"], o.get("owner_device"),
          o["evidence"], r.get("action", "reported"), py[0]["line"] if py else "-")
s = [r for r in recs if r.get("type") == "summary"][-1]
print(s["errors"], s["warnings"])
PY
}

for via in ctypes bindings; do
    for g in "" _G; do
        cubin=$C sev=warning ev=launch_shape e=0 w=1
        [ -n "$g" ] && cubin=$G sev=error ev=dwarf e=1 w=0
        one "$via$g.other" "" "$via" other "$cubin"
        expect_eq "$via$g other" "device_mismatch $sev scale_rows 2 0 1 $ev reported $LINE
$e $w" "$(cat "$TMPD/$via$g.other.got")"
        expect_grep '^untyped: fault: ' "$TMPD/$via$g.other.out"
        one "$via$g.pageable" "" "$via" pageable "$cubin"
        expect_eq "$via$g pageable" "host_memory $sev scale_rows 2 0 -1 $ev reported $LINE
$e $w" "$(cat "$TMPD/$via$g.pageable.got")"
        for c in pinned correct struct; do
            one "$via$g.$c" "" "$via" "$c" "$cubin"
            expect_eq "$via$g $c" "0 0" "$(cat "$TMPD/$via$g.$c.got")"
            expect_grep "$RIGHT" "$TMPD/$via$g.$c.out"
        done
    done
    one "$via.integer" "" "$via" integer "$C"
    expect_eq "$via integer (launch shape: a warning, never an error)" "device_mismatch warning scale_rows 3 0 1 launch_shape reported $LINE
0 1" "$(cat "$TMPD/$via.integer.got")"
    one "$via.integer_G" "" "$via" integer "$G"
    expect_eq "$via integer (-G: an integer)" "0 0" "$(cat "$TMPD/$via.integer_G.got")"
done
expect_grep '^    evidence: weak: launch shape only: ' "$TMPD/ctypes.other.err"

# NVRTC through cuda-bindings: typed from its source
one nvrtc.pageable "" nvrtc pageable
expect_eq "nvrtc pageable" "host_memory error scale_rows 2 0 -1 source reported $LINE
1 0" "$(cat "$TMPD/nvrtc.pageable.got")"
expect_grep '^==devcheck== ERROR: host_memory: kernel scale_rows launched on cuda:0 ' "$TMPD/nvrtc.pageable.err"
expect_grep '^    operand: param 2 \(x\), word \+0 = 0x[0-9a-f]+: pageable host memory' "$TMPD/nvrtc.pageable.err"   # NVRTC's source names it (pyjit)
one nvrtc.other "" nvrtc other
expect_eq "nvrtc other" "device_mismatch error scale_rows 2 0 1 source reported $LINE
1 0" "$(cat "$TMPD/nvrtc.other.got")"
expect_grep '^untyped: fault: ' "$TMPD/nvrtc.other.out"
for c in pinned correct integer struct; do
    one "nvrtc.$c" "" nvrtc "$c"
    expect_eq "nvrtc $c" "0 0" "$(cat "$TMPD/nvrtc.$c.got")"
    expect_grep "$RIGHT" "$TMPD/nvrtc.$c.out"
done
for c in pageable other; do
    one "nvrtc.$c.migrate" mode=migrate nvrtc "$c"
    expect_eq "nvrtc $c (migrate): status" 0 "$(cat "$TMPD/nvrtc.$c.migrate.rc")"
    expect_grep "$RIGHT" "$TMPD/nvrtc.$c.migrate.out"
    expect_eq "nvrtc $c (migrate): migrated" 1 "$(grep -c ' source migrated ' "$TMPD/nvrtc.$c.migrate.got")"
done
# NVRTC loaded RTLD_LOCAL and looked up with dlsym(handle) (ctypes): the
# dlsym hook hands out the NVRTC hooks
one nvrtc_ctypes.pageable "" nvrtc_ctypes pageable
expect_eq "nvrtc_ctypes pageable" "host_memory error scale_rows 2 0 -1 source reported $LINE
1 0" "$(cat "$TMPD/nvrtc_ctypes.pageable.got")"
# the launch shape is never acted on: the device 1 case still faults
one ctypes.other.migrate mode=migrate ctypes other "$C"
expect_grep '^untyped: fault: ' "$TMPD/ctypes.other.migrate.out"
expect_eq "ctypes other (migrate): nothing migrated" 0 "$(grep -c ' migrated ' "$TMPD/ctypes.other.migrate.got")"
echo "ok: kernels without types from Python: ctypes, cuda-bindings, NVRTC"
