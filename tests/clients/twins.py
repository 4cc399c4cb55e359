"""Loads the client tests' host twins (client_twins.c, built by make into
$DEVCHECK_CLIENT_TWINS) with ctypes, RTLD_LOCAL as Python does: on the
simulated GPUs the kernels then compute.  Returns True when loaded."""
import ctypes
import os


def load():
    path = os.environ.get("DEVCHECK_CLIENT_TWINS")
    if not path:
        return False
    ctypes.CDLL(path)
    return True
