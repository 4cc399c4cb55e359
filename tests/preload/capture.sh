#!/bin/sh
# sync=1 and mode=migrate never invalidate a CUDA graph captured in global
# mode (capture.cu): while thread A captures, its own launch into another
# stream and thread B's launch on device 1 are checked but not synchronised
# (one line says why) and B's cross-device operand is not migrated (the
# finding says why); A's capture ends and its graph runs.  Before, devcheck's
# synchronisation from a thread in global mode was prohibited and invalidated
# the capture (the sim implements the capture modes as cuda.h documents them).
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/capture" "$SIM_DIR/libcuda.so.1"
run "$TMPD/plain" on_sim "$PT/capture" clean
expect_eq "without devcheck" "capture: OK" "$(cat "$TMPD/plain.out")"

run "$TMPD/sync" under_devcheck env DEVCHECK_OPTIONS="sync=1:verbosity=2:json_path=$TMPD/sync.json" "$PT/capture" clean
sed 's/^/    sync> /' "$TMPD/sync.err"
expect_eq "sync=1 status" 0 "$(rc_of "$TMPD/sync")"
expect_eq "sync=1 stdout" "capture: OK" "$(cat "$TMPD/sync.out")"
expect_grep 'sync=1: launch of .*bump.* on cuda:0 checked but not synchronised: this thread is capturing a CUDA graph' "$TMPD/sync.err"
expect_grep 'sync=1: launch of .*bump.* on cuda:1 checked but not synchronised: another thread is capturing a CUDA graph in global mode' "$TMPD/sync.err"
findings "$TMPD/sync.json" >"$TMPD/sync.f"
expect_eq "sync=1 findings" "summary errors=0 warnings=0" "$(cat "$TMPD/sync.f")"

run "$TMPD/mig" under_devcheck env DEVCHECK_OPTIONS="mode=migrate:json_path=$TMPD/mig.json" "$PT/capture" cross
sed 's/^/    migrate> /' "$TMPD/mig.err"
expect_eq "mode=migrate status" 0 "$(rc_of "$TMPD/mig")"
expect_eq "mode=migrate stdout" "capture: OK" "$(cat "$TMPD/mig.out")"
findings "$TMPD/mig.json" >"$TMPD/mig.f"
sed 's/^/    migrate: /' "$TMPD/mig.f"
expect_grep '^device_mismatch kernel=_Z4bumpPiPKii param=1 launch=1 owner=2 api=cudaLaunchKernel$' "$TMPD/mig.f"
expect_grep '"action":"not_migrated".*"reason":"a stream of the process is capturing a CUDA graph' "$TMPD/mig.json"

run "$TMPD/both" under_devcheck env DEVCHECK_OPTIONS="mode=migrate:sync=1" "$PT/capture" cross
expect_eq "mode=migrate sync=1 stdout" "capture: OK" "$(cat "$TMPD/both.out")"
