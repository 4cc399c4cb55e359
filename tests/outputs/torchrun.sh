#!/bin/sh
# Issue 14, a real launcher: a 2-rank PyTorch torchrun job (gloo backend;
# torch from the project's client virtualenv, mk/pyenv.sh), each rank on its
# own simulated GPU (cuda:RANK), rank 1 with the bug.  The ranks write
# json_path=tr.%r.jsonl under a bare LD_PRELOAD and devcheck report merges
# them.  Issue 29: the wrapper around torchrun (outside) and torchrun
# starting the wrapper per rank (inside, --no-python) both write one file per
# rank (--json t%r.jsonl), each holding that rank's records only -- not
# torchrun's own process, which has no rank -- and devcheck report merges
# either pair into the one finding of rank 1.  PYENV overrides the
# virtualenv.
. "$ROOT/tests/outputs/common.sh"
need "$OP/libpylaunch.so" "$DEVCHECK_BIN" "$DEVCHECK_LIB"
PYENV=${PYENV:-$(sh "$ROOT/mk/pyenv.sh")} || fail "no Python client environment (mk/pyenv.sh)"
# torchrun is `python -m torch.distributed.run` (the venv's bin/torchrun
# script carries the interpreter path the venv was made at)
[ -x "$PYENV/bin/python" ] || fail "no python in $PYENV"
TORCHRUN="$PYENV/bin/python -m torch.distributed.run"
JOB="$ROOT/tests/outputs/torchrun_job.py"
run "$TMPD/t" env LD_LIBRARY_PATH="$SIM_DIR" LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$DEVCHECK_LIB" SIMCUDA_DEVICES=2 \
    DEVCHECK_OPTIONS="json_path=$TMPD/tr.%r.jsonl" $TORCHRUN --standalone --nproc-per-node 2 "$JOB" "$OP/libpylaunch.so"
expect_eq "torchrun: status" 0 "$(rc_of "$TMPD/t")"
expect_grep 'rank 0 done' "$TMPD/t.out"              # (torchrun may interleave the workers' lines)
expect_grep 'rank 1 done' "$TMPD/t.out"
run "$TMPD/r" "$DEVCHECK_BIN" report --json "$TMPD/merged.jsonl" "$TMPD/tr.0.jsonl" "$TMPD/tr.1.jsonl"
expect_eq "report: status" 1 "$(rc_of "$TMPD/r")"
expect_grep '^    seen 1 time in: pid [0-9]+ rank 1 on ' "$TMPD/r.out"
expect_eq "report: merged" "finding cuda:1<-cuda:0 ranks=[1]
summary ranks=[0, 1]" "$(ranks "$TMPD/merged.jsonl")"

ONE_PER_RANK="0.jsonl: rank 0: summary findings=0
1.jsonl: rank 1: device_mismatch _Z6py_addPfPKfi cuda:1<-cuda:0; summary findings=1"
run "$TMPD/w" "$DEVCHECK_BIN" --sim 2 --json "$TMPD/out.%r.jsonl" -- \
    $TORCHRUN --standalone --nproc-per-node 2 "$JOB" "$OP/libpylaunch.so"
expect_eq "wrapper around torchrun: status" 0 "$(rc_of "$TMPD/w")"
expect_eq "wrapper around torchrun: SUMMARY lines" 1 "$(count_lines 'SUMMARY' "$TMPD/w.err")"
expect_grep '^devcheck: SUMMARY: 1 finding .*; 3 processes$' "$TMPD/w.err"     # torchrun's own, the ranks
expect_eq "wrapper around torchrun: one file per rank" "$ONE_PER_RANK" "$(per_rank "$TMPD/out." | sed 's/^out\.//')"
run "$TMPD/i" $TORCHRUN --standalone --nproc-per-node 2 --no-python "$DEVCHECK_BIN" --sim 2 \
    --json "$TMPD/in.%r.jsonl" -- "$PYENV/bin/python" "$JOB" "$OP/libpylaunch.so"
expect_eq "wrapper per rank: status" 0 "$(rc_of "$TMPD/i")"
expect_eq "wrapper per rank: one file per rank" "$ONE_PER_RANK" "$(per_rank "$TMPD/in." | sed 's/^in\.//')"
for pair in out in; do
    run "$TMPD/m" "$DEVCHECK_BIN" report --json "$TMPD/merged.jsonl" "$TMPD/$pair.0.jsonl" "$TMPD/$pair.1.jsonl"
    expect_eq "report $pair.*: status" 1 "$(rc_of "$TMPD/m")"
    expect_eq "report $pair.*: merged" "finding cuda:1<-cuda:0 ranks=[1]
summary ranks=[0, 1]" "$(ranks "$TMPD/merged.jsonl")"
done
echo "torchrun: ok"
