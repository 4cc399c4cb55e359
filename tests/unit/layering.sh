#!/bin/sh
# The folders of devcheck depend on each other one way (README.md, Layout):
#
#   preload/ (front end 1) --\                        /-- wrapper/
#   cupti/   (front end 2) ---+--> core/ --> report/ <
#   replay/  (front end 3) --/                        (everyone may log)
#   wrapper/ --> replay/ (devcheck replay)
#   common/: the ground floor, which every folder may use
#
# Computes the graph between top-level folders twice, from the sources
# (#include "folder/...") and from the objects (a symbol one folder's objects
# use and another folder's objects define), and fails on a cycle or on a
# forbidden edge: common -> anything, report -> anything but common,
# core -> preload/cupti/replay/wrapper,
# between two front ends (preload, cupti, replay), anything -> wrapper, and any edge between sim/ and the
# tool (sim/ shares no source with devcheck).
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$ROOT/build}
TOOL="common core preload cupti replay report wrapper"
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
status=0
fail() { echo "FAIL: $*" >&2; status=1; }

# "from to where" lines, one per edge occurrence.
: >"$TMPD/edges"
cd "$ROOT" || exit 1
for dir in $TOOL sim; do
    find "$dir" -type f \( -name '*.c' -o -name '*.h' -o -name '*.def' -o -name '*.cu' -o -name '*.cuh' \
        -o -name '*.in' -o -name '*.S' \) | sort | while read -r f; do
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([A-Za-z0-9_]*\)\/.*".*/\1/p' "$f" |
            while read -r to; do
                [ "$to" != "$dir" ] && [ -d "$ROOT/$to" ] && echo "$dir $to $f"
            done
    done
done >>"$TMPD/edges"
n_include=$(wc -l <"$TMPD/edges")

# Link-level edges: objects under $BUILD/obj/<folder>/ (the sim's own build
# tree is separate and has no devcheck objects).  devcheck's own symbols all
# start with dc_; the others it defines are the CUDA and libc entry points it
# interposes (exit, dlsym, cu*, cuda*), which the tool never calls by name.
if [ -d "$BUILD/obj" ]; then
    : >"$TMPD/defs"
    for dir in $TOOL; do
        for o in $(find "$BUILD/obj/$dir" -name '*.o' 2>/dev/null | sort); do
            nm --defined-only "$o" 2>/dev/null | awk -v d="$dir" 'NF == 3 && $2 ~ /[TDBRVW]/ && $3 ~ /^dc_/ { print $3, d }'
        done
    done | sort -u >"$TMPD/defs"
    for dir in $TOOL; do
        for o in $(find "$BUILD/obj/$dir" -name '*.o' 2>/dev/null | sort); do
            nm -u "$o" 2>/dev/null | awk '{ print $NF }' | sort -u |
                join - "$TMPD/defs" | awk -v d="$dir" -v o="${o#"$BUILD"/}" '$2 != d { print d, $2, o ":" $1 }'
        done
    done >>"$TMPD/edges"
else
    fail "no $BUILD/obj: build first (make all)"
fi
[ "$n_include" -gt 0 ] || fail "found no #include between folders: is ROOT right ($ROOT)?"
grep -q '^cupti core ' "$TMPD/edges" || fail "cupti -> core not found: the scan is broken"

# Forbidden edges.
while read -r from to where; do
    bad=""
    case "$from>$to" in
        common\>*) bad="common/ is the ground floor: it includes and calls nothing of the tool" ;;
        report\>common) ;;
        report\>*) bad="report/ includes and calls nothing of the tool but common/" ;;
        core\>preload|core\>cupti|core\>replay|core\>wrapper) bad="the core never reaches back into a front end or the wrapper" ;;
        preload\>cupti|cupti\>preload|preload\>replay|replay\>preload|cupti\>replay|replay\>cupti)
            bad="the front ends never include or call each other" ;;
        *\>wrapper) bad="nothing uses the wrapper" ;;
        sim\>*|*\>sim) bad="sim/ shares no source with devcheck" ;;
    esac
    [ -n "$bad" ] && fail "$from -> $to ($where): $bad"
done <"$TMPD/edges"

# Cycles: repeatedly drop the edges of folders that no remaining edge leaves
# or enters (a DAG empties; what is left are the cycles).
awk '{ print $1, $2 }' "$TMPD/edges" | sort -u >"$TMPD/graph"
cp "$TMPD/graph" "$TMPD/left"
while :; do
    awk '{ from[$1] = 1; to[$2] = 1; e[NR] = $0 }
         END { for (i = 1; i <= NR; i++) { split(e[i], p, " "); if ((p[2] in from) && (p[1] in to)) print e[i] } }' \
        "$TMPD/left" >"$TMPD/left.new"
    if cmp -s "$TMPD/left" "$TMPD/left.new"; then break; fi
    mv "$TMPD/left.new" "$TMPD/left"
done
if [ -s "$TMPD/left" ]; then
    fail "a cycle between folders: $(tr '\n' ';' <"$TMPD/left")"
    while read -r from to; do
        grep "^$from $to " "$TMPD/edges" | head -n 3 | sed 's/^/    /' >&2
    done <"$TMPD/left"
fi

echo "folder graph (from includes and object symbols):"
awk '{ print "  " $1 " -> " $2 }' "$TMPD/graph"
exit $status
