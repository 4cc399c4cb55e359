"""devcheck's hook for frameworks' own device errors (installed by devcheck's
sitecustomize; see report/FORMAT.md, framework_device_error).

When a program dies of PyTorch's "Expected all tensors to be on the same
device" (or another of its device-mismatch errors), this collects what only
the interpreter knows -- the failing op's Python stack and its tensors, named
as the user's code names them, with their devices and data pointers -- and
hands it to libdevcheck.so (devcheck_framework_error), which looks up where
each tensor's memory was allocated, decides the fix and writes the report.
No devcheck logic lives here beyond finding the tensors.  Nothing is imported
and nothing runs until an uncaught exception reaches sys.excepthook with
torch already imported."""
import sys

_PATTERNS = (
    "to be on the same device",             # Expected all tensors to be on the same device, ...
    "Expected tensor for argument",         # ... to have the same device as tensor for argument
    "must be on the same device",
    "are on different devices",
    "should be either on cpu or on the same device",
    "not at the same device",               # RNN: Input and parameter tensors are not at the same device
    "Expected object of device type",
    "to have the same device",
)

_FLAG_PARAM = 1                 # DC_TENSOR_PARAM (core/core.h)
_MAX_TENSORS = 16


def install():
    previous = sys.excepthook

    def devcheck_excepthook(etype, value, tb):
        previous(etype, value, tb)
        try:
            explain(value, tb)
        except Exception:
            pass

    sys.excepthook = devcheck_excepthook


def _is_device_error(value):
    msg = str(value)
    return any(p in msg for p in _PATTERNS)


def _statement_exprs(filename, lineno):
    """The expressions of the statement at filename:lineno that can be
    evaluated without calling anything the user did not write: names,
    attribute chains, subscripts by constants or names; in source order."""
    import ast
    import linecache
    source = "".join(linecache.getlines(filename))
    if not source:
        return []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    best = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno <= lineno <= (node.end_lineno or node.lineno):
            if best is None or node.lineno >= best.lineno and (node.end_lineno or 0) <= (best.end_lineno or 0):
                best = node
    if best is None:
        return []

    def simple(n):
        if isinstance(n, ast.Name):
            return True
        if isinstance(n, ast.Attribute):
            return simple(n.value)
        if isinstance(n, ast.Subscript):
            idx = n.slice
            if sys.version_info < (3, 9) and isinstance(idx, ast.Index):
                idx = idx.value
            return simple(n.value) and isinstance(idx, (ast.Constant, ast.Name))
        return False

    found = []

    def visit(n, root):
        if isinstance(n, ast.stmt) and n is not root:
            return                          # a compound statement's body is not this line
        if isinstance(n, ast.expr) and simple(n) and isinstance(getattr(n, "ctx", None), ast.Load):
            text = ast.get_source_segment(source, n) or ast.unparse(n)
            found.append((n.lineno, n.col_offset, text))
        for child in ast.iter_child_nodes(n):
            visit(child, root)

    visit(best, best)
    found.sort()
    seen, out = set(), []
    for _, _, text in found:
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def _values(frame, exprs):
    """(expr, value) for each expression that evaluates in frame."""
    out = []
    for text in exprs:
        try:
            value = eval(compile(text, "<devcheck>", "eval"), frame.f_globals, frame.f_locals)
        except Exception:
            continue
        out.append((text, value))
    return out


def _tensors_of(pairs, torch):
    """(expr, tensor, flags) for tensors among the values, and inside
    modules (their parameters and buffers, named expr.name) and lists."""
    out = []
    for text, v in pairs:
        if isinstance(v, torch.Tensor):
            out.append((text, v, _FLAG_PARAM if isinstance(v, torch.nn.Parameter) else 0))
        elif isinstance(v, torch.nn.Module):
            for name, p in list(v.named_parameters())[:64]:
                out.append((text + "." + name, p, _FLAG_PARAM))
            for name, b in list(v.named_buffers())[:64]:
                out.append((text + "." + name, b, _FLAG_PARAM))
        elif isinstance(v, (list, tuple)) and len(v) <= _MAX_TENSORS:
            for i, x in enumerate(v):
                if isinstance(x, torch.Tensor):
                    out.append(("%s[%d]" % (text, i), x, 0))
    return out


def _user_file(path):
    return not (path.startswith("<") or "/site-packages/" in path or "/dist-packages/" in path
                or "/lib/python3." in path and path.split("/lib/python3.", 1)[1].split("/", 1)[0].isdigit())


def explain(value, tb):
    torch = sys.modules.get("torch")
    if torch is None or tb is None or not _is_device_error(value):
        return
    entries = []
    while tb is not None:
        entries.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    entries.reverse()                       # innermost first
    op_frame, op_line = entries[0]
    op = _tensors_of(_values(op_frame, _statement_exprs(op_frame.f_code.co_filename, op_line)), torch)
    # The user's names for them: the innermost frame in the user's own code.
    user = next(((f, l) for f, l in entries if _user_file(f.f_code.co_filename)), None)
    if user is not None and user[0] is not op_frame:
        named = _tensors_of(_values(user[0], _statement_exprs(user[0].f_code.co_filename, user[1])), torch)
        renamed = []
        for text, t, flags in op:
            match = next((n for n in named if n[1] is t), None)
            if match is None:
                match = next((n for n in named if n[1].device == t.device and n[1].numel() and t.numel()
                              and n[1].data_ptr() == t.data_ptr()), None)
            renamed.append((match[0], t, flags | match[2]) if match else (text, t, flags))
        op = renamed
    tensors, seen = [], set()
    for text, t, flags in op:
        if id(t) in seen:
            continue
        seen.add(id(t))
        tensors.append((text, t, flags))
    tensors = tensors[:_MAX_TENSORS]
    _report(str(value).split("\n")[0], entries, tensors)


def _report(message, entries, tensors):
    import ctypes
    try:
        fn = ctypes.CDLL(None).devcheck_framework_error
    except (AttributeError, OSError):
        return                              # devcheck is not in this process
    fn.restype = ctypes.c_int
    enc = lambda s: s.encode("utf-8", "replace")
    n = len(entries)
    files = (ctypes.c_char_p * max(n, 1))(*[enc(f.f_code.co_filename) for f, _ in entries])
    lines = (ctypes.c_int * max(n, 1))(*[l for _, l in entries])
    funcs = (ctypes.c_char_p * max(n, 1))(*[enc(f.f_code.co_name) for f, _ in entries])
    k = len(tensors)
    exprs = (ctypes.c_char_p * max(k, 1))(*[enc(t[0]) for t in tensors])
    ptrs = (ctypes.c_size_t * max(k, 1))(*[t[1].data_ptr() if t[1].is_cuda else 0 for t in tensors])
    devices = (ctypes.c_char_p * max(k, 1))(*[enc(str(t[1].device)) for t in tensors])
    flags = (ctypes.c_int * max(k, 1))(*[t[2] for t in tensors])
    fn(b"torch", enc(message), ctypes.c_uint(n), files, lines, funcs, ctypes.c_uint(k), exprs, ptrs, devices, flags)
