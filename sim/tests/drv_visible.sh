#!/bin/sh
# CUDA_VISIBLE_DEVICES as the CUDA C Programming Guide ("CUDA Environment
# Variables") describes it: ordinals or UUIDs (a unique prefix of nvidia-smi's
# "GPU-..." form), enumerated in the list's order from 0, the list ending at
# the first invalid entry; UUIDs, PCI bus ids and SIMCUDA_PEER stay with the
# machine's device whatever its ordinal in the process.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB SIMCUDA_DRIVER_VERSION SIMCUDA_HIDE CUDA_VISIBLE_DEVICES
T=$BUILD/tests/sim
U=GPU-515dc0da-0000-4000-8000-73696d6375
vis() {         # vis LABEL CUDA_VISIBLE_DEVICES [VAR=value...]: the program's output in $TMPD/LABEL
    l=$1 v=$2; shift 2
    env CUDA_VISIBLE_DEVICES="$v" "$@" LD_LIBRARY_PATH="$SIM_DIR" ${SAN_PRELOAD:+LD_PRELOAD="$SAN_PRELOAD"} \
        "$T/drv_visible" >"$TMPD/$l" 2>"$TMPD/$l.err" || { cat "$TMPD/$l" "$TMPD/$l.err" >&2; fail "drv_visible $l"; }
}
line() { sed -n "/^$2 /p" "$TMPD/$1" | cut -d' ' -f2-; }

on_sim "$T/drv_visible" >"$TMPD/all" || fail "drv_visible unset"
expect_eq "devices, unset" "count 4" "$(head -1 "$TMPD/all")"
expect_eq "ordinal 2, unset" "${U}02 0000:12:00.0 back=2 bus=12 peers=013" "$(line all 2)"

# reordered: ordinal 0 is the machine's device 2
vis rev 2,1 SIMCUDA_PEER=1-2
expect_eq "devices 2,1" "count 2" "$(head -1 "$TMPD/rev")"
expect_eq "ordinal 0 of 2,1" "${U}02 0000:12:00.0 back=0 bus=12 peers=1" "$(line rev 0)"
expect_eq "ordinal 1 of 2,1" "${U}01 0000:11:00.0 back=1 bus=11 peers=0" "$(line rev 1)"
# SIMCUDA_PEER names the machine's devices: 0-3 joins ordinals 1 and 0 of 3,1,0
vis peer 3,1,0 SIMCUDA_PEER=0-3
expect_eq "peers of ordinal 0 of 3,1,0" "${U}03 0000:13:00.0 back=0 bus=13 peers=2" "$(line peer 0)"
expect_eq "peers of ordinal 1 of 3,1,0" "${U}01 0000:11:00.0 back=1 bus=11 peers=" "$(line peer 1)"
# the guide's example: 0,2,-1,1 shows devices 0 and 2
vis stop 0,2,-1,1
expect_eq "devices 0,2,-1,1" "count 2" "$(head -1 "$TMPD/stop")"
expect_eq "ordinal 1 of 0,2,-1,1" "${U}02" "$(line stop 1 | cut -d' ' -f1)"
# an ordinal past the machine's, an empty entry, a repeat: the list ends there
vis past 1,4,0
expect_eq "devices 1,4,0" "count 1" "$(head -1 "$TMPD/past")"
vis empty "3,,0"
expect_eq "devices 3,,0" "count 1" "$(head -1 "$TMPD/empty")"
vis repeat 1,1
expect_eq "devices 1,1" "count 1" "$(head -1 "$TMPD/repeat")"
# UUIDs: whole, a unique prefix, upper case; a prefix every device shares ends the list
vis uuid "${U}03,GPU-515DC0DA-0000-4000-8000-73696D637501"
expect_eq "devices by UUID" "${U}03 ${U}01" "$(line uuid 0 | cut -d' ' -f1) $(line uuid 1 | cut -d' ' -f1)"
vis prefix "${U}00,GPU-515dc0da"
expect_eq "devices by UUID, ambiguous prefix" "count 1" "$(head -1 "$TMPD/prefix")"
# nothing visible: CUDA_ERROR_NO_DEVICE, as with an empty variable
vis none ""
expect_eq "CUDA_VISIBLE_DEVICES=''" "init CUDA_ERROR_NO_DEVICE" "$(cat "$TMPD/none")"
vis bad "-1"
expect_eq "CUDA_VISIBLE_DEVICES=-1" "init CUDA_ERROR_NO_DEVICE" "$(cat "$TMPD/bad")"
# MIG: refused in one line
vis mig "MIG-${U}00/1/0,0"
expect_eq "CUDA_VISIBLE_DEVICES=MIG-..." "init CUDA_ERROR_NO_DEVICE" "$(cat "$TMPD/mig")"
expect_grep "^simcuda: CUDA_VISIBLE_DEVICES: 'MIG-.*': the sim has no MIG instances" "$TMPD/mig.err"
exit 0
