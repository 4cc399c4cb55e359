"""The `devcheck` console command: replaces this Python process with the
native wrapper, arguments unchanged, so the exit status and signals are the
program's (or the wrapper's own: 2 bad command line, 126/127 cannot run)."""
import os
import sys

from devcheck import executable


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    exe = executable()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    try:
        os.execv(exe, [exe] + args)
    except OSError as e:
        sys.stderr.write(f"devcheck: cannot run {exe}: {e.strerror}\n")
        sys.exit(127 if isinstance(e, FileNotFoundError) else 126)
