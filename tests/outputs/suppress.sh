#!/bin/sh
# Issue 14, suppressions: --gen-suppressions prints a ready-to-paste entry
# under each report; pasted into a file (and named), the entry suppresses
# its finding -- and only it: outprog closefds has two findings (out_add,
# out_scale), the out_add entry leaves out_scale reported -- and the exit
# lists it with its count.  A hand-written entry by kernel glob and src:
# frame.  A malformed file: the wrapper names file and line and does not
# start the program (exit 2); a bare LD_PRELOAD says so in one line and runs
# with no suppressions.
. "$ROOT/tests/outputs/common.sh"
need "$OP/outprog" "$DEVCHECK_BIN" "$DEVCHECK_LIB"
run "$TMPD/g" "$DEVCHECK_BIN" --sim 4 --gen-suppressions -- "$OP/outprog" closefds "$TMPD/own.txt"
expect_eq "gen: status" 0 "$(rc_of "$TMPD/g")"
expect_eq "gen: entries" 2 "$(count_lines '^<insert_a_suppression_name_here>$|^   <insert_a_suppression_name_here>$' "$TMPD/g.err")"
# the first entry (out_add's), named
awk '/^\{$/ { on = 1 } on { print } /^\}$/ { exit }' "$TMPD/g.err" | sed 's/<insert_a_suppression_name_here>/out-add-known/' >"$TMPD/a.supp"
expect_grep '^   kernel:_Z7out_addPfPKfi$' "$TMPD/a.supp"
expect_grep '^   fun:_ZL6launchii$' "$TMPD/a.supp"

run "$TMPD/s" "$DEVCHECK_BIN" --sim 4 --suppressions "$TMPD/a.supp" --json "$TMPD/s.json" -- \
    "$OP/outprog" closefds "$TMPD/own.txt"
expect_eq "suppressed: status" 0 "$(rc_of "$TMPD/s")"
expect_no_grep 'kernel out_add' "$TMPD/s.err"
expect_grep '^==devcheck== ERROR: device_mismatch: kernel out_scale' "$TMPD/s.err"       # no over-match
expect_grep "^devcheck: used_suppression: 1 out-add-known \\($TMPD/a.supp:1\\)$" "$TMPD/s.err"
expect_grep '^devcheck: SUMMARY: 1 finding \(1 error, 0 warnings\) .*; 1 suppressed$' "$TMPD/s.err"
expect_eq "suppressed: JSON kernels" "_Z9out_scalePfPKfi" "$(py '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["type"] == "finding":
        print(o["kernel_mangled"])
    else:
        assert o["suppressed"] == [{"name": "out-add-known", "file": sys.argv[2], "line": 1, "count": 1}], o
' "$TMPD/s.json" "$TMPD/a.supp")"

# by hand: a kernel glob and a src: frame; a second entry for another
# kernel's frame that does not match anything here
cat >"$TMPD/h.supp" <<'SUPP'
# devcheck suppressions
{
   scale-at-its-line
   devcheck:device_mismatch
   kernel:*out_scale*
   ...
   src:*/outputs/outprog.cu:*
}
{
   never-matches
   devcheck:*
   kernel:*out_add*
   fun:no_such_function
}
SUPP
run "$TMPD/h" "$DEVCHECK_BIN" --sim 4 --suppressions "$TMPD/h.supp" -- "$OP/outprog" closefds "$TMPD/own.txt"
expect_grep '^==devcheck== ERROR: device_mismatch: kernel out_add' "$TMPD/h.err"
expect_no_grep 'kernel out_scale' "$TMPD/h.err"
expect_grep '^devcheck: used_suppression: 1 scale-at-its-line ' "$TMPD/h.err"
expect_no_grep 'never-matches' "$TMPD/h.err"
# bare LD_PRELOAD, two files (comma-separated)
run "$TMPD/b" under_devcheck env DEVCHECK_OPTIONS="suppressions=$TMPD/a.supp,$TMPD/h.supp" "$OP/outprog" closefds "$TMPD/own.txt"
expect_grep '^devcheck: SUMMARY: 0 findings .*; 2 suppressed$' "$TMPD/b.err"

# malformed: line 3 is not devcheck:KIND
printf '{\n   bad-entry\n   memcheck:Leak\n   fun:main\n}\n' >"$TMPD/bad.supp"
run "$TMPD/m" "$DEVCHECK_BIN" --sim 4 --suppressions "$TMPD/bad.supp" -- "$OP/outprog" launch 0 1
expect_eq "malformed, wrapper: status" 2 "$(rc_of "$TMPD/m")"
expect_eq "malformed, wrapper: not started" "" "$(cat "$TMPD/m.out")"
expect_grep "suppressions file '$TMPD/bad.supp' line 3: expected 'devcheck:KIND'.*the program is not started" "$TMPD/m.err"
run "$TMPD/n" under_devcheck env DEVCHECK_OPTIONS="suppressions=$TMPD/bad.supp" "$OP/outprog" launch 0 1
expect_eq "malformed, preload: status" 0 "$(rc_of "$TMPD/n")"
expect_eq "malformed, preload: stdout" "outprog: launch done" "$(cat "$TMPD/n.out")"
expect_eq "malformed, preload: lines naming it" 1 "$(count_lines "suppressions file '$TMPD/bad.supp' line 3: .*; running with no suppressions" "$TMPD/n.err")"
expect_grep '^devcheck: SUMMARY: 1 finding' "$TMPD/n.err"
echo "suppress: ok"
