#!/bin/sh
# No driver at all: one line on stderr, the program runs on (pass-through).
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/nodriver"
if env LD_LIBRARY_PATH= sh -c 'ldconfig -p 2>/dev/null | grep -q "libcuda.so.1 "'; then
    note "a libcuda.so.1 is installed: nothing to test"; exit 0
fi
run "$TMPD/n" env LD_LIBRARY_PATH= LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$DEVCHECK_LIB" "$PT/nodriver"
cat "$TMPD/n.err" >&2
expect_eq "status" 0 "$(rc_of "$TMPD/n")"
expect_eq "stdout" "nodriver: ok" "$(cat "$TMPD/n.out")"
expect_eq "stderr lines" 1 "$(wc -l <"$TMPD/n.err")"
expect_grep '^devcheck: no CUDA driver \(.*libcuda\.so\.1.*\); checking nothing$' "$TMPD/n.err"
