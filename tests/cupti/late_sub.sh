#!/bin/sh
# CUPTI yields to the program: a program that subscribes after devcheck took
# CUPTI's one subscription (late_sub.cu: linked, or through dlopen + dlsym)
# gets it and its callbacks, as without devcheck; devcheck says so in one
# line and goes on with interposition alone, still reporting the program's
# cross-device launch (with backend=cupti too: the hooks take over).
. "$ROOT/tests/preload/common.sh"
CT=$BUILD/tests/cupti
need "$DEVCHECK_LIB" "$CT/late_sub" "$SIM_DIR/libcupti.so.13"
for how in link dlopen; do
    run "$TMPD/plain-$how" on_sim "$CT/late_sub" $how
    expect_eq "$how without devcheck" "late: subscribe=0 callbacks=1" "$(cat "$TMPD/plain-$how.out")"
    for b in both cupti; do
        t=$TMPD/$how-$b
        run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$CT/late_sub" $how
        sed "s/^/    $how $b> /" "$t.err"
        expect_eq "$how backend=$b: status" 0 "$(rc_of "$t")"
        expect_eq "$how backend=$b: stdout" "late: subscribe=0 callbacks=1" "$(cat "$t.out")"
        expect_eq "$how backend=$b: lines about CUPTI" 1 "$(grep -c CUPTI "$t.err")"
        expect_grep '^devcheck: CUPTI: the program subscribes to CUPTI itself \(a profiler\); devcheck gave its subscription up and runs on interposition alone$' "$t.err"
        findings "$t.json" >"$t.f"
        expect_grep '^device_mismatch kernel=_Z9late_copyPfPKf param=1 launch=0 owner=1 api=__cudaLaunchKernel$' "$t.f"
        expect_grep '"detected_by":"interpose"' "$t.json"
    done
done
