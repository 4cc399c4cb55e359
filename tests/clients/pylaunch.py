"""Standard library only: drives libpylaunch.so (argv[1]) through ctypes, so
any CPython runs it on the sim.  Two launches of `touch` with memory of
another device (marked lines: ALLOC/LAUNCH, ALLOC2/LAUNCH2); the second from
a thread that released the GIL while the main thread holds it."""
import ctypes
import sys
import threading
import time

lib = ctypes.CDLL(sys.argv[1])
held = ctypes.PyDLL(sys.argv[1])
lib.alloc_on.restype = ctypes.c_void_p


def make(dev):
    return lib.alloc_on(dev, 8)                                 # ALLOC


def run(dev, p):
    return lib.launch_on(dev, ctypes.c_void_p(p), 8)           # LAUNCH


def worker(q):
    lib.launch_when_held(3, ctypes.c_void_p(q), 8)             # LAUNCH2


p = make(1)
run(0, p)
q = lib.alloc_on(2, 8)                                          # ALLOC2
t = threading.Thread(target=worker, args=(q,))
t.start()
while not lib.thread_entered():
    time.sleep(0.001)
held.hold_gil()
t.join()
print("pylaunch: done")
