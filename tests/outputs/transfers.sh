#!/bin/sh
# Issue 14, the matrices' counts in the JSON summary: pipeline_peer copies
# weights and input host->device (lines 61, 64), stage outputs peer to peer
# (cudaMemcpyPeerAsync, line 82: cuda:0->1, 1->2; stage 3 reads cuda:2 over
# peer access) and the result device->host (line 90).  The transfer matrix
# holds exactly those copies with their call sites, the same through the
# interposer and through CUPTI alone (backend=cupti), and no copy twice
# with both; the access matrix the operands each launch device checked.
. "$ROOT/tests/outputs/common.sh"
need "$SAMPLES/pipeline_peer" "$DEVCHECK_BIN"
want_x="-2->0 calls=2 bytes=2048 sites=main at samples/pipeline_peer.cu:61,main at samples/pipeline_peer.cu:64
-2->1 calls=1 bytes=1024 sites=main at samples/pipeline_peer.cu:61
-2->2 calls=1 bytes=1024 sites=main at samples/pipeline_peer.cu:61
-2->3 calls=1 bytes=1024 sites=main at samples/pipeline_peer.cu:61
0->1 calls=1 bytes=1024 sites=main at samples/pipeline_peer.cu:82
1->2 calls=1 bytes=1024 sites=main at samples/pipeline_peer.cu:82
3->-2 calls=1 bytes=1024 sites=main at samples/pipeline_peer.cu:90"
want_a="0<-0 3
1<-1 3
2<-2 3
3<-2 1
3<-3 2"
for backend in both interpose cupti; do
    run "$TMPD/$backend" "$DEVCHECK_BIN" --sim 4 --backend $backend --json "$TMPD/$backend.jsonl" -- "$SAMPLES/pipeline_peer"
    expect_eq "$backend: status" 0 "$(rc_of "$TMPD/$backend")"
    s=$(tail -n 1 "$TMPD/$backend.jsonl")
    expect_eq "$backend: transfers" "$want_x" "$(echo "$s" | py '
import json, sys
s = json.loads(sys.stdin.read())
for t in sorted(s["transfers"], key=lambda t: (t["src"], t["dst"])):
    print("%d->%d calls=%d bytes=%d sites=%s" % (t["src"], t["dst"], t["calls"], t["bytes"],
          ",".join(sorted(x["site"] for x in t["sites"]))))')"
    expect_eq "$backend: access" "$want_a" "$(echo "$s" | py '
import json, sys
s = json.loads(sys.stdin.read())
for c in sorted(s["access"], key=lambda c: (c["launch_device"], c["owner"])):
    print("%d<-%d %d" % (c["launch_device"], c["owner"], c["operands"]))')"
done
echo "transfers: ok"
