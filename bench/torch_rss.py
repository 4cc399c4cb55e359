"""`make bench`: a small torch process on the simulated GPUs (an embedding,
elementwise ops, a reduction, a cat, 20 steps; no cuBLAS, which cannot run
on the sim); prints its peak and current resident set in KiB, once the work
is done, and the resident set's anonymous (heap) and file-backed parts:
`torch_rss: hwm=KIB rss=KIB anon=KIB file=KIB`.  bench/run.sh runs it without
devcheck and under the wrapper (issue 27: devcheck's own memory in a torch
process)."""
import torch


def status():
    got = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS", "RssAnon", "RssFile"):
                got[key] = int(value.split()[0])
    return got


emb = torch.nn.Embedding(1000, 64).to("cuda:0")
ids = torch.randint(0, 1000, (8, 16)).to("cuda:0")
keep = []
for _ in range(20):
    h = torch.relu(emb(ids) * 2 + 1)
    keep.append(torch.cat([h.sum(dim=-1), h.amax(dim=-1)], dim=1))
torch.cuda.synchronize()
s = status()
print("torch_rss: hwm=%d rss=%d anon=%d file=%d" % (s["VmHWM"], s["VmRSS"], s["RssAnon"], s["RssFile"]))
