"""devcheck: finds multi-GPU placement bugs in unmodified CUDA programs.

The package carries the native tool (devcheck/_native/: bin/devcheck,
lib/devcheck/libdevcheck.so, the simulated GPUs in lib/devcheck/sim/); the
`devcheck` command and `python -m devcheck` run bin/devcheck with the same
arguments (see devcheck._launcher)."""
import os

NATIVE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_native")


def executable():
    """Path of the native devcheck wrapper."""
    return os.path.join(NATIVE, "bin", "devcheck")


def library():
    """Path of libdevcheck.so (for LD_PRELOAD=... DEVCHECK_OPTIONS=...)."""
    return os.path.join(NATIVE, "lib", "devcheck", "libdevcheck.so")
