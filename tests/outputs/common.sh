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
