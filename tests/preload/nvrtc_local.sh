#!/bin/sh
# NVRTC loaded RTLD_LOCAL: a library that compiles its kernel with NVRTC, its
# libnvrtc.so.13 its own dependency (tests/preload/local_nvrtc.c), loaded by
# the program RTLD_LOCAL (dlopen's default, ctypes.CDLL): its NVRTC calls
# bind to devcheck's NVRTC hooks (the exports come first), whose real
# functions are found in the loaded libnvrtc by its SONAME and symbol
# version (preload/resolve.h), where dlvsym(RTLD_NEXT) found none and every
# NVRTC call of the library failed.  The program computes what it computes
# without devcheck, and the program's source is seen: its extern "C"
# kernel's cross-device launch is an error typed from the source (evidence
# source), not a weak guess from the launch's shape, and its parameter is
# named as the source names it (param 1 (in)); the same loaded RTLD_GLOBAL.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/local_main" "$PT/liblocal_nvrtc.so" "$PT/liblocal_twin.so" "$SIM_DIR/libcuda.so.1"
LIB=$PT/liblocal_nvrtc.so
TWIN=$PT/liblocal_twin.so

for mode in local global; do
    run "$TMPD/plain-$mode" on_sim "$PT/local_main" $mode "$LIB" "$TWIN"
    expect_eq "$mode without devcheck" "local: 700" "$(cat "$TMPD/plain-$mode.out")"
    run "$TMPD/$mode" under_devcheck env DEVCHECK_OPTIONS="json_path=$TMPD/$mode.json" \
        "$PT/local_main" $mode "$LIB" "$TWIN"
    expect_eq "$mode status" 0 "$(rc_of "$TMPD/$mode")"
    expect_eq "$mode stdout" "local: 700" "$(cat "$TMPD/$mode.out")"
    expect_no_grep 'cannot find the real' "$TMPD/$mode.err"
    findings "$TMPD/$mode.json" >"$TMPD/$mode.f"
    sed "s/^/    $mode: /" "$TMPD/$mode.f"
    expect_grep '^device_mismatch kernel=nvrtc_scale param=1 launch=0 owner=1 api=cuLaunchKernel$' "$TMPD/$mode.f"
    expect_grep '^summary errors=1 warnings=0$' "$TMPD/$mode.f"
    got=$(python3 -c '
import json, sys
f = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(" ".join("%s/%s/%s" % (r["severity"], r["operand"]["evidence"], "weak" if r.get("weak_evidence") else "strong")
               for r in f if r.get("type") == "finding"))' "$TMPD/$mode.json")
    expect_eq "$mode: the finding is typed from the program's source" "error/source/strong" "$got"
    # issue 41: named as the source names it (`const int *in`)
    expect_eq "$mode: JSON param_name" "in" "$(python3 -c '
import json, sys
print(" ".join(json.loads(l)["operand"].get("param_name", "-") for l in open(sys.argv[1]) if "\"finding\"" in l))' "$TMPD/$mode.json")"
    expect_grep '^    operand: param 1 \(in\), word \+0 = ' "$TMPD/$mode.err"
done
