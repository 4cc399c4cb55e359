#!/usr/bin/env python3
"""Build-time generator of the CUPTI API-callback wrappers of the sim's
libcuda.so.1 (--api driver) and libcudart.so.13 (--api runtime).

Usage:
  gen_callbacks.py --api driver|runtime [--cuda-home DIR] [--cc CC]
                   [--include HEADER] -o WRAPPERS.c --syms SYMS OBJ ...

For every function the library's objects define (nm) that has a callback id
in the toolkit's cupti_driver_cbid.h (CUPTI_DRIVER_TRACE_CBID_<name>) or
cupti_runtime_cbid.h (CUPTI_RUNTIME_TRACE_CBID_<name>_v<version>, the
highest version), it writes:
  - to SYMS the line `<name> simimpl_<name>`, for
    `objcopy --redefine-syms=SYMS`: the objects' definition and every call
    between them move to simimpl_<name>, so the sim's internal calls issue no
    callbacks;
  - to WRAPPERS.c the exported <name>, defined with the header's own
    prototype (gcc -aux-info, as sim/gen_stubs.py), which with no subscriber
    reads one atomic flag and calls simimpl_<name>; otherwise it fills the
    `<cbid name>_params` struct of generated_cuda_meta.h /
    generated_cuda_runtime_api_meta.h (NULL when the header has none),
    issues the ENTER callback, calls simimpl_<name>, issues EXIT.
Launch entry points also pass symbolName: the kernel of the CUfunction /
CUkernel argument `f` (driver), or of `func` / the cudaKernel_t argument
(runtime).  The wrapper's prototype comes from the toolkit header, so a
signature drift fails the build; the params struct is filled positionally,
its field count checked here.

gen_callbacks.py results CUPTI_RESULT_H > results_table.h
  One R(name) per CUptiResult enumerator (for cuptiGetResultString).

gen_callbacks.py names CUPTI_DRIVER_CBID_H CUPTI_RUNTIME_CBID_H > names_table.h
  One N(domain, id, "name") per driver and runtime callback id, the name
  being the enumerator's suffix (for cuptiGetCallbackName).

--include adds a header (absolute path) for prototypes the toolkit declares
only in C++ (the runtime's __cuda* entry points, from sim/runtime/rt.h).
"""
import argparse
import os
import re
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gen_stubs  # noqa: E402  (sim/gen_stubs.py: nm and -aux-info helpers)

APIS = {
    "driver": {
        "cbid_h": "cupti_driver_cbid.h",
        "cbid_prefix": "CUPTI_DRIVER_TRACE_CBID_",
        "meta_h": "generated_cuda_meta.h",
        "headers": ["cuda.h"],
        "prologue": '#include "internal.h"\n#include <generated_cuda_meta.h>\n',
    },
    "runtime": {
        "cbid_h": "cupti_runtime_cbid.h",
        "cbid_prefix": "CUPTI_RUNTIME_TRACE_CBID_",
        "meta_h": "generated_cuda_runtime_api_meta.h",
        "headers": ["cuda_runtime_api.h", "cuda_profiler_api.h"],
        "prologue": '#include "rt.h"\n#include "rt_cb.h"\n#include <cuda_profiler_api.h>\n'
                    '#include <generated_cuda_runtime_api_meta.h>\n',
    },
}


def die(msg):
    sys.exit("gen_callbacks: " + msg)


def cbids(path, prefix):
    text = open(path).read()
    out = {}
    for name, val in re.findall(r"\b" + prefix + r"(\w+)\s*=\s*(\d+)", text):
        if name not in ("INVALID", "SIZE", "FORCE_INT"):
            out[name] = int(val)
    if len(out) < 100:
        die("too few callback ids in " + path)
    return out


def param_structs(path):
    """{struct prefix: [field names]} of `typedef struct X_params_st {...} X_params;`."""
    text = open(path).read()
    out = {}
    for m in re.finditer(r"typedef struct (\w+)_params_st \{(.*?)\} \1_params;", text, re.S):
        fields = []
        for decl in m.group(2).split(";"):
            decl = re.sub(r"/\*.*?\*/|//[^\n]*", "", decl, flags=re.S).strip()
            if not decl:
                continue
            n = re.search(r"(\w+)\s*(\[[^\]]*\])?$", decl)
            if not n:
                die("cannot parse field `%s` of %s_params" % (decl, m.group(1)))
            fields.append(n.group(1))
        out[m.group(1)] = fields
    if len(out) < 100:
        die("too few params structs in " + path)
    return out


def cbid_of(api, name, ids):
    """The callback id name of function `name`, or None."""
    if api == "driver":
        return name if name in ids else None
    best = None
    for cb in ids:
        m = re.fullmatch(re.escape(name) + r"_v(\d+)", cb)
        if m and (best is None or int(m.group(1)) > best[0]):
            best = (int(m.group(1)), cb)
    return best[1] if best else None


def symbol_expr(api, name, fields, ptypes, args):
    """C expression for symbolName, or NULL."""
    if api == "driver":
        if name.startswith("cuLaunch") and fields and "f" in fields:
            return "sim_func_name(%s)" % args[fields.index("f")]
        return "NULL"
    if not re.match(r"_*cuda\w*Launch\w*Kernel", name):
        return "NULL"
    if fields and "func" in fields:
        return "rt_func_name(%s)" % args[fields.index("func")]
    for i, t in enumerate(ptypes):
        if t == "cudaKernel_t":
            return "rt_func_name(%s)" % args[i]
    return "NULL"


def wrapper(api, name, cb, proto, fields):
    ret, ptypes, _, _ = proto
    args = ["a%d" % i for i in range(len(ptypes))]
    plist = ", ".join(gen_stubs.declarator(t, a) for t, a in zip(ptypes, args)) or "void"
    call = "simimpl_%s(%s)" % (name, ", ".join(args))
    prefix = APIS[api]["cbid_prefix"]
    o = ["extern __typeof__(%s) simimpl_%s __attribute__((visibility(\"hidden\")));" % (name, name),
         "%s%s %s(%s)\n{" % ("RT_API " if api == "runtime" else "", ret, name, plist)]
    if api == "driver":
        o.append("    if (__builtin_expect(!SIMCB_ENABLED(sim_cb_bits, CUPTI_CB_DOMAIN_DRIVER_API, %s%s), 1))"
                 % (prefix, cb))
        o.append("        return %s;" % call)
    else:
        o.append("    const struct simcb_table *t__ = rt_cb_table();")
        o.append("    if (__builtin_expect(!t__ || !SIMCB_ENABLED(t__->bits, CUPTI_CB_DOMAIN_RUNTIME_API, %s%s), 1))"
                 % (prefix, cb))
        if ret == "void":
            o.append("    {\n        %s;\n        return;\n    }" % call)
        else:
            o.append("        return %s;" % call)
    if fields is not None:
        o.append("    %s_params p__ = { %s };" % (cb, ", ".join(args)))
        pp = "&p__"
    else:
        pp = "NULL"
    sym = symbol_expr(api, name, fields, ptypes, args)
    o.append("    struct simcb_call c__;")
    if api == "driver":
        o.append("    CUresult r__ = CUDA_SUCCESS;")
        o.append('    sim_cb_api_enter(&c__, %s%s, "%s", %s, &r__, %s);' % (prefix, cb, name, pp, sym))
        o.append("    r__ = %s;" % call)
        o.append("    sim_cb_api_exit(&c__);")
        o.append("    return r__;")
    else:
        if ret == "cudaError_t":
            o.append("    cudaError_t r__ = cudaSuccess;")
            st = "&r__"
        else:
            o.append("    cudaError_t st__ = cudaSuccess;  /* not a cudaError_t function: cudaSuccess */")
            st = "&st__"
            if ret != "void":
                o.append("    %s;" % gen_stubs.declarator(ret, "r__"))
        o.append("    t__->api_enter(&c__, CUPTI_CB_DOMAIN_RUNTIME_API, %s%s, \"%s\", %s, %s, %s);"
                 % (prefix, cb, name, pp, st, sym))
        o.append("    %s%s;" % ("" if ret == "void" else "r__ = ", call))
        o.append("    t__->api_exit(&c__);")
        if ret != "void":
            o.append("    return r__;")
    o.append("}\n")
    return "\n".join(o)


def results(path):
    names = re.findall(r"^\s*(CUPTI_(?:SUCCESS|ERROR_\w+))\s*=", open(path).read(), re.M)
    names = [n for n in names if n != "CUPTI_ERROR_FORCE_INT"]
    if len(names) < 20:
        die("too few CUptiResult values in " + path)
    print("/* generated by sim/cupti/gen_callbacks.py from cupti_result.h: do not edit */")
    print("\n".join("R(%s)" % n for n in names))


def callback_names(driver_h, runtime_h):
    print("/* generated by sim/cupti/gen_callbacks.py from cupti_driver_cbid.h and"
          " cupti_runtime_cbid.h: do not edit */")
    for path, api, dom in ((driver_h, "driver", "CUPTI_CB_DOMAIN_DRIVER_API"),
                           (runtime_h, "runtime", "CUPTI_CB_DOMAIN_RUNTIME_API")):
        for name, val in sorted(cbids(path, APIS[api]["cbid_prefix"]).items(), key=lambda kv: kv[1]):
            print('N(%s, %d, "%s")' % (dom, val, name))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "results":
        results(sys.argv[2])
        return
    if len(sys.argv) == 4 and sys.argv[1] == "names":
        callback_names(sys.argv[2], sys.argv[3])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--api", choices=sorted(APIS), required=True)
    ap.add_argument("--cuda-home", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--include", action="append", default=[])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--syms", required=True)
    ap.add_argument("objs", nargs="+")
    a = ap.parse_args()
    cfg = APIS[a.api]
    inc = os.path.join(a.cuda_home, "include")
    ids = cbids(os.path.join(inc, cfg["cbid_h"]), cfg["cbid_prefix"])
    structs = param_structs(os.path.join(inc, cfg["meta_h"]))
    text = gen_stubs.prelude(a.api, cfg["headers"]) + "".join('#include "%s"\n' % h for h in a.include)
    protos = gen_stubs.prototypes(a.cc, inc, text)
    own = gen_stubs.nm_symbols(a.objs)
    names = sorted(n for n, k in own.items() if k in gen_stubs.FUNC_TYPES)
    out = ["/* generated by sim/cupti/gen_callbacks.py --api %s from %s and %s: do not edit. */"
           % (a.api, cfg["cbid_h"], cfg["meta_h"]),
           cfg["prologue"], "#include <stdatomic.h>\n#include <stddef.h>\n",
           "/* deprecated entry points are wrapped like the others */\n"
           "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n"]
    syms = []
    for name in names:
        cb = cbid_of(a.api, name, ids)
        if not cb:
            continue
        proto = protos.get(name)
        if not proto or any(t == "..." for t in proto[1]):
            print("gen_callbacks: %s: no usable prototype, no callbacks" % name, file=sys.stderr)
            continue
        fields = structs.get(cb)
        if fields is not None and len(fields) != len(proto[1]):
            die("%s_params has %d fields, %s takes %d parameters" % (cb, len(fields), name, len(proto[1])))
        out.append(wrapper(a.api, name, cb, proto, fields))
        syms.append("%s simimpl_%s\n" % (name, name))
    if not syms:
        die("no implemented function has a callback id")
    gen_stubs.write_file(a.output, "\n".join(out))
    gen_stubs.write_file(a.syms, "".join(syms))


if __name__ == "__main__":
    main()
