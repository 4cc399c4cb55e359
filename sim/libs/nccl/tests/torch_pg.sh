#!/bin/sh
# PyTorch's ProcessGroupNCCL on the sim's NCCL (torch_pg.py: one thread per
# simulated GPU, each a rank of one process): on 2 and 4 GPUs every
# collective's values are right on every rank; under devcheck the run
# prints the same and devcheck finds nothing (every buffer is its rank's).
. "$ROOT/tests/lib.sh"
need_pyenv
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER NCCL_DEBUG
PROG=$ROOT/sim/libs/nccl/tests/torch_pg.py
for n in 2 4; do
    t=$TMPD/pg$n
    on_sim_rt env SIMCUDA_DEVICES=$n "$PY" "$PROG" >"$t.plain.out" 2>"$t.plain.err"
    echo $? >"$t.plain.rc"
    expect_eq "torch_pg.py on $n GPUs: status" 0 "$(cat "$t.plain.rc")"
    expect_grep "^torch_pg: $n ranks ok\$" "$t.plain.out"
    expect_no_grep '^simnccl|^simcuda' "$t.plain.err"
    under_devcheck_rt env SIMCUDA_DEVICES=$n "$PY" "$PROG" >"$t.out" 2>"$t.err"
    echo $? >"$t.rc"
    expect_same_run "torch_pg.py on $n GPUs under devcheck" "$t.plain" "$t"
    expect_grep '^devcheck: SUMMARY: 0 findings' "$t.err"
done
echo "torch_pg: ok"
