#!/bin/sh
# Issue 14, a real launcher: a 2-rank job under Debian's Open MPI, each rank
# on its own simulated GPU (cuda:RANK), rank 1 with the bug (its operand is
# cuda:0's).  Two ways: mpirun starts `devcheck --json out.%r.jsonl` per
# rank and `devcheck report` merges the files; and the wrapper around
# mpirun itself, whose tree holds both ranks.  Both name rank 1.
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
run "$TMPD/r" "$DEVCHECK_BIN" report --json "$TMPD/merged.jsonl" "$TMPD/mpi.0.jsonl" "$TMPD/mpi.1.jsonl"
expect_eq "report: status" 1 "$(rc_of "$TMPD/r")"
expect_grep '^    seen 1 time in: pid [0-9]+ rank 1 on ' "$TMPD/r.out"
expect_grep '^devcheck: SUMMARY: 1 finding \(1 error, 0 warnings\) .*; 2 processes$' "$TMPD/r.out"
expect_eq "report: merged" "finding cuda:1<-cuda:0 ranks=[1]
summary ranks=[0, 1]" "$(ranks "$TMPD/merged.jsonl")"

run "$TMPD/w" "$DEVCHECK_BIN" --sim 2 --json "$TMPD/tree.jsonl" -- mpirun -np 2 "$OP/outprog" rank
expect_eq "wrapper around mpirun: status" 0 "$(rc_of "$TMPD/w")"
expect_eq "wrapper around mpirun: SUMMARY lines" 1 "$(count_lines 'SUMMARY' "$TMPD/w.err")"
expect_eq "wrapper around mpirun: merged" "finding cuda:1<-cuda:0 ranks=[1]
summary ranks=[0, 1]" "$(ranks "$TMPD/tree.jsonl")"
echo "mpirun: ok"
