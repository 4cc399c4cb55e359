"""PyTorch programs of the real-GPU battery (tests/gpu/run.sh).  Correct code
only.  Each prints `gpu-prog: NAME OK` and its measurements as `METRIC key
value` lines (seconds, per-unit times).

    torch_progs.py startup   import torch and make the first CUDA tensor
    torch_progs.py loop      a launch-bound loop: x.add_(1), 20000 launches
    torch_progs.py mlp       Linear-GELU-LayerNorm-Linear, fp32, AdamW: cuBLAS
                             scal_kernel, sgemm, cuBLASLt split-K (alpha/beta
                             host pointers in host pointer mode)
    torch_progs.py llama     a tiny Llama (transformers) trained, bf16 autocast,
                             fused AdamW, then sampled with generate
    torch_progs.py compile   torch.compile (inductor, Triton kernels), and
                             mode="reduce-overhead" (CUDA graphs)
    torch_progs.py graph     torch.cuda.graph capture and replay, caching allocator on
    torch_progs.py misc      SDPA, conv (cuDNN), nonzero/topk/sort/scatter_add/
                             embedding_bag/unique/cumsum, pinned non_blocking copies
    torch_progs.py triton    a raw @triton.jit add kernel
    torch_progs.py nccl      one-rank NCCL all_reduce / all_gather / broadcast
"""
import os
import sys
import time

T0 = time.perf_counter()
import torch  # noqa: E402


def metric(key, value):
    print(f"METRIC {key} {value:.6g}", flush=True)


def timed(fn, iters, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / iters


def startup():
    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    metric("startup_s", time.perf_counter() - T0)


def loop():
    x = torch.zeros(1024, device="cuda")
    n = 20000
    per = timed(lambda: x.add_(1), n, warm=100)
    assert x[0].item() == n + 100, x[0].item()
    metric("launch_us", per * 1e6)


def mlp():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.LayerNorm(4096),
                                torch.nn.Linear(4096, 1024)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(64, 1024, device="cuda")
    y = torch.randn(64, 1024, device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss

    first = step().item()
    per = timed(step, 50)
    last = step().item()
    assert last < first, (first, last)
    metric("step_ms", per * 1e3)


def llama():
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=512, hidden_size=256, intermediate_size=688, num_hidden_layers=4,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256)
    model = LlamaForCausalLM(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 128), device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    step()
    per = timed(step, 10)
    model.eval()
    out = model.generate(ids[:1, :16], max_new_tokens=16, do_sample=False)
    assert out.shape == (1, 32), out.shape
    metric("step_ms", per * 1e3)


def compile_():
    def f(x, y):
        return torch.nn.functional.gelu(x @ y + 1).sum(-1)

    x = torch.randn(256, 256, device="cuda")
    y = torch.randn(256, 256, device="cuda")
    want = f(x, y)
    got = torch.compile(f)(x, y)
    torch.testing.assert_close(got, want, rtol=1e-3, atol=1e-3)
    g = torch.compile(f, mode="reduce-overhead")
    for _ in range(3):
        got = g(x, y)
    torch.testing.assert_close(got, want, rtol=1e-3, atol=1e-3)


def graph():
    model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512)).cuda()
    x = torch.randn(32, 512, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            model(x)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = model(x)
    x.copy_(torch.randn(32, 512, device="cuda"))
    g.replay()
    torch.testing.assert_close(out, model(x))
    per = timed(g.replay, 200)
    metric("replay_us", per * 1e6)


def misc():
    q = torch.randn(2, 4, 128, 64, device="cuda", dtype=torch.float16)
    torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    conv = torch.nn.Conv2d(3, 16, 3).cuda().to(memory_format=torch.channels_last)
    with torch.autocast("cuda", dtype=torch.float16):
        conv(torch.randn(4, 3, 32, 32, device="cuda")).sum().backward()
    v = torch.randn(4096, device="cuda")
    torch.nonzero(v > 0)
    torch.topk(v, 10)
    torch.sort(v)
    torch.zeros(16, device="cuda").scatter_add_(0, torch.randint(0, 16, (4096,), device="cuda"), v)
    torch.nn.EmbeddingBag(100, 8).cuda()(torch.randint(0, 100, (64,), device="cuda"),
                                          torch.arange(0, 64, 8, device="cuda"))
    torch.unique(torch.randint(0, 50, (1000,), device="cuda"))
    torch.cumsum(v, 0)
    h = torch.randn(1 << 16).pin_memory()
    d = h.to("cuda", non_blocking=True)
    back = d.to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    assert torch.equal(back, h)


def triton_():
    import triton
    import triton.language as tl

    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

    x = torch.randn(10000, device="cuda")
    y = torch.randn(10000, device="cuda")
    out = torch.empty_like(x)
    add[(triton.cdiv(10000, 1024),)](x, y, out, 10000, BLOCK=1024)
    torch.testing.assert_close(out, x + y)
    per = timed(lambda: add[(10,)](x, y, out, 10000, BLOCK=1024), 2000, warm=10)
    metric("triton_launch_us", per * 1e6)


def triton_peer():
    """Issue 38: a Triton kernel on cuda:0 reading cuda:1 with peer access on
    (legal: one peer_access warning), launched from one line, beside the same
    kernel on cuda:0's own memory; each launch's time in us.  Under devcheck
    the repeated peer launch should cost what the clean one does."""
    import triton
    import triton.language as tl

    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

    assert torch.cuda.device_count() > 1 and torch.cuda.can_device_access_peer(0, 1), "needs 2 GPUs with peer access"
    torch.cuda.set_device(0)
    far = torch.randn(10000, device="cuda:1")
    near = far.to("cuda:0")
    import ctypes                       # the runtime torch loaded (by its SONAME): peer access from cuda:0
    rc = ctypes.CDLL("libcudart.so.13").cudaDeviceEnablePeerAccess(1, 0)
    assert rc in (0, 704), f"cudaDeviceEnablePeerAccess: {rc}"   # 704: already enabled
    y = torch.randn(10000, device="cuda:0")
    out = torch.empty_like(y)
    for name, x in (("clean", near), ("peer", far)):
        per = timed(lambda: add[(10,)](x, y, out, 10000, BLOCK=1024), 5000, warm=20)
        metric(f"triton_{name}_launch_us", per * 1e6)


def nccl():
    import torch.distributed as dist
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda:0"))
    t = torch.ones(1024, device="cuda")
    dist.all_reduce(t)
    outs = [torch.empty_like(t)]
    dist.all_gather(outs, t)
    dist.broadcast(t, 0)
    torch.cuda.synchronize()
    assert t[0].item() == 1.0
    dist.destroy_process_group()


PROGS = {"startup": startup, "loop": loop, "mlp": mlp, "llama": llama, "compile": compile_, "graph": graph,
         "misc": misc, "triton": triton_, "triton_peer": triton_peer, "nccl": nccl}

if __name__ == "__main__":
    name = sys.argv[1]
    PROGS[name]()
    print(f"gpu-prog: {name} OK", flush=True)
