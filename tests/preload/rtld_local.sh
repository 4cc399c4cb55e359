#!/bin/sh
# A CUDA library loaded RTLD_LOCAL (dlopen's default, ctypes.CDLL) or
# RTLD_DEEPBIND, its libcudart.so.13 its own dependency: the program computes
# the same result with and without devcheck (its kernels run: the runtime
# hooks find the caller's runtime among the loaded objects, where
# dlsym(RTLD_NEXT) found none and the launches silently never ran, even with
# mode=off), and its cross-device launch is reported: by the hooks for
# RTLD_LOCAL and RTLD_GLOBAL; for DEEPBIND (the plugin binds to its own
# runtime, no hook sees it) by CUPTI, devcheck having started when the
# program looked the plugin's function up with dlsym, and CUPTI's launch
# callbacks on since the plugin's runtime resolved the driver.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/local_main" "$PT/libxlocal.so" "$PT/liblocal_twin.so" "$SIM_DIR/libcuda.so.1"
K=_Z11local_scalePiPKii
LIB=$PT/libxlocal.so
TWIN=$PT/liblocal_twin.so

# check NAME PATH: the run NAME computed 700 and its one finding is the
# cross-device launch, seen by PATH.
check() {
    expect_eq "$1 status" 0 "$(rc_of "$TMPD/$1")"
    expect_eq "$1 stdout" "local: 700" "$(cat "$TMPD/$1.out")"
    findings "$TMPD/$1.json" >"$TMPD/$1.f"
    sed "s/^/    $1: /" "$TMPD/$1.f"
    expect_grep "^device_mismatch kernel=$K param=1 launch=0 owner=1 api=cudaLaunchKernel\$" "$TMPD/$1.f"
    expect_grep '^summary errors=1 ' "$TMPD/$1.f"
    expect_grep "\"detected_by\":\"$2\"" "$TMPD/$1.json"
    expect_no_grep 'cannot find the real' "$TMPD/$1.err"
}

modes="local global deepbind"
# AddressSanitizer and ThreadSanitizer refuse RTLD_DEEPBIND (their
# interceptors would be bypassed): the program itself cannot run that way there
case $SANITIZE in address|address,undefined|thread) modes="local global"; note "deepbind skipped under SANITIZE=$SANITIZE" ;; esac
for mode in $modes; do
    run "$TMPD/plain-$mode" on_sim "$PT/local_main" $mode "$LIB" "$TWIN"
    expect_eq "$mode without devcheck" "local: 700" "$(cat "$TMPD/plain-$mode.out")"
    run "$TMPD/$mode" under_devcheck env DEVCHECK_OPTIONS="json_path=$TMPD/$mode.json:verbosity=1" \
        "$PT/local_main" $mode "$LIB" "$TWIN"
    case $mode in deepbind) check $mode cupti ;; *) check $mode interpose ;; esac
    # The plugin's runtime resolves the driver past the hooks: that first
    # call turns CUPTI's launch, allocation and copy callbacks on (before its
    # cudaMalloc, whose owner the finding names); never for the others.
    case $mode in
    deepbind) expect_grep '^devcheck: CUPTI: cuGetProcAddress(_v2)? reached the driver past the interposer; CUPTI now sees every launch, allocation and copy$' "$TMPD/$mode.err" ;;
    *) expect_no_grep 'past the interposer' "$TMPD/$mode.err" ;;
    esac
done
run "$TMPD/off" under_devcheck env DEVCHECK_OPTIONS=mode=off "$PT/local_main" local "$LIB" "$TWIN"
expect_eq "mode=off stdout" "local: 700" "$(cat "$TMPD/off.out")"

# Python: ctypes.CDLL loads RTLD_LOCAL.
if [ -z "$SANITIZE" ] && command -v python3 >/dev/null; then
    cat >"$TMPD/local.py" <<'PY'
import ctypes, sys
ctypes.CDLL(sys.argv[2], mode=ctypes.RTLD_GLOBAL)
print("local: %d" % ctypes.CDLL(sys.argv[1]).local_run(1))
PY
    run "$TMPD/plain-py" on_sim python3 "$TMPD/local.py" "$LIB" "$TWIN"
    expect_eq "python without devcheck" "local: 700" "$(cat "$TMPD/plain-py.out")"
    run "$TMPD/py" under_devcheck env DEVCHECK_OPTIONS="json_path=$TMPD/py.json" python3 "$TMPD/local.py" "$LIB" "$TWIN"
    check py interpose
fi
