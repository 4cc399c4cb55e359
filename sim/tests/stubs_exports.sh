#!/bin/sh
# stubs_exports: a library made of gen_stubs.py's stubs, one implemented
# function and the generated version script exports exactly NVIDIA's names:
# the runtime each as name@@libcudart.so.13, the driver unversioned.
set -u
export LC_ALL=C
T=$BUILD/tests/stubs
fail() { echo "FAIL: $*"; exit 1; }
real_names() { nm -D --defined-only "$1" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u; }

real_names "$CUDA_HOME/lib64/libcudart.so.13" > "$T/rt.want"
nm -D --defined-only "$T/libcudart.so.13" | awk '$2 != "A"' > "$T/rt.nm"
awk '{ sub(/@.*/, "", $3); print $3 }' "$T/rt.nm" | sort -u > "$T/rt.got"
diff "$T/rt.want" "$T/rt.got" > "$T/rt.diff" || { head -20 "$T/rt.diff"; fail "runtime exports differ from libcudart.so.13"; }
awk '$3 !~ /@@libcudart\.so\.13$/ { print; bad = 1 } END { exit bad }' "$T/rt.nm" || fail "runtime symbols without version libcudart.so.13"
nm -D --defined-only "$CUDA_HOME/lib64/stubs/libcuda.so" | grep -q '@' && fail "NVIDIA's libcuda stub is versioned now"
nm -D --defined-only "$T/libcuda.so.1" | grep -q '@' && fail "driver symbols are versioned" 
[ "$(wc -l < "$T/rt.want")" -gt 300 ] || fail "too few runtime names"
readelf -d "$T/libcudart.so.13" | grep -q 'SONAME.*libcudart.so.13' || fail "runtime soname"

real_names "$CUDA_HOME/lib64/stubs/libcuda.so" > "$T/drv.want"
real_names "$T/libcuda.so.1" > "$T/drv.got"
diff "$T/drv.want" "$T/drv.got" > "$T/drv.diff" || { head -20 "$T/drv.diff"; fail "driver exports differ from libcuda.so"; }
[ "$(wc -l < "$T/drv.want")" -gt 500 ] || fail "too few driver names"

# the generated lists are the same names
cmp -s "$T/rt.want" "$T/rt.list" || fail "runtime --list differs"
cmp -s "$T/drv.want" "$T/drv.list" || fail "driver --list differs"
# implemented functions are not stubbed
grep -q 'cuInit(' "$T/drv_stubs.c" && fail "cuInit stubbed although defined"
grep -q 'cudaGetDeviceCount(' "$T/rt_stubs.c" && fail "cudaGetDeviceCount stubbed although defined"
echo "stubs_exports: ok ($(wc -l < "$T/rt.want") runtime, $(wc -l < "$T/drv.want") driver names)"
