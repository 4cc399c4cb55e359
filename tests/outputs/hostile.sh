#!/bin/sh
# Issue 40, hostile input to the wrapper's readers and writers:
#  - case 4: `devcheck report DIR` and `devcheck replay DIR` exit 2 naming DIR;
#  - case 5: 1 MiB of random bytes (with a real record among them) given to
#    report and replay: at most five bad lines named, then one line with the
#    count; the valid record is still judged;
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

# a document that cannot be written is named by its path
run "$TMPD/full" "$DEVCHECK_BIN" report --json=/dev/full "$TMPD/one.jsonl"
expect_eq "report --json=/dev/full: status" 2 "$(rc_of "$TMPD/full")"
expect_grep "cannot write [a-z_]+ '/dev/full'" "$TMPD/full.err"
if grep -q "'stderr'" "$TMPD/full.err"; then fail "--json=/dev/full named as stderr"; fi
run "$TMPD/live" "$DEVCHECK_BIN" --sim 2 --json=/dev/full -- "$OP/outprog" launch 1 0
expect_grep "^devcheck: cannot write json_path '/dev/full': No space left on device" "$TMPD/live.err"
if grep -q "'stderr'" "$TMPD/live.err"; then fail "a run's --json=/dev/full named as stderr"; fi
exit 0
