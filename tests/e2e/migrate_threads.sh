#!/bin/sh
# Migration under threads (tests/e2e/modes_prog.cu `threads`): 8 threads on 4
# devices launch at once, the odd ones with y on another device.  On its own
# the program fails; under --mode migrate every thread's result is exact (no
# migrated copy reaches another thread, every copy-back lands), the one
# finding (one call site) counts the 4 odd threads x 16 launches, and exactly
# those launches moved their 4000-byte y there and back: even threads' clean
# launches are untouched.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
PROG=$BUILD/tests/e2e/modes_prog
need "$DEVCHECK_BIN" "$DEVCHECK_LIB" "$SIM_DIR/libcudart.so.13" "$SIM_DIR/libcuda.so.1" "$PROG"
t=$TMPD/bare
run "$t" on_sim "$PROG" threads
expect_eq "modes_prog threads on its own: exit status" 1 "$(rc_of "$t")"
expect_grep '^modes_threads: WRONG: thread [0-9]*[13579]: ' "$t.out"
for opts in "" "--sync"; do
    t=$TMPD/migrate$opts
    run "$t" "$DEVCHECK_BIN" --sim 4 --mode migrate $opts --json "$t.json" -- "$PROG" threads
    expect_eq "modes_prog threads under --mode migrate $opts: exit status" 0 "$(rc_of "$t")"
    expect_grep '^modes_threads: OK \(8 threads, 16 launches each\)$' "$t.out"
    canon modes_prog "$t.json" "$t.canon"
    # One finding, first seen on thread 1 (cuda:1, y on cuda:2) or thread 3
    # (cuda:3, y on cuda:0); 64 migrations of 4000 bytes, there and back.
    expect_eq "findings" 2 "$(wc -l <"$t.canon")"
    expect_grep "^device_mismatch severity=error kernel=axpy api=__cudaLaunchKernel param=1 launch=(1 owner=2|3 owner=0) memory=device count=64 at=$(prog_site threads) action=migrated\$" "$t.canon"
    expect_grep '^summary errors=1 warnings=0 launches=128 unchecked=0 migrated=512000$' "$t.canon"
    expect_no_grep '^async_error' "$t.canon"
done
echo "ok: migration under threads"
