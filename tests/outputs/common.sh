# Helpers of the output tests (sourced by tests/outputs/*.sh, not a test):
# the interposer tests' (need, run, rc_of) and these.
. "$ROOT/tests/preload/common.sh"
OP=$BUILD/tests/outputs
unset DEVCHECK_ROOT_PID RANK SLURM_PROCID OMPI_COMM_WORLD_RANK PMI_RANK
# py EXPR-SCRIPT ARGS...: a Python snippet (stdlib only) over the files.
py() { _s=$1; shift; python3 -c "$_s" "$@"; }
# count_lines PATTERN FILE
count_lines() { grep -Ec -- "$1" "$2" || true; }
# ranks MERGED.jsonl: "finding cuda:L<-cuda:O ranks=[...]" per merged
# finding, then "summary ranks=[...]" (the ranks of every process).
ranks() {
    py '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["type"] == "finding":
        print("finding cuda:%d<-cuda:%d ranks=%s" % (o["launch"]["device"], o["operand"]["owner_device"],
                                                   [p["rank"] for p in o["processes"]]))
    else:
        print("summary ranks=%s" % sorted(p["rank"] for p in o["processes"] if p["rank"] is not None))' "$1"
}
# per_rank PREFIX: the files PREFIX*.jsonl (one per rank, written by the
# wrapper or the processes), one line each: "FILE: rank R: KIND KERNEL
# cuda:L<-cuda:O ...; summary findings=N" -- R the one rank every record and
# every process share the file names; "MIXED [..]" when the file holds records
# of several ranks (or of a process without one).
per_rank() {
    py '
import glob, json, os, sys
for f in sorted(glob.glob(sys.argv[1] + "*.jsonl")):
    ranks, facts = set(), []
    for l in open(f):
        o = json.loads(l)
        ranks.add(o["rank"])
        ranks.update(p["rank"] for p in o.get("processes", []))
        if o["type"] == "finding":
            facts.append("%s %s cuda:%d<-cuda:%d" % (o["kind"], o["kernel_mangled"], o["launch"]["device"],
                                                     o["operand"]["owner_device"]))
        else:
            facts.append("summary findings=%d" % o["findings"])
    r = "rank %s" % ranks.pop() if len(ranks) == 1 else "MIXED %s" % sorted(ranks, key=str)
    print("%s: %s: %s" % (os.path.basename(f), r, "; ".join(facts)))' "$1"
}
