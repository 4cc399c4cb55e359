#!/bin/sh
# Peer access enabled again after devcheck forgot it (peer_again.cu: a second
# context on cuda:0 destroyed, then cudaDeviceEnablePeerAccess returns
# cudaErrorPeerAccessAlreadyEnabled): the access is recorded on every
# detection path, so the launch on cuda:0 with cuda:1's memory is the same
# peer_access warning with backend=both, interpose and cupti (CUPTI's
# cuCtxEnablePeerAccess exit callback once took only CUDA_SUCCESS and reported
# a device_mismatch on correct code).  stdout and exit status unchanged.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
CT=$BUILD/tests/cupti
need "$DEVCHECK_LIB" "$CT/peer_again" "$SIM_DIR/libcuda.so.1" "$SIM_DIR/libcupti.so.13"
line=$(grep -n 'scale<<<1, N>>>' "$ROOT/tests/cupti/peer_again.cu" | cut -d: -f1)
run "$TMPD/plain" on_sim "$CT/peer_again"
expect_eq "plain run" "peer_again: enable again cudaErrorPeerAccessAlreadyEnabled, synchronize cudaSuccess" \
    "$(cat "$TMPD/plain.out")"
for b in $BACKENDS; do
    t=$TMPD/$b
    run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$CT/peer_again"
    expect_same_run "backend=$b" "$TMPD/plain" "$t"
    canon peer_again "$t.json" "$t.canon" "$b"
    printf '%s\n%s\n' \
        "peer_access severity=warning kernel=scale api=__cudaLaunchKernel param=0 launch=0 owner=1 memory=device count=1 at=peer_again.cu:$line" \
        'summary errors=0 warnings=1 launches=1 unchecked=0' >"$t.expected"
    expect_findings "$t.expected" "$t.canon" "peer_again, backend=$b"
done
echo "ok: an access enabled again is recorded on every detection path"
