#!/bin/sh
# report/elfdw.c against libdw (test_elfdw, frame by frame) on a library of
# 17,000 symbols without DWARF (tests/unit/elfdw_big.c: named in passes over
# its table, a report's addresses at once), issue 38:
#  - as built (.symtab, no DWARF, no debug file): answered without libdw;
#  - stripped to its .dynsym: libdw names from the .dynsym when it finds no
#    debug file, and so does elfdw;
#  - stripped, with a .gnu_debuglink to its debug file beside it: libdw reads
#    that file, so elfdw answers nothing and leaves every frame to libdw;
# and (ELFDW_BARE) DC_SYM_SHOWN / DC_SYM_NAMES_LAZY: the folded frames of
# the bare libraries left unnamed, named later as a whole answer names them;
# none left unnamed in the one with a debug file.
. "$ROOT/tests/lib.sh"
u=$BUILD/tests/unit
# one library a run (test_elfdw's note: libdw reads the maps again per dlopen)
run() {     # run LIB BARE: test_elfdw's line for LIB as "ANSWERED ASKED DIFFER"
    ELFDW_BARE=$2 "$u/test_elfdw" "$u/$1" >"$TMPD/$1.out" 2>&1 || { cat "$TMPD/$1.out" >&2; fail "test_elfdw $1 failed"; }
    sed -n "s|^.*/$1: \([0-9]*\) of \([0-9]*\) answered without libdw, \([0-9]*\) differ\$|\1 \2 \3|p" "$TMPD/$1.out"
}
for lib in libelfdw_big.so libelfdw_dyn.so; do
    set -- $(run $lib 1)
    [ $# = 3 ] || fail "$lib: no count line from test_elfdw"
    note "$lib: $1 of $2 answered without libdw, $3 differ"
    expect_eq "$lib: frames that differ from libdw's" 0 "$3"
    # every address but those libdw decides (the label's 16 bytes, and past the last symbol)
    [ "$2" -ge 600 ] && [ "$1" -ge $(($2 - 4)) ] || fail "$lib: only $1 of $2 answered without libdw"
done
set -- $(run libelfdw_link.so 0)
[ $# = 3 ] || fail "libelfdw_link.so: no count line from test_elfdw"
note "libelfdw_link.so (debug file beside it): $1 of $2 answered without libdw"
expect_eq "libelfdw_link.so: frames answered without libdw though libdw reads a debug file" 0 "$1"
