/* python: devcheck's side of framework errors (core/verdict/framework.c has the
 * finding; preload/python/ the interpreter side, put on PYTHONPATH by the
 * wrapper).
 *
 * Raise time.  PyTorch turns every C++ error of an op into a Python
 * exception in one exported function, torch::translate_exception_to_python
 * (libtorch_python.so; HANDLE_TH_ERRORS / END_HANDLE_TH_ERRORS and the
 * pybind11 bindings call it, the seeds' c10::Error included), with the GIL
 * held.  devcheck defines it: a preloaded definition wins every call, from
 * any CPython version (libtorch_python.so binds to the first definition in
 * the global scope).  The hook calls torch's own definition first (found in
 * the object whose SONAME is libtorch_python.so, dc_resolve_lib, not with
 * dlsym(RTLD_NEXT): it is loaded RTLD_LOCAL), so the Python exception is
 * exactly torch's; then, when its message is one of the device-mismatch
 * messages (a test in C, no interpreter work), it hands the exception to
 * _devcheck_hook.raised(), which explains it where it is raised -- caught
 * or not -- and attaches devcheck's note to it.  The pending exception is
 * taken out around that call and put back as it was; whatever the hook
 * raises is cleared.  An error torch raises inside the hook's own work is
 * not explained (one level only).
 *
 * Exported (exports.map.in):
 *  - _ZN5torch29translate_exception_to_pythonERKNSt15__exception_ptr13exception_ptrE
 *    (the mangled name, the same from torch 2.2 to 2.15);
 *  - int devcheck_framework_error(framework, message, nframes, frames,
 *        ntensors, tensors, note, note_len): the hook's report (core.h,
 *        dc_framework_error; 0 reported, -1 not: devcheck not started, inside
 *        a hook, bad arguments);
 *  - int devcheck_framework_match(message): 1 for a device-mismatch message
 *        (the excepthook's test);
 *  - size_t devcheck_pointer_refusal(void): the pointer the driver last
 *        refused on this thread that devcheck knows is another device's
 *        memory, 0 none (the Triton launcher's wrapper asks it when Triton
 *        raises its ValueError; core.h, dc_pointer_refusal_pending);
 *  - int devcheck_pointer_refused(framework, message, param, nframes, frames,
 *        ntensors, tensors, note, note_len): the hook's report of that
 *        refusal (core.h, dc_pointer_refused_error; 0 reported, -1 not);
 *  - int devcheck_python_cell(file, number): an IPython cell's file name
 *        (report/pystack.h, dc_py_cell_add; 1 added, 0 known, -1 not);
 *  - int devcheck_kernel_params(kernel, n, names): a JIT kernel's
 *        parameters by the names its source gives them (Triton's launcher,
 *        once per compiled kernel; core/kernel/pnames.h; 0 kept, -1 not);
 *  - int devcheck_report_on_stderr(void): 1 when this process's text
 *        reports go to stderr (no log_path): an uncaught error's traceback
 *        then follows its report, and the hook shortens the note;
 *  - devcheck_test_begin, devcheck_test_findings: the pytest plugin's
 *        windows (below). */
#include "preload/preload.h"
#include "core/core.h"
#include "report/report.h"
#include "report/pystack.h"
#include "report/sinks.h"

#include <dlfcn.h>
#include <link.h>

/* The hook's calls: "" in note, and whether devcheck may work now (then the
 * guard is held: dc_guard-- when done). */
static int py_enter(char *note, size_t note_len)
{
    if (note && note_len)
        note[0] = 0;
    if (dc_guard)
        return 0;
    if (!__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE) && !dc_enter_slow())
        return 0;
    dc_guard++;
    return 1;
}

DC_EXPORT int devcheck_framework_error(
    const char *framework, const char *message, unsigned nframes, const struct dc_fw_frame *frames,
    unsigned ntensors, const struct dc_fw_tensor *tensors, char *note, size_t note_len)
{
    if (!py_enter(note, note_len))
        return -1;
    int rc = dc_framework_error(framework, message, nframes, frames, ntensors, tensors, note, note_len);
    dc_guard--;
    return rc;
}

DC_EXPORT size_t devcheck_pointer_refusal(void)
{
    return dc_pointer_refusal_pending();
}

DC_EXPORT int devcheck_pointer_refused(const char *framework, const char *message, int param, unsigned nframes,
                                       const struct dc_fw_frame *frames, unsigned ntensors,
                                       const struct dc_fw_tensor *tensors, char *note, size_t note_len)
{
    if (!py_enter(note, note_len))
        return -1;
    int rc = dc_pointer_refused_error(framework, message, param, nframes, frames, ntensors, tensors, note, note_len);
    dc_guard--;
    return rc;
}

DC_EXPORT int devcheck_kernel_params(const char *kernel, unsigned n, const char *const *names)
{
    return dc_pnames_set(kernel, n, names);
}

DC_EXPORT int devcheck_report_on_stderr(void)
{
    const char *log = dc_sinks_log_used();
    return !log || !*log;
}

DC_EXPORT int devcheck_framework_match(const char *message)
{
    return dc_framework_device_message(message);
}

/* The pytest plugin's thin module (packaging/python/devcheck/_native.py):
 * devcheck_test_begin(nodeid) as a test starts (NULL after it),
 * devcheck_test_findings(out, len) for what the test found, as merged
 * JSON Lines with each finding's headline and report (report/report.h).
 * -1: devcheck not started or inside a hook; the data stays here. */
DC_EXPORT int devcheck_test_begin(const char *nodeid)
{
    if (dc_guard)
        return -1;
    if (!__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE) && !dc_enter_slow())
        return -1;
    dc_guard++;
    dc_report_test_begin(nodeid);
    dc_guard--;
    return 0;
}

/* devcheck's Python hook, as it starts: a folder where the interpreter put
 * libraries, and the rule that says so (report/pystack.h, dc_py_root_add);
 * their files are never the user's code.  Listed at verbosity 1 (report.c). */
DC_EXPORT int devcheck_library_root(const char *rule, const char *path)
{
    return dc_py_root_add(rule, path);
}

/* devcheck's Python hook, as IPython caches a cell: the file it compiled
 * cell `number` under (report/pystack.h, dc_py_cell_add); a report names it
 * `Cell In[number]`. */
DC_EXPORT int devcheck_python_cell(const char *file, int number)
{
    return dc_py_cell_add(file, number);
}

/* The pytest plugin's devcheck_expected marker for the test that just began
 * (kinds comma-separated, "" every kind; report/testname.h). */
DC_EXPORT int devcheck_test_expect(const char *kinds)
{
    if (dc_guard)
        return -1;
    if (!__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE) && !dc_enter_slow())
        return -1;
    dc_guard++;
    dc_report_test_expect(kinds);
    dc_guard--;
    return 0;
}

DC_EXPORT long devcheck_test_findings(char *out, size_t len)
{
    if (dc_guard)
        return -1;
    if (!__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE) && !dc_enter_slow())
        return -1;
    dc_guard++;
    size_t n = dc_report_test_findings(out, len);
    dc_guard--;
    return (long)n;
}

/* --- raise time: torch::translate_exception_to_python ------------------------ */

#define TORCH_TRANSLATE _ZN5torch29translate_exception_to_pythonERKNSt15__exception_ptr13exception_ptrE
#define STR_(x) #x
#define STR(x) STR_(x)

/* The interpreter's C API, from the process (the python executable or a
 * libpython in the global scope); PyObject * as void *. */
static struct {
    int (*is_initialized)(void);
    int (*gil_check)(void);
    void (*fetch)(void **, void **, void **);
    void (*normalize)(void **, void **, void **);
    void (*restore)(void *, void *, void *);
    void (*clear)(void);
    void *(*str)(void *);
    const char *(*utf8)(void *);
    void *(*import)(const char *);
    void *(*call_method)(void *, const char *, const char *, ...);
    void (*decref)(void *);
} py;
static int py_state;                    /* 0 not looked, 1 found, -1 missing */
static __thread int in_raise;           /* this thread is in the hook's own work */

static int py_bind(void)
{
    int s = __atomic_load_n(&py_state, __ATOMIC_ACQUIRE);
    if (s)
        return s > 0;
    /* The GIL is held: one thread at a time gets here. */
#define PY_SYM(field, name) (*(void **)&py.field = dlsym(RTLD_DEFAULT, name))
    int ok = PY_SYM(is_initialized, "Py_IsInitialized") && PY_SYM(gil_check, "PyGILState_Check") &&
             PY_SYM(fetch, "PyErr_Fetch") && PY_SYM(normalize, "PyErr_NormalizeException") &&
             PY_SYM(restore, "PyErr_Restore") && PY_SYM(clear, "PyErr_Clear") && PY_SYM(str, "PyObject_Str") &&
             PY_SYM(utf8, "PyUnicode_AsUTF8") && PY_SYM(import, "PyImport_ImportModule") &&
             PY_SYM(call_method, "PyObject_CallMethod") && PY_SYM(decref, "Py_DecRef");
#undef PY_SYM
    __atomic_store_n(&py_state, ok ? 1 : -1, __ATOMIC_RELEASE);
    return ok;
}

/* The pending exception, when its message is a device mismatch: handed to
 * _devcheck_hook.raised(exception) and put back unchanged. */
static void explain_pending(void)
{
    if (!py_bind() || !py.is_initialized() || !py.gil_check())
        return;
    void *type = NULL, *value = NULL, *tb = NULL;
    py.fetch(&type, &value, &tb);
    if (!type)
        return;
    int match = 0;
    void *s = value ? py.str(value) : NULL;     /* 3.11: value may still be the message itself */
    if (s) {
        match = dc_framework_device_message(py.utf8(s));
        py.decref(s);
    }
    py.clear();
    if (match) {
        py.normalize(&type, &value, &tb);       /* the exception object the program will see */
        void *mod = py.import("_devcheck_hook");
        void *r = mod && value ? py.call_method(mod, "raised", "O", value) : NULL;
        if (r)
            py.decref(r);
        if (mod)
            py.decref(mod);
        py.clear();
    }
    py.restore(type, value, tb);
}

typedef void translate_fn(const void *);
static translate_fn *real_translate;

/* torch's own definition: in libtorch_python.so by its SONAME, else in the
 * object that called us (a copy of it under another name). */
static translate_fn *find_translate(void *caller)
{
    translate_fn *p;
    *(void **)&p = dc_resolve_lib("libtorch_python.so", STR(TORCH_TRANSLATE), NULL);
    Dl_info info;
    struct link_map *lm = NULL;
    if (!p && caller && dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm && lm->l_name && lm->l_name[0])
        *(void **)&p = dc_resolve_lib(lm->l_name, STR(TORCH_TRANSLATE), NULL);
    return p;
}

DC_EXPORT void TORCH_TRANSLATE(const void *eptr);
void TORCH_TRANSLATE(const void *eptr)
{
    translate_fn *real = __atomic_load_n(&real_translate, __ATOMIC_ACQUIRE);
    if (!real) {
        real = find_translate(__builtin_return_address(0));
        if (!real) {
            /* Not expected: the caller defines it.  Without torch's own
             * nothing can say what the C++ error was; a Python error must
             * still be set (else the interpreter raises SystemError). */
            dc_log("torch::translate_exception_to_python: torch's own definition not found");
            void (*set)(void *, const char *) = NULL;
            void **type = dlsym(RTLD_DEFAULT, "PyExc_RuntimeError");
            *(void **)&set = dlsym(RTLD_DEFAULT, "PyErr_SetString");
            if (set && type)
                set(*type, "a C++ error (devcheck could not find torch::translate_exception_to_python to translate it)");
            return;
        }
        __atomic_store_n(&real_translate, real, __ATOMIC_RELEASE);
    }
    real(eptr);
    if (in_raise || !dc_opt.framework_errors)
        return;
    in_raise++;
    explain_pending();
    in_raise--;
}
