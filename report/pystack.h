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
 * Resolution (report time only: findings) turns a pair into file, line and
 * function.  A code object may have been freed since the capture (a function
 * made by exec(), a module deleted): each pair carries the code's first line
 * number as a fingerprint, every read goes through process_vm_readv (an
 * unmapped address is an error, not a crash), and a code object whose type or
 * fingerprint no longer matches resolves to "<code object freed>" with line 0,
 * never to another function's name.  Code objects are immutable, so reading
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

/* Report time: the frame's file, line (0 if unknown) and function (co_name).
 * Returns 1, or 0 when the code object is gone (then "<code object freed>"). */
int dc_py_resolve(const struct dc_pyraw *r, char *file, size_t filelen, int *line, char *func, size_t funclen);

/* The base address of the object holding the interpreter (libpython, or the
 * python executable itself), 0 if none: native frames there are the
 * interpreter's own. */
uintptr_t dc_py_interpreter_base(void);

/* Is `file` the user's own code: not the standard library, site-packages,
 * dist-packages, or frozen/generated ("<...>")? */
int dc_py_user_file(const char *file);

#pragma GCC visibility pop
#endif
