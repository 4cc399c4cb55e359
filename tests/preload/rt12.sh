#!/bin/sh
# A binary built against CUDA 12's runtime (cudaLaunchKernel@libcudart.so.12,
# here a stand-in library) binds its launch to devcheck, which forwards it to
# the real library unchanged and counts the launch.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/rt12_main" "$SIM_DIR/libcuda.so.1"
readelf --dyn-syms -W "$PT/rt12_main" | grep -q 'cudaLaunchKernel@libcudart.so.12' ||
    fail "rt12_main does not import cudaLaunchKernel@libcudart.so.12"
run "$TMPD/r" under_devcheck env LD_DEBUG=bindings LD_DEBUG_OUTPUT="$TMPD/ld" "$PT/rt12_main"
expect_eq "status" 0 "$(rc_of "$TMPD/r")"
expect_eq "stdout" "rt12: $(grep -o 'cudaErrorNotYetImplemented *= *[0-9]*' "$CUDA_HOME/include/driver_types.h" | grep -o '[0-9]*$')" \
    "$(cat "$TMPD/r.out")"
cat "$TMPD"/ld.* >"$TMPD/ld"
expect_grep "binding file .*rt12_main .* to .*libdevcheck\.so .*normal symbol .cudaLaunchKernel. \[libcudart\.so\.12\]" "$TMPD/ld"
expect_grep 'SUMMARY: .* 1 unchecked' "$TMPD/r.err"
