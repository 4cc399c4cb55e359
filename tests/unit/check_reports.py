#!/usr/bin/env python3
"""Checks the JSON Lines files written by test_check (directory argv[1])
against report/finding.schema.json and against the facts of each scenario.
Exit status 0 when every check holds."""
import copy
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import jsonschema_lite  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
SCHEMA = json.load(open(os.path.join(ROOT, "report", "finding.schema.json")))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def load(outdir, name):
    path = os.path.join(outdir, name + ".json")
    recs = []
    with open(path) as f:
        data = f.read()
    check(data.endswith("\n"), "%s: ends with a newline" % name)
    for n, line in enumerate(data.splitlines(), 1):
        rec = json.loads(line)
        errs = jsonschema_lite.validate(rec, SCHEMA)
        check(not errs, "%s:%d valid: %s" % (name, n, errs[:3]))
        recs.append(rec)
    try:        # a second opinion when the real validator is installed
        import jsonschema
        for rec in recs:
            jsonschema.validate(rec, SCHEMA)
    except ImportError:
        pass
    return recs


def last_per_id(recs):
    out = {}
    for r in recs:
        if r["type"] == "finding":
            out[r["id"]] = r
    return out


def frames_have(stack, function, file_suffix):
    return any(f["function"] == function and (f["file"] or "").endswith(file_suffix) for f in stack)


def scenario_all(outdir):
    recs = load(outdir, "all")
    check(recs[-1]["type"] == "summary", "all: summary is last")
    check(sum(1 for r in recs if r["type"] == "summary") == 1, "all: one summary")
    s = recs[-1]
    check((s["findings"], s["errors"], s["warnings"], s["infos"], s["kernels"],
           s["launches_checked"], s["launches_unchecked"], s["quiet_operands"]) == (11, 7, 3, 1, 3, 6, 3, 10),
          "all: summary numbers %r" % s)
    check((s["launches_interpose"], s["launches_cupti"]) == (6, 3), "all: launches per path %r" % s)
    final = last_per_id(recs)
    check(all(r["detected_by"] == ("cupti" if r["kind"] == "unchecked_kernel" else "interpose")
              for r in final.values()), "all: detected_by (the unchecked launches came through cupti)")
    check(sorted(final) == list(range(1, 12)), "all: ids 1..11")
    # first lines come in id order, with count 1; updates follow for repeats
    firsts = [r for r in recs if r["type"] == "finding"][:11]
    check([r["id"] for r in firsts] == list(range(1, 12)), "all: first lines in id order")
    check(all(r["count"] == 1 for r in firsts), "all: first lines have count 1")
    ops = {(r["operand"]["param"], r["operand"]["word_offset"]): r
           for r in final.values() if r["operand"] is not None}
    expect = {
        (1, 0): ("device_mismatch", "error", "device", 1, 64),
        (2, 0): ("peer_access", "warning", "device", 2, 0),
        (6, 0): ("peer_access", "warning", "pool", 1, 0),
        (7, 0): ("device_mismatch", "error", "pool", 1, 4095),
        (8, 0): ("peer_access", "warning", "vmm", 1, 0),
        (9, 0): ("device_mismatch", "error", "vmm", 0, 0),
        (10, 0): ("host_memory", "error", "pageable", -1, None),
        (11, 8): ("device_mismatch", "error", "device", 1, 128),
        (13, 0): ("device_mismatch", "error", "ipc", 3, 16),
    }
    check(set(ops) == set(expect), "all: operand findings at %r" % sorted(ops))
    for key, (kind, sev, mem, owner, off) in expect.items():
        r = ops.get(key)
        if not r:
            continue
        o = r["operand"]
        got = (r["kind"], r["severity"], o["memory"], o["owner_device"], o["offset"])
        check(got == (kind, sev, mem, owner, off), "all: param %r: %r" % (key, got))
        check(r["count"] == 5, "all: param %r repeated 5 times (count %r)" % (key, r["count"]))
        check(r["kernel"] == "vadd(float const*, float const*, float*, int)", "all: demangled kernel")
        check(r["kernel_mangled"] == "_Z4vaddPKfS0_Pfi", "all: mangled kernel")
        check(r["launch"] == {"device": 0, "stream": "0x0", "api": "__cudaLaunchKernel", "current_device": -1},
              "all: launch %r" % r["launch"])
        check(frames_have(r["launch_stack"], "launch_all", "tests/unit/test_check.c"), "all: launch stack names launch_all")
        if mem == "pageable":
            check(r["alloc_stack"] == [] and o["alloc_size"] is None, "all: pageable has no allocation")
        else:
            check(frames_have(r["alloc_stack"], "populate", "tests/unit/test_check.c"), "all: alloc stack names populate")
            check(o["alloc_size"] == 4096, "all: alloc_size")
    # the stale pointer comes from site_b, the others from site_a
    check(frames_have(ops[(1, 0)]["alloc_stack"], "site_b", "test_check.c"), "all: D1 allocated at site_b")
    check(frames_have(ops[(2, 0)]["alloc_stack"], "site_a", "test_check.c"), "all: D2 allocated at site_a")
    sm = [r for r in final.values() if r["kind"] == "stream_mismatch"]
    check(len(sm) == 1, "all: one stream_mismatch")
    if sm:
        r = sm[0]
        check(r["operand"] is None and r["stream_device"] == 0 and r["current_device"] == 1
              and r["severity"] == "error" and r["kernel"] == "clean(float*)" and r["count"] == 1,
              "all: stream_mismatch %r" % {k: r[k] for k in ("operand", "stream_device", "current_device")})
    uk = [r for r in final.values() if r["kind"] == "unchecked_kernel"]
    check(len(uk) == 1, "all: one unchecked_kernel")
    if uk:
        r = uk[0]
        check(r["operand"] is None and r["severity"] == "info" and r["count"] == 3
              and r["kernel"] == "opaque(float*)" and r["launch"]["device"] == 1,
              "all: unchecked_kernel %r" % r["count"])
    # updates: exactly the repeated findings, after all first lines, before the summary
    updates = [r for r in recs if r["type"] == "finding"][11:]
    check(sorted(r["id"] for r in updates) == sorted(i for i, r in final.items() if r["count"] > 1),
          "all: one update per repeated finding")

    # the validator itself rejects what it must
    bad = copy.deepcopy(sm[0]) if sm else {}
    bad["operand"] = copy.deepcopy(ops[(1, 0)]["operand"])
    check(jsonschema_lite.validate(bad, SCHEMA), "schema: stream_mismatch with an operand is invalid")
    bad = copy.deepcopy(ops[(1, 0)])
    del bad["launch_stack"]
    check(jsonschema_lite.validate(bad, SCHEMA), "schema: a missing field is invalid")
    bad = copy.deepcopy(ops[(1, 0)])
    bad["operand"]["memory"] = "gpu"
    check(jsonschema_lite.validate(bad, SCHEMA), "schema: an unknown memory kind is invalid")
    bad = copy.deepcopy(ops[(1, 0)])
    bad["severity"] = "warning"
    check(jsonschema_lite.validate(bad, SCHEMA), "schema: device_mismatch must be an error")
    bad["weak_evidence"] = True
    check(jsonschema_lite.validate(bad, SCHEMA), "schema: weak evidence is a closed library's kernel's")
    bad["origin"] = "library"
    check(not jsonschema_lite.validate(bad, SCHEMA), "schema: a library kernel's weak device_mismatch is a warning")


def scenario_argbuf(outdir):
    recs = load(outdir, "argbuf")
    final = last_per_id(recs)
    got = sorted((r["operand"]["param"], r["operand"]["word_offset"]) for r in final.values() if r["operand"])
    check(got == [(0, 8), (1, 0)], "argbuf: operands %r" % got)
    unchecked = [r for r in final.values() if r["kind"] == "unchecked_kernel"]
    check(len(unchecked) == 1 and "cuFuncGetParamInfo" in unchecked[0]["reason"], "argbuf: unchecked_kernel with its reason")


def scenario_limit(outdir):
    recs = load(outdir, "limit")
    final = last_per_id(recs)
    check(len(final) == 5 and all(r["count"] == 2 for r in final.values()), "limit: 5 findings, count 2 each")
    check(recs[-1]["type"] == "summary" and recs[-1]["findings"] == 5 and recs[-1]["launches_checked"] == 10,
          "limit: summary")


def scenario_threads(outdir):
    recs = load(outdir, "threads")
    final = last_per_id(recs)
    check(len(final) == 1 and list(final.values())[0]["count"] == 8000, "threads: one finding, count 8000")


def scenario_off(outdir):
    path = os.path.join(outdir, "off.json")
    check(os.path.getsize(path) == 0, "off: no JSON at all with mode=off")


def main():
    outdir = sys.argv[1]
    for fn in (scenario_all, scenario_argbuf, scenario_limit, scenario_threads, scenario_off):
        try:
            fn(outdir)
        except Exception as e:      # a crash in a check is a failure, with its cause
            check(False, "%s raised %r" % (fn.__name__, e))
    print("check_reports: %d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
