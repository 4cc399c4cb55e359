#!/bin/sh
# mode=migrate where it cannot migrate, and on every launch path:
#  - out of memory on the launch device (SIMCUDA_FAIL makes devcheck's own
#    cuMemAlloc fail): action=not_migrated with the reason, the launch goes
#    ahead unmodified (the program fails exactly as without devcheck);
#  - graph kernel nodes, a launch captured into a graph and a launch seen
#    only through CUPTI: not_migrated, with the reason; the capture is not
#    disturbed (sync=1 too);
#  - every launch entry point (tests/preload/launches.cu: kernelParams and
#    `extra`, Ex, cooperative, _ptsz, runtime) and memory kind (device, pool,
#    IPC, VMM, pageable host): migrated, and with sync=1 the rewritten launch
#    runs without a fault (no async_error), reads the source's bytes (`check`:
#    dst equals src) and leaves the caller's kernelParams / `extra` as they were.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
PT=$BUILD/tests/preload
PROG=$BUILD/tests/e2e/modes_prog
need "$DEVCHECK_LIB" "$SIM_DIR/libcudart.so.13" "$SIM_DIR/libcuda.so.1" "$PT/launches" "$PROG" \
     "$SAMPLES/vision_merge"
OOM='reason="cannot allocate 512 bytes on cuda:0: CUDA_ERROR_OUT_OF_MEMORY"'

# Out of memory: vision_merge allocates 4 times with cudaMalloc; the 5th
# cuMemAlloc_v2 is devcheck's copy on cuda:0.
t=$TMPD/oom
run "$t" under_devcheck env SIMCUDA_FAIL=cuMemAlloc_v2:5 DEVCHECK_OPTIONS="mode=migrate:json_path=$t.json" \
    "$SAMPLES/vision_merge"
canon vision_merge "$t.json" "$t.canon"
sed -E "/^device_mismatch /s/\$/ action=not_migrated $OOM/" "$E2E/expected/vision_merge.txt" >"$t.want"
expect_findings "$t.want" "$t.canon" "vision_merge, migration out of memory"
expect_eq "vision_merge, migration out of memory: exit status" 1 "$(rc_of "$t")"
expect_grep '^vision_merge: FAILED: .*cudaErrorIllegalAddress' "$t.out"
expect_grep '^    action: not migrated: cannot allocate 512 bytes on cuda:0: CUDA_ERROR_OUT_OF_MEMORY; the launch went ahead unmodified on cuda:0$' "$t.err"
expect_grep '; 0 bytes migrated$' "$t.err"
note "out of memory: ok"

# Graph kernel nodes.
GRAPH='reason="graph kernel node: its arguments are kept by the graph and run later, so they cannot be migrated"'
for mode in graph graphnode; do
    t=$TMPD/$mode
    run "$t" under_devcheck env DEVCHECK_OPTIONS="mode=migrate:sync=1:json_path=$t.json" "$PT/launches" "$mode"
    expect_eq "launches $mode: exit status" 0 "$(rc_of "$t")"
    canon launches "$t.json" "$t.canon"
    expect_grep "^device_mismatch severity=error kernel=probe .* param=1 launch=0 owner=1 .* action=not_migrated $GRAPH\$" "$t.canon"
    expect_no_grep 'action=migrated' "$t.canon"
done
note "graph nodes: ok"

# A captured launch: reported at capture time, not migrated, not synchronised
# (the sim answers a synchronisation of a capturing stream with an error,
# which sync=1 would report as an async_error).
t=$TMPD/capture
run "$t" under_devcheck env DEVCHECK_OPTIONS="mode=migrate:sync=1:json_path=$t.json" "$PROG" capture
expect_eq "modes_prog capture: exit status" 0 "$(rc_of "$t")"
expect_grep '^modes_capture: OK ' "$t.out"
canon modes_prog "$t.json" "$t.canon"
expect_findings /dev/stdin "$t.canon" "a captured launch" <<EOT
device_mismatch severity=error kernel=axpy api=cuLaunchKernel param=0 launch=0 owner=1 memory=device count=1 at=$(prog_site capture) action=not_migrated reason="launch captured into a graph: it runs later, so its arguments cannot be migrated"
summary errors=1 warnings=0 launches=1 unchecked=0
EOT
note "capture: ok"

# A launch seen only through CUPTI (tests/cupti/bypass.cu gpa: cuLaunchKernel
# from a cuGetProcAddress_v2 of libc's own dlsym): its parameters cannot be rewritten, so it is
# reported not migrated, with that reason, and goes ahead unmodified (the
# program prints what it prints without devcheck: the fault).
CT=$BUILD/tests/cupti
need "$CT/bypass" "$SIM_DIR/libcupti.so.13"
run "$TMPD/bypass.plain" on_sim "$CT/bypass" gpa
t=$TMPD/bypass
run "$t" under_devcheck env DEVCHECK_OPTIONS="mode=migrate:json_path=$t.json" "$CT/bypass" gpa
expect_same_run "bypass under mode=migrate" "$TMPD/bypass.plain" "$t"
canon bypass "$t.json" "$t.canon" cupti
expect_grep '^device_mismatch severity=error kernel=scale api=cuLaunchKernel param=0 launch=0 owner=1 .* action=not_migrated reason="launch seen only through CUPTI: arguments cannot be rewritten"$' "$t.canon"
expect_grep '; 0 bytes migrated$' "$t.err"
note "CUPTI-only launch: ok"

# Every launch path and memory kind: migrated, and the rewritten launch does
# not fault, computes the right result and leaves the caller's arguments alone.
for mode in extra ex coop ptsz rt rtex rtcoop vmm ipcnolazy pool pageable; do
    t=$TMPD/l_$mode
    run "$t" under_devcheck env DEVCHECK_OPTIONS="mode=migrate:sync=1:json_path=$t.json" "$PT/launches" "$mode" check
    expect_eq "launches $mode check: exit status" 0 "$(rc_of "$t")"
    expect_grep "^launches: $mode\$" "$t.out"
    canon launches "$t.json" "$t.canon"
    expect_grep '^(device_mismatch|host_memory) severity=error kernel=probe .* param=1 launch=0 .* action=migrated$' "$t.canon"
    expect_grep '^summary errors=1 warnings=0 launches=1 unchecked=0 migrated=[1-9][0-9]*$' "$t.canon"
    expect_no_grep '^async_error' "$t.canon"
done
note "launch paths: ok"
echo "ok: migration fallbacks and launch paths"
