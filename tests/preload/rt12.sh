#!/bin/sh
# A binary built against CUDA 12's runtime (cudaLaunchKernel@libcudart.so.12,
# here a stand-in library) binds its launch to devcheck, which forwards it to
# the real library unchanged and counts the launch.  With a CUDA 13 library
# loaded RTLD_LOCAL beside it (two runtimes in one process), each runtime gets
# its own calls: the CUDA 13 library's cudaLaunchKernel@libcudart.so.13 runs
# in libcudart.so.13 (not in the .12 one, which dlsym(RTLD_NEXT) found first)
# and its cross-device launch is reported, from the .13 runtime's answers
# (current device 0, its function); the .12 runtime is asked about its own
# launch only (one cudaGetFuncBySymbol).
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/rt12_main" "$SIM_DIR/libcuda.so.1" "$PT/libxlocal.so" "$PT/liblocal_twin.so"
readelf --dyn-syms -W "$PT/rt12_main" | grep -q 'cudaLaunchKernel@libcudart.so.12' ||
    fail "rt12_main does not import cudaLaunchKernel@libcudart.so.12"
marker=$(grep -o 'cudaErrorNotYetImplemented *= *[0-9]*' "$CUDA_HOME/include/driver_types.h" | grep -o '[0-9]*$')
run "$TMPD/r" under_devcheck env LD_DEBUG=bindings LD_DEBUG_OUTPUT="$TMPD/ld" "$PT/rt12_main"
expect_eq "status" 0 "$(rc_of "$TMPD/r")"
expect_eq "stdout" "rt12: $marker" "$(cat "$TMPD/r.out")"
cat "$TMPD"/ld.* >"$TMPD/ld"
expect_grep "binding file .*rt12_main .* to .*libdevcheck\.so .*normal symbol .cudaLaunchKernel. \[libcudart\.so\.12\]" "$TMPD/ld"
expect_grep 'SUMMARY: .* 1 unchecked' "$TMPD/r.err"

run "$TMPD/two" under_devcheck env DEVCHECK_OPTIONS="json_path=$TMPD/two.json" \
    "$PT/rt12_main" "$PT/libxlocal.so" "$PT/liblocal_twin.so"
expect_eq "two runtimes: status" 0 "$(rc_of "$TMPD/two")"
expect_eq "two runtimes: stdout" "rt12: $marker
local: 700" "$(cat "$TMPD/two.out")"
findings "$TMPD/two.json" >"$TMPD/two.f"
sed 's/^/    two: /' "$TMPD/two.f"
expect_grep '^device_mismatch kernel=_Z11local_scalePiPKii param=1 launch=0 owner=1 api=cudaLaunchKernel$' "$TMPD/two.f"
expect_grep '^summary errors=1 ' "$TMPD/two.f"
expect_eq "calls of the .12 runtime's cudaGetFuncBySymbol" 1 "$(grep -c '^fake_rt12: cudaGetFuncBySymbol' "$TMPD/two.err")"
