#!/usr/bin/env python3
"""What PyTorch's and JAX's wheels import from NVIDIA's libraries: the table
sim/libs/imports.tsv, kept in the tree (sim/libs/README.md).  Every name it
lists is exported by the sim's library of that soname (gen_stubs.py
--imports), implemented or answering the library's "not supported" status.

Usage (`make sim-imports`):
  gen_imports.py --site SITE_PACKAGES [--wheel JAX_WHEEL ...]
                 [--lib-dir DIR ...] -o sim/libs/imports.tsv

  --site     the client virtualenv's site-packages (mk/pyenv.sh): torch/lib's
             shared objects are the importers; torch's version and the
             nvidia-* wheels' come from their .dist-info
  --wheel    a JAX CUDA wheel (jax-cuda13-pjrt, jax-cuda13-plugin), read in
             place: its shared objects are importers too
  --lib-dir  where NVIDIA's libraries lie (default: the site's nvidia/*/lib,
             then $CUDA_HOME/lib64): their exports say which library a name
             belongs to

How a name is found:
  - PyTorch links the libraries: each undefined dynamic symbol of
    torch/lib/*.so (nm -D --undefined-only) that one of the libraries below
    exports, with the version the reference asks for (NCCL's are
    unversioned: "-").
  - JAX's plugins link none of them: XLA opens each with dlopen and binds
    every function of its headers with dlsym (implib-style stub tables), so
    the table lists each string of the plugin's objects that is exactly a
    name the library exports, version "-" (dlsym takes the default
    version).  These are the names JAX may call, not the ones a run calls.

Columns (tab-separated): soname, symbol, the version PyTorch's references
ask for ("-": unversioned, or only JAX's dlsym), importers (comma-
separated: torch/<object>, jax/<object>).  Sorted by soname, then symbol.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
import zipfile

# the libraries the sim stands in for (sim/libs/README.md)
LIBS = ["libcublas.so.13", "libcublasLt.so.13", "libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_ops.so.9",
        "libcudnn_cnn.so.9", "libcudnn_adv.so.9", "libcufft.so.12", "libcurand.so.10", "libcusolver.so.12",
        "libnccl.so.2"]


def die(msg):
    sys.exit("gen_imports: " + msg)


def nm(args):
    p = subprocess.run(["nm"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        die("nm %s: %s" % (" ".join(args), p.stderr.strip()))
    return p.stdout.splitlines()


def exports(path):
    """{name: default version or '-'} of path's defined dynamic symbols."""
    out = {}
    for line in nm(["-D", "--defined-only", path]):
        f = line.split()
        if len(f) != 3 or f[1] in "AUw":
            continue
        name, _, ver = f[2].partition("@")
        if not ver or ver.startswith("@"):
            out[name] = ver.lstrip("@") or "-"
    return out


def find_lib(soname, dirs):
    for d in dirs:
        p = os.path.join(d, soname)
        if os.path.exists(p):
            return p
    return None


def version_of(site, dist):
    for d in glob.glob(os.path.join(site, "*.dist-info")):
        m = re.match(r"(.+)-([^-]+)\.dist-info$", os.path.basename(d))
        if m and m.group(1).lower().replace("_", "-") == dist:
            return m.group(2)
    return None


def torch_imports(site, owner, rows):
    for path in sorted(glob.glob(os.path.join(site, "torch", "lib", "*.so*"))):
        for line in nm(["-D", "--undefined-only", path]):
            f = line.split()
            if len(f) != 2 or f[0] != "U":
                continue
            name, _, ver = f[1].partition("@")
            lib = owner.get(name)
            if lib:
                rows.setdefault((lib, name), [set(), set()])
                rows[lib, name][0].add(ver.lstrip("@") or "-")
                rows[lib, name][1].add("torch/" + os.path.basename(path))


def jax_imports(wheel, owner, rows):
    with zipfile.ZipFile(wheel) as z, tempfile.TemporaryDirectory() as tmp:
        for info in z.infolist():
            if not re.search(r"\.so(\.\d+)*$", info.filename):
                continue
            path = z.extract(info, tmp)
            data = open(path, "rb").read()
            for s in set(re.findall(rb"[A-Za-z_][A-Za-z0-9_]{3,}", data)):
                name = s.decode()
                lib = owner.get(name)
                if lib:
                    rows.setdefault((lib, name), [set(), set()])[1].add("jax/" + os.path.basename(info.filename))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--site", required=True)
    ap.add_argument("--wheel", action="append", default=[])
    ap.add_argument("--lib-dir", action="append", default=[])
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    dirs = a.lib_dir or (sorted(glob.glob(os.path.join(a.site, "nvidia", "*", "lib"))) +
                         [os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64")])
    owner, found = {}, {}
    for soname in LIBS:
        path = find_lib(soname, dirs)
        if not path:
            print("gen_imports: no %s in %s: left out" % (soname, " ".join(dirs)), file=sys.stderr)
            continue
        found[soname] = path
        for name in exports(path):
            owner.setdefault(name, soname)
    rows = {}
    torch_imports(a.site, owner, rows)
    for w in a.wheel:
        jax_imports(w, owner, rows)
    versions = ["torch %s" % version_of(a.site, "torch")]
    for dist in ("nvidia-cublas", "nvidia-cudnn-cu13", "nvidia-cufft", "nvidia-curand", "nvidia-cusolver",
                 "nvidia-nccl-cu13"):
        v = version_of(a.site, dist)
        if v:
            versions.append("%s %s" % (dist, v))
    for w in a.wheel:
        m = re.match(r"([^-]+)-([^-]+)-", os.path.basename(w))
        if m:
            versions.append("%s %s" % (m.group(1).replace("_", "-"), m.group(2)))
    out = ["# generated by sim/libs/gen_imports.py (make sim-imports): do not edit",
           "# importers: " + ", ".join(versions),
           "# names matched against: " + ", ".join("%s (%s)" % (s, os.path.relpath(p, a.site) if p.startswith(a.site)
                                                             else p) for s, p in sorted(found.items())),
           "# soname\tsymbol\tversion\timporters"]
    for (lib, name), (vers, who) in sorted(rows.items()):
        out.append("%s\t%s\t%s\t%s" % (lib, name, ",".join(sorted(vers)) or "-", ",".join(sorted(who))))
    tmp = a.output + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(out) + "\n")
    os.replace(tmp, a.output)


if __name__ == "__main__":
    main()
