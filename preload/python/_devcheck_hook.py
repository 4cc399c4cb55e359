"""devcheck's hook for frameworks' own device errors (installed by devcheck's
sitecustomize; see report/FORMAT.md, framework_device_error).

When PyTorch refuses an op over devices ("Expected all tensors to be on the
same device", ...), this collects what only the interpreter knows -- the
op's Python stack with each statement's source line, and its tensors, named
as the user's own code names them (`input_ids`, `model[0].weight`), with
their devices, data pointers, the module holding a parameter and, for a
tensor whose memory has no record (a CPU tensor), the user's statement that
made it -- and hands it to libdevcheck.so (devcheck_framework_error), which
looks up where each tensor's memory was allocated, decides the fix, writes
the report and returns the note attached to the exception.  No devcheck
logic lives here beyond finding the tensors.

Two ways in, each explaining an exception once:
  - raised(exc): at raise time, caught or not (pytest, IPython, try/except,
    a server's per-request loop).  libdevcheck.so calls it from its
    definition of torch::translate_exception_to_python, after torch made the
    Python exception and after its own test of the message (preload/python.c).
  - sys.excepthook, for an uncaught error that did not come that way (raised
    by Python code); an exception that already carries devcheck's note is
    left alone.
A third, for a refusal before any launch (report/FORMAT.md, pointer_refused):
  - Triton's CUDA launcher (CudaLauncher.__call__, wrapped when
    triton.backends.nvidia.driver is imported) raises
    `ValueError: Pointer argument cannot be accessed from Triton (cpu
    tensor?)` when the driver refuses a tensor's device address in the
    current context.  When libdevcheck.so remembered that refusal for memory
    it knows is another device's (devcheck_pointer_refusal), the wrapper
    names the refused argument (its kernel parameter, the user's expression
    at the call), reports it (devcheck_pointer_refused) and attaches the note
    before the exception goes on, caught or not.  The wrapper's frame is the
    one thing it adds to the exception's traceback.
  - cuda-bindings' cuPointerGetAttribute (wrapped when cuda.bindings.driver
    is imported): a refusal libdevcheck.so remembered is watched in the
    caller's frames (sys.settrace, on that thread, for a bounded window) for
    an exception the program raises over it (_watch_trace); reported the
    same way, framework "cuda-python", no kernel parameter.
Nothing here may change the user's exception beyond adding the note, and
no exception of devcheck's own escapes."""
import os
import sys

_FLAG_PARAM = 1                 # DC_TENSOR_PARAM (core/core.h)
_FLAG_MODULE_DEVICE = 2         # DC_TENSOR_MODULE_DEVICE
_MAX_TENSORS = 16               # DC_TENSORS_MAX (report/finding.h)
_MAX_FRAMES = 32                # DC_PYLOCS_MAX
_NOTE = "devcheck: "            # the note's start: an exception explained once
_lib = None


_roots = []                     # (folder, rule): where this interpreter put libraries


def _library_roots():
    """Where Python put libraries, each with the rule that says so: the
    prefixes' lib folders, site-packages (site's own and the user's), every
    sys.path folder holding an installed distribution (pip install --target,
    a PYTHONPATH entry), an editable install's source (its direct_url.json),
    the folders .pth files add.  A folder that holds the working directory is
    the user's project: never a root."""
    import json
    import site
    cwd = os.path.realpath(os.getcwd())
    out = []

    def add(rule, path):
        if not path or not os.path.isdir(path):
            return
        given = os.path.abspath(path).rstrip(os.sep)
        path = os.path.realpath(path)
        if path == "/" or cwd == path or cwd.startswith(path + os.sep):
            return
        for p in (path, given):                 # as Python names its files, and resolved
            if p and all(p != q for q, _ in out):
                out.append((p, rule))

    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        add("prefix", os.path.join(prefix, "lib"))
    try:
        for p in site.getsitepackages() + [site.getusersitepackages()]:
            add("site-packages", p)
    except Exception:
        pass
    pythonpath = [os.path.realpath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    for entry in list(sys.path):
        if not entry or not os.path.isdir(entry):
            continue
        try:
            names = os.listdir(entry)
        except OSError:
            continue
        dists = [n for n in names if n.endswith((".dist-info", ".egg-info"))]
        if dists:
            real = os.path.realpath(entry)
            add("pythonpath" if real in pythonpath else "distribution", entry)
        for d in dists:                         # editable installs: their source
            try:
                with open(os.path.join(entry, d, "direct_url.json")) as f:
                    du = json.load(f)
                if du.get("dir_info", {}).get("editable") and du.get("url", "").startswith("file://"):
                    add("editable", du["url"][len("file://"):])
            except (OSError, ValueError, AttributeError):
                pass
        for n in names:                         # .pth files: the folders they add
            if n.endswith(".pth"):
                try:
                    with open(os.path.join(entry, n)) as f:
                        for line in f:
                            line = line.strip()
                            if line and not line.startswith(("#", "import ", "import\t")):
                                add("pth", os.path.join(entry, line))
                except OSError:
                    pass
    return out


def _tell_library_roots():
    global _roots
    _roots = _library_roots()
    lib = _devcheck()
    fn = getattr(lib, "devcheck_library_root", None) if lib is not None else None
    if fn is None:
        return
    for path, rule in _roots:
        fn(rule.encode(), path.encode("utf-8", "surrogateescape"))


def install():
    try:
        _tell_library_roots()
    except Exception:
        pass
    try:
        sys.meta_path.insert(0, _WrapFinder())
    except Exception:
        pass
    previous = sys.excepthook

    def devcheck_excepthook(etype, value, tb):
        try:
            _shorten_note(value)
        except Exception:
            pass
        previous(etype, value, tb)
        try:
            w = _watches.get(__import__("threading").get_ident())
            if w is not None and tb is not None:
                _refusal_raised(w, value)
                _unwatch(_watches.pop(__import__("threading").get_ident(), None))
        except Exception:
            pass
        try:
            if tb is not None and not _explained(value) and _is_device_error(value):
                entries = []
                while tb is not None:
                    entries.append((tb.tb_frame, tb.tb_lineno))
                    tb = tb.tb_next
                entries.reverse()                       # innermost first
                _explain(value, entries)                # the report follows the traceback
        except Exception:
            pass

    sys.excepthook = devcheck_excepthook


def _shorten_note(value):
    """An uncaught error whose report devcheck already printed on the same
    stream (stderr): its note under the traceback keeps only its first line,
    pointing at the report, so the explanation is printed once (issue 41)."""
    notes = getattr(value, "__notes__", None)
    lib = _devcheck()
    fn = getattr(lib, "devcheck_report_on_stderr", None) if lib is not None else None
    if not isinstance(notes, list) or fn is None or not fn():
        return
    for i, n in enumerate(notes):
        if isinstance(n, str) and n.startswith(_NOTE) and "\n" in n:
            notes[i] = n.split("\n", 1)[0] + " (devcheck's report above)"


_TRITON_DRIVER = "triton.backends.nvidia.driver"
_CUDA_DRIVER = "cuda.bindings.driver"


class _WrapFinder:
    """Finds nothing itself: when a module devcheck wraps is imported
    (Triton's CUDA driver, cuda-bindings' driver), hands back the spec the
    other finders give, with a loader that wraps the module's entry point
    once it has run."""

    def find_spec(self, name, path=None, target=None):
        wrap = _WRAPS.get(name)
        if wrap is None:
            return None
        try:
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                if finder is self or find is None:
                    continue
                spec = find(name, path, target)
                if spec is not None:
                    if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                        spec.loader = _WrappingLoader(spec.loader, wrap)
                    return spec
        except Exception:
            pass
        return None


class _WrappingLoader:
    def __init__(self, loader, wrap):
        self._loader, self._wrap = loader, wrap

    def __getattr__(self, name):                # get_resource_reader, get_filename, ...
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        try:
            self._wrap(module)
        except Exception:
            pass


def _wrap_launcher(cls):
    _wrap_launcher_init(cls)
    call = getattr(cls, "__call__", None)
    code = getattr(call, "__code__", None)
    if code is None or getattr(call, "_devcheck", False):
        return
    fixed = code.co_argcount - 1                # gridX ... launch_exit_hook; the kernel's arguments follow

    def __call__(self, *args, **kwargs):
        try:
            return call(self, *args, **kwargs)
        except ValueError as e:
            _refused(e, args[fixed:], sys._getframe(1))
            raise

    __call__._devcheck = True
    __call__.__doc__ = call.__doc__
    __call__.__wrapped__ = call
    cls.__call__ = __call__


def _wrap_launcher_init(cls):
    """CudaLauncher(src, metadata) is made once per compiled kernel: its
    parameters by name (the signature's names without the constexpr ones,
    in order: the compiled kernel's parameters) told to libdevcheck.so
    under the kernel's name (devcheck_kernel_params), so that a finding on
    parameter 0 names x_ptr."""
    init = getattr(cls, "__init__", None)
    if init is None or getattr(init, "_devcheck", False):
        return

    def __init__(self, src, metadata, *args, **kwargs):
        init(self, src, metadata, *args, **kwargs)
        try:
            _tell_params(getattr(metadata, "name", None), getattr(src, "signature", None))
        except Exception:
            pass

    __init__._devcheck = True
    __init__.__wrapped__ = init
    cls.__init__ = __init__


def _tell_params(kernel, signature):
    lib = _devcheck()
    fn = getattr(lib, "devcheck_kernel_params", None) if lib is not None else None
    if fn is None or not isinstance(kernel, str) or not isinstance(signature, dict):
        return
    names = []
    for name, ty in signature.items():
        if not isinstance(name, str) or not isinstance(ty, str):
            break                               # a tuple argument: flattened; the names end here
        if ty != "constexpr":
            names.append(name)
    if names:
        import ctypes
        arr = (ctypes.c_char_p * len(names))(*[n.encode("utf-8", "replace") for n in names])
        fn.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.POINTER(ctypes.c_char_p)]
        fn(kernel.encode("utf-8", "replace"), len(names), arr)


_IPYTHON_COMPILER = "IPython.core.compilerop"
_cells = {}                                     # an IPython cell's file name -> its execution count


def _wrap_ipython_cache(cls):
    """IPython's CachingCompiler.cache names each cell's code (ipykernel's
    XCachingCompiler: .../ipykernel_<pid>/<hash>.py; IPython's shell:
    <ipython-input-N-hash>) and maps the name to the cell's execution count,
    which IPython's traceback shows as `Cell In[N], line M`: the name and the
    number told to libdevcheck.so (devcheck_python_cell), so that a report
    names the cell as IPython does and a cell is the user's code."""
    cache = getattr(cls, "cache", None) if cls is not None else None
    if cache is None or getattr(cache, "_devcheck", False):
        return

    def cache_(self, *args, **kwargs):
        name = cache(self, *args, **kwargs)
        try:
            number = getattr(self, "_filename_map", {}).get(name)
            if isinstance(name, str) and isinstance(number, int):
                _cells[name] = number
                lib = _devcheck()
                fn = getattr(lib, "devcheck_python_cell", None) if lib is not None else None
                if fn is not None:
                    import ctypes
                    fn.argtypes = [ctypes.c_char_p, ctypes.c_int]
                    fn(name.encode("utf-8", "surrogateescape"), number)
        except Exception:
            pass
        return name

    cache_._devcheck = True
    cache_.__wrapped__ = cache
    cache_.__doc__ = cache.__doc__
    cls.cache = cache_


_NUMBA_DISPATCHER = "numba.cuda.dispatcher"


def _wrap_numba_kernel(cls):
    """numba-cuda's _Kernel is made once per compiled signature: the
    parameters its kernel takes (each argument flattened as its
    _prepare_args flattens it) named after the Python function's arguments
    and told under the kernel's entry name (devcheck_kernel_params), so that
    a finding on parameter 4 of add(x, y, out) names x (the array's data
    pointer; its other parts x.nitems, x.shape[0], ...)."""
    init = getattr(cls, "__init__", None) if cls is not None else None
    if init is None or getattr(init, "_devcheck", False):
        return

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        try:
            _tell_numba_params(self)
        except Exception:
            pass

    __init__._devcheck = True
    __init__.__wrapped__ = init
    __init__.__doc__ = init.__doc__
    cls.__init__ = __init__


def _numba_flat(name, ty, types, out):
    """The kernel parameters of one argument, as _Kernel._prepare_args passes
    them; False for a type it does not know."""
    if isinstance(ty, types.Array):
        out += [name + ".meminfo", name + ".parent", name + ".nitems", name + ".itemsize", name]
        out += ["%s.shape[%d]" % (name, i) for i in range(ty.ndim)]
        out += ["%s.strides[%d]" % (name, i) for i in range(ty.ndim)]
    elif ty in (types.complex64, types.complex128):
        out += [name + ".real", name + ".imag"]
    elif isinstance(ty, types.BaseTuple):
        return all(_numba_flat("%s[%d]" % (name, i), t, types, out) for i, t in enumerate(ty))
    elif isinstance(ty, (types.CPointer, types.Integer, types.Float, types.Boolean, types.Record, types.NPDatetime,
                         types.NPTimedelta)):
        out.append(name)
    else:
        return False
    return True


def _tell_numba_params(kernel):
    lib = _devcheck()
    fn = getattr(lib, "devcheck_kernel_params", None) if lib is not None else None
    entry = getattr(kernel, "entry_name", None)
    code = getattr(getattr(kernel, "py_func", None), "__code__", None)
    if fn is None or not isinstance(entry, str) or code is None or getattr(kernel, "extensions", None):
        return                                  # an extension may pass an argument otherwise
    from numba.core import types
    argtypes = kernel.argument_types
    argnames = code.co_varnames[:code.co_argcount]
    if len(argnames) != len(argtypes):
        return
    names = []
    for name, ty in zip(argnames, argtypes):
        if not _numba_flat(name, ty, types, names):
            return
    if names:
        import ctypes
        arr = (ctypes.c_char_p * len(names))(*[n.encode("utf-8", "replace") for n in names])
        fn.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.POINTER(ctypes.c_char_p)]
        fn(entry.encode("utf-8", "replace"), len(names), arr)


def _refused(value, kargs, caller):
    """Triton refused a pointer argument: explained when libdevcheck.so saw
    the driver refuse memory it knows is another device's."""
    try:
        lib = _devcheck()
        if lib is None or _explained(value):
            return
        import ctypes
        lib.devcheck_pointer_refusal.restype = ctypes.c_size_t
        ptr = lib.devcheck_pointer_refusal()
        if not ptr:
            return
        entries = []
        f = caller
        while f is not None:
            entries.append((f, f.f_lineno))
            f = f.f_back
        user = next(((f, l) for f, l in entries if _user_file(f.f_code.co_filename)), None)
        if len(entries) > _MAX_FRAMES:
            entries = entries[:_MAX_FRAMES - 1] + [user if user is not None and user not in entries[:_MAX_FRAMES - 1]
                                                   else entries[_MAX_FRAMES - 1]]
        names = None                            # the kernel's parameter names (JITFunction.arg_names)
        for f, _ in entries:
            names = getattr(f.f_locals.get("self"), "arg_names", None)
            if isinstance(names, (list, tuple)):
                break
            names = None
        named = {}
        if user is not None:
            for text, v in _values(user[0], _statement_exprs(user[0].f_code.co_filename, user[1])):
                named.setdefault(id(v), text)
        param, tensors = -1, []
        for i, a in enumerate(kargs):
            data_ptr = getattr(a, "data_ptr", None)
            if not callable(data_ptr):
                continue
            p = data_ptr()
            if not isinstance(p, int):
                continue
            if p == ptr and param < 0:
                param = i
            name = named.get(id(a)) or (names[i] if names is not None and i < len(names) else "argument %d" % i)
            tensors.append((name, str(getattr(a, "device", "?")), p))
        if param < 0:
            return                              # not this call's argument: another refusal
        tensors = tensors[:_MAX_TENSORS]
        note = _call_refused(lib, str(value).split("\n")[0], param, entries, tensors)
        if note:
            _add_note(value, note)
    except Exception:
        pass


def _call_refused(lib, message, param, entries, tensors, framework=b"triton"):
    import ctypes
    Frame, Tensor = _structs()
    enc = lambda s: None if s is None else s.encode("utf-8", "replace")
    frames = _frames(Frame, entries, enc)
    ts = (Tensor * max(len(tensors), 1))()
    for i, (text, device, p) in enumerate(tensors):
        ts[i] = Tensor(enc(text), enc(device), None, None, None, p, 0, 0)
    note = ctypes.create_string_buffer(4096)
    fn = lib.devcheck_pointer_refused
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(Frame),
                   ctypes.c_uint, ctypes.POINTER(Tensor), ctypes.c_char_p, ctypes.c_size_t]
    if fn(framework, enc(message), param, len(entries), frames, len(tensors), ts, note, len(note)) != 0:
        return ""
    return note.value.decode("utf-8", "replace")


_REFUSAL_LINES = 64             # lines of the query's frame (and its callers) watched for the raise
_REFUSAL_CALLERS = 4            # callers of the query's frame watched with it
_CUDA_ERROR_INVALID_VALUE = 1   # cuda.h: the refusal of CU_POINTER_ATTRIBUTE_DEVICE_POINTER
_watches = {}                   # thread id -> _Watch: a refusal the program was handed


class _Watch:
    """A refusal cuda-bindings handed the program (its query's frames and
    tensors), watched until the program raises over it, handles it (the
    frames return, the line budget runs out, the driver later accepts the
    pointer) or a debugger owns tracing."""
    __slots__ = ("ptr", "entries", "tensors", "armed", "lines", "traced", "raised", "raised_in")


def _wrap_cuda_driver(module):
    """cuda.bindings.driver.cuPointerGetAttribute, wrapped: the answer is
    the driver's, unchanged; a refusal libdevcheck.so remembered for this
    pointer (memory it knows is another device's) is watched in the
    caller's frames for the exception the program raises over it."""
    real = getattr(module, "cuPointerGetAttribute", None)
    if real is None or getattr(real, "_devcheck", False):
        return

    def cuPointerGetAttribute(attribute, ptr):
        r = real(attribute, ptr)
        try:
            err = r[0] if isinstance(r, tuple) and r else None
            if getattr(err, "value", err) == _CUDA_ERROR_INVALID_VALUE:
                _watch_refusal(int(ptr), sys._getframe(1))
        except Exception:
            pass
        return r

    cuPointerGetAttribute._devcheck = True
    cuPointerGetAttribute.__doc__ = real.__doc__
    cuPointerGetAttribute.__wrapped__ = real
    module.cuPointerGetAttribute = cuPointerGetAttribute


def _pending_refusal(lib):
    import ctypes
    lib.devcheck_pointer_refusal.restype = ctypes.c_size_t
    return lib.devcheck_pointer_refusal()


def _watch_refusal(ptr, caller):
    import threading
    lib = _devcheck()
    if lib is None or not ptr or _pending_refusal(lib) != ptr:
        return                                  # not memory devcheck knows is another device's
    tid = threading.get_ident()
    _unwatch(_watches.pop(tid, None))
    w = _Watch()
    w.ptr, w.lines, w.traced, w.raised, w.raised_in = ptr, _REFUSAL_LINES, False, None, None
    w.entries = []
    f = caller
    while f is not None and len(w.entries) < _MAX_FRAMES:
        w.entries.append((f, f.f_lineno))
        f = f.f_back
    # the query's tensors, named as the user's statement names them, now
    # (before the program rebinds them)
    user = next(((f, l) for f, l in w.entries if _user_file(f.f_code.co_filename)), None)
    w.tensors, seen = [], set()
    if user is not None:
        for text, v in _values(user[0], _statement_exprs(user[0].f_code.co_filename, user[1])):
            data_ptr = getattr(v, "data_ptr", None)
            if id(v) in seen or not callable(data_ptr) or not hasattr(v, "device"):
                continue
            seen.add(id(v))
            p = data_ptr()
            if isinstance(p, int):
                w.tensors.append((text, str(v.device), p))
    w.tensors = w.tensors[:_MAX_TENSORS]
    w.armed = [f for f, _ in w.entries[:_REFUSAL_CALLERS + 1]]
    _watches[tid] = w
    if sys.gettrace() is None:                  # a debugger's or coverage's tracing is left alone
        for f in w.armed:
            f.f_trace = _watch_trace
        sys.settrace(_watch_calls)
        w.traced = True


def _watch_calls(frame, event, arg):
    return None                                 # frames called while watching are not traced


def _unwatch(w):
    if w is None:
        return
    if w.traced:
        w.traced = False
        if sys.gettrace() is _watch_calls:
            sys.settrace(None)
        for f in w.armed:
            if f.f_trace is _watch_trace:
                f.f_trace = None
    w.armed, w.entries, w.raised, w.raised_in = [], [], None, None


def _watch_trace(frame, event, arg):
    """An exception naming the refusal is the program's answer to it once
    it leaves the frame that raised it (the next watched frame sees it, or
    that frame returns with it); one handled inside that frame (a line of
    the frame runs next) is the program handling the refusal itself."""
    import threading
    tid = threading.get_ident()
    w = _watches.get(tid)
    if w is None:
        return None
    try:
        done = False
        if event == "exception":
            value = arg[1]
            if w.raised is value and w.raised_in is not frame:
                done = _refusal_raised(w, value)
            elif w.raised is None and _names_refusal(str(value)):
                w.raised, w.raised_in = value, frame
        elif event == "line":
            if w.raised is not None and w.raised_in is frame:
                w.raised = w.raised_in = None   # caught in its own frame: handled
            w.lines -= 1
        elif event == "return":
            if w.raised is not None and w.raised_in is frame:
                done = _refusal_raised(w, w.raised)
            if frame is w.armed[-1]:
                done = True                     # the outermost watched frame returns
        if done or w.lines <= 0:
            _unwatch(_watches.pop(tid, None))
            return None
    except Exception:
        _unwatch(_watches.pop(tid, None))
        return None
    return _watch_trace


def _names_refusal(text):
    """An exception the program raised over the refusal names the driver's
    answer: the CUresult (CUDA_ERROR_INVALID_VALUE, as cuda-bindings prints
    it) or its text (cuGetErrorString: "invalid argument")."""
    return "INVALID_VALUE" in text or "invalid argument" in text.lower()


def _refusal_raised(w, value):
    """True when the watch is over: value explained, or the refusal gone
    (the driver accepted the pointer since, or a report took it)."""
    lib = _devcheck()
    if lib is None or _explained(value) or _pending_refusal(lib) != w.ptr:
        return True
    text = str(value)
    if not _names_refusal(text):
        return False
    note = _call_refused(lib, text.split("\n")[0], -1, w.entries, w.tensors, b"cuda-python")
    if note:
        _add_note(value, note)
    return True


def raised(value):
    """The exception torch just made (libdevcheck.so, raise time): explained
    from the live stack, the note attached."""
    try:
        if _explained(value):
            return
        entries = []
        f = sys._getframe(1)                    # the frame that called torch
        while f is not None:
            entries.append((f, f.f_lineno))
            f = f.f_back
        note = _explain(value, entries)
        if note:
            _add_note(value, note)
    except Exception:
        pass


def _devcheck():
    global _lib
    if _lib is None:
        import ctypes
        try:
            lib = ctypes.CDLL(None)
            lib.devcheck_framework_error, lib.devcheck_framework_match
        except (AttributeError, OSError):
            lib = False                         # devcheck is not in this process
        _lib = lib
    return _lib or None


def _is_device_error(value):
    lib = _devcheck()
    if lib is None or "torch" not in sys.modules:
        return False
    return bool(lib.devcheck_framework_match(str(value).encode("utf-8", "replace")))


def _explained(value):
    notes = getattr(value, "__notes__", None)
    return isinstance(notes, list) and any(isinstance(n, str) and n.startswith(_NOTE) for n in notes)


def _add_note(value, note):
    if hasattr(value, "add_note"):              # 3.11+
        value.add_note(note)
    else:                                       # 3.9, 3.10: what 3.11 does, shown by pytest's own traceback
        notes = getattr(value, "__notes__", None)
        if notes is None:
            value.__notes__ = notes = []
        if isinstance(notes, list):
            notes.append(note)


_trees = {}                     # filename -> (linecache's lines, source, tree): a failing loop parses once


def _parse(filename):
    import ast
    import linecache
    lines = linecache.getlines(filename)
    hit = _trees.get(filename)
    if hit is not None and hit[0] is lines:
        return hit[1], hit[2]
    source = "".join(lines)
    tree = None
    if source:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            pass
    if len(_trees) >= 64:
        _trees.clear()
    _trees[filename] = (lines, source if tree is not None else None, tree)
    return _trees[filename][1], tree


def _statement(tree, lineno):
    """The innermost simple statement holding line lineno."""
    import ast
    best = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno <= lineno <= (node.end_lineno or node.lineno):
            if best is None or node.lineno >= best.lineno and (node.end_lineno or 0) <= (best.end_lineno or 0):
                best = node
    return best


def _statement_exprs(filename, lineno):
    """The expressions of the statement at filename:lineno that can be
    evaluated without calling anything the user did not write: names,
    attribute chains, subscripts by constants or names; in source order."""
    import ast
    source, tree = _parse(filename)
    best = _statement(tree, lineno) if tree is not None else None
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


def _made_at(frame, lineno, expr):
    """(line, function, file) of the statement of frame's function, before
    lineno, that last assigned expr's root name, or None: where the user's
    code made a tensor devcheck has no allocation record of (a CPU tensor).
    An assignment that always runs before the op (in a block enclosing it,
    or a with body) wins over one in a branch the op is not in.  In an
    IPython cell's top level, a name no statement of the cell assigned was
    made by a cell run before it (a notebook's): the latest such cell's."""
    root = expr.split(".", 1)[0].split("[", 1)[0]
    if not root.isidentifier():
        return None
    code = frame.f_code
    hit = _assigned_in(code.co_filename, code.co_name, lineno, root)
    if hit is not None:
        return hit + (code.co_filename,)
    number = _cells.get(code.co_filename)
    if code.co_name != "<module>" or number is None:
        return None
    for file, n in sorted(_cells.items(), key=lambda c: -c[1]):
        if n < number:
            hit = _assigned_in(file, "<module>", 1 << 30, root)
            if hit is not None:
                return hit + (file,)
    return None


def _assigned_in(filename, function, lineno, root):
    """(line, function) of _made_at's statement in filename's function (its
    innermost definition holding lineno; "<module>": the top level), or None."""
    import ast
    _, tree = _parse(filename)
    if tree is None:
        return None
    scope = tree
    if function != "<module>":
        scope = None
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function \
                    and node.lineno <= lineno <= (node.end_lineno or node.lineno):
                if scope is None or node.lineno >= scope.lineno:
                    scope = node
        if scope is None:
            return None
    found = {True: 0, False: 0}             # dominating -> the last line

    def assigns(st):
        if isinstance(st, ast.Assign):
            targets = st.targets
        elif isinstance(st, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
            targets = [st.target]
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            targets = [i.optional_vars for i in st.items if i.optional_vars is not None]
        else:
            targets = []
        return any(isinstance(n, ast.Name) and n.id == root for t in targets for n in ast.walk(t))

    def encloses(body):
        return bool(body) and body[0].lineno <= lineno <= (body[-1].end_lineno or body[-1].lineno)

    def scan(stmts, dominating):
        for st in stmts:
            if st.lineno > lineno:
                return
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if (st.end_lineno or st.lineno) < lineno and assigns(st):
                found[dominating] = max(found[dominating], st.lineno)
            bodies = [getattr(st, f, None) or [] for f in ("body", "orelse", "finalbody")]
            bodies += [h.body for h in getattr(st, "handlers", [])]
            for body in bodies:
                if body and isinstance(body[0], ast.stmt):
                    scan(body, dominating and (isinstance(st, (ast.With, ast.AsyncWith)) or encloses(body)))

    scan(scope.body, True)
    best = found[True] or found[False]
    return (best, function) if best else None


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


def _member(base, dotted):
    """model + "layers.0.weight" -> "model.layers[0].weight": an expression
    that evaluates to the parameter."""
    out = base
    for part in dotted.split("."):
        out += "[%s]" % part if part.isdigit() else ("." + part if part.isidentifier() else "[%r]" % part)
    return out


def _tensors_of(pairs, torch):
    """(expr, tensor, flags, module) for tensors among the values, and inside
    modules (their parameters and buffers, named expr.name) and lists."""
    out = []
    for text, v in pairs:
        if isinstance(v, torch.Tensor):
            out.append((text, v, _FLAG_PARAM if isinstance(v, torch.nn.Parameter) else 0, None))
        elif isinstance(v, torch.nn.Module):
            try:
                dev = getattr(v, "device", None)        # a Hugging Face model says where it is
            except Exception:
                dev = None
            if not isinstance(dev, torch.device):
                dev = None
            members = list(v.named_parameters())[:64] + list(v.named_buffers())[:64]
            for name, p in members:
                flags = _FLAG_PARAM | (_FLAG_MODULE_DEVICE if dev is not None and p.device == dev else 0)
                out.append((_member(text, name), p, flags, text))
        elif isinstance(v, (list, tuple)) and len(v) <= _MAX_TENSORS:
            for i, x in enumerate(v):
                if isinstance(x, torch.Tensor):
                    out.append(("%s[%d]" % (text, i), x, 0, None))
    return out


def _user_file(path):
    if path in _cells:
        return True                             # an IPython cell: the user's own code
    if path.startswith("<") or "/site-packages/" in path or "/dist-packages/" in path \
            or path.endswith("/_devcheck_hook.py") \
            or "/lib/python3." in path and path.split("/lib/python3.", 1)[1].split("/", 1)[0].isdigit():
        return False
    real = os.path.realpath(path) if path.startswith("/") else path
    return not any(real.startswith(root + os.sep) or path.startswith(root + os.sep) for root, _ in _roots)


def _explain(value, entries):
    """Reports value (entries: (frame, line), innermost first); returns the
    note, or "" when devcheck reported nothing."""
    torch = sys.modules.get("torch")
    if torch is None or not entries:
        return ""
    # The user's names for them: the innermost frame in the user's own code,
    # kept among the frames handed over even below the innermost _MAX_FRAMES.
    user = next(((f, l) for f, l in entries if _user_file(f.f_code.co_filename)), None)
    if len(entries) > _MAX_FRAMES:
        entries = entries[:_MAX_FRAMES - 1] + [user if user is not None and user not in entries[:_MAX_FRAMES - 1]
                                               else entries[_MAX_FRAMES - 1]]
    op_frame, op_line = entries[0]
    op = _tensors_of(_values(op_frame, _statement_exprs(op_frame.f_code.co_filename, op_line)), torch)
    if user is not None and user[0] is not op_frame:
        named = _tensors_of(_values(user[0], _statement_exprs(user[0].f_code.co_filename, user[1])), torch)
        renamed = []
        for text, t, flags, module in op:
            match = next((n for n in named if n[1] is t), None)
            if match is None:
                match = next((n for n in named if n[1].device == t.device and n[1].numel() and t.numel()
                              and n[1].data_ptr() == t.data_ptr()), None)
            renamed.append((match[0], t, flags | match[2], match[3]) if match else (text, t, flags, module))
        op = renamed
    tensors, seen = [], set()
    for text, t, flags, module in op:
        if id(t) in seen:
            continue
        seen.add(id(t))
        made = None
        if user is not None and not t.is_cuda:
            made = _made_at(user[0], user[1], text)
        tensors.append((text, t, flags, module, made))
    return _report(str(value).split("\n")[0], entries, tensors[:_MAX_TENSORS], user)


_struct_types = None


def _structs():
    """struct dc_fw_frame and struct dc_fw_tensor (core/verdict/verdict.h) as ctypes types."""
    global _struct_types
    if _struct_types is None:
        import ctypes

        class Frame(ctypes.Structure):
            _fields_ = [("file", ctypes.c_char_p), ("function", ctypes.c_char_p), ("source", ctypes.c_char_p),
                        ("line", ctypes.c_int)]

        class Tensor(ctypes.Structure):
            _fields_ = [("expr", ctypes.c_char_p), ("device", ctypes.c_char_p), ("module", ctypes.c_char_p),
                        ("made_file", ctypes.c_char_p), ("made_function", ctypes.c_char_p),
                        ("ptr", ctypes.c_size_t), ("flags", ctypes.c_int), ("made_line", ctypes.c_int)]

        _struct_types = (Frame, Tensor)
    return _struct_types


def _frames(Frame, entries, enc):
    import linecache
    frames = (Frame * max(len(entries), 1))()
    for i, (f, line) in enumerate(entries):
        name = f.f_code.co_filename
        frames[i] = Frame(enc(name), enc(f.f_code.co_name), enc(linecache.getline(name, line).strip() or None), line)
    return frames


def _report(message, entries, tensors, user):
    import ctypes
    lib = _devcheck()
    if lib is None:
        return ""
    Frame, Tensor = _structs()
    enc = lambda s: None if s is None else s.encode("utf-8", "replace")
    frames = _frames(Frame, entries, enc)
    ts = (Tensor * max(len(tensors), 1))()
    for i, (text, t, flags, module, made) in enumerate(tensors):
        ts[i] = Tensor(enc(text), enc(str(t.device)), enc(module), enc(made[2] if made else None),
                       enc(made[1] if made else None), t.data_ptr() if t.is_cuda else 0, flags,
                       made[0] if made else 0)
    note = ctypes.create_string_buffer(4096)
    fn = lib.devcheck_framework_error
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint, ctypes.POINTER(Frame), ctypes.c_uint,
                   ctypes.POINTER(Tensor), ctypes.c_char_p, ctypes.c_size_t]
    if fn(b"torch", enc(message), len(entries), frames, len(tensors), ts, note, len(note)) != 0:
        return ""
    return note.value.decode("utf-8", "replace")


_WRAPS = {_TRITON_DRIVER: lambda m: _wrap_launcher(getattr(m, "CudaLauncher", None)),
          _CUDA_DRIVER: _wrap_cuda_driver,
          _NUMBA_DISPATCHER: lambda m: _wrap_numba_kernel(getattr(m, "_Kernel", None)),
          _IPYTHON_COMPILER: lambda m: _wrap_ipython_cache(getattr(m, "CachingCompiler", None))}
