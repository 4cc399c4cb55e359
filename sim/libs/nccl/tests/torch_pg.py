"""torch.distributed's ProcessGroupNCCL on the sim's NCCL (sim/libs/nccl/):
one process, one thread per simulated GPU, each thread a rank of a
ProcessGroupNCCL made on a shared HashStore (NCCL's unique id travels
through it; each rank's communicator comes from ncclCommInitRankConfig).
Tensors reach the GPUs and come back by copies (the sim computes NCCL's
collectives, not PyTorch's own kernels), and every rank checks what it
received against the host's computation:
allreduce (sum, max, avg), broadcast, allgather, reduce_scatter,
all_to_all, send/recv around a ring.  (The values are made on the host:
PyTorch's own kernels, `+` included, compute nothing on the sim.)  Prints
`torch_pg: N ranks ok`."""
import threading

import torch
import torch.distributed as dist

n = torch.cuda.device_count()
store = dist.HashStore()
errors = []
E = 6                               # elements per rank


def host(r):
    return torch.arange(E, dtype=torch.float32) + 100 * r


def expect(what, r, got, want):
    if not torch.equal(got.cpu(), want):
        errors.append(f"rank {r} {what}: {got.cpu().tolist()}, want {want.tolist()}")


def rank(r):
    dev = torch.device("cuda", r)
    torch.cuda.set_device(dev)
    pg = dist.ProcessGroupNCCL(store, r, n)
    everyone = torch.stack([host(k) for k in range(n)])
    t = host(r).to(dev)
    pg.allreduce([t]).wait()
    expect("allreduce sum", r, t, everyone.sum(0))
    t = host(r).to(dev)
    opts = dist.AllreduceOptions()
    opts.reduceOp = dist.ReduceOp.MAX
    pg.allreduce([t], opts).wait()
    expect("allreduce max", r, t, everyone.max(0).values)
    t = host(r).to(dev)
    opts.reduceOp = dist.ReduceOp.AVG
    pg.allreduce([t], opts).wait()
    expect("allreduce avg", r, t, everyone.mean(0))
    t = host(r).to(dev)
    bo = dist.BroadcastOptions()
    bo.rootRank = n - 1
    pg.broadcast([t], bo).wait()
    expect("broadcast", r, t, host(n - 1))
    out = [torch.empty(E, device=dev) for _ in range(n)]
    pg.allgather([out], [host(r).to(dev)]).wait()
    for k in range(n):
        expect(f"allgather[{k}]", r, out[k], host(k))
    t = torch.empty(E, device=dev)
    pg.reduce_scatter([t], [[(host(r) + k).to(dev) for k in range(n)]]).wait()
    expect("reduce_scatter", r, t, everyone.sum(0) + n * r)
    src = torch.cat([host(r) + 1000 * k for k in range(n)]).to(dev)
    dst = torch.empty(n * E, device=dev)
    pg.alltoall_base(dst, src, [], []).wait()
    expect("all_to_all", r, dst, torch.cat([host(k) + 1000 * r for k in range(n)]))
    # around the ring: even ranks send first, odd ones receive first (each
    # pair gets its own 2-rank communicator, made by both at their first op)
    t = torch.empty(E, device=dev)
    ops = [lambda: pg.send([host(r).to(dev)], (r + 1) % n, 0), lambda: pg.recv([t], (r - 1) % n, 0)]
    for op in ops if r % 2 == 0 else ops[::-1]:
        op().wait()
    expect("send/recv", r, t, host((r - 1) % n))
    torch.cuda.synchronize(dev)
    pg.shutdown()


threads = [threading.Thread(target=rank, args=(r,)) for r in range(n)]
for th in threads:
    th.start()
for th in threads:
    th.join()
for e in errors:
    print(e)
print(f"torch_pg: {n} ranks {'ok' if not errors else 'FAILED'}")
