# Driven by test_pyframes.c (see pyframes.sh): each probe's line is marked
# with "# P<tag>"; the shell compares the captured frames with these marks.
import ctypes
import gc
import threading

me = ctypes.CDLL(None)
held = ctypes.PyDLL(None)


def inner(tag):
    me.probe(tag)                                   # P1


def outer():
    inner(1)                                        # P1-caller
    held.probe_held(2)                              # P2


class Model:
    def forward(self):
        return [me.probe(3) for _ in range(1)]      # P3


def gen():
    yield me.probe(4)                               # P4


def freed():
    ns = {}
    exec(compile("def f():\n    me.probe(5)\n", "<generated>", "exec"), {"me": me}, ns)
    ns["f"]()
    ns.clear()
    gc.collect()


def in_thread():
    me.wait_and_probe(6)                            # P6


outer()
Model().forward()
next(gen())
freed()
t = threading.Thread(target=in_thread)
t.start()
while not me.thread_entered():
    pass
held.hold_gil()
t.join()
