#!/bin/sh
# Every launch entry point and allocation kind the interposer hooks, on the
# sim (tests/preload/launches.cu): the finding (kind, api, param, devices) or
# its absence for each; the same through the CUPTI path (backend=cupti) and
# both.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/launches" "$SIM_DIR/libcuda.so.1"
K=_Z5probePfPKf
MISMATCH="device_mismatch kernel=$K param=1 launch=0 owner=1"
PEER="peer_access kernel=$K param=1 launch=0 owner=1"
HOST="host_memory kernel=$K param=1 launch=0 owner=-1"
E1='summary errors=1 warnings=0'
W1='summary errors=0 warnings=1'
CLEAN='summary errors=0 warnings=0'
# MODE|expected findings, one per line (\n-separated), or !REGEX: no finding
# matches.  pinned, registered: legal, counted but not reported (host_memory=auto;
# tests/unit/test_check.c covers warn and error).  vmmstripe: the unmapped address must not keep its old owner (what
# it is instead depends on the platform; the sim's reservations are PROT_NONE, never host memory).
# Three ways: backend=both, interpose and cupti (issue 4) give the same findings;
# hide:MODE runs MODE with cuFuncGetParamInfo/cuKernelGetParamInfo hidden (the
# layout from devcheck's own image reader).
for backend in both interpose cupti; do
while IFS='|' read -r mode want; do
    [ -n "$mode" ] || continue
    hmm=0 hide=
    case $mode in hmm:*) mode=${mode#hmm:}; hmm=1 ;; esac
    # hide: the driver without cuFuncGetParamInfo/cuKernelGetParamInfo: the
    # layout from devcheck's own image reader, the same findings
    case $mode in hide:*) mode=${mode#hide:}; hide=cuFuncGetParamInfo,cuKernelGetParamInfo ;; esac
    # The sim does not implement cuGraphAddNode_v2 (it fails, with no CUPTI
    # callback): only the interposer, which checks before the call, sees it.
    if [ "$mode.$backend" = graphnode.cupti ]; then note "graphnode, backend=cupti: skipped (not in the sim)"; continue; fi
    rm -f "$TMPD/l.json"
    run "$TMPD/l" under_devcheck env SIMCUDA_HMM=$hmm SIMCUDA_HIDE=$hide DEVCHECK_OPTIONS="backend=$backend:json_path=$TMPD/l.json" "$PT/launches" "$mode"
    expect_eq "$mode, backend=$backend: status" 0 "$(rc_of "$TMPD/l")"
    expect_eq "$mode, backend=$backend: stdout" "launches: $mode" "$(cat "$TMPD/l.out")"
    findings "$TMPD/l.json" >"$TMPD/l.f"
    case $want in '!'*)     # a finding that must not be there
        expect_no_grep "${want#!}" "$TMPD/l.f"; note "$mode, backend=$backend: ok"; continue ;;
    esac
    printf '%b\n' "$want" >"$TMPD/l.want"
    if ! diff -u "$TMPD/l.want" "$TMPD/l.f" >"$TMPD/l.diff"; then
        sed 's/^/    /' "$TMPD/l.diff" >&2
        sed 's/^/    err> /' "$TMPD/l.err" >&2
        fail "$mode (hmm=$hmm, backend=$backend): findings differ (- expected, + got)"
    fi
    note "$mode (hmm=$hmm, backend=$backend): ok"
done <<EOT
extra|$MISMATCH api=cuLaunchKernel\n$E1
hide:extra|$MISMATCH api=cuLaunchKernel\n$E1
kernfunc|$MISMATCH api=cuLaunchKernel\n$E1
hide:kernfunc|$MISMATCH api=cuLaunchKernel\n$E1
hide:ex|$MISMATCH api=cuLaunchKernelEx\n$E1
hide:rt|$MISMATCH api=cudaLaunchKernel\n$E1
hide:graph|$MISMATCH api=cuGraphAddKernelNode\n$E1
ex|$MISMATCH api=cuLaunchKernelEx\n$E1
coop|$MISMATCH api=cuLaunchCooperativeKernel\n$E1
ptsz|$MISMATCH api=cuLaunchKernel_ptsz\n$E1
rt|$MISMATCH api=cudaLaunchKernel\n$E1
rtex|$MISMATCH api=cudaLaunchKernelExC\n$E1
rtcoop|$MISMATCH api=cudaLaunchCooperativeKernel\n$E1
graph|$MISMATCH api=cuGraphAddKernelNode\n$E1
graphnode|$MISMATCH api=cuGraphAddNode\n$E1
stream|stream_mismatch kernel=$K param=- launch=1 owner=- api=__cudaLaunchKernel\n$E1
vmm|$MISMATCH api=__cudaLaunchKernel\n$E1
vmmgrant|$PEER api=__cudaLaunchKernel\n$W1
vmmstripe|!^device_mismatch
peeron|$PEER api=__cudaLaunchKernel\n$W1
peeroff|$MISMATCH api=__cudaLaunchKernel\n$E1
peerflip|$PEER api=__cudaLaunchKernel\n$MISMATCH api=__cudaLaunchKernel\nsummary errors=1 warnings=1
ipc|$PEER api=__cudaLaunchKernel\n$W1
ipcnolazy|$MISMATCH api=__cudaLaunchKernel\n$E1
pool|$MISMATCH api=__cudaLaunchKernel\n$E1
poolgrant|$PEER api=__cudaLaunchKernel\n$W1
pinned|$CLEAN
registered|$CLEAN
pageable|$HOST api=__cudaLaunchKernel\n$E1
hmm:pageable|$HOST api=__cudaLaunchKernel\n$W1
managed|$CLEAN
freed|$CLEAN
EOT
done
