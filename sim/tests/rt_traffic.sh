#!/bin/sh
# Runtime test: the runtime reaches the driver only as NVIDIA's does, as an
# interposer wrapping dlsym and cuGetProcAddress sees it (rt_trace_lib.c):
# no cu* import, one dlsym of cuGetProcAddress_v2, a probe, cuInit,
# cuGetProcAddress itself, then every entry point with its introduction
# version, flags 0 for legacy and 2 (per-thread) for the _ptsz/_ptds ones.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
lib=$SIM_DIR/libcudart.so.13
nm -D --undefined-only "$lib" | grep -E ' cu[A-Z]' >"$TMPD/imports" && { cat "$TMPD/imports" >&2; fail "libcudart imports driver symbols"; }
readelf -d "$lib" | grep -q 'NEEDED.*libcuda' && fail "libcudart links against libcuda"
case $SANITIZE in address|address,undefined|thread)
    # The tracer's dlsym wrapper becomes the caller of the sanitizer
    # runtime's dlsym(RTLD_NEXT, ...) lookups and breaks them.
    note "trace skipped under SANITIZE=$SANITIZE"; exit 0 ;;
esac
env LD_LIBRARY_PATH="$SIM_DIR" LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$RT_BIN/librt_trace.so" \
    "$RT_BIN/rt_launch" >"$TMPD/trace" 2>&1 || { tail "$TMPD/trace" >&2; fail "rt_launch failed under the tracer"; }
grep -E '^(dlsym|gpa) ' "$TMPD/trace" >"$TMPD/calls"
expect_eq "cu* names looked up with dlsym" "dlsym cuGetProcAddress_v2 0 0 0" "$(grep '^dlsym' "$TMPD/calls")"
expect_eq "first queries" "gpa  0 0 1
gpa cuInit 2000 0 1
gpa cuGetProcAddress 12000 0 1" "$(grep '^gpa' "$TMPD/calls" | head -3)"
for q in 'cuMemAlloc 3020 0' 'cuLaunchKernel 4000 0' 'cuLaunchKernel 7000 2' 'cuMemcpyHtoD 3020 0' \
         'cuMemcpyHtoD 7000 2' 'cuLibraryLoadData 12000 0' 'cuLibraryGetKernel 12000 0' \
         'cuCtxEnablePeerAccess 4000 0' 'cuMemPrefetchAsync 12020 2'; do
    expect_grep "^gpa $q 1\$" "$TMPD/calls"
done
# Every query names a driver function, with NVIDIA's flags.
expect_no_grep '^gpa [^ ]+ [0-9]+ ([13-9]|[0-9]{2,}) ' "$TMPD/calls"
expect_grep '^ok$' "$TMPD/trace"
