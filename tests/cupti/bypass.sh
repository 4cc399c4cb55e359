#!/bin/sh
# Launches that reach the driver by a path the interposer does not hook
# (bypass.cu: cuLaunchKernel from the C library's own dlsym) are seen only
# with CUPTI on: backend=interpose finds nothing and counts no launch;
# backend=both and backend=cupti report the cross-device launch, detected by
# cupti, and the summary says the launch was seen by cupti.  The program's
# stdout and exit status are unchanged in every case.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
CT=$BUILD/tests/cupti
need "$DEVCHECK_LIB" "$CT/bypass" "$SIM_DIR/libcuda.so.1" "$SIM_DIR/libcupti.so.13"
line=$(grep -n 'launch((CUfunction)f' "$ROOT/tests/cupti/bypass.cu" | cut -d: -f1)

run "$TMPD/plain" on_sim "$CT/bypass"
expect_grep '^bypass: launch 0, ' "$TMPD/plain.out"
for b in interpose both cupti; do
    t=$TMPD/$b
    run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$CT/bypass"
    cmp -s "$TMPD/plain.out" "$t.out" || { diff -u "$TMPD/plain.out" "$t.out" >&2; fail "backend=$b: stdout differs"; }
    expect_eq "backend=$b: exit status" "$(rc_of "$TMPD/plain")" "$(rc_of "$t")"
    if [ $b = interpose ]; then
        canon bypass "$t.json" "$t.canon" interpose
        printf 'summary errors=0 warnings=0 launches=0 unchecked=0\n' >"$t.expected"
        expect_findings "$t.expected" "$t.canon" "bypass, backend=$b"
        expect_grep '^devcheck: SUMMARY: 0 findings .*; 0 launches checked, 0 unchecked \(0 seen by interpose, 0 by cupti\)$' "$t.err"
    else
        canon bypass "$t.json" "$t.canon" cupti
        printf '%s\n%s\n' \
            "device_mismatch severity=error kernel=scale api=cuLaunchKernel param=0 launch=0 owner=1 memory=device count=1 at=bypass.cu:$line" \
            'summary errors=1 warnings=0 launches=1 unchecked=0' >"$t.expected"
        expect_findings "$t.expected" "$t.canon" "bypass, backend=$b"
        expect_grep '^devcheck: SUMMARY: 1 finding .*; 1 launch checked, 0 unchecked \(0 seen by interpose, 1 by cupti\)$' "$t.err"
        expect_grep '"detected_by":"cupti"' "$t.json"
    fi
done

# `bypass rt`: cudaLaunchKernel past the interposer's runtime hook, whose
# driver launch is the interposer's (the runtime's driver entry points come
# from the interposed dlsym / cuGetProcAddress): checked exactly once on every
# backend, by the interposer when it is on (backend=both once checked it a
# second time from the runtime exit callback).
rline=$(grep -n 'rl((const void \*)scale' "$ROOT/tests/cupti/bypass.cu" | cut -d: -f1)
run "$TMPD/rplain" on_sim "$CT/bypass" rt
expect_grep '^bypass: runtime launch cudaSuccess, ' "$TMPD/rplain.out"
for b in interpose both cupti; do
    t=$TMPD/rt_$b
    run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$CT/bypass" rt
    cmp -s "$TMPD/rplain.out" "$t.out" || { diff -u "$TMPD/rplain.out" "$t.out" >&2; fail "rt, backend=$b: stdout differs"; }
    expect_eq "rt, backend=$b: exit status" "$(rc_of "$TMPD/rplain")" "$(rc_of "$t")"
    canon bypass "$t.json" "$t.canon" $b
    api=cuLaunchKernel; [ $b = cupti ] && api=cudaLaunchKernel
    printf '%s\n%s\n' \
        "device_mismatch severity=error kernel=scale api=$api param=0 launch=0 owner=1 memory=device count=1 at=bypass.cu:$rline" \
        'summary errors=1 warnings=0 launches=1 unchecked=0' >"$t.expected"
    expect_findings "$t.expected" "$t.canon" "bypass rt, backend=$b"
done
echo "ok: launches past the interposer are seen by CUPTI only, and once"
