#!/bin/sh
# Issue 11 #6, outputs: a write error is one line and counted in the
# summary; a FIFO is refused with one line and the program runs on; several
# processes (fork+exec, posix_spawn, vfork+exec) sharing one JSON file
# without %p keep every process's findings, each record naming its pid and
# ids unique per pid; a setuid program through the wrapper is named in one
# line.
. "$ROOT/tests/outputs/common.sh"
need "$OP/outprog" "$DEVCHECK_LIB" "$DEVCHECK_BIN"

# /dev/full: the JSON records cannot be written
run "$TMPD/f" under_devcheck env DEVCHECK_OPTIONS="json_path=/dev/full" "$OP/outprog" launch 0 1
expect_eq "/dev/full: status" 0 "$(rc_of "$TMPD/f")"
expect_eq "/dev/full: stdout" "outprog: launch done" "$(cat "$TMPD/f.out")"
expect_eq "/dev/full: lines naming it" 1 "$(count_lines "cannot write json_path '/dev/full': No space left on device" "$TMPD/f.err")"
expect_grep '^devcheck: SUMMARY: 1 finding .*; 2 write errors$' "$TMPD/f.err"

# a FIFO with no reader: refused at once, the program runs (it would block
# in open() before main otherwise; timeout only bounds a regression)
mkfifo "$TMPD/fifo"
run "$TMPD/p" timeout 120 env LD_LIBRARY_PATH="$SIM_DIR" LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$DEVCHECK_LIB" \
    DEVCHECK_OPTIONS="json_path=$TMPD/fifo" "$OP/outprog" launch 0 1
expect_eq "FIFO: status" 0 "$(rc_of "$TMPD/p")"
expect_eq "FIFO: stdout" "outprog: launch done" "$(cat "$TMPD/p.out")"
expect_eq "FIFO: lines naming it" 1 "$(count_lines "json_path '$TMPD/fifo'|FIFO" "$TMPD/p.err")"
expect_grep '^devcheck: SUMMARY: 1 finding' "$TMPD/p.err"

# a directory, and a log on a FIFO: refused the same way, stderr instead
run "$TMPD/d" under_devcheck env DEVCHECK_OPTIONS="json_path=$TMPD:log_path=$TMPD/fifo" "$OP/outprog" launch 0 1
expect_eq "dir: status" 0 "$(rc_of "$TMPD/d")"
expect_grep "json_path '$TMPD'.*[Dd]irectory.*no JSON output" "$TMPD/d.err"
expect_grep "log_path '$TMPD/fifo'.*writing to stderr" "$TMPD/d.err"
expect_grep '^devcheck: SUMMARY: 1 finding' "$TMPD/d.err"

# several processes, one JSON file, no %p: nothing lost, nothing truncated
echo "stale line of an earlier run" >"$TMPD/tree.json"
run "$TMPD/t" under_devcheck env DEVCHECK_OPTIONS="json_path=$TMPD/tree.json:log_path=$TMPD/tree.log" \
    "$OP/outprog" tree
expect_eq "tree: status" 0 "$(rc_of "$TMPD/t")"
expect_eq "tree: per process (launch<-owner findings, summaries)" "0<-1 1
1<-2 1
2<-3 1
3<-0 1
processes 4, ids unique per pid, stale line gone" "$(py '
import json, sys
per, seen, pids = [], set(), {}
for l in open(sys.argv[1]):
    o = json.loads(l)
    pid = o["pid"]
    if o["type"] == "summary":
        pids[pid] = pids.get(pid, 0) + 1
        continue
    key = (pid, o["id"])
    assert key not in seen, key
    seen.add(key)
    per.append("%d<-%d" % (o["launch"]["device"], o["operand"]["owner_device"]))
for p in sorted(per):
    print(p, 1)
assert all(n == 1 for n in pids.values()), pids
assert {p for p, _ in seen} == set(pids), (seen, pids)
print("processes %d, ids unique per pid, stale line gone" % len(pids))' "$TMPD/tree.json")"
expect_eq "tree: summaries in the log" 4 "$(count_lines '^devcheck: SUMMARY: 1 finding' "$TMPD/tree.log")"

# a setuid program (owned by another user): the loader ignores LD_PRELOAD
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    cp /bin/true "$TMPD/suid_true" && chown nobody "$TMPD/suid_true" && chmod 4755 "$TMPD/suid_true"
    run "$TMPD/s" "$DEVCHECK_BIN" --sim 2 -- "$TMPD/suid_true"
    expect_eq "setuid: status" 0 "$(rc_of "$TMPD/s")"
    expect_eq "setuid: lines" 1 "$(count_lines "suid_true is setuid: the loader ignores LD_PRELOAD for it, so nothing in it will be checked" "$TMPD/s.err")"
    run "$TMPD/u" "$DEVCHECK_BIN" --sim 2 -- /bin/true
    expect_no_grep 'setuid' "$TMPD/u.err"
else
    note "not root: the setuid case is not run"
fi
echo "files: ok"
