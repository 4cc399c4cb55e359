#!/bin/sh
# A fork while another thread holds devcheck's CUPTI lock (fork_sub.cu: the
# stand-in libcupti keeps a thread inside devcheck's yield to the program's
# own subscription): the child's own cuptiSubscribe_v2 returns (it once
# waited for ever on the lock); the parent's subscription succeeds, with
# one line saying devcheck gave its own up.
. "$ROOT/tests/preload/common.sh"
CT=$BUILD/tests/cupti
fake=$CT/fakecupti/libcupti.so.13
need "$DEVCHECK_LIB" "$CT/fork_sub" "$fake"
t=$TMPD/fork
run "$t" under_devcheck env DEVCHECK_CUPTI="$fake" FAKE_CUPTI_SUBSCRIBE=launches DEVCHECK_OPTIONS=backend=both \
    "$CT/fork_sub"
sed 's/^/    > /' "$t.err"
expect_eq "status" 0 "$(rc_of "$t")"
expect_eq "stdout" "child: subscribe returned
child: exit 0
parent: subscribe=0" "$(cat "$t.out")"
expect_eq "lines about CUPTI" 1 "$(grep -c CUPTI "$t.err")"
expect_grep '^devcheck: CUPTI: the program subscribes to CUPTI itself \(a profiler\); devcheck gave its subscription up and runs on interposition alone$' "$t.err"
echo "ok: a fork child's cuptiSubscribe does not wait for a lock its parent's other thread held"
