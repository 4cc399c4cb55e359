#!/bin/sh
# libs_exports: NVIDIA's libraries on the simulated GPUs (sim/libs/README.md)
#  - preload.list names each built library (SIM_LIBS), one file name a line,
#    each a file of build/sim whose SONAME is its name;
#  - each exports every name NVIDIA's library of that soname exports
#    ($CUDA_HOME/lib64), under the same version node, and every name
#    sim/libs/imports.tsv lists for it (PyTorch's references with their
#    version); its host twins (simcuda_twin_*) and nothing else besides;
#  - a stub prints one line naming the library, itself and the status it
#    returns, once (two calls), and returns that status;
#  - `devcheck --sim` preloads libdevcheck.so, the sim's runtime, then the
#    listed libraries in the list's order.
. "$ROOT/tests/lib.sh"
export LC_ALL=C
LIST=$SIM_DIR/preload.list
IMPORTS=$ROOT/sim/libs/imports.tsv
[ -f "$LIST" ] || fail "no $LIST (run make first)"
names() { nm -D --defined-only "$1" | awk '$2 != "A" { print $3 }' | sort -u; }
n=0
while read -r so; do
    [ -n "$so" ] || fail "empty line in $LIST"
    case $so in */*) fail "$LIST: '$so' is not a file name";; esac
    lib=$SIM_DIR/$so
    [ -f "$lib" ] || fail "$so listed but not built"
    readelf -d "$lib" | grep -q "SONAME.*\[$so\]" || fail "$so: SONAME is not $so"
    names "$lib" > "$TMPD/$so.got"
    real=$CUDA_HOME/lib64/$so
    if [ -f "$real" ]; then
        names "$real" > "$TMPD/$so.want"
        comm -23 "$TMPD/$so.want" "$TMPD/$so.got" > "$TMPD/$so.missing"
        [ ! -s "$TMPD/$so.missing" ] || { head "$TMPD/$so.missing" >&2; fail "$so lacks NVIDIA's exports (above)"; }
    fi
    awk -F'\t' -v so="$so" '$1 == so { print $2 "\t" $3 }' "$IMPORTS" > "$TMPD/$so.imports"
    while IFS='	' read -r sym ver; do
        if [ "$ver" = - ]; then
            grep -Eq "^$sym(@@.*)?\$" "$TMPD/$so.got" || fail "$so does not export $sym (imports.tsv)"
        else
            grep -qx "$sym@@$ver" "$TMPD/$so.got" || fail "$so does not export $sym@@$ver (imports.tsv)"
        fi
    done < "$TMPD/$so.imports"
    # nothing of its own beyond NVIDIA's names, the imported ones and the twins
    sed 's/@.*//' "$TMPD/$so.got" | sort -u > "$TMPD/$so.base"
    { [ -f "$real" ] && sed 's/@.*//' "$TMPD/$so.want"; cut -f1 "$TMPD/$so.imports"; } | sort -u > "$TMPD/$so.allowed"
    extra=$(comm -23 "$TMPD/$so.base" "$TMPD/$so.allowed" | grep -v '^simcuda_twin_' | head -5)
    [ -z "$extra" ] || fail "$so exports names NVIDIA's does not: $extra"
    # a stub: the library's first stubbed name
    stubbed=$BUILD/obj/sim/libs/$so/stubbed.txt
    [ -f "$stubbed" ] || fail "no $stubbed"
    stub=$(head -n 1 "$stubbed")
    if [ -n "$stub" ]; then
        on_sim "$BUILD/tests/sim/libs_stub_call" "$lib" "$stub" >"$TMPD/stub.out" 2>"$TMPD/stub.err" ||
            { cat "$TMPD/stub.err" >&2; fail "$so: calling $stub failed"; }
        expect_eq "$so $stub: lines" 1 "$(grep -c "^simcuda: $so: $stub is not implemented: [A-Za-z_]*\$" "$TMPD/stub.err")"
        st=$(sed -n 's/.*is not implemented: //p' "$TMPD/stub.err")
        grep -q "^$stub returned \([0-9]*\), \1\$" "$TMPD/stub.out" || fail "$so $stub: $(cat "$TMPD/stub.out")"
        awk -F'\t' -v so="$so" '$1 == so && $4 ~ /torch\// { print $2 }' "$IMPORTS" > "$TMPD/$so.torch"
        note "$so: PyTorch imports $(wc -l < "$TMPD/$so.torch") names, $(grep -cxFf "$stubbed" "$TMPD/$so.torch" || true) of them stubbed ($(grep -xFf "$stubbed" "$TMPD/$so.torch" | tr '\n' ' ')); PyTorch and JAX $(wc -l < "$TMPD/$so.imports"), $(cut -f1 "$TMPD/$so.imports" | grep -cxFf "$stubbed" || true) stubbed; a stub returns $st"
    fi
    n=$((n + 1))
done < "$LIST"
# the wrapper's LD_PRELOAD
want="$(readlink -f "$DEVCHECK_LIB") $(readlink -f "$SIM_DIR")/libcudart.so.13"
while read -r so; do want="$want $(readlink -f "$SIM_DIR")/$so"; done < "$LIST"
"$DEVCHECK_BIN" --sim 2 -- sh -c 'printf "%s\n" "$LD_PRELOAD"' >"$TMPD/pre.out" 2>"$TMPD/pre.err" ||
    { cat "$TMPD/pre.err" >&2; fail "devcheck --sim 2 sh failed"; }
# (a sanitizer's runtime first, by whatever path the wrapper found it:
# /lib/x86_64-linux-gnu/libasan.so.8, not the compiler's libasan.so link)
got=$(sed -E 's|^[^ ]*/lib[at]san\.so[.0-9]* ||' "$TMPD/pre.out")
expect_eq "devcheck --sim's LD_PRELOAD" "$want" "$got"
echo "libs_exports: ok ($n libraries)"
