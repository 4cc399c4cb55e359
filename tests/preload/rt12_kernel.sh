#!/bin/sh
# A CUDA 12.9 binary's <<<>>> launches, __cudaLaunchKernel@libcudart.so.12
# and __cudaLaunchKernel_ptsz@libcudart.so.12 (tests/preload/rt12_kernel.c
# with the stand-in runtime fake_rt12.c), bind to devcheck, are checked (a
# buffer of device 1 in a launch on device 3 is a device_mismatch for each),
# and are forwarded to the .12 runtime, whose answer the program gets.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/rt12_kernel" "$PT/xdev.cubin" "$SIM_DIR/libcuda.so.1"
readelf --dyn-syms -W "$PT/rt12_kernel" >"$TMPD/imports"
expect_grep ' __cudaLaunchKernel@libcudart\.so\.12( |$)' "$TMPD/imports"
expect_grep ' __cudaLaunchKernel_ptsz@libcudart\.so\.12( |$)' "$TMPD/imports"
marker=$(grep -o 'cudaErrorNotYetImplemented *= *[0-9]*' "$CUDA_HOME/include/driver_types.h" | grep -o '[0-9]*$')
run "$TMPD/r" under_devcheck env LD_DEBUG=bindings LD_DEBUG_OUTPUT="$TMPD/ld" \
    DEVCHECK_OPTIONS="json_path=$TMPD/r.json" "$PT/rt12_kernel" "$PT/xdev.cubin"
sed 's/^/    > /' "$TMPD/r.err"
expect_eq "status" 0 "$(rc_of "$TMPD/r")"
expect_eq "stdout" "rt12_kernel: $marker $marker" "$(cat "$TMPD/r.out")"
# the .12 runtime ran each launch once
expect_eq "__cudaLaunchKernel calls" 1 "$(grep -c '^fake_rt12: __cudaLaunchKernel$' "$TMPD/r.err")"
expect_eq "__cudaLaunchKernel_ptsz calls" 1 "$(grep -c '^fake_rt12: __cudaLaunchKernel_ptsz$' "$TMPD/r.err")"
cat "$TMPD"/ld.* >"$TMPD/ld"
for name in __cudaLaunchKernel __cudaLaunchKernel_ptsz; do
    expect_grep "binding file .*rt12_kernel .* to .*libdevcheck\.so .*normal symbol .$name. \[libcudart\.so\.12\]" "$TMPD/ld"
done
findings "$TMPD/r.json" >"$TMPD/r.f"
sed 's/^/    /' "$TMPD/r.f"
K=_Z8xdev_addPfPKfi
expect_grep "^device_mismatch kernel=$K param=1 launch=3 owner=1 api=__cudaLaunchKernel\$" "$TMPD/r.f"
expect_grep "^device_mismatch kernel=$K param=1 launch=3 owner=1 api=__cudaLaunchKernel_ptsz\$" "$TMPD/r.f"
