#!/bin/sh
# `make bench` runs (small sizes: 50 operations per callgrind section, two
# timed rounds, 10 and 100 live allocations): every configuration's row, the
# memory and CPU-time rows, the registry's thread scaling, a torch process's
# peak RSS without and under devcheck, and one PASS/FAIL line per budget are
# printed, the first report of a new finding in CPU time of the whole
# process among them, and a stripped library's steady launches (issue 38);
# then the library calls' rows (bench/libcalls.sh).  Not a timed test: the
# verdicts themselves are not asserted (tests/bench/launch_instr.sh guards
# the instructions).
. "$ROOT/tests/lib.sh"
command -v valgrind >/dev/null || { echo "skip: valgrind is not installed (mk/deps.sh installs it)"; exit 0; }
for f in "$BUILD/bench/launches" "$BUILD/bench/libfloor.so" "$BUILD/bench/libcuptifloor.so" "$BUILD/bench/regbench" \
         "$DEVCHECK_LIB"; do
    [ -e "$f" ] || fail "not built: $f"
done
BUILD=$BUILD N=50 TN=200 REPEAT=2 TREPEAT=2 LIVES="10 100" OUT=$TMPD/out sh "$ROOT/bench/run.sh" >"$TMPD/table" 2>"$TMPD/err" ||
    { cat "$TMPD/err" >&2; fail "bench/run.sh failed"; }
cat "$TMPD/table"
expect_grep '^instructions per operation +none +floor +cuptifloor +off +interpose +cupti +both$' "$TMPD/table"
# the CPU-time rounds (TREPEAT), each run pinned to one CPU when taskset is there
if command -v taskset >/dev/null 2>&1; then
    expect_grep '^CPU times the minimum of 2 interleaved rounds of 200 \(taskset -c [0-9]+\); ' "$TMPD/table"
else
    expect_grep '^CPU times the minimum of 2 interleaved rounds of 200; ' "$TMPD/table"
fi
for row in "launch, 8 pointers, 10 live" "launch, 64-byte struct, 100 live" "cudaMalloc\+cudaFree, 0 frames" \
           "cudaMalloc\+cudaFree, 40 frames" "PyTorch block handed out\+taken back" "bytes per live allocation \(heap\)" "bytes per live allocation \(RSS\)" \
           "launch repeating a reported finding" "launch repeating a suppressed finding" "  clean launch of the same run"; do
    expect_grep "^$row +[0-9.]+( +\+-?[0-9.]+){6}$" "$TMPD/table"
done
expect_grep '^launch, 8 pointers +[0-9]+( +x[0-9.]+){6}$' "$TMPD/table"
expect_grep '^launch whose finding is ignored \(peer=ignore\) +[0-9.]+( +\+-?[0-9.]+){6}$' "$TMPD/table"
expect_grep '^  threads=2 cpu_ns_per_lookup=' "$TMPD/table"
n=$(grep -Ec '^(PASS|FAIL)  ' "$TMPD/table")
expect_eq "budget lines" 21 "$n"
# issue 38: the first report of a new finding, in CPU time of the whole process
for row in "a new kernel's first launch, clean" "the process's first finding" "a second new finding"; do
    expect_grep "^$row +[0-9.]+( +-?[0-9.]+){6}$" "$TMPD/table"
done
expect_grep '^(PASS|FAIL)  the first report of a new finding \(the process.s first\): \+-?[0-9.]+ ms CPU beyond a clean first launch \(worst: backend=(interpose|cupti|both); whole process\) <= 1 ms$' "$TMPD/table"
expect_grep '^(PASS|FAIL)  the report of a second new finding: \+-?[0-9.]+ ms CPU beyond a clean first launch \(worst: backend=(interpose|cupti|both); whole process\) <= 1 ms$' "$TMPD/table"
expect_grep '^info  a PyTorch block handed out and taken back: \+[0-9]+ instr \(worst: backend=(interpose|cupti|both)\), x[0-9.]+ those of a cudaMalloc\+cudaFree record' "$TMPD/table"
# issue 27: devcheck's own memory in a torch process (the virtualenv is there when the client tests run)
expect_grep '^info  torch process on the sim \(bench/torch_rss.py\): peak RSS [0-9.]+ MiB without devcheck, [0-9.]+ MiB under the wrapper \(current [0-9.]+ -> [0-9.]+ MiB: anonymous [-+][0-9.]+, file-backed [-+][0-9.]+\)$' "$TMPD/table"
expect_grep "^(PASS|FAIL)  devcheck's own memory in a torch process: peak RSS \+-?[0-9.]+ MiB <= 32 MiB$" "$TMPD/table"
# issues 25 and 38: a repeated, a suppressed and an ignored finding against a clean launch of the same run
expect_grep '^(PASS|FAIL)  launch repeating a reported finding: x[0-9.]+ the instructions of a clean launch \(worst: backend=(interpose|cupti|both); [0-9]+ vs [0-9]+\) <= 1.2x$' "$TMPD/table"
expect_grep '^(PASS|FAIL)  launch repeating a suppressed finding: x[0-9.]+ the instructions of a clean launch \(worst: backend=(interpose|cupti|both); [0-9]+ vs [0-9]+\) <= 1.2x$' "$TMPD/table"
expect_grep '^(PASS|FAIL)  launch whose finding is ignored by option \(peer=ignore\): x[0-9.]+ the instructions of a clean launch \(worst: backend=(interpose|cupti|both); [0-9]+ vs [0-9]+\) <= 1.2x$' "$TMPD/table"
# issue 38: the same from inside a stripped library (bench/steady_lib.cu), beside its own clean launch
for row in "stripped library: clean launch" "  repeating a reported finding" "  legal peer traffic \(a peer warning\)" \
           "  repeating a suppressed finding" "  ignored \(peer=ignore\)" "  clean launch of that run"; do
    expect_grep "^$row +[0-9.]+( +\+-?[0-9.]+){6}$" "$TMPD/table"
done
for what in "repeating a reported finding" "with legal peer traffic \(a peer warning\)" "repeating a suppressed finding" \
            "whose finding is ignored by option \(peer=ignore\)"; do
    expect_grep "^(PASS|FAIL)  stripped library's launch $what: x[0-9.]+ the instructions of a clean launch \(worst: backend=(interpose|cupti|both); [0-9]+ vs [0-9]+\) <= 1.2x\$" "$TMPD/table"
done
# an instruction budget's line names the worst backend and devcheck's own share
# (backend=cupti's over the cuptifloor configuration: the sim's CUPTI's deliveries are not devcheck's)
expect_grep '^budgets: what devcheck adds; backend=cupti over cuptifloor ' "$TMPD/table"
expect_grep '^(PASS|FAIL)  added per launch, 8 pointer params: \+[0-9]+ instr \(worst: backend=(interpose|cupti over cuptifloor|both), [0-9]+ live; [0-9]+ in libdevcheck\.so\) <= 600$' "$TMPD/table"
expect_grep '^(PASS|FAIL)  added per allocation\+free with stack, 40 extra frames: \+[0-9]+ instr \(worst: backend=(interpose|cupti over cuptifloor|both); [0-9]+ in libdevcheck\.so\) <= 2000$' "$TMPD/table"
expect_grep '^(PASS|FAIL)  CPU time added, 8 pointer params: \+-?[0-9]+ ns \(worst: backend=(interpose|cupti over cuptifloor|both)\) <= 150 ns$' "$TMPD/table"
# the floor under backend=cupti, and what backend=cupti adds beyond it
expect_grep '^info  the floor under backend=cupti \(a CUPTI subscriber that enables the same callbacks and returns at once\): \+[0-9]+ instr per launch \(8 pointers\), \+[0-9]+ per allocation\+free; backend=cupti adds \+-?[0-9]+ and \+-?[0-9]+ beyond it$' "$TMPD/table"
expect_grep '^[0-9]+ budgets failed$' "$TMPD/table"
# library calls checked at their API (bench/libcalls.sh)
[ -e "$BUILD/bench/libcalls" ] || fail "not built: $BUILD/bench/libcalls"
BUILD=$BUILD N=50 OUT=$TMPD/out sh "$ROOT/bench/libcalls.sh" >"$TMPD/lib" 2>"$TMPD/err" ||
    { cat "$TMPD/err" >&2; fail "bench/libcalls.sh failed"; }
cat "$TMPD/lib"
for row in sgemm ltmatmul allreduce potrf; do
    expect_grep "^$row +[0-9]+ +\+[0-9]+ +x[0-9.]+$" "$TMPD/lib"
done
echo "ok: make bench prints every figure and a verdict per budget"
