#!/bin/sh
# mk/pyenv.sh [REQUIREMENTS]: prints the path of the virtualenv holding the
# Python clients the tests run (torch, triton, numba-cuda, cuda-bindings,
# cuda-core), making it first if needed.
#
# The virtualenv lives outside the clone, in
#   ${DEVCHECK_CACHE:-$HOME/.cache/devcheck}/pyenv-<hash>
# where <hash> covers the requirements file (default
# tests/clients/requirements.txt, every version pinned) and the Python
# interpreter ($PYTHON, default python3), so a second run, or another clone,
# reuses it without downloading.  A virtualenv is complete only once pip
# finished and the marker file .devcheck-complete exists: a half-made one
# (an interrupted install) is removed and made again.  Concurrent runs wait
# for each other (flock).  On failure: one line on stderr naming the log,
# exit status 1.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
req=${1:-$root/tests/clients/requirements.txt}
py=${PYTHON:-python3}
cache=${DEVCHECK_CACHE:-${HOME:-/tmp}/.cache/devcheck}

die() { echo "devcheck: cannot make the Python client environment: $*" >&2; exit 1; }

[ -r "$req" ] || die "no requirements file $req"
command -v "$py" >/dev/null 2>&1 || die "no Python interpreter '$py' (set PYTHON)"
pyver=$("$py" -c 'import sys; print(sys.version)' 2>/dev/null) || die "'$py' does not run"
key=$( { cat "$req"; echo "$pyver"; } | sha256sum | cut -c1-16)
venv=$cache/pyenv-$key
mark=$venv/.devcheck-complete
log=$cache/pyenv-$key.log

[ -f "$mark" ] && [ -x "$venv/bin/python" ] && { echo "$venv"; exit 0; }

mkdir -p "$cache" || die "cannot create $cache"
# one maker at a time: the others wait, then find it complete
if command -v flock >/dev/null 2>&1 && [ -z "${DEVCHECK_PYENV_LOCKED:-}" ]; then
    DEVCHECK_PYENV_LOCKED=1 exec flock "$cache/pyenv-$key.lock" sh "$0" "$req"
fi
[ -f "$mark" ] && [ -x "$venv/bin/python" ] && { echo "$venv"; exit 0; }

echo "devcheck: making the Python client environment $venv (pinned in $req; a few GB, once)" >&2
rm -rf "$venv"
{
    "$py" -m venv "$venv" &&
    "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -r "$req"
} >"$log" 2>&1 || die "installing the pinned packages failed (log: $log)"
"$venv/bin/python" -m pip check >>"$log" 2>&1 || die "the installed packages are inconsistent (log: $log)"
touch "$mark"
echo "$venv"
