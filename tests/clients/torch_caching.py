"""PyTorch's caching allocator under devcheck (issue 27): what the wrapper
must leave as it is.  One mode per run; each prints one `torch_caching:`
line that the same run without devcheck prints too.

    env         PYTORCH_NO_CUDA_MEMORY_CACHING as the program sees it
    graph       torch.cuda.graph capture and replay (a copy node, so the
                replay's values show; PyTorch's allocator must be caching:
                uncached, cudaMalloc inside the capture invalidates it)
    compile     torch.compile(mode="reduce-overhead") (cudagraph trees: with
                caching off, "storage data ptrs are not allocated in pool")
    expandable  run with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True:
                tensors of several sizes, one over several mapped pages;
                their values copied back
    loader      a DataLoader with two forked workers after CUDA started
    profiler    torch.profiler with profile_memory=True: its [memory] events
                (the allocator's reports, which devcheck sees first and
                forwards to libc10.so's reportMemoryUsageToProfiler)
    pool        a graph's private pool: a Triton kernel launched on cuda:0
                over a tensor the capture made on cuda:1, after another one
                (so it is not its segment's first block), with peer access
                cuda:0 -> cuda:1 enabled by a copy (without it, Triton's
                launcher is refused the pointer and raises, as on a GPU)"""
import os
import sys

import torch

mode = sys.argv[1]
if mode == "env":
    print("torch_caching: env PYTORCH_NO_CUDA_MEMORY_CACHING=%s" % os.environ.get("PYTORCH_NO_CUDA_MEMORY_CACHING", "unset"))
elif mode == "graph":
    x = torch.arange(8, dtype=torch.float32, device="cuda:0")
    y = torch.zeros(8, device="cuda:0")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y.copy_(x)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y.copy_(x)
        tmp = torch.empty(8, device="cuda:0")       # allocated in the graph's private pool
        tmp.copy_(y)
    x.copy_(torch.arange(10, 18, dtype=torch.float32))
    g.replay()
    torch.cuda.synchronize()
    print("torch_caching: graph replayed y=%s tmp=%s" % (y.cpu().tolist(), tmp.cpu().tolist()))
elif mode == "compile":
    from torch._dynamo.utils import counters

    def f(x):
        return (x * 2 + 1).relu()
    g = torch.compile(f, mode="reduce-overhead")
    x = torch.arange(-4, 12, dtype=torch.float32, device="cuda:0")
    for _ in range(3):
        out = g(x)
    torch.cuda.synchronize()
    skips = sum(v for k, v in counters["inductor"].items() if "cudagraph_skips" in k)
    print("torch_caching: compile shape=%s cudagraph_skips=%d" % (tuple(out.shape), skips))
elif mode == "expandable":
    conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    small = [torch.full((1000 + i,), float(i)).to("cuda:0") for i in range(16)]
    big = torch.full((3 << 20,), 2.0).to("cuda:0")          # 12 MiB: over several 2 MiB pages
    del small[::2]
    again = torch.full((5 << 20,), 3.0).to("cuda:0")
    host = big.cpu(), again.cpu(), [t.cpu() for t in small]
    print("torch_caching: expandable conf=%s big=%s again=%s small=%s" % (
        conf, float(host[0].sum()), float(host[1].sum()), [float(t[0]) for t in host[2]]))
elif mode == "loader":
    from torch.utils.data import DataLoader, Dataset

    class Items(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            return torch.full((4,), float(i))
    torch.zeros(4, device="cuda:0")                 # CUDA started in the parent before the fork
    batches = DataLoader(Items(), batch_size=2, num_workers=2, multiprocessing_context="fork")
    print("torch_caching: loader sum=%s" % sum(float(b.sum()) for b in batches))
elif mode == "profiler":
    from torch.profiler import profile, ProfilerActivity
    torch.zeros(1, device="cuda:0")
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        a = torch.empty(1024, device="cuda:0")
        b = torch.empty(4096, device="cuda:0")
        del a, b
    mem = [e for e in prof.events() if e.name == "[memory]"]
    print("torch_caching: profiler memory_events=%d bytes=%s" % (len(mem), sorted(e.cpu_memory_usage + getattr(e, "device_memory_usage", 0) for e in mem)))
elif mode == "pool":
    import triton
    import triton.language as tl

    @triton.jit
    def bump(p, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(p + offs, tl.load(p + offs, mask=offs < n) + 1.0, mask=offs < n)

    with torch.cuda.device(1):
        x = torch.ones(16, device="cuda:1")
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            x * 2
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            first = x + 1                           # the pool's first block
            pooled = x * 2                          # POOL
        g.replay()
        torch.cuda.synchronize()
    y = torch.ones(16, device="cuda:0")
    bump[(1,)](y, 16, BLOCK=16)                     # correct: y lives on cuda:0
    y.to("cuda:1")                                  # PyTorch enables peer access cuda:0 -> cuda:1
    bump[(1,)](pooled, 16, BLOCK=16)                # BUG: launched on cuda:0 (over peer access)
    try:
        torch.cuda.synchronize()
        print("torch_caching: pool ran")
    except RuntimeError as e:
        print("torch_caching: pool fault: %s" % str(e).splitlines()[0])
        sys.exit(3)
