#!/usr/bin/env python3
"""Build-time generator of stubs for the CUDA entry points the sim does not
implement, for the sim libraries (libcuda.so.1, libcudart.so.13,
libcupti.so.13 and libnvidia-ml.so.1).

Usage:
  gen_stubs.py --api driver|runtime|cupti|nvml [--real LIB] -o STUBS.c
               [--map MAP] [--version-node NODE] [--list NAMES]
               [--cuda-home DIR] [--cc CC] [OBJ ...]

  --api        driver:  prototypes from cuda.h (+ cudaProfiler.h, cudaGL.h,
                        cudaEGL.h, cudaVDPAU.h when they compile here), with
                        __CUDA_API_VERSION_INTERNAL defined so every exported
                        variant (_v2, _ptsz, _ptds, legacy) is declared;
                        stubs return CUDA_ERROR_NOT_SUPPORTED.
               runtime: cuda_runtime_api.h (+ cuda_profiler_api.h and the
                        GL / EGL / VDPAU interop headers when they compile),
                        also with __CUDA_API_VERSION_INTERNAL; stubs return
                        cudaErrorNotSupported.
               cupti:   cupti.h (+ the profiler, PC / PM sampling, checkpoint
                        headers when they compile), without
                        __CUDA_API_VERSION_INTERNAL (cupti.h declares its own
                        stand-ins for the obsolete _v1 types); stubs return
                        CUPTI_ERROR_NOT_SUPPORTED.
               nvml:    nvml.h with NVML_NO_UNVERSIONED_FUNC_DEFS (so the legacy
                        unversioned names are declared too); its declarations
                        are the export list (no --real); stubs return
                        NVML_ERROR_NOT_SUPPORTED.
               lib:     one of NVIDIA's libraries (sim/libs/README.md): its
                        headers (--header, repeated), status type and
                        "not supported" value (--err-type, --err-value),
                        the pattern of its API's names (--api-re) and its
                        soname for the note (--lib); the export list is
                        --real's, plus the names --imports lists for
                        --imports-of (what PyTorch and JAX import from it,
                        sim/libs/imports.tsv), plus the library's own host
                        twins (simcuda_twin_*); each stub's line is
                        `simcuda: <lib>: <name> is not implemented: <value>`.
  --include DIR  another include directory (nvml.h's), searched first.
  --real LIB   NVIDIA's library whose dynamic symbol table is the export list:
               $(CUDA_HOME)/lib64/stubs/libcuda.so for the driver,
               $(CUDA_HOME)/lib64/libcudart.so.13 for the runtime,
               $(CUDA_HOME)/lib64/libcupti.so.13 for CUPTI.
  OBJ ...      the sim library's own object files: every global symbol they
               define (nm --defined-only) is implemented and gets no stub.
  -o FILE      the C file of stubs.
  --map FILE   a version script exporting every name of the real list:
               `NODE { global: a; b; ...; local: *; };` (NODE from
               --version-node, e.g. libcudart.so.13; none: an anonymous
               version, as NVIDIA's libcuda exports unversioned symbols).
  --list FILE  the same names, one per line (for export tests).
  --cc CC      the C compiler (default gcc); prototypes come from GCC's
               -aux-info, so with clang gcc is used for that step.

What a stub does: on its first call it writes one line
`simcuda: <name> is not implemented` to stderr (one write(2) of a constant
string, guarded by a per-function atomic flag: no allocation, no lock,
printed once per function even when threads race), then returns
CUDA_ERROR_NOT_SUPPORTED / cudaErrorNotSupported.  Every stub is defined with
the header's own prototype, with the header included, so a signature that
drifts from the toolkit fails the build.  Stubs are exported
(visibility "default") even in a -fvisibility=hidden build.

Functions that do not return CUresult / cudaError_t return a neutral value
instead: nothing for void, a string naming the function for `const char *`
(cudaGetErrorName/String: callers print it, so never NULL), a zero value for
anything else ((T){0}: NULL pointers, zero structs such as
cudaCreateChannelDesc's, 0 for integers).

Exported names with no C prototype in any included header:
  - cu* / cuda* / cupti* names (the GL, EGL, VDPAU interop functions when
    their headers cannot be compiled on this machine; CUPTI functions declared
    only in C++ headers) are defined as `CUresult name(void)` /
    `cudaError_t name(void)` / `CUptiResult name(void)`: every driver, public
    runtime and CUPTI function returns the error type, and a callee that reads no
    argument is safe under the SysV x86-64 and AArch64 calling conventions.
  - other names (nvcc's __cuda* registration hooks, declared only in C++
    headers or not at all) are defined as `int name(void)` returning 0:
    their return type is unknown, and 0 is harmless for void, for a pointer
    (NULL) and for an error code (success is wrong but cannot crash the
    caller the way a non-zero code used as a pointer would).  The sim's
    runtime implements the ones nvcc's code calls.
Exported data symbols cannot be stubbed: they are left out of the map and
listed as a warning on stderr.

Make (paste into the library's fragment; LIB_OBJS are the library's other
objects, LIB_OBJDIR its object directory; `&:` makes one run write both
files, GNU make 4.3+):
  $(LIB_OBJDIR)/stubs.c $(LIB_OBJDIR)/exports.map &: sim/gen_stubs.py $(LIB_OBJS)
          $(PYTHON) sim/gen_stubs.py --api runtime \\
              --real $(CUDA_HOME)/lib64/libcudart.so.13 \\
              --version-node libcudart.so.13 --cuda-home $(CUDA_HOME) \\
              -o $(LIB_OBJDIR)/stubs.c --map $(LIB_OBJDIR)/exports.map $(LIB_OBJS)
  $(LIB_OBJDIR)/stubs.o: $(LIB_OBJDIR)/stubs.c
          $(CC) $(ALL_CFLAGS) -fvisibility=hidden -c $< -o $@
  ... link $(LIB_OBJS) $(LIB_OBJDIR)/stubs.o with
      -Wl,--version-script=$(LIB_OBJDIR)/exports.map
For the driver: --api driver --real $(CUDA_HOME)/lib64/stubs/libcuda.so and
no --version-node.  LIB_OBJS must name every object that defines exported
functions (or a function gets both a stub and its definition).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

APIS = {
    "driver": {
        "headers": ["cuda.h", "cudaProfiler.h"],
        "optional": ["cudaGL.h", "cudaEGL.h", "cudaVDPAU.h"],
        "err_type": "CUresult",
        "err_value": "CUDA_ERROR_NOT_SUPPORTED",
    },
    "runtime": {
        "headers": ["cuda_runtime_api.h", "cuda_profiler_api.h"],
        "optional": ["cuda_gl_interop.h", "cuda_egl_interop.h", "cuda_vdpau_interop.h"],
        "err_type": "cudaError_t",
        "err_value": "cudaErrorNotSupported",
    },
    "nvml": {
        # NVIDIA's libnvidia-ml exports every function nvml.h declares,
        # the legacy unversioned ones too (NVML_NO_UNVERSIONED_FUNC_DEFS
        # declares them): the header is the export list, no --real
        "headers": ["nvml.h"],
        "optional": [],
        "err_type": "nvmlReturn_t",
        "err_value": "NVML_ERROR_NOT_SUPPORTED",
        "internal": False,
        "defines": ["NVML_NO_UNVERSIONED_FUNC_DEFS"],
        "api_re": r"nvml[A-Z]",
        "header_exports": True,
    },
    # NVIDIA's libraries on the simulated GPUs (sim/libs/): headers, status
    # type and value, name pattern and the note's library come from the
    # command line (--header, --err-type, --err-value, --api-re, --lib)
    "lib": {
        "headers": [],
        "optional": [],
        "err_type": None,
        "err_value": None,
        "internal": False,
        "api_re": None,
    },
    "cupti": {
        "headers": ["cupti.h"],
        "optional": ["cupti_pcsampling.h", "cupti_pcsampling_util.h", "cupti_checkpoint.h",
                     "cupti_profiler_target.h", "cupti_profiler_host.h", "cupti_range_profiler.h",
                     "cupti_pmsampling.h", "cupti_sass_metrics.h", "cupti_target.h"],
        "err_type": "CUptiResult",
        "err_value": "CUPTI_ERROR_NOT_SUPPORTED",
        # cupti.h declares its own stand-ins for cuda.h's obsolete _v1 types
        "internal": False,
        "api_re": r"cupti[A-Z]",
    },
}

FUNC_TYPES = set("TtWwi")      # nm letters of functions (i: GNU ifunc)
DATA_TYPES = set("DdBbRrVvGgSsu")


def die(msg):
    sys.exit("gen_stubs: " + msg)


def call(cmd):
    """subprocess.run, with a missing program reported like a failure."""
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        return subprocess.CompletedProcess(cmd, 127, "", "%s: %s" % (cmd[0], e.strerror))


def run(cmd):
    p = call(cmd)
    if p.returncode != 0:
        die("%s failed:\n%s" % (" ".join(cmd), p.stderr))
    return p.stdout


def nm_symbols(args):
    """{name: nm type letter} of the defined global symbols; versions stripped."""
    syms = {}
    for line in run(["nm", "--defined-only"] + args).splitlines():
        parts = line.split()
        if len(parts) != 3:
            continue
        kind, name = parts[1], parts[2].split("@")[0]
        if kind == "A" or not kind.isupper() and kind not in "wi":
            continue        # version nodes, local symbols
        syms[name] = kind
    return syms


def prelude(api, headers):
    lines = ["#define __CUDA_API_VERSION_INTERNAL 1"] if APIS[api].get("internal", True) else []
    lines += ["#define %s 1" % d for d in APIS[api].get("defines", [])]
    lines += ["#include <%s>" % h for h in headers]
    return "\n".join(lines) + "\n"


def inc_flags(inc):
    """-I flags for one include directory or a list of them."""
    return ["-I" + i for i in ([inc] if isinstance(inc, str) else inc)]


def compiles(cc, inc, text):
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        p = call([cc, "-std=gnu11", "-D_GNU_SOURCE"] + inc_flags(inc) + ["-fsyntax-only",
                  "-Wall", "-Wextra", "-Werror", path])
        return p.returncode == 0
    finally:
        os.unlink(path)


def prototypes(cc, inc, text, files=None):
    """{name: (return type, [parameter types], kind, storage)} from gcc
    -aux-info; files, if given, gets {name: header that declares it}."""
    with tempfile.TemporaryDirectory() as d:
        src, aux = os.path.join(d, "protos.c"), os.path.join(d, "protos.aux")
        with open(src, "w") as f:
            f.write(text)
        # -aux-info is GCC's: with another compiler (clang) fall back to gcc
        for compiler in dict.fromkeys([cc, "gcc"]):
            p = call([compiler, "-std=gnu11", "-D_GNU_SOURCE"] + inc_flags(inc) +
                     ["-fsyntax-only", "-aux-info", aux, src])
            if p.returncode == 0 and os.path.isfile(aux):
                break
        else:
            die("prototypes need GCC's -aux-info (%s, gcc): %s" % (cc, p.stderr))
        lines = open(aux).read().splitlines()
    protos = {}
    for line in lines:
        m = re.match(r"/\* (.*):(\d+):(\w+) \*/ (.*);$", line)
        if not m or m.group(1) == src:
            continue
        decl = m.group(4)
        n = re.search(r"([A-Za-z_]\w*) \(", decl)
        if not n:
            continue
        ret = decl[:n.start()].strip()
        name = n.group(1)
        params = decl[n.end():]
        if not params.endswith(")"):
            continue
        params = params[:-1]
        storage = "extern"
        for s in ("extern ", "static "):
            if ret.startswith(s):
                storage, ret = s.strip(), ret[len(s):].strip()
        if ret.startswith("inline "):
            storage, ret = "inline", ret[len("inline "):].strip()
        if "(" in ret:
            continue        # returns a function pointer: handled as no prototype
        protos[name] = (ret, split_params(params), m.group(3), storage)
        if files is not None:
            files[name] = m.group(1)
    return protos


def split_params(params):
    if params.strip() == "/* ??? */":
        return []           # `f()`, unprototyped (cublasLtLoggerForceDisable): defined as f(void)
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    if out == ["void"]:
        return []
    return out


TOKEN = re.compile(r"\s*([A-Za-z_]\w*|\d\w*|\.\.\.|.)")
QUALS = {"const", "volatile", "restrict", "__restrict", "__restrict__", "_Atomic"}


def declarator(ptype, name):
    """Puts name into the abstract declarator of a parameter type:
    `int *` -> `int * name`, `void (*)(void *)` -> `void (* name)(void *)`,
    `int [3]` -> `int name [3]`.  The name goes where C's grammar puts the
    identifier: after the specifiers, pointers and qualifiers, inside any
    grouping parentheses, before array or parameter-list suffixes."""
    toks = TOKEN.findall(ptype)
    i = 0
    while i < len(toks) and toks[i] not in ("*", "(", "["):
        i += 1
    while i < len(toks):
        if toks[i] == "*" or toks[i] in QUALS:
            i += 1
        elif toks[i] == "(" and i + 1 < len(toks) and toks[i + 1] in ("*", "(", "["):
            i += 1          # grouping parenthesis of a declarator
        else:
            break
    return " ".join(toks[:i] + [name] + toks[i:])


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def stub_body(ret, err_type, err_value, name, note="simcuda: %s is not implemented"):
    if ret == err_type:
        return "return %s;" % err_value
    if ret == "void":
        return "return;"
    if re.fullmatch(r"const char \*", ret):
        return "return %s;" % c_string(note % name)
    return "return (%s){0};" % ret


def imported(path, soname):
    """The names sim/libs/imports.tsv lists for soname (column 1)."""
    names = set()
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 2 and not line.startswith("#") and f[0] == soname:
            names.add(f[1])
    return names


def generate(api, real, objs, cc, cuda_home, extra_inc=(), cfg=None, extra_names=()):
    cfg = cfg or APIS[api]
    inc = list(extra_inc) + [os.path.join(cuda_home, "include")]
    if real:
        real_syms = nm_symbols(["-D", real])
        if not real_syms:
            die("no exported symbols in " + real)
        if api == "lib":
            # C++ names are a library's internals, not its C API: cuDNN's
            # sub-libraries export thousands (libcudnn_graph.so.9: 2778
            # names, 31 of them cudnn*), which no program calls by name
            real_syms = {n: k for n, k in real_syms.items() if not n.startswith("_Z")}
        for n in extra_names:
            real_syms.setdefault(n, "T")
    own = nm_symbols(objs) if objs else {}
    if real:
        funcs = sorted(n for n, k in real_syms.items() if k in FUNC_TYPES)
        data = sorted(n for n, k in real_syms.items() if k in DATA_TYPES and n not in own)
        missing = [n for n in funcs if n not in own]

    headers = list(cfg["headers"])
    base = prelude(api, headers)
    if not compiles(cc, inc, base):
        die("the toolkit headers %s do not compile with %s -I%s (is CUDA_HOME right?)"
            % (headers, cc, inc))
    for h in cfg["optional"]:
        if compiles(cc, inc, prelude(api, headers + [h])):
            headers.append(h)
    declared_in = {}
    protos = prototypes(cc, inc, prelude(api, headers), declared_in)
    if not real:        # the header's own declarations are the export list
        real_syms = {n: "T" for n, p in protos.items()
                     if re.match(cfg["api_re"], n) and p[3] == "extern"
                     and os.path.basename(declared_in[n]) in cfg["headers"]}
        if not real_syms:
            die("no %s functions declared in %s" % (api, headers))
        funcs = sorted(real_syms)
        data = []
        missing = [n for n in funcs if n not in own]

    note = cfg.get("note", "simcuda: %s is not implemented")
    out = []
    out.append("/* generated by sim/gen_stubs.py --api %s from %s and %s: do not edit.\n"
               " * %d of %d exported functions are not implemented by the sim: each\n"
               " * prints `%s` once and fails. */"
               % (api, os.path.basename(real) if real else "the header", ", ".join(headers), len(missing), len(funcs),
                  note % "<name>"))
    out.append(prelude(api, headers).rstrip())
    out.append("#include <stdatomic.h>\n#include <stddef.h>\n#include <unistd.h>\n")
    out.append('#define SIMCUDA_STUB_EXPORT __attribute__((visibility("default")))')
    head, tail = (c_string(x) for x in note.split("%s"))
    out.append("#define SIMCUDA_STUB_LINE(name) %s name %s \"\\n\"" % (head, tail))
    out.append("#define SIMCUDA_STUB_NOTE(i, name) simcuda_stub_note((i), SIMCUDA_STUB_LINE(name), "
               "sizeof SIMCUDA_STUB_LINE(name) - 1)\n")
    out.append("static _Atomic unsigned char simcuda_stub_said[%d];\n" % max(len(missing), 1))
    out.append("/* One write(2) of a constant line, the first time only: no allocation,\n"
               " * no lock, no stdio (callable from any thread or signal context). */\n"
               "static void simcuda_stub_note(unsigned i, const char *line, size_t len)\n"
               "{\n"
               "    if (atomic_exchange_explicit(&simcuda_stub_said[i], 1, memory_order_relaxed))\n"
               "        return;\n"
               "    while (len > 0) {\n"
               "        ssize_t w = write(2, line, len);\n"
               "        if (w <= 0)\n"
               "            return;\n"
               "        line += w;\n"
               "        len -= (size_t)w;\n"
               "    }\n"
               "}\n")
    unproto, fallback = [], []
    for idx, name in enumerate(missing):
        p = protos.get(name)
        if p and p[3] != "extern":
            die("%s is defined in the headers (%s), it cannot be stubbed" % (name, p[3]))
        if p:
            ret, params, _, _ = p
            names = ["a%d" % k for k in range(len(params))]
            plist = ", ".join(declarator(t, n) for t, n in zip(params, names)) or "void"
            body = "".join("    (void)%s;\n" % n for n in names)
            body += "    SIMCUDA_STUB_NOTE(%d, %s);\n" % (idx, c_string(name))
            body += "    %s\n" % stub_body(ret, cfg["err_type"], cfg["err_value"], name, note)
            out.append("SIMCUDA_STUB_EXPORT %s %s(%s)\n{\n%s}\n"
                       % (ret, name, plist, body))
        else:
            if re.match(cfg.get("api_re", r"cu(da)?[A-Z]"), name):
                ret, value = cfg["err_type"], cfg["err_value"]
                unproto.append(name)
            else:
                ret, value = "int", "0"
                fallback.append(name)
            out.append("/* no C prototype in the headers: see gen_stubs.py */\n"
                       "SIMCUDA_STUB_EXPORT %s %s(void);\n"
                       "SIMCUDA_STUB_EXPORT %s %s(void)\n{\n"
                       "    SIMCUDA_STUB_NOTE(%d, %s);\n    return %s;\n}\n"
                       % (ret, name, ret, name, idx, c_string(name), value))
    exports = [n for n in funcs]
    for n in data:
        print("gen_stubs: warning: exported data symbol %s is not defined by the sim; "
              "not exported" % n, file=sys.stderr)
    exports += sorted(n for n, k in real_syms.items() if k in DATA_TYPES and n in own)
    if api == "lib":        # the host twins the sim driver looks up by name
        exports += sorted(n for n, k in own.items() if n.startswith("simcuda_twin_") and k in FUNC_TYPES)
    return "\n".join(out), sorted(exports), unproto, fallback


def stubbed_names(text):
    """The names generate() wrote a stub for (its SIMCUDA_STUB_NOTE calls)."""
    return sorted(set(re.findall(r"SIMCUDA_STUB_NOTE\(\d+, \"([^\"]+)\"\)", text)))


def write_file(path, text):
    """Replaces path atomically (a unique temporary file, then rename), so
    that parallel or interrupted builds never see a partial file."""
    d = os.path.dirname(os.path.abspath(path))
    with tempfile.NamedTemporaryFile("w", dir=d, prefix=".gen_stubs.", delete=False) as f:
        f.write(text)
        tmp = f.name
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--api", choices=sorted(APIS), required=True)
    ap.add_argument("--real", help="NVIDIA's library (not for --api nvml)")
    ap.add_argument("--include", action="append", default=[], help="another include directory")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--map")
    ap.add_argument("--version-node")
    ap.add_argument("--list")
    ap.add_argument("--cuda-home", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--header", action="append", default=[], help="--api lib: a header of the library")
    ap.add_argument("--err-type", help="--api lib: the status type")
    ap.add_argument("--err-value", help="--api lib: the status a stub returns")
    ap.add_argument("--api-re", help="--api lib: the pattern of the API's names")
    ap.add_argument("--lib", help="--api lib: the soname the note names")
    ap.add_argument("--imports", help="--api lib: sim/libs/imports.tsv")
    ap.add_argument("--imports-of", help="--api lib: the soname whose imported names are exported too")
    ap.add_argument("--stubbed", help="a file listing the stubbed names, one per line")
    ap.add_argument("objs", nargs="*")
    a = ap.parse_args()
    if not APIS[a.api].get("header_exports") and (not a.real or not os.path.isfile(a.real)):
        die("no library at %s (--real)" % a.real)
    cfg, extra = None, []
    if a.api == "lib":
        if not (a.header and a.err_type and a.err_value and a.api_re and a.lib):
            die("--api lib needs --header, --err-type, --err-value, --api-re and --lib")
        cfg = dict(APIS["lib"], headers=a.header, err_type=a.err_type.strip(), err_value=a.err_value.strip(),
                   api_re=a.api_re.strip(),
                   note="simcuda: %s: %%s is not implemented: %s" % (a.lib, a.err_value))
        if a.imports:
            extra = sorted(imported(a.imports, a.imports_of or a.lib))
    text, exports, unproto, fallback = generate(a.api, a.real, a.objs, a.cc, a.cuda_home, a.include, cfg, extra)
    if a.stubbed:
        write_file(a.stubbed, "".join(n + "\n" for n in stubbed_names(text)))
    write_file(a.output, text + "\n")
    if a.map:
        body = "".join("    %s;\n" % n for n in exports)
        node = a.version_node + " " if a.version_node else ""
        write_file(a.map, "%s{\n  global:\n%s  local: *;\n};\n" % (node, body))
    if a.list:
        write_file(a.list, "".join(n + "\n" for n in exports))
    if (unproto or fallback) and a.api == "lib":
        # the legacy and C++-only declarations (cublas.h, cublasXt.h, __half
        # overloads): a count, not the list
        print("gen_stubs: %s: %d stubbed name(s) without a C prototype in %s (e.g. %s)"
              % (a.lib, len(unproto) + len(fallback), ", ".join(a.header), (unproto + fallback)[0]),
              file=sys.stderr)
    elif unproto or fallback:
        print("gen_stubs: %s: no C prototype for %d stubbed name(s): %s"
              % (a.api, len(unproto) + len(fallback), " ".join(unproto + fallback)),
              file=sys.stderr)


if __name__ == "__main__":
    main()
