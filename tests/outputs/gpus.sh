#!/bin/sh
# Issue 41: a GPU is named as the machine knows it.  Two ranks started with
# different CUDA_VISIBLE_DEVICES (0,1 and 3,2 of the sim's four GPUs) run the
# same bad launch, cuda:1 <- cuda:0's memory: each record names its GPUs by
# UUID and PCI bus id ("gpus"), `devcheck report` keeps the two findings apart
# (two pairs of GPUs, not one), names their UUIDs under each finding and counts
# the access matrix per GPU (renumbered by host and UUID); the same records
# without "gpus" (an older devcheck's) merge by ordinal, as before.
. "$ROOT/tests/outputs/common.sh"
need "$OP/outprog" "$DEVCHECK_BIN" "$DEVCHECK_LIB"
U=GPU-515dc0da-0000-4000-8000-73696d6375
for r in 0 1; do
    [ $r = 0 ] && v=0,1 || v=3,2
    run "$TMPD/r$r" under_devcheck env RANK=$r CUDA_VISIBLE_DEVICES=$v DEVCHECK_OPTIONS="json_path=$TMPD/r.%r.jsonl" \
        "$OP/outprog" launch 1 0
    expect_eq "rank $r: status" 0 "$(rc_of "$TMPD/r$r")"
done
# the console names the GPUs behind the ordinals (short) since CUDA_VISIBLE_DEVICES renumbers them
expect_grep '^    GPUs: cuda:1 \(GPU-515dc0da\.\.\.7502, 0000:12:00\.0\), cuda:0 \(GPU-515dc0da\.\.\.7503, 0000:13:00\.0\)$' "$TMPD/r1.err"
run "$TMPD/plain" under_devcheck "$OP/outprog" launch 1 0
expect_grep '^==devcheck== ERROR: device_mismatch: ' "$TMPD/plain.err"
expect_no_grep '^    GPUs: ' "$TMPD/plain.err"
gpus() {        # gpus FILE: "TYPE ordinal=uuid@pci ..." per record
    py '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    print(o["type"], " ".join("%d=%s@%s" % (g["device"], g["uuid"][-2:], g["pci_bus_id"]) for g in o.get("gpus", [])))' "$1"
}
expect_eq "rank 0: records' GPUs" "finding 1=01@0000:11:00.0 0=00@0000:10:00.0
summary 0=00@0000:10:00.0 1=01@0000:11:00.0" "$(gpus "$TMPD/r.0.jsonl")"
expect_eq "rank 1: records' GPUs" "finding 1=02@0000:12:00.0 0=03@0000:13:00.0
summary 0=03@0000:13:00.0 1=02@0000:12:00.0" "$(gpus "$TMPD/r.1.jsonl")"
python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/report/finding.schema.json" "$TMPD/r.0.jsonl" "$TMPD/r.1.jsonl" ||
    fail "records invalid"

run "$TMPD/m" "$DEVCHECK_BIN" report --json "$TMPD/m.jsonl" --html "$TMPD/m.html" --sarif "$TMPD/m.sarif" \
    "$TMPD/r.0.jsonl" "$TMPD/r.1.jsonl"
expect_eq "report: status" 1 "$(rc_of "$TMPD/m")"
python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/report/finding.schema.json" "$TMPD/m.jsonl" || fail "merged JSON invalid"
expect_eq "report: findings" 2 "$(count_lines '^==devcheck== error: device_mismatch: ' "$TMPD/m.out")"
expect_grep "^    GPUs: cuda:1 = ${U}01 \(0000:11:00.0\), cuda:0 = ${U}00 \(0000:10:00.0\) on " "$TMPD/m.out"
expect_grep "^    GPUs: cuda:1 = ${U}02 \(0000:12:00.0\), cuda:0 = ${U}03 \(0000:13:00.0\) on " "$TMPD/m.out"
expect_grep '^devcheck: SUMMARY: 2 findings \(2 errors, 0 warnings\) in 1 kernel; .*; 2 processes$' "$TMPD/m.out"
merged() {      # merged FILE: its findings (common.sh's ranks), the summary's GPUs, access matrix, processes' GPUs
    ranks "$1" | grep '^finding'
    py '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["type"] == "summary":
        print("gpus", " ".join("%d=%s" % (g["device"], g["uuid"][-2:] if g["uuid"] else "?") for g in o.get("gpus", [])))
        print("access", " ".join("%d<-%d:%d" % (c["launch_device"], c["owner"], c["operands"])
                                  for c in sorted(o["access"], key=lambda c: (c["launch_device"], c["owner"]))))
        print("processes", " ".join("%s:%s" % (p["rank"], ",".join(g["uuid"][-2:] for g in p.get("gpus", [])))
                                     for p in sorted(o["processes"], key=lambda p: p["rank"])))' "$1"
}
expect_eq "report: merged by GPU" "finding cuda:1<-cuda:0 ranks=[0]
finding cuda:1<-cuda:0 ranks=[1]
gpus 0=00 1=01 2=02 3=03
access 1<-0:1 1<-1:1 2<-2:1 2<-3:1
processes 0:00,01 1:03,02" "$(merged "$TMPD/m.jsonl")"
grep -q "gpuName" "$TMPD/m.html" || fail "HTML: no GPU names for the matrix"
grep -q "cuda:1 = ${U}02 (0000:12:00.0)" "$TMPD/m.html" || fail "HTML: the finding's text names no UUID"
python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/tests/schemas/sarif-schema-2.1.0.json" "$TMPD/m.sarif" || fail "SARIF invalid"
expect_eq "SARIF: each result's GPUs" "[0] 01,00
[1] 02,03" "$(py '
import json, sys
for r in json.load(open(sys.argv[1]))["runs"][0]["results"]:
    p = r["properties"]
    print([s["rank"] for s in p["processes"]], ",".join(g["uuid"][-2:] for g in p["gpus"]))' "$TMPD/m.sarif" | sort)"

# a merged file merged again keeps its GPUs and matrix
run "$TMPD/again" "$DEVCHECK_BIN" report --json "$TMPD/again.jsonl" "$TMPD/m.jsonl"
expect_eq "merged again" "gpus 0=00 1=01 2=02 3=03
access 1<-0:1 1<-1:1 2<-2:1 2<-3:1" "$(merged "$TMPD/again.jsonl" | grep '^gpus\|^access')"

# one process: its ordinals stay the matrix's numbers
run "$TMPD/one" "$DEVCHECK_BIN" report --json "$TMPD/one.jsonl" "$TMPD/r.1.jsonl"
expect_eq "one rank: merged" "finding cuda:1<-cuda:0 ranks=[1]
gpus 0=03 1=02
access 1<-0:1 1<-1:1
processes 1:03,02" "$(merged "$TMPD/one.jsonl")"

# older records (no "gpus"): merged by ordinal, as before
for r in 0 1; do
    py '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    o.pop("gpus", None)
    print(json.dumps(o))' "$TMPD/r.$r.jsonl" >"$TMPD/old.$r.jsonl"
done
run "$TMPD/old" "$DEVCHECK_BIN" report --json "$TMPD/old.jsonl" "$TMPD/old.0.jsonl" "$TMPD/old.1.jsonl"
expect_eq "older records: merged" "finding cuda:1<-cuda:0 ranks=[0, 1]
gpus 
access 1<-0:2 1<-1:2
processes 0: 1:" "$(merged "$TMPD/old.jsonl")"
expect_no_grep '^    GPUs: ' "$TMPD/old.out"
# the wrapper's tree: the same two ranks as children, merged at the end
run "$TMPD/tree" "$DEVCHECK_BIN" --sim 4 --json "$TMPD/tree.jsonl" -- sh -c \
    "RANK=0 CUDA_VISIBLE_DEVICES=0,1 '$OP/outprog' launch 1 0; RANK=1 CUDA_VISIBLE_DEVICES=3,2 '$OP/outprog' launch 1 0"
expect_eq "tree: merged by GPU" "finding cuda:1<-cuda:0 ranks=[0]
finding cuda:1<-cuda:0 ranks=[1]
gpus 0=00 1=01 2=02 3=03
access 1<-0:1 1<-1:1 2<-2:1 2<-3:1" "$(merged "$TMPD/tree.jsonl" | grep -v '^processes')"
echo "gpus: ok"
