"""The thin module between Python and libdevcheck.so in this process.

devcheck keeps its findings in C (the store of report/); this module only
asks for them: devcheck_test_begin(nodeid) opens a window as a test starts
(None after it), devcheck_test_findings() gives what occurred since, as
merged JSON Lines -- each finding once, its "count" the occurrences in the
window, its "headline" and its "report" written by the library exactly as
`devcheck report` writes them.  Nothing here formats a finding.
"""
import ctypes
import json

_lib = None


def _load():
    global _lib
    if _lib is None:
        _lib = False
        try:
            lib = ctypes.CDLL(None)       # the process's global scope: LD_PRELOAD'ed libdevcheck.so
            lib.devcheck_test_begin.argtypes = [ctypes.c_char_p]
            lib.devcheck_test_begin.restype = ctypes.c_int
            lib.devcheck_test_findings.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
            lib.devcheck_test_findings.restype = ctypes.c_long
            _lib = lib
        except (OSError, AttributeError):
            pass
    return _lib or None


def loaded():
    """True when libdevcheck.so is loaded in this process."""
    return _load() is not None


def begin(nodeid):
    """A test named nodeid begins (None: between tests)."""
    lib = _load()
    if lib is not None:
        lib.devcheck_test_begin(nodeid.encode("utf-8", "replace") if nodeid else None)


def expect(kinds):
    """The test that began provokes findings of these kinds on purpose (its
    devcheck_expected marker; an empty list: every kind): libdevcheck.so
    marks them expected, and --error-exitcode does not count them."""
    lib = _load()
    fn = getattr(lib, "devcheck_test_expect", None) if lib is not None else None
    if fn is not None:
        fn.argtypes = [ctypes.c_char_p]
        fn.restype = ctypes.c_int
        fn(",".join(kinds).encode("utf-8", "replace"))


def findings():
    """The findings since the last begin(): a list of dicts (the merged
    record: kind, severity, count, headline, report, test, ...)."""
    lib = _load()
    if lib is None:
        return []
    need = lib.devcheck_test_findings(None, 0)
    for _ in range(4):                  # another thread may add one in between
        if need <= 0:
            return []
        buf = ctypes.create_string_buffer(need + 4096)
        got = lib.devcheck_test_findings(buf, len(buf))
        if 0 < got < len(buf):
            text = buf.value.decode("utf-8", "replace")
            out = []
            for line in text.splitlines():
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if rec.get("type") == "finding":
                    out.append(rec)
            return out
        need = got
    return []
