/* How the sim's libcudnn.so.9 reaches its sub-libraries (shim.h).
 *
 * As NVIDIA's shim: dlopen of the sub-library the first time one of its
 * functions is called (RTLD_LOCAL: its names stay out of the global scope),
 * then dlsym.  The sim's shim loads the sub-library beside itself (its own
 * directory, from dladdr), so a program whose LD_LIBRARY_PATH also reaches
 * NVIDIA's cuDNN still gets the sim's; by soname when that fails. */
#include "shim.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NSUB 8
static struct { const char *name; void *handle; } subs[NSUB];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *load(const char *lib)
{
    Dl_info info;
    char path[PATH_MAX];
    void *h = NULL;
    if (dladdr((void *)&simdnn_shim_fn, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash && snprintf(path, sizeof path, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname, lib) <
                         (int)sizeof path)
            h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    return h ? h : dlopen(lib, RTLD_NOW | RTLD_LOCAL);
}

static void say(const char *name, const char *lib, const char *why)
{
    char line[512];
    int n = snprintf(line, sizeof line, "simcuda: libcudnn.so.9: could not load symbol %s from %s: %s\n", name, lib,
                     why ? why : "not found");
    if (n > 0)
        (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void *simdnn_shim_fn(void **slot, const char *lib, const char *name)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    pthread_mutex_lock(&lock);
    void *h = NULL;
    int i;
    for (i = 0; i < NSUB && subs[i].name; i++)
        if (!strcmp(subs[i].name, lib)) {
            h = subs[i].handle;
            break;
        }
    if (!h && i < NSUB) {
        h = load(lib);
        if (h) {
            subs[i].name = lib;
            subs[i].handle = h;
        }
    }
    const char *why = h ? NULL : dlerror();
    f = h ? dlsym(h, name) : NULL;
    if (h && !f)
        why = dlerror();
    pthread_mutex_unlock(&lock);
    if (!f)
        say(name, lib, why);
    else
        __atomic_store_n(slot, f, __ATOMIC_RELEASE);
    return f;
}

void simdnn_shim_note(atomic_flag *said, const char *line)
{
    if (!atomic_flag_test_and_set_explicit(said, memory_order_relaxed))
        (void)!write(2, line, strlen(line));
}
