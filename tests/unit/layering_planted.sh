#!/bin/sh
# tests/unit/layering.sh fails on a planted back-arrow at each of its levels:
# on a copy of the sources, (1) a core file including a front end's header,
# (2) a room of core/ including a room above it, (3) a circle between two
# files of report/ (and the store using a sink), (4) preload/'s resolver
# using the door, and a hook using the door; (5) a .c file of the tool grown
# past 1000 lines, and a ninth .c file at core/'s top.  Each run must fail
# and name the planted arrow; the objects are the real build's (the planted
# arrows are includes).
. "$(dirname "$0")/../lib.sh"
COPY=$TMPD/tree
mkdir -p "$COPY"
for d in common core preload cupti replay report wrapper sim tests; do
    cp -r "$ROOT/$d" "$COPY/$d" || fail "cannot copy $d"
done

# plant FILE LINE: a copy of the tree with LINE added at the top of FILE
# (undone afterwards); runs layering.sh on it; its stderr in $TMPD/err.
plant() {
    cp "$COPY/$1" "$TMPD/saved"
    { echo "$2"; cat "$TMPD/saved"; } >"$COPY/$1"
    LAYERING_OBJEDGES=$TMPD/objedges ROOT=$COPY BUILD=$BUILD sh "$COPY/tests/unit/layering.sh" >"$TMPD/out" 2>"$TMPD/err"
    rc=$?
    cp "$TMPD/saved" "$COPY/$1"
    return $rc
}
expect() {      # expect WHAT PATTERN: the last run failed with a line matching PATTERN
    grep -q -- "$2" "$TMPD/err" || { sed 's/^/    | /' "$TMPD/err" | head -n 20 >&2; fail "$1: no line matching '$2'"; }
}

plant core/owner/registry.c '#include "preload/preload.h"' && fail "a core file including a front end's header passed"
expect "folder" 'FAIL: core -> preload (core/owner/registry.c): the core never reaches back'

plant core/base/epoch.c '#include "core/verdict/check.h"' && fail "the base including the verdict passed"
expect "room" 'FAIL: core room base -> verdict (core/base/epoch.c includes core/verdict/check.h)'

plant core/kernel/origin.h '#include "core/lifecycle.h"' && fail "a room including core/'s own files passed"
expect "room to the top" 'FAIL: core room kernel -> core (core/kernel/origin.h includes core/lifecycle.h)'

plant common/format.h '#include "report/finding.h"' && fail "common/ including report/ passed"
expect "ground floor" 'FAIL: common -> report (common/format.h): common/ is the ground floor'

# a circle between two files of report/: each includes the other
plant report/html.c '#include "report/junit.h"' || true
cp "$COPY/report/junit.c" "$TMPD/junit"
echo '#include "report/html.h"' >>"$COPY/report/junit.c"
plant report/html.c '#include "report/junit.h"' && fail "a circle inside report/ passed"
cp "$TMPD/junit" "$COPY/report/junit.c"
expect "circle" 'FAIL: a cycle between the files of report/:.*report/html report/junit'

# the named rules, on files of those names (made for the test when absent)
[ -f "$COPY/report/store.c" ] || : >"$COPY/report/store.c"
plant report/store.c '#include "report/sarif.h"' && fail "the store including a sink passed"
expect "store" 'FAIL: report/store -> report/sarif (report/store.c includes report/sarif.h): the store'
[ -f "$COPY/preload/resolve.c" ] || : >"$COPY/preload/resolve.c"
plant preload/resolve.c '#include "preload/door.h"' && fail "the resolver including the door passed"
expect "resolver" "FAIL: preload/resolve -> preload/door (preload/resolve.c includes preload/door.h): the resolver"
plant preload/hooks_mem.c '#include "preload/door.h"' && fail "a hook including the door passed"
expect "door" "FAIL: preload/hooks_mem -> preload/door (preload/hooks_mem.c includes preload/door.h): nothing in preload/ uses the door"

# sizes: a file grown past the limit, a ninth file at core/'s top
cp "$COPY/replay/origins.c" "$TMPD/origins"
awk 'BEGIN { for (i = 0; i < 1001; i++) print "/* grown */" }' >>"$COPY/replay/origins.c"
plant replay/origins.c '/* planted */' && fail "a .c file over 1000 lines passed"
cp "$TMPD/origins" "$COPY/replay/origins.c"
expect "size" 'FAIL: replay/origins.c has [0-9]* lines: no .c file of the tool over 1000'
n=$(find "$COPY/core" -maxdepth 1 -name '*.c' | wc -l)
while [ "$n" -le 8 ]; do : >"$COPY/core/planted$n.c"; n=$((n + 1)); done
plant core/contexts.c '/* planted */' && fail "a ninth .c file at core/'s top passed"
rm -f "$COPY"/core/planted*.c
expect "core's top" "FAIL: core/ has 9 .c files at its top: at most 8"
echo "layering.sh failed on each planted back-arrow"
