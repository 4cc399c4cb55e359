/* The Python frame reader (report/pystack.c) against a real CPython: the
 * test loads libpython (argv[1]) RTLD_GLOBAL, as a python executable links
 * it, runs the script argv[2] with runpy, and the script calls back into
 * this program through ctypes:
 *   probe(tag)        (ctypes.CDLL: the GIL released around the call) and
 *   probe_held(tag)   (ctypes.PyDLL: the GIL held) capture a stack;
 *   wait_and_probe(tag) captures from a thread that released the GIL while
 *                     the main thread holds it (hold_gil(), through PyDLL,
 *                     spins in C with the GIL until the capture is done): it
 *                     must neither deadlock nor lose its frames.
 * After the script, each tagged stack is symbolized and its Python frames
 * printed, one line per frame: "tag #i function file:line".  The shell
 * driver (pyframes.sh) compares them with the script's marked lines. */
#include "report/stack.h"
#include "report/symbolize.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NTAGS 16
static uint32_t ids[NTAGS];
static int entered, holding, captured;

__attribute__((visibility("default"), noinline)) void probe(int tag)
{
    if (tag >= 0 && tag < NTAGS)
        ids[tag] = dc_stack_capture(0);
}

__attribute__((visibility("default"), noinline)) void probe_held(int tag) { probe(tag); }

/* Called with the GIL released: waits (in C) until the main thread holds the
 * GIL, then captures. */
__attribute__((visibility("default"), noinline)) void wait_and_probe(int tag)
{
    __atomic_store_n(&entered, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
        usleep(1000);
    probe(tag);
    __atomic_store_n(&captured, 1, __ATOMIC_RELEASE);
}

__attribute__((visibility("default"))) int thread_entered(void)
{
    return __atomic_load_n(&entered, __ATOMIC_ACQUIRE);
}

/* Called with the GIL held (PyDLL): keeps it until the other thread captured. */
__attribute__((visibility("default"))) void hold_gil(void)
{
    __atomic_store_n(&holding, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&captured, __ATOMIC_ACQUIRE))
        usleep(1000);
}

static void *need(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "test_pyframes: %s not in the interpreter\n", name);
        exit(2);
    }
    return p;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_pyframes LIBPYTHON SCRIPT\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        fprintf(stderr, "test_pyframes: %s\n", dlerror());
        return 2;
    }
    /* before the interpreter starts: no Python frames, nothing breaks */
    uint32_t before = dc_stack_capture(0);
    void (*init)(void) = (void (*)(void))need(lib, "Py_InitializeEx");
    int (*run)(const char *) = (int (*)(const char *))need(lib, "PyRun_SimpleString");
    ((void (*)(int))init)(0);
    char code[4096];
    snprintf(code, sizeof code, "import runpy\nrunpy.run_path(%s%s%s, run_name='__main__')\n", "'", argv[2], "'");
    if (run(code) != 0) {
        fprintf(stderr, "test_pyframes: the script failed\n");
        return 1;
    }
    static struct dc_frame fr[DC_FRAMES_MAX];
    size_t n = dc_stack_symbolize(before, fr, DC_FRAMES_MAX);
    for (size_t i = 0; i < n; i++)
        if (fr[i].python)
            printf("before: unexpected Python frame %s\n", fr[i].function);
    for (int t = 0; t < NTAGS; t++) {
        if (!ids[t])
            continue;
        n = dc_stack_symbolize(ids[t], fr, DC_FRAMES_MAX);
        int k = 0, native = 0;
        for (size_t i = 0; i < n; i++) {
            if (!fr[i].python) {
                native++;
                continue;
            }
            const char *base = strrchr(fr[i].file, '/');
            printf("%d #%d %s %s:%d\n", t, k++, fr[i].function, base ? base + 1 : fr[i].file, fr[i].line);
        }
        printf("%d native %d\n", t, native);
    }
    return 0;
}
