#!/bin/sh
# The sim's libcupti.so.13 alone (no libcuda.so.1 on the search path): cuptiSubscribe returns CUPTI_ERROR_NOT_INITIALIZED, stubs CUPTI_ERROR_NOT_SUPPORTED, no crash; its exports equal NVIDIA's, versioned libcupti.so.13.
. "$ROOT/tests/lib.sh"
only=$TMPD/cupti-only
mkdir -p "$only"
cp "$SIM_DIR/libcupti.so.13" "$only/"
env LD_LIBRARY_PATH="$only" ${SAN_PRELOAD:+LD_PRELOAD="$SAN_PRELOAD"} "$BUILD/tests/sim/cupti_nodrv" >"$TMPD/out" 2>&1 ||
    { sed 's/^/    > /' "$TMPD/out" >&2; fail "cupti_nodrv"; }
expect_grep '^ok$' "$TMPD/out"
# the same exported names as NVIDIA's libcupti.so.13, each versioned libcupti.so.13
real=${CUDA_HOME:-/usr/local/cuda}/lib64/libcupti.so.13
if [ -f "$real" ]; then
    nm -D --defined-only --with-symbol-versions "$SIM_DIR/libcupti.so.13" | awk '$2 == "T" { print $3 }' | sort >"$TMPD/sim.txt"
    nm -D --defined-only --with-symbol-versions "$real" | awk '$2 == "T" { print $3 }' | sort >"$TMPD/real.txt"
    [ -s "$TMPD/sim.txt" ] || fail "libcupti.so.13 exports nothing"
    cmp -s "$TMPD/sim.txt" "$TMPD/real.txt" || { diff "$TMPD/sim.txt" "$TMPD/real.txt" | head >&2; fail "libcupti.so.13 exports differ from NVIDIA's"; }
    expect_grep 'cuptiSubscribe_v2@@libcupti.so.13' "$TMPD/sim.txt"
fi
