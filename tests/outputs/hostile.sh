#!/bin/sh
# Issue 40, hostile input to the wrapper's readers and writers:
#  - case 4: `devcheck report DIR` and `devcheck replay DIR` exit 2 naming DIR;
#  - case 5: 1 MiB of random bytes (with a real record among them) given to
#    report and replay: at most five bad lines named, then one line with the
#    count; the valid record is still judged;
#  - the same for replay's --origins: 1 MiB of random bytes as the TSV is
#    five lines named and one count, and the trace is still judged;
#  - a recorded kernel name holding ESC, a newline and bytes that are not
#    UTF-8 reaches the replay's own lines (dc_log) escaped: one line each;
#  - case 7: --json=/dev/full names /dev/full (not "stderr").
. "$ROOT/tests/outputs/common.sh"
need "$OP/outprog" "$DEVCHECK_BIN" "$DEVCHECK_LIB"

mkdir "$TMPD/adir"
run "$TMPD/rd" "$DEVCHECK_BIN" report "$TMPD/adir"
expect_eq "report DIR: status" 2 "$(rc_of "$TMPD/rd")"
expect_grep "^devcheck: cannot read '$TMPD/adir': Is a directory$" "$TMPD/rd.err"
run "$TMPD/pd" "$DEVCHECK_BIN" replay "$TMPD/adir"
expect_eq "replay DIR: status" 2 "$(rc_of "$TMPD/pd")"
expect_grep "^devcheck: ERROR: replay: cannot read '$TMPD/adir': Is a directory$" "$TMPD/pd.err"

# a real finding record, then 1 MiB of random bytes (fixed seed), then the record again
run "$TMPD/one" under_devcheck env DEVCHECK_OPTIONS="json_path=$TMPD/one.jsonl" "$OP/outprog" launch 1 0
expect_eq "outprog: status" 0 "$(rc_of "$TMPD/one")"
py '
import random, sys
random.seed(40)
sys.stdout.buffer.write(random.Random(40).randbytes(1 << 20))' >"$TMPD/random.bin"
{ cat "$TMPD/random.bin"; echo; cat "$TMPD/one.jsonl"; } >"$TMPD/mixed.jsonl"
run "$TMPD/rr" "$DEVCHECK_BIN" report "$TMPD/mixed.jsonl"
expect_eq "report random: status (the record's error judged)" 1 "$(rc_of "$TMPD/rr")"
expect_eq "report random: lines named" 5 "$(count_lines "^devcheck: $TMPD/mixed.jsonl:[0-9]+: " "$TMPD/rr.err")"
expect_grep "^devcheck: $TMPD/mixed.jsonl: [0-9]+ of [0-9]+ lines are not devcheck records \(the first 5 named above\); the rest was read$" "$TMPD/rr.err"
[ "$(wc -l <"$TMPD/rr.err")" -le 6 ] || fail "report random: $(wc -l <"$TMPD/rr.err") stderr lines"
expect_grep '^==devcheck== error: device_mismatch: kernel out_add' "$TMPD/rr.out"
run "$TMPD/rn" "$DEVCHECK_BIN" report "$TMPD/random.bin"
expect_eq "report random only: status" 0 "$(rc_of "$TMPD/rn")"
expect_grep "lines are not devcheck records \(the first 5 named above\); not a devcheck JSON Lines file$" "$TMPD/rn.err"
run "$TMPD/pr" "$DEVCHECK_BIN" replay "$TMPD/random.bin"
expect_eq "replay random: status" 0 "$(rc_of "$TMPD/pr")"
expect_eq "replay random: lines named" 5 "$(count_lines "^devcheck: $TMPD/random.bin:[0-9]+: " "$TMPD/pr.err")"
expect_grep "^devcheck: $TMPD/random.bin: [0-9]+ of [0-9]+ lines skipped \(the first 5 named above\); not a launch trace$" "$TMPD/pr.err"
[ "$(wc -l <"$TMPD/pr.err")" -le 10 ] || fail "replay random: $(wc -l <"$TMPD/pr.err") stderr lines"
# --origins: random bytes are not an origins table; the trace is judged
T=$ROOT/tests/traces/h200-2026-11
run "$TMPD/po" "$DEVCHECK_BIN" replay --origins "$TMPD/random.bin" "$T/probe_pageable.jsonl.gz"
expect_eq "replay --origins random: status (the trace's error judged)" 1 "$(rc_of "$TMPD/po")"
expect_eq "replay --origins random: lines named" 5 "$(count_lines "^devcheck: $TMPD/random.bin:[0-9]+: " "$TMPD/po.err")"
expect_grep "^devcheck: $TMPD/random.bin: [0-9]+ of [0-9]+ lines skipped \(the first 5 named above\); not an origins table$" "$TMPD/po.err"
expect_grep '^==devcheck== ERROR: host_memory: kernel k_copy' "$TMPD/po.err"
[ "$(wc -l <"$TMPD/po.err")" -le 30 ] || fail "replay --origins random: $(wc -l <"$TMPD/po.err") stderr lines"

# a kernel name with ESC, a newline and a byte that is not UTF-8 (an
# extern "C" name: the replay says it holds a heap address in a word of
# unknown meaning, in a line of its own)
gzip -dc "$T/cupy_bug.jsonl.gz" | sed 's/"name":"add1"/"name":"add1\\u001b[31m\\nX\\udcff"/' >"$TMPD/esc.jsonl"
run "$TMPD/pe" "$DEVCHECK_BIN" replay "$TMPD/esc.jsonl"
expect_eq "replay escaped name: status" 0 "$(rc_of "$TMPD/pe")"
expect_grep '^devcheck: replay: [^ ]*esc.jsonl:2: add1\\x1b\[31m\\x0aX\\xff param 0 \(\+0\) holds 0x28aa7df0, pageable host memory' "$TMPD/pe.err"
if LC_ALL=C grep -q "$(printf '\033')" "$TMPD/pe.err"; then fail "replay: an ESC byte reached stderr"; fi
py 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$TMPD/pe.err" || fail "replay: stderr is not UTF-8"

# a document that cannot be written is named by its path
run "$TMPD/full" "$DEVCHECK_BIN" report --json=/dev/full "$TMPD/one.jsonl"
expect_eq "report --json=/dev/full: status" 2 "$(rc_of "$TMPD/full")"
expect_grep "cannot write [a-z_]+ '/dev/full'" "$TMPD/full.err"
if grep -q "'stderr'" "$TMPD/full.err"; then fail "--json=/dev/full named as stderr"; fi
run "$TMPD/live" "$DEVCHECK_BIN" --sim 2 --json=/dev/full -- "$OP/outprog" launch 1 0
expect_grep "^devcheck: cannot write json_path '/dev/full': No space left on device" "$TMPD/live.err"
if grep -q "'stderr'" "$TMPD/live.err"; then fail "a run's --json=/dev/full named as stderr"; fi
exit 0
