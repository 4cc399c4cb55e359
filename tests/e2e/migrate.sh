#!/bin/sh
# mode=migrate (`devcheck --mode migrate`): every buggy sample, which fails on
# its own, completes with the correct result (its own check prints
# "NAME: OK") and exits 0; its findings are exactly those of report mode
# (tests/e2e/expected/NAME.txt), each error operand now with action=migrated,
# moved to the launch device (JSON migration.device == launch.device) with
# the hint to move it there, and bytes_migrated > 0.  Fixed samples and
# legal cross-device access are left alone: no migration, no bytes copied.
# Operands sharing an allocation share one copy.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_BIN" "$DEVCHECK_LIB" "$SIM_DIR/libcudart.so.13" "$SIM_DIR/libcuda.so.1"

# migrated_expected EXPECTED: the report-mode findings with every error
# operand finding migrated (the summary's migrated= is checked apart).
migrated_expected() {
    sed -E '/^(device_mismatch|host_memory) severity=error /s/$/ action=migrated/' "$1"
}

# check_migrations JSON: each migrated finding names the launch device as its
# copy's device, and the summary counts bytes (stdout: bytes_migrated).
check_migrations() {
    python3 - "$1" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
summary = recs[-1]
assert summary["type"] == "summary", "no summary"
for r in recs[:-1]:
    if r["action"] == "migrated":
        m = r["migration"]
        assert m["device"] == r["launch"]["device"], "copy on cuda:%s, launch on cuda:%s" % (m["device"], r["launch"]["device"])
        assert m["bytes"] > 0, "first migration of an operand copied nothing"
print(summary["bytes_migrated"])
PY
}

failed=""
for s in $BUGGY_SAMPLES; do
    (
        exp=$E2E/expected/$s.txt
        need "$SAMPLES/$s" "$exp"
        t=$TMPD/$s
        # Without devcheck the sample fails.
        run "$t.bare" on_sim "$SAMPLES/$s"
        expect_eq "$s on its own: exit status" 1 "$(rc_of "$t.bare")"
        expect_no_grep "^$s: OK " "$t.bare.out"
        # Under --mode migrate it is right.
        run "$t" "$DEVCHECK_BIN" --sim 4 --mode migrate --json "$t.json" -- "$SAMPLES/$s"
        expect_grep "^$s: OK " "$t.out"
        expect_eq "$s under --mode migrate: exit status" 0 "$(rc_of "$t")"
        canon "$s" "$t.json" "$t.canon"
        migrated_expected "$exp" >"$t.want"
        sed -E 's/ migrated=[0-9]+$//' "$t.canon" >"$t.got"
        expect_findings "$t.want" "$t.got" "$s under --mode migrate"
        bytes=$(check_migrations "$t.json") || fail "$s: migration records"
        [ "$bytes" -gt 0 ] || fail "$s: bytes_migrated is $bytes"
        expect_grep '^    action: migrated: [0-9]+ bytes copied to cuda:[0-9]+ for this launch and back after it$' "$t.err"
        expect_grep '^    hint: move the operand to cuda:[0-9]+ before the launch' "$t.err"
        expect_grep "^devcheck: SUMMARY: .*; $bytes bytes migrated$" "$t.err"
    ) || failed="$failed $s"
done

# Fixed samples: untouched (no finding, nothing copied).
for s in $BUGGY_SAMPLES; do
    (
        f=${s}_fixed t=$TMPD/$s.fixed
        need "$SAMPLES/$f"
        run "$t" "$DEVCHECK_BIN" --sim 4 --mode migrate --json "$t.json" -- "$SAMPLES/$f"
        expect_eq "$f under --mode migrate: exit status" 0 "$(rc_of "$t")"
        expect_grep "^$s: OK " "$t.out"
        canon "$f" "$t.json" "$t.canon"
        expect_clean "$f under --mode migrate" "$t.canon"
        expect_eq "$f: bytes_migrated" 0 "$(check_migrations "$t.json")"
        expect_grep '; 0 bytes migrated$' "$t.err"
    ) || failed="$failed ${s}_fixed"
done

# Legal access is not an error: peer access and host ids on an HMM device
# are reported as in report mode and never migrated.
(
    t=$TMPD/pipeline_peer
    run "$t" "$DEVCHECK_BIN" --sim 4 --mode migrate --json "$t.json" -- "$SAMPLES/pipeline_peer"
    expect_eq "pipeline_peer under --mode migrate: exit status" 0 "$(rc_of "$t")"
    canon pipeline_peer "$t.json" "$t.canon"
    expect_findings "$E2E/expected/pipeline_peer.txt" "$t.canon" "pipeline_peer under --mode migrate"
    t=$TMPD/host_tokens_hmm
    run "$t" env SIMCUDA_HMM=1 "$DEVCHECK_BIN" --sim 4 --mode migrate --json "$t.json" -- "$SAMPLES/host_tokens"
    expect_eq "host_tokens (HMM) under --mode migrate: exit status" 0 "$(rc_of "$t")"
    canon host_tokens "$t.json" "$t.canon"
    expect_findings "$E2E/expected/host_tokens_hmm.txt" "$t.canon" "host_tokens (HMM) under --mode migrate"
) || failed="$failed legal-access"
# Three operands in one allocation (tests/e2e/modes_prog.cu `shared`): one
# copy, counted once (12000 bytes there and back), the result right.
(
    t=$TMPD/shared
    PROG=$BUILD/tests/e2e/modes_prog
    need "$PROG"
    run "$t.bare" on_sim "$PROG" shared
    expect_eq "modes_prog shared on its own: exit status" 1 "$(rc_of "$t.bare")"
    run "$t" "$DEVCHECK_BIN" --sim 4 --mode migrate --json "$t.json" -- "$PROG" shared
    expect_eq "modes_prog shared under --mode migrate: exit status" 0 "$(rc_of "$t")"
    expect_grep '^modes_prog: OK ' "$t.out"
    canon modes_prog "$t.json" "$t.canon"
    expect_findings /dev/stdin "$t.canon" "modes_prog shared under --mode migrate" <<EOT
device_mismatch severity=error kernel=add2 api=__cudaLaunchKernel param=0 launch=0 owner=1 memory=device count=1 at=$(prog_site shared) action=migrated
device_mismatch severity=error kernel=add2 api=__cudaLaunchKernel param=1 launch=0 owner=1 memory=device count=1 at=$(prog_site shared) action=migrated
device_mismatch severity=error kernel=add2 api=__cudaLaunchKernel param=2 launch=0 owner=1 memory=device count=1 at=$(prog_site shared) action=migrated
summary errors=3 warnings=0 launches=1 unchecked=0 migrated=24000
EOT
    expect_eq "copies made" "12000 0 0" "$(grep '"type":"finding"' "$t.json" | grep -o '"bytes":[0-9]*' | cut -d: -f2 | sort -rn | tr '\n' ' ' | sed 's/ $//')"
) || failed="$failed shared"
# A runtime launch from a thread that never called cudaSetDevice (no context
# current before the launch: modes_prog `fresh`) is migrated like any other,
# not taken for a captured one.
(
    t=$TMPD/fresh
    PROG=$BUILD/tests/e2e/modes_prog
    run "$t.bare" on_sim "$PROG" fresh
    expect_eq "modes_prog fresh on its own: exit status" 1 "$(rc_of "$t.bare")"
    run "$t" "$DEVCHECK_BIN" --sim 4 --mode migrate --json "$t.json" -- "$PROG" fresh
    expect_eq "modes_prog fresh under --mode migrate: exit status" 0 "$(rc_of "$t")"
    expect_grep '^modes_fresh: OK' "$t.out"
    canon modes_prog "$t.json" "$t.canon"
    expect_findings /dev/stdin "$t.canon" "modes_prog fresh under --mode migrate" <<EOT
device_mismatch severity=error kernel=axpy api=__cudaLaunchKernel param=0 launch=0 owner=1 memory=device count=1 at=$(prog_site fresh) action=migrated
summary errors=1 warnings=0 launches=1 unchecked=0 migrated=8000
EOT
) || failed="$failed fresh"
# Pageable host memory in a read-only mapping (a `static const` table:
# modes_prog `rodata`) is copied in (to the end of its mapping, so the byte
# count depends on the link) and never written back.
(
    t=$TMPD/rodata
    PROG=$BUILD/tests/e2e/modes_prog
    run "$t.bare" on_sim "$PROG" rodata
    expect_eq "modes_prog rodata on its own: exit status" 1 "$(rc_of "$t.bare")"
    run "$t" "$DEVCHECK_BIN" --sim 4 --mode migrate --json "$t.json" -- "$PROG" rodata
    expect_eq "modes_prog rodata under --mode migrate: exit status" 0 "$(rc_of "$t")"
    expect_grep '^modes_prog: OK ' "$t.out"
    canon modes_prog "$t.json" "$t.canon"
    expect_grep "^host_memory severity=error kernel=axpy api=__cudaLaunchKernel param=0 launch=0 owner=-1 memory=pageable count=1 at=$(prog_site rodata) action=migrated\$" "$t.canon"
    bytes=$(grep '"type":"finding"' "$t.json" | grep -o '"bytes":[0-9]*' | cut -d: -f2)
    expect_grep "^summary errors=1 warnings=0 launches=1 unchecked=0 migrated=$bytes\$" "$t.canon"
    [ "${bytes:-0}" -ge 4000 ] || fail "rodata: $bytes bytes copied, fewer than the table's 4000"
) || failed="$failed rodata"
[ -z "$failed" ] || fail "mode=migrate wrong for:$failed"
echo "ok: mode=migrate on every sample"
