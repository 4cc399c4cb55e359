#!/bin/sh
# Runtime test: libcudart.so.13 looks like NVIDIA's to the loader: SONAME,
# every export versioned libcudart.so.13, the same export list as NVIDIA's, and an
# nvcc-built program's versioned imports bind to it.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
lib=$SIM_DIR/libcudart.so.13
readelf -d "$lib" | grep -q 'SONAME.*\[libcudart\.so\.13\]' || fail "SONAME is not libcudart.so.13"
nm -D --defined-only "$lib" | awk '$2 != "A"' >"$TMPD/exports"
[ -s "$TMPD/exports" ] || fail "no exports"
awk '$3 !~ /@@libcudart\.so\.13$/' "$TMPD/exports" >"$TMPD/unversioned"
[ ! -s "$TMPD/unversioned" ] || { cat "$TMPD/unversioned" >&2; fail "exports without version libcudart.so.13"; }
real=$CUDA_HOME/lib64/libcudart.so.13
if [ -e "$real" ]; then
    nm -D --defined-only "$real" | awk '{ print $3 }' | sort >"$TMPD/real"
    awk '{ print $3 }' "$TMPD/exports" | sort >"$TMPD/ours"
    comm -13 "$TMPD/real" "$TMPD/ours" >"$TMPD/extra"
    [ ! -s "$TMPD/extra" ] || { cat "$TMPD/extra" >&2; fail "exports that NVIDIA's libcudart.so.13 lacks"; }
    # ... and none missing: unimplemented ones are stubs (sim/gen_stubs.py).
    nm -D --defined-only "$lib" | awk '{ print $3 }' | sort >"$TMPD/all"
    comm -23 "$TMPD/real" "$TMPD/all" >"$TMPD/missing"
    [ ! -s "$TMPD/missing" ] || { cat "$TMPD/missing" >&2; fail "NVIDIA exports missing from ours"; }
fi
prog=$RT_BIN/rt_launch
nm -D "$prog" | grep -q ' U __cudaLaunchKernel@libcudart\.so\.13$' || fail "rt_launch does not import __cudaLaunchKernel@libcudart.so.13"
LD_DEBUG=bindings on_sim "$prog" >"$TMPD/bind.out" 2>&1 || fail "rt_launch failed"
for sym in __cudaLaunchKernel __cudaRegisterFatBinary cudaMalloc; do
    expect_grep "to $lib \[0\]: normal symbol \`$sym' \[libcudart\.so\.13\]" "$TMPD/bind.out"
done
expect_no_grep 'no version information' "$TMPD/bind.out"
