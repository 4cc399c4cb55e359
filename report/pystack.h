/* pystack: the calling thread's Python frames (CPython 3.9 to 3.13), read
 * without the GIL and without creating a Python object, as faulthandler's
 * _Py_DumpTraceback does.  Nothing here is linked against libpython: the
 * interpreter is found in the process at run time (dlsym of its exported
 * functions), its version chosen from Py_GetVersion(), and its frames read by
 * the version's own layout (3.13: the offsets the interpreter publishes in
 * _PyRuntime.debug_offsets).
 *
 * Capture (hot path, report/stack.c: with every allocation and launch stack)
 * takes (code object, instruction offset) pairs: no allocation, no lock, no
 * system call; a process without Python pays one load and a branch.  A thread
 * inside a CUDA call is not running Python, so its own frame chain is stable,
 * whether or not it released the GIL around the call (Triton's launcher,
 * ctypes, most extensions).  Its thread state comes from
 * PyGILState_GetThisThreadState(), the thread's own (a thread-specific key),
 * never from the GIL holder.
 *
 * A stack seen for the first time (report/stackdepot.c deduplicates them)
 * has its code objects described at once, while the frames hold them: file, name,
 * first line, a copy of the line table, once per code object.  Report time
 * reads only those descriptions, so a code object freed before the report
 * (a function made by exec(), a finished script's module code, a module
 * deleted) still resolves to its own file, line and name.  The capture's
 * reads go to live objects only; code objects are immutable, so reading
 * them without the GIL is safe. */
#ifndef DEVCHECK_PYSTACK_H
#define DEVCHECK_PYSTACK_H
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define DC_PYSTACK_MAX 32       /* innermost frames kept */

/* One captured Python frame: two words, compared bitwise for deduplication. */
struct dc_pyraw {
    uintptr_t code;             /* the PyCodeObject */
    uint32_t offset;            /* byte offset of the current instruction in the code */
    int32_t firstlineno;        /* the code's co_firstlineno at capture (fingerprint) */
};

/* The calling thread's Python frames, innermost first, up to max; 0 when the
 * process has no supported interpreter or the thread runs no Python. */
size_t dc_py_capture(struct dc_pyraw *out, size_t max);

/* A new stack's frames: ids[i] names the description of py[i]'s code object
 * (0 if it could not be made: no memory).  Allocates; takes a lock. */
void dc_py_describe(const struct dc_pyraw *py, size_t n, uint32_t *ids);
/* Report time: file, line (0 if unknown) and function (co_name) of a frame
 * at byte offset `offset` in the code described by `id`.  Returns 1, or 0
 * for an unknown id (then "<unknown>"). */
int dc_py_resolve(uint32_t id, uint32_t offset, char *file, size_t filelen, int *line, char *func, size_t funclen);
/* fork handlers (report/stack.c calls them after its own) */
void dc_py_fork_prepare(void);
void dc_py_fork_parent(void);
void dc_py_fork_child(void);

/* The base address of the object holding the interpreter (libpython, or the
 * python executable itself), 0 if none: native frames there are the
 * interpreter's own. */
uintptr_t dc_py_interpreter_base(void);

/* Is `file` the user's own code: under no library root, and not the
 * standard library, site-packages, dist-packages, or frozen/generated
 * ("<...>")? */
int dc_py_user_file(const char *file);
/* The rule that makes `file` a library's, or NULL for the user's code: a
 * root's rule (*root its folder), else "site-packages", "dist-packages",
 * "stdlib" (.../lib/python3.N/), "generated". */
const char *dc_py_library_rule(const char *file, const char **root);
/* Library roots, told by devcheck's Python hook where the interpreter put
 * its libraries (rules "prefix", "site-packages", "distribution": a folder on
 * sys.path holding an installed distribution, as `pip install --target`
 * leaves it; "editable": an editable install's source (direct_url.json);
 * "pth": a folder a .pth file adds; "pythonpath": a PYTHONPATH entry holding
 * a distribution), or by the library_roots option ("option").  An absolute
 * path; 1 added, 0 known already, -1 refused (relative, too long, full). */
int dc_py_root_add(const char *rule, const char *path);
/* Root i (its rule in *rule), NULL past the last. */
const char *dc_py_root_at(unsigned i, const char **rule);
/* Each comma-separated path of list under rule. */
void dc_py_roots_add_list(const char *rule, const char *list);

/* IPython's cells (a Jupyter kernel's, an IPython shell's): the file name
 * IPython compiled cell `number` under (ipykernel: .../ipykernel_<pid>/<hash>.py;
 * IPython: <ipython-input-N-hash>), told by devcheck's Python hook as
 * IPython caches the cell.  A cell is the user's code (dc_py_user_file), and
 * a report names it as IPython's traceback does: `Cell In[3], line 2`
 * (dc_py_cell).  1 added, 0 known already (the number is kept), -1 refused
 * (too long, full). */
int dc_py_cell_add(const char *file, int number);
/* The execution count of the cell compiled under `file`, or -1 when it is
 * not a cell. */
int dc_py_cell(const char *file);

/* Bytes the descriptions of code objects hold: --stats. */
size_t dc_py_bytes(void);

#pragma GCC visibility pop
#endif
