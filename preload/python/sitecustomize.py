"""devcheck's sitecustomize: the wrapper puts this directory first on
PYTHONPATH.  It installs devcheck's hook for frameworks' device errors
(_devcheck_hook.py), then runs the sitecustomize the program would have run
without devcheck (the next one on sys.path, e.g. Debian's), so nothing else
changes.  The hook only ever acts when torch is imported and PyTorch raises
one of its device-mismatch errors (libdevcheck.so calls it at raise time;
its sys.excepthook covers an uncaught one that did not come that way)."""
import os as _os
import sys as _sys


def _devcheck_install():
    try:
        import _devcheck_hook
        _devcheck_hook.install()
    except Exception:           # never let devcheck break the program's start
        pass


def _devcheck_chain():
    import importlib.machinery
    import importlib.util
    here = _os.path.dirname(_os.path.abspath(__file__))
    rest = [p for p in _sys.path if _os.path.abspath(p or _os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    mod = importlib.util.module_from_spec(spec)
    _sys.modules["sitecustomize"] = mod
    spec.loader.exec_module(mod)


_devcheck_install()
_devcheck_chain()
