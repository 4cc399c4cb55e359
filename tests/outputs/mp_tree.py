"""Python multiprocessing under the devcheck wrapper (tests/outputs/tree.sh):
the parent never touches CUDA; a 'fork' child and a 'spawn' child each load
libpylaunch.so with ctypes and make one bad launch on their own devices.
Usage: mp_tree.py LIBPYLAUNCH"""
import ctypes
import multiprocessing as mp
import sys


def child(lib, dev, owner):
    rc = ctypes.CDLL(lib).pylaunch_bad(dev, owner)
    sys.exit(rc)


if __name__ == "__main__":
    lib = sys.argv[1]
    for method, dev, owner in (("fork", 2, 0), ("spawn", 3, 1)):
        p = mp.get_context(method).Process(target=child, args=(lib, dev, owner))
        p.start()
        p.join()
        assert p.exitcode == 0, (method, p.exitcode)
    print("mp_tree: done")
