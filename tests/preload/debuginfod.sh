#!/bin/sh
# Symbolization stays offline: with DEBUGINFOD_URLS pointing at a local
# listener, a run whose finding is symbolized (its stacks start in a program
# without debug info, stripped but with its build id) connects to nothing;
# with debuginfod=1 the same run asks the server (the listener works).
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/xdev_nodebug" "$SIM_DIR/libcuda.so.1"
python3 "$ROOT/tests/preload/listener.py" "$TMPD/port" "$TMPD/conns" &
lpid=$!
trap 'kill $lpid 2>/dev/null; rm -rf "$TMPD"' EXIT
while [ ! -s "$TMPD/port" ]; do
    kill -0 $lpid 2>/dev/null || fail "listener did not start"
    sleep 0.1
done
port=$(cat "$TMPD/port")

# run_xdev NAME OPTIONS: xdev's cross-device launch, reported and symbolized
run_xdev() {
    run "$TMPD/$1" under_devcheck env DEBUGINFOD_URLS="http://127.0.0.1:$port" \
        DEBUGINFOD_CACHE_PATH="$TMPD/cache-$1" DEBUGINFOD_TIMEOUT=5 DEBUGINFOD_RETRY_LIMIT=0 \
        DEVCHECK_OPTIONS="json_path=$TMPD/$1.json${2:+:$2}" "$PT/xdev_nodebug" runtime
    expect_eq "$1 status" 0 "$(rc_of "$TMPD/$1")"
    expect_grep 'launch stack:' "$TMPD/$1.err"
    expect_grep '^device_mismatch kernel=_Z8xdev_addPfPKfi param=1 launch=0 owner=1 ' "$(findings "$TMPD/$1.json" >"$TMPD/$1.f"; echo "$TMPD/$1.f")"
}

run_xdev offline ""
expect_eq "connections to DEBUGINFOD_URLS by default" 0 "$(cat "$TMPD/conns" 2>/dev/null | wc -l)"
run_xdev asked "debuginfod=1"
[ "$(cat "$TMPD/conns" 2>/dev/null | wc -l)" -gt 0 ] || fail "debuginfod=1: no connection to DEBUGINFOD_URLS"
note "debuginfod=1: $(wc -l <"$TMPD/conns") connections"
