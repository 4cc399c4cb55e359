#!/bin/sh
# The house's layers (README.md, Layout), checked at three levels, each from
# two sources: the #include lines of the sources, and the objects' symbols
# (a symbol one unit's objects use and another unit's objects define).
#
# 1. Folders:
#      preload/ (front end 1) --\                        /-- wrapper/
#      cupti/   (front end 2) ---+--> core/ --> report/ <
#      replay/  (front end 3) --/                        (everyone may log)
#      wrapper/ --> replay/ (devcheck replay)
#      common/: the ground floor, which every folder may use
#    Forbidden: common -> anything, report -> anything but common,
#    core -> preload/cupti/replay/wrapper, between two front ends (preload,
#    cupti, replay), anything -> wrapper, any edge between sim/ and the tool
#    (sim/ shares no source with devcheck); and any cycle.
# 2. The rooms of core/, from the ground up: base < owner < kernel < verdict
#    < core/'s own files (the umbrella core.h, the start-up and finish, the
#    front-end registry, the context events).  A room uses only the rooms
#    below it; a cycle between rooms is forbidden with it.
# 3. The files inside common/, report/, preload/ and cupti/ (foo.c and foo.h
#    are one unit): no cycle.  Beside that, by name: report/'s store
#    (store.*) uses no sink and not the orchestrator (report.*); preload/'s
#    resolver (resolve.*) uses no other unit of preload/ but the constants of
#    arch.h, and nothing in preload/ uses its door (door.*) but the door
#    itself and its dlsym entry stub (arch_<arch>.S).
# 4. Sizes (issue 35): no .c file of the tool over LAYERING_MAX_LINES (1000)
#    lines, and at most 8 .c files at core/'s top: what grows is split
#    along its seams, or moved into a room.
#
# ROOT (the sources) and BUILD (the objects, $BUILD/obj/<folder>/...) may be
# set; tests/unit/layering_planted.sh runs it on a copy with a planted
# back-arrow and expects it to fail.  LAYERING_OBJEDGES=FILE keeps the
# objects' edges in FILE (read from it when it exists): the planted runs read
# the same objects eight times.
set -u
export LC_ALL=C       # one collation for sort and join
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$ROOT/build}
TOOL="common core preload cupti replay report wrapper"
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
status=0
fail() { echo "FAIL: $*" >&2; status=1; }

cd "$ROOT" || exit 1
[ -d "$BUILD/obj" ] || fail "no $BUILD/obj: build first (make all)"

# --- the raw edges, file to file ---------------------------------------------
# "from to" per line: a source file and the file it includes (paths from the
# repository root), then an object and the object defining a symbol it uses.
# (one awk over every file: a sed per file cost 0.7 s of CPU a run, and
# layering_planted.sh runs this twelve times; issue 35)
for dir in $TOOL sim; do
    find "$dir" -type f \( -name '*.c' -o -name '*.h' -o -name '*.def' -o -name '*.cu' -o -name '*.cuh' \
        -o -name '*.in' -o -name '*.S' \) | sort
done | tr '\n' '\0' | xargs -0 -r awk '/^[[:space:]]*#[[:space:]]*include[[:space:]]*"[A-Za-z0-9_.\/]*"/ {
    s = $0; sub(/^[[:space:]]*#[[:space:]]*include[[:space:]]*"/, "", s); sub(/".*/, "", s); print FILENAME, s }' \
    >"$TMPD/includes"
# Objects: devcheck's own symbols start with dc_ across folders; inside a
# folder every global symbol counts (the hooks' exported entry points too).
# The objects of folder $1 whose source still exists (a file moved away leaves
# its old object in an incremental build).
objects() {
    find "$BUILD/obj/$1" -name '*.o' 2>/dev/null | sort | while read -r o; do
        rel=${o#"$BUILD"/obj/}
        if [ -e "$ROOT/${rel%.o}.c" ] || [ -e "$ROOT/${rel%.o}.S" ]; then echo "$o"; fi
    done
}
if [ -n "${LAYERING_OBJEDGES:-}" ] && [ -s "$LAYERING_OBJEDGES" ]; then
    cp "$LAYERING_OBJEDGES" "$TMPD/objedges"
else
    for dir in $TOOL; do
        objects "$dir" | while read -r o; do
            nm --defined-only "$o" 2>/dev/null |
                awk -v o="${o#"$BUILD"/obj/}" 'NF == 3 && $2 ~ /[TDBRVWG]/ { print $3, o }'
        done
    done | sort -k1,1 >"$TMPD/defs"
    for dir in $TOOL; do
        objects "$dir" | while read -r o; do
            nm -u "$o" 2>/dev/null | awk '{ print $NF }' | sort -u | join - "$TMPD/defs" |
                awk -v o="${o#"$BUILD"/obj/}" '{ print o, $2, $1 }'
        done
    done >"$TMPD/objedges"
    [ -n "${LAYERING_OBJEDGES:-}" ] && cp "$TMPD/objedges" "$LAYERING_OBJEDGES"
fi
[ -s "$TMPD/includes" ] || fail "found no #include: is ROOT right ($ROOT)?"

# Fails on every cycle of the graph in file $1 ("from to" lines), naming it
# with the label $2 and showing up to three raw edges of each (from $3).
cycles() {
    cp "$1" "$TMPD/left"
    while :; do
        awk '{ from[$1] = 1; to[$2] = 1; e[NR] = $0 }
             END { for (i = 1; i <= NR; i++) { split(e[i], p, " "); if ((p[2] in from) && (p[1] in to)) print e[i] } }' \
            "$TMPD/left" >"$TMPD/left.new"
        if cmp -s "$TMPD/left" "$TMPD/left.new"; then break; fi
        mv "$TMPD/left.new" "$TMPD/left"
    done
    if [ -s "$TMPD/left" ]; then
        fail "a cycle $2: $(tr '\n' ';' <"$TMPD/left")"
        while read -r from to; do
            awk -v f="$from" -v t="$to" '$1 == f && $2 == t' "$3" | head -n 3 | sed 's/^/    /' >&2
        done <"$TMPD/left"
    fi
}

# --- 1. folders ----------------------------------------------------------------
{
    awk '{ split($1, a, "/"); split($2, b, "/"); if (a[1] != b[1] && b[2] != "") print a[1], b[1], $1 }' "$TMPD/includes" |
        while read -r from to where; do [ -d "$ROOT/$to" ] && echo "$from $to $where"; done
    awk '$3 ~ /^dc_/ { split($1, a, "/"); split($2, b, "/"); if (a[1] != b[1]) print a[1], b[1], $1 ":" $3 }' \
        "$TMPD/objedges"
} >"$TMPD/folder_edges"
grep -q '^cupti core ' "$TMPD/folder_edges" || fail "cupti -> core not found: the scan is broken"
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
done <"$TMPD/folder_edges"
awk '{ print $1, $2 }' "$TMPD/folder_edges" | sort -u >"$TMPD/folder_graph"
cycles "$TMPD/folder_graph" "between folders" "$TMPD/folder_edges"

# --- 2. core's rooms -----------------------------------------------------------
# rank: base 1, owner 2, kernel 3, verdict 4, core/'s own files 5
room_awk='function room(p) { if (p !~ /^core\//) return ""; split(p, a, "/"); if (a[3] == "") return "core"; return a[2] }
function rank(r) { return r == "base" ? 1 : r == "owner" ? 2 : r == "kernel" ? 3 : r == "verdict" ? 4 : r == "core" ? 5 : 0 }'
{
    awk "$room_awk"' { f = room($1); t = room($2); if (f != "" && t != "" && f != t) print f, t, $1 " includes " $2 }' \
        "$TMPD/includes"
    awk "$room_awk"' { f = room($1); t = room($2); if (f != "" && t != "" && f != t) print f, t, $1 " uses " $3 }' \
        "$TMPD/objedges"
} >"$TMPD/room_edges"
grep -q '^verdict kernel ' "$TMPD/room_edges" || fail "verdict -> kernel not found: the room scan is broken"
awk "$room_awk"' { if (rank($1) == 0) print "FAIL: core/" $1 "/ is no room of the house (base, owner, kernel, verdict): " $3
                   else if (rank($2) == 0) print "FAIL: core/" $2 "/ is no room of the house (base, owner, kernel, verdict): " $3
                   else if (rank($1) < rank($2)) { w = $0; sub(/^[^ ]+ [^ ]+ /, "", w)
                       print "FAIL: core room " $1 " -> " $2 " (" w "): a room uses only the rooms below it (base < owner < kernel < verdict < core)" } }' \
    "$TMPD/room_edges" >"$TMPD/room_bad"
if [ -s "$TMPD/room_bad" ]; then
    cat "$TMPD/room_bad" >&2
    status=1
fi
awk '{ print $1, $2 }' "$TMPD/room_edges" | sort -u >"$TMPD/room_graph"
cycles "$TMPD/room_graph" "between core's rooms" "$TMPD/room_edges"

# --- 3. files inside common/, report/, preload/, cupti/ -------------------------
unit_awk='function unit(p) { sub(/\.(c|h|o|S)$/, "", p); return p }'
for dir in common report preload cupti; do
    {
        awk "$unit_awk"' { split($1, a, "/"); split($2, b, "/"); f = unit($1); t = unit($2)
                         if (a[1] == d && b[1] == d && f != t) print f, t, $1 " includes " $2 }' d="$dir" "$TMPD/includes"
        awk "$unit_awk"' { split($1, a, "/"); split($2, b, "/"); f = unit($1); t = unit($2)
                         if (a[1] == d && b[1] == d && f != t) print f, t, $1 " uses " $3 }' d="$dir" "$TMPD/objedges"
    } >"$TMPD/unit_edges_$dir"
    awk '{ print $1, $2 }' "$TMPD/unit_edges_$dir" | sort -u >"$TMPD/unit_graph_$dir"
    cycles "$TMPD/unit_graph_$dir" "between the files of $dir/" "$TMPD/unit_edges_$dir"
done
[ -s "$TMPD/unit_edges_preload" ] || fail "no edge inside preload/: the file scan is broken"
while read -r from to where; do
    case "$from>$to" in
        preload/resolve\>preload/arch) ;;     # arch.h: constants (the glibc base version dlsym is bound at)
        preload/arch_*\>preload/door) ;;     # the dlsym stub is the door's own entry, in assembly
        report/store\>report/finding|report/store\>report/summary|report/store\>report/suppress) ;;
        report/store\>report/*) fail "$from -> $to ($where): the store of findings uses the finding, the counters and the suppressions, no sink and not the orchestrator" ;;
        preload/resolve\>preload/*) fail "$from -> $to ($where): the resolver is preload/'s ground floor" ;;
        preload/door\>*) ;;
        *\>preload/door) fail "$from -> $to ($where): nothing in preload/ uses the door (dlsym, cuGetProcAddress)" ;;
    esac
done <<EOF
$(cat "$TMPD/unit_edges_report" "$TMPD/unit_edges_preload")
EOF

# --- 4. sizes ------------------------------------------------------------------
max_lines=${LAYERING_MAX_LINES:-1000}
for dir in $TOOL; do
    find "$dir" -type f -name '*.c'
done | sort | while read -r f; do
    n=$(wc -l <"$f")
    [ "$n" -le "$max_lines" ] || echo "FAIL: $f has $n lines: no .c file of the tool over $max_lines (split it along its seams)"
done >"$TMPD/size_bad"
ntop=$(find core -maxdepth 1 -type f -name '*.c' | wc -l)
[ "$ntop" -le 8 ] || echo "FAIL: core/ has $ntop .c files at its top: at most 8 (the rest belong in its rooms)" >>"$TMPD/size_bad"
if [ -s "$TMPD/size_bad" ]; then
    cat "$TMPD/size_bad" >&2
    status=1
fi

echo "folder graph (from includes and object symbols):"
awk '{ print "  " $1 " -> " $2 }' "$TMPD/folder_graph"
echo "core's rooms:"
awk '{ print "  " $1 " -> " $2 }' "$TMPD/room_graph"
exit $status
