"""The real-GPU battery (`make gpu-check`, tests/gpu/run.sh): correct and
buggy programs run without and with devcheck on a machine with an NVIDIA
driver; their launches recorded (--record-launches) and replayed
(devcheck replay); one table of findings against the expected ones, and the
cost as ratios to the same run without devcheck.

    battery.py --devcheck PATH --out DIR [--probe PATH] [--only a,b] [--timeout S] [--no-record]

Exit status: 0 when every program gave what it should, 1 otherwise.  Each
run's stdout, stderr, JSON and recording stay under DIR (DIR/NAME.*).  The
programs: probe.cu, torch_progs.py, other_progs.py (CuPy, JAX), lib_progs.py
(cuBLAS, cuBLASLt, cuFFT, cuDNN, NCCL, cuSOLVER through ctypes).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable

# name: (argv, expected findings {kind/severity: count}, the program's own exit
# status without devcheck, devcheck options beside the battery's own).  A
# correct program expects nothing: no error and no warning.  "python" argv
# entries run under this interpreter.  ngpus: the GPUs the programs see.
def programs(probe, ngpus):
    t = [PY, os.path.join(HERE, "torch_progs.py")]
    o = [PY, os.path.join(HERE, "other_progs.py")]
    lib = [PY, os.path.join(HERE, "lib_progs.py")]
    host = {"host_memory/error": 1}
    progs = [
        ("c_correct", [probe, "correct"], {}, 0, []),
        ("c_pageable", [probe, "pageable"], {"host_memory/error": 1}, 3, []),
        ("c_pageable_migrate", [probe, "pageable"], {"host_memory/error": 1}, 3, ["--mode", "migrate"]),
        ("torch_startup", t + ["startup"], {}, 0, []),
        ("torch_loop", t + ["loop"], {}, 0, []),
        ("torch_mlp", t + ["mlp"], {}, 0, []),
        ("torch_llama", t + ["llama"], {}, 0, []),
        ("torch_compile", t + ["compile"], {}, 0, []),
        ("torch_graph", t + ["graph"], {}, 0, []),
        ("torch_misc", t + ["misc"], {}, 0, []),
        ("triton", t + ["triton"], {}, 0, []),
        ("nccl", t + ["nccl"], {}, 0, []),
        # issue 38: legal peer traffic repeated at every launch (two GPUs):
        # one warning per line that launches it (timed()'s warm-up and its loop)
        ("triton_peer", t + ["triton_peer"], {"peer_access/warning": 2}, 0, []),
        ("cupy", o + ["cupy"], {}, 0, []),
        ("cupy_bug", o + ["cupy_bug"], {"host_memory/error": 1}, 3, []),
        ("cupy_repeat", o + ["cupy_repeat"], {"host_memory/warning": 1}, 0, ["--host-memory", "warn"]),
        ("cupy_untyped_sync", o + ["cupy_untyped"], {"async_error/error": 1}, 3, ["--sync"]),
        ("jax", o + ["jax"], {}, 0, []),
        # library calls checked at their API (issue 26; lib_progs.py): each
        # library bound by dlopen(RTLD_LOCAL) + dlsym(handle) (ctypes), a
        # correct program and one handing it a numpy array (cuBLASLt's bias:
        # another GPU's memory when there are two)
        ("lib_cublas", lib + ["cublas"], {}, 0, []),
        ("lib_cublas_bug", lib + ["cublas_bug"], host, 3, []),
        ("lib_cublaslt", lib + ["cublaslt"], {}, 0, []),
        ("lib_cublaslt_bug", lib + ["cublaslt_bug"], {"device_mismatch/error": 1} if ngpus > 1 else host, 3, []),
        ("lib_cufft", lib + ["cufft"], {}, 0, []),
        ("lib_cufft_bug", lib + ["cufft_bug"], host, 3, []),
        ("lib_cudnn", lib + ["cudnn"], {}, 0, []),
        ("lib_cudnn_bug", lib + ["cudnn_bug"], host, 3, []),
        ("lib_nccl", lib + ["nccl"], {}, 0, []),
        ("lib_nccl_bug", lib + ["nccl_bug"], host, 3, []),
        ("lib_cusolver", lib + ["cusolver"], {}, 0, []),
        ("lib_cusolver_bug", lib + ["cusolver_bug"], host, 3, []),
    ]
    # issue 36: refusals before any launch.  A convolution whose module
    # stayed on the CPU (PyTorch's "Input type ... and weight type ..."),
    # caught; with two GPUs, Triton handed a cuda:1 tensor with cuda:0
    # current (Triton's ValueError, caught, explained as pointer_refused),
    # the same after peer access (runs: a peer_access warning) and a probe
    # that handles the driver's refusal itself (nothing).
    cl = os.path.join(HERE, "..", "clients")
    progs.append(("conv_cpu_weight", [PY, os.path.join(cl, "conv_device.py")],
                  {"framework_device_error/error": 1}, 0, []))
    if ngpus > 1:
        r = [PY, os.path.join(cl, "refusal.py")]
        progs += [
            ("triton_refused", r + ["caught"], {"pointer_refused/error": 1}, 0, []),
            ("triton_refused_peer", r + ["peer"], {"peer_access/warning": 1}, 0, []),
            ("triton_refused_probe", r + ["probe"], {}, 0, []),
        ]
    if not probe:
        progs = [p for p in progs if not p[0].startswith("c_")]
    if ngpus < 2:
        progs = [p for p in progs if p[0] != "triton_peer"]
    return progs


# CuPy programs run with an empty CUPY_CACHE_DIR of their own, so that each
# run compiles its RawKernel with NVRTC (devcheck types it from the source
# handed to nvrtcCreateProgram) instead of loading a cached cubin.
def fresh_cupy_cache(name):
    return name.startswith("cupy")


def gpu_count():
    import ctypes
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    n = ctypes.c_int(0)
    return n.value if cu.cuInit(0) == 0 and cu.cuDeviceGetCount(ctypes.byref(n)) == 0 else 0


# Programs run once more before the measured runs: the first import of torch
# (or the first JIT compile) after a machine starts fills caches that the
# run without devcheck would otherwise pay for alone.
WARM = {"c_correct", "torch_startup", "torch_compile", "jax"}


def run(argv, out_prefix, timeout, env=None, cupy_cache=False):
    """Runs argv with stdout/stderr to files; returns (status, wall s, peak RSS KiB).
    cupy_cache: in a CUPY_CACHE_DIR made for this run (removed after it)."""
    if cupy_cache:
        cache = tempfile.mkdtemp(prefix="battery-cupy-")
        try:
            return run(argv, out_prefix, timeout, dict(env or os.environ, CUPY_CACHE_DIR=cache))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    t = time.perf_counter()
    with open(out_prefix + ".out", "w") as so, open(out_prefix + ".err", "w") as se:
        try:
            p = subprocess.Popen(argv, stdout=so, stderr=se, env=env, start_new_session=True)
        except OSError as e:
            se.write(f"battery: cannot run {argv[0]}: {e}\n")
            return 127, 0.0, 0
        deadline = t + timeout
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                os.killpg(p.pid, 9)
                pid, status, ru = os.wait4(p.pid, 0)
                se.write(f"battery: killed after {timeout} s\n")
                return 124, time.perf_counter() - t, ru.ru_maxrss
            time.sleep(0.02)
    code = os.waitstatus_to_exitcode(status)
    return code, time.perf_counter() - t, ru.ru_maxrss


def metrics(path):
    m = {}
    try:
        for line in open(path, errors="replace"):
            if line.startswith("METRIC "):
                _, k, v = line.split()
                m[k] = float(v)
    except (OSError, ValueError):
        pass
    return m


def findings(path):
    """{kind/severity: count of distinct findings}, the summary, and the
    findings themselves, from a JSON Lines file (last line per id wins)."""
    last, summary = {}, None
    try:
        for line in open(path, errors="replace"):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("type") == "summary":
                summary = r
            elif r.get("type") == "finding":
                last[(r.get("pid"), r["id"])] = r
    except OSError:
        return None, None, []
    got = {}
    for r in last.values():
        k = f"{r['kind']}/{r['severity']}"
        got[k] = got.get(k, 0) + 1
    return got, summary, list(last.values())


def serious(got):
    """Errors and warnings only: info findings (unchecked kernels) are shown, not judged."""
    return {k: v for k, v in (got or {}).items() if not k.endswith("/info")}


def fmt(got):
    if got is None:
        return "no json"
    return ",".join(f"{k.replace('/error', '/E').replace('/warning', '/W').replace('/info', '/I')}={v}"
                    for k, v in sorted(got.items())) or "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--devcheck", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--probe")
    ap.add_argument("--only")
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("--no-record", action="store_true", help="no --record-launches, no replay: the cost of checking alone")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    helptext = subprocess.run([a.devcheck, "--help"], capture_output=True, text=True).stdout
    can_record = "record-launches" in helptext and not a.no_record
    can_replay = subprocess.run([a.devcheck, "replay", "--help"], capture_output=True).returncode == 0
    print(f"battery: devcheck {a.devcheck} (record: {'yes' if can_record else 'no'}, "
          f"replay: {'yes' if can_replay else 'no'})", flush=True)
    only = set(a.only.split(",")) if a.only else None
    ngpus = gpu_count()
    rows, bad = [], 0
    for name, argv, want, want_rc, opts in programs(a.probe, ngpus):
        if only and name not in only:
            continue
        pre = os.path.join(a.out, name)
        cc = fresh_cupy_cache(name)
        if name in WARM:
            run(argv, pre + ".warm", a.timeout)     # file and kernel caches filled, not measured
        rc0, wall0, rss0 = run(argv, pre + ".plain", a.timeout, cupy_cache=cc)
        m0 = metrics(pre + ".plain.out")
        jpath = pre + ".jsonl"
        rec = pre + ".rec"
        shutil.rmtree(rec, ignore_errors=True)
        for f in (jpath,):
            if os.path.exists(f):
                os.unlink(f)
        dc = [a.devcheck, "--json", jpath, "--stats"] + opts
        if can_record:
            dc += ["--record-launches", rec]
        rc1, wall1, rss1 = run(dc + ["--"] + argv, pre + ".dc", a.timeout, cupy_cache=cc)
        m1 = metrics(pre + ".dc.out")
        got, summary, recs = findings(jpath)
        # a library call's finding is made at its API, which a recording of
        # launches does not hold: the replay is judged without them
        launch_got = {}
        for r in recs:
            # nor the framework's own errors (no kernel ran)
            if "argument" not in r and r["kind"] not in ("framework_device_error", "pointer_refused"):
                k = f"{r['kind']}/{r['severity']}"
                launch_got[k] = launch_got.get(k, 0) + 1
        replay = None
        if can_replay and can_record and glob.glob(os.path.join(rec, "*")):
            rj = pre + ".replay.jsonl"
            if os.path.exists(rj):
                os.unlink(rj)
            judge = [o for i, o in enumerate(opts) if o in ("--host-memory", "--peer")
                     or (i and opts[i - 1] in ("--host-memory", "--peer"))]
            run([a.devcheck, "replay", "--json", rj] + judge + sorted(glob.glob(os.path.join(rec, "*"))),
                pre + ".replay", a.timeout)
            replay, _, _ = findings(rj)
        migrate = "--mode" in opts
        want_rc1 = 0 if migrate else want_rc
        problems = []
        if rc0 != want_rc:
            problems.append(f"exit {rc0} without devcheck (want {want_rc})")
        if rc1 != want_rc1:
            problems.append(f"exit {rc1} under devcheck (want {want_rc1})")
        if serious(got) != want:
            problems.append(f"findings {fmt(serious(got))} (want {fmt(want)})")
        # the same verdicts: the same kinds at the same severities (a recording
        # has no launch stacks, so findings the live run told apart by their
        # stacks may be one in the replay)
        if replay is not None and set(serious(replay)) != set(serious(launch_got)) and not migrate \
                and "--sync" not in opts:
            problems.append(f"replay {fmt(serious(replay))} differs from the live run")
        if problems:
            bad += 1
        verdict = "FAIL: " + "; ".join(problems) if problems else "ok"
        ratios = {"wall": wall1 / wall0 if wall0 else 0, "rss": rss1 / rss0 if rss0 else 0,
                  "wall_s": (wall0, wall1), "rss_mib": (rss0 / 1024, rss1 / 1024)}
        for k, v in m0.items():
            if k in m1 and v:
                ratios[k] = m1[k] / v
        rows.append((name, fmt(want), fmt(got), "-" if replay is None else fmt(replay),
                     f"{rc0}/{rc1}", verdict, ratios, m0, m1, summary))
        print(f"battery: {name}: {verdict}", flush=True)

    print()
    print(f"{'program':20} {'expected':22} {'live':34} {'replay':22} {'rc':6} verdict")
    for name, want, got, rep, rc, verdict, *_ in rows:
        print(f"{name:20} {want:22} {got:34} {rep:22} {rc:6} {verdict}")
    print()
    print("cost under devcheck, as ratios to the same run without it (measured values: without -> with)")
    for name, *_, ratios, m0, m1, summary in rows:
        (w0, w1), (r0, r1) = ratios["wall_s"], ratios["rss_mib"]
        parts = [f"wall {w0:.1f} -> {w1:.1f} s (x{ratios['wall']:.2f})",
                 f"peak RSS {r0:.0f} -> {r1:.0f} MiB (x{ratios['rss']:.2f})"]
        for k in sorted(m0):
            if k in m1:
                parts.append(f"{k} {m0[k]:.4g} -> {m1[k]:.4g} (x{ratios.get(k, 0):.2f})")
        if summary:
            parts.append(f"checked {summary.get('launches_checked')} unchecked {summary.get('launches_unchecked')}")
        st = (summary or {}).get("stats")
        if st:                          # issue 38: devcheck's own cost, from --stats
            c = st["cpu_ns"]
            parts.append(f"devcheck's own CPU {c['total'] / 1e6:.1f} ms ({c['per_launch']} ns per launch; "
                         f"start {c['start'] / 1e6:.1f} ms, new findings' reports {c['reports'] / 1e6:.1f} ms, "
                         f"symbolization {c['symbolization'] / 1e6:.1f} ms, Python frames {c['python_frames'] / 1e6:.1f} ms), "
                         f"tables {st['table_bytes']['total'] / 2**20:.1f} MiB")
        if "triton_clean_launch_us" in m1 and "triton_peer_launch_us" in m1:
            parts.append(f"peer launch vs clean under devcheck x{m1['triton_peer_launch_us'] / m1['triton_clean_launch_us']:.2f}")
        print(f"  {name:20} " + "; ".join(parts))
    print()
    print(f"gpu-check: {len(rows) - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
