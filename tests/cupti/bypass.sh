#!/bin/sh
# Launches that reach the driver by a path the interposer does not hook
# (bypass.cu: cuLaunchKernel from the C library's own dlsym) are seen only
# by CUPTI: backend=interpose finds nothing and counts no launch;
# backend=cupti reports the cross-device launch, detected by cupti, and the
# summary says the launch was seen by cupti; backend=both does when a call
# past the hooks came first (below).  The program's stdout and exit status
# are unchanged in every case.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
CT=$BUILD/tests/cupti
need "$DEVCHECK_LIB" "$CT/bypass" "$SIM_DIR/libcuda.so.1" "$SIM_DIR/libcupti.so.13"
line=$(grep -n 'launch((CUfunction)f' "$ROOT/tests/cupti/bypass.cu" | cut -d: -f1)

# `bypass`: the launch is the program's only call past the hooks.  The
# interposer cannot see it, and beside the interposer CUPTI's launch
# callbacks wait for a call past the hooks that never comes: only
# backend=cupti reports it.  `bypass gpa`: the launch comes from a
# cuGetProcAddress_v2 that came past the hooks, whose callback turns CUPTI's
# launch callbacks on first: backend=both reports it too.
for mode in plain gpa; do
    arg=; [ $mode = gpa ] && arg=gpa
    run "$TMPD/$mode" on_sim "$CT/bypass" $arg
    expect_grep '^bypass: launch 0, ' "$TMPD/$mode.out"
    for b in interpose both cupti; do
        t=$TMPD/${mode}_$b
        run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json:verbosity=1" "$CT/bypass" $arg
        expect_same_run "$mode, backend=$b" "$TMPD/$mode" "$t"
        if [ $b = interpose ] || { [ $b = both ] && [ $mode = plain ]; }; then
            canon bypass "$t.json" "$t.canon" $b
            printf 'summary errors=0 warnings=0 launches=0 unchecked=0\n' >"$t.expected"
            expect_findings "$t.expected" "$t.canon" "bypass $mode, backend=$b"
            expect_grep '^devcheck: SUMMARY: 0 findings .*; 0 launches checked, 0 unchecked \(0 seen by interpose, 0 by cupti\)$' "$t.err"
            expect_no_grep 'past the interposer' "$t.err"
        else
            canon bypass "$t.json" "$t.canon" cupti
            printf '%s\n%s\n' \
                "device_mismatch severity=error kernel=scale api=cuLaunchKernel param=0 launch=0 owner=1 memory=device count=1 at=bypass.cu:$line" \
                'summary errors=1 warnings=0 launches=1 unchecked=0' >"$t.expected"
            expect_findings "$t.expected" "$t.canon" "bypass $mode, backend=$b"
            expect_grep '^devcheck: SUMMARY: 1 finding .*; 1 launch checked, 0 unchecked \(0 seen by interpose, 1 by cupti\)$' "$t.err"
            expect_grep '"detected_by":"cupti"' "$t.json"
            [ $b = both ] && expect_grep '^devcheck: CUPTI: cuGetProcAddress_v2 reached the driver past the interposer; CUPTI now sees every launch, allocation and copy$' "$t.err"
        fi
    done
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
    expect_same_run "rt, backend=$b" "$TMPD/rplain" "$t"
    canon bypass "$t.json" "$t.canon" $b
    api=cuLaunchKernel; [ $b = cupti ] && api=cudaLaunchKernel
    printf '%s\n%s\n' \
        "device_mismatch severity=error kernel=scale api=$api param=0 launch=0 owner=1 memory=device count=1 at=bypass.cu:$rline" \
        'summary errors=1 warnings=0 launches=1 unchecked=0' >"$t.expected"
    expect_findings "$t.expected" "$t.canon" "bypass rt, backend=$b"
done
echo "ok: launches past the interposer are seen by CUPTI only, and once"
