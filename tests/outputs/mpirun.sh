#!/bin/sh
# Issue 14, a real launcher: a 2-rank job under Debian's Open MPI, each rank
# on its own simulated GPU (cuda:RANK), rank 1 with the bug (its operand is
# cuda:0's).  Two ways: mpirun starts `devcheck --json mpi.%r.jsonl` per
# rank (the wrapper inside), and the wrapper around mpirun (outside, issue
# 29): both write one file per rank, each holding that rank's records only
# (each process expands %r itself), and `devcheck report` over either pair
# merges them into the one finding of rank 1.  The wrapper around mpirun with
# a path without %r writes the whole tree's file.
. "$ROOT/tests/outputs/common.sh"
need "$OP/outprog" "$DEVCHECK_BIN"
command -v mpirun >/dev/null || fail "mpirun missing (Debian's openmpi-bin: mk/deps.sh installs it)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# The wrapper around mpirun preloads the sanitizer's runtime into mpirun too:
# Open MPI's own threads (PMIx, libevent) are not ours to judge.
if [ "$SANITIZE" = thread ]; then
    printf 'race:libpmix.so\nrace:libopen-pal.so\nrace:libevent\nrace:libopen-rte.so\n' >"$TMPD/tsan.supp"
    export TSAN_OPTIONS="$TSAN_OPTIONS:suppressions=$TMPD/tsan.supp"
fi
run "$TMPD/a" mpirun -np 2 "$DEVCHECK_BIN" --sim 2 --json "$TMPD/mpi.%r.jsonl" -- "$OP/outprog" rank
expect_eq "per-rank wrappers: status" 0 "$(rc_of "$TMPD/a")"
expect_eq "per-rank wrappers: stdout" "outprog: rank done
outprog: rank done" "$(cat "$TMPD/a.out")"
[ -s "$TMPD/mpi.0.jsonl" ] && [ -s "$TMPD/mpi.1.jsonl" ] || fail "no per-rank files mpi.0.jsonl, mpi.1.jsonl"
ONE_PER_RANK="0.jsonl: rank 0: summary findings=0
1.jsonl: rank 1: device_mismatch _Z7out_addPfPKfi cuda:1<-cuda:0; summary findings=1"
expect_eq "per-rank wrappers: one file per rank" "$ONE_PER_RANK" "$(per_rank "$TMPD/mpi." | sed 's/^mpi\.//')"
run "$TMPD/o" "$DEVCHECK_BIN" --sim 2 --json "$TMPD/out.%r.jsonl" --log-file "$TMPD/out.%r.log" -- \
    mpirun -np 2 "$OP/outprog" rank
expect_eq "wrapper around mpirun, %r: status" 0 "$(rc_of "$TMPD/o")"
expect_eq "wrapper around mpirun, %r: one file per rank" "$ONE_PER_RANK" "$(per_rank "$TMPD/out." | sed 's/^out\.//')"
# each rank's log: its own report and its own SUMMARY; the tree's on stderr
expect_eq "wrapper around mpirun, %r: rank 0's log" "0 findings" \
    "$(sed -n 's/^devcheck: SUMMARY: \([0-9]* findings\).*/\1/p' "$TMPD/out.0.log")"
expect_eq "wrapper around mpirun, %r: rank 1's log" "1 finding" \
    "$(sed -n 's/^devcheck: SUMMARY: \([0-9]* finding\).*/\1/p' "$TMPD/out.1.log")"
expect_grep '^==devcheck== ERROR: device_mismatch: kernel out_add' "$TMPD/out.1.log"
expect_grep '^devcheck: SUMMARY: 1 finding .*; 2 processes$' "$TMPD/o.err"
for pair in mpi out; do
    run "$TMPD/r" "$DEVCHECK_BIN" report --json "$TMPD/merged.jsonl" "$TMPD/$pair.0.jsonl" "$TMPD/$pair.1.jsonl"
    expect_eq "report $pair.*: status" 1 "$(rc_of "$TMPD/r")"
    expect_grep '^    seen 1 time in: pid [0-9]+ rank 1 on ' "$TMPD/r.out"
    expect_grep '^devcheck: SUMMARY: 1 finding \(1 error, 0 warnings\) .*; 2 processes$' "$TMPD/r.out"
    expect_eq "report $pair.*: merged" "finding cuda:1<-cuda:0 ranks=[1]
summary ranks=[0, 1]" "$(ranks "$TMPD/merged.jsonl")"
done

run "$TMPD/w" "$DEVCHECK_BIN" --sim 2 --json "$TMPD/tree.jsonl" -- mpirun -np 2 "$OP/outprog" rank
expect_eq "wrapper around mpirun: status" 0 "$(rc_of "$TMPD/w")"
expect_eq "wrapper around mpirun: SUMMARY lines" 1 "$(count_lines 'SUMMARY' "$TMPD/w.err")"
expect_eq "wrapper around mpirun: merged" "finding cuda:1<-cuda:0 ranks=[1]
summary ranks=[0, 1]" "$(ranks "$TMPD/tree.jsonl")"
echo "mpirun: ok"
