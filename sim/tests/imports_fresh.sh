#!/bin/sh
# imports_fresh: sim/libs/imports.tsv still lists what the client
# virtualenv's PyTorch imports from NVIDIA's libraries (sim/libs/README.md,
# "What PyTorch and JAX import"): its rows that PyTorch imports (soname,
# name, version) are exactly those gen_imports.py reads now from torch/lib's
# undefined symbols, and its header names the same torch and nvidia-*
# versions.  With libs_exports.sh (each listed name is exported by the sim's
# library, implemented or a stub answering the documented "not supported"
# status in one line), every function PyTorch's wheel imports is answered.
# A torch or nvidia-* wheel that changes them fails here, naming each row:
# run `make sim-imports`.
. "$ROOT/tests/lib.sh"
need_pyenv
export LC_ALL=C
TSV=$ROOT/sim/libs/imports.tsv
site=$(echo "$PYENV"/lib/python*/site-packages)
[ -d "$site" ] || fail "no site-packages in $PYENV"
python3 "$ROOT/sim/libs/gen_imports.py" --site "$site" -o "$TMPD/now.tsv" >"$TMPD/gen.err" 2>&1 ||
    { cat "$TMPD/gen.err" >&2; fail "gen_imports.py failed"; }
awk -F'\t' '!/^#/ { print $1 "\t" $2 "\t" $3 }' "$TMPD/now.tsv" | sort >"$TMPD/now"
awk -F'\t' '!/^#/ && $4 ~ /(^|,)torch\// { print $1 "\t" $2 "\t" $3 }' "$TSV" | sort >"$TMPD/kept"
[ -s "$TMPD/now" ] || fail "gen_imports.py found no PyTorch import"
if ! cmp -s "$TMPD/now" "$TMPD/kept"; then
    comm -23 "$TMPD/now" "$TMPD/kept" | head -5 | sed 's/^/    imported, not in imports.tsv: /' >&2
    comm -13 "$TMPD/now" "$TMPD/kept" | head -5 | sed 's/^/    in imports.tsv, no longer imported: /' >&2
    fail "imports.tsv is stale for PyTorch (make sim-imports)"
fi
# the versions: the "importers" line of the new table is the start of the kept one's
now=$(sed -n 's/^# importers: //p' "$TMPD/now.tsv")
kept=$(sed -n 's/^# importers: //p' "$TSV")
case $kept in "$now"*) ;; *) fail "imports.tsv read from '$kept', the virtualenv has '$now'" ;; esac
note "PyTorch imports $(wc -l <"$TMPD/now") names of NVIDIA's libraries ($now)"
echo "imports_fresh: ok"
