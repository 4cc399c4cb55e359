/* demangle: Itanium C++ names made readable in every process.
 *
 * The demangler is linked in: libiberty's cplus_demangle_v3_callback (the one
 * c++filt and gdb use), from Debian's libiberty-dev, a static archive built
 * position-independent.  Looking the program's __cxa_demangle up at report
 * time found nothing in most Python processes (CPython loads libstdc++ only
 * as a local dependency of extension modules, so dlsym(RTLD_DEFAULT) misses
 * it), and kernel names stayed mangled there.  Linked statically it adds no
 * dependency to libdevcheck.so, and the version script keeps its symbols
 * local: nothing of it enters the program's symbol resolution.
 *
 * The callback form writes into our fixed buffer: no allocation, no global
 * state, thread-safe (the demangler keeps its work space on the stack, sized
 * by the name; names longer than DC_DEMANGLE_IN_MAX are left as they are).
 *
 * ABI tags are left out of the result: numba tags every kernel with its
 * version and a base64 digest of its compile flags
 * (`add[abi:v1][abi:cw51cXTLSUwv1sDU...]`), and `[abi:cxx11]` says nothing
 * to a reader either.  Filters still see the mangled name. */
#include "report/demangle.h"

#include <libiberty/demangle.h>
#include <stdio.h>
#include <string.h>

#define DC_DEMANGLE_IN_MAX 8192

struct sink {
    char *out;
    size_t len, pos;
    int truncated;
};

static void put(const char *s, size_t n, void *opaque)
{
    struct sink *k = opaque;
    if (k->pos + n >= k->len) {
        n = k->len - 1 - k->pos;
        k->truncated = 1;
    }
    memcpy(k->out + k->pos, s, n);
    k->pos += n;
    k->out[k->pos] = 0;
}

/* Removes every "[abi:...]" from s, in place. */
static void drop_abi_tags(char *s)
{
    char *w = s;
    for (const char *r = s; *r;) {
        if (!strncmp(r, "[abi:", 5)) {
            const char *e = strchr(r, ']');
            if (e) {
                r = e + 1;
                continue;
            }
        }
        *w++ = *r++;
    }
    *w = 0;
}

int dc_demangle(const char *name, char *out, size_t len)
{
    if (!len)
        return -1;
    snprintf(out, len, "%s", name ? name : "");
    if (!name || name[0] != '_' || name[1] != 'Z' || strnlen(name, DC_DEMANGLE_IN_MAX) >= DC_DEMANGLE_IN_MAX)
        return -1;
    struct sink k = { out, len, 0, 0 };
    out[0] = 0;
    if (!cplus_demangle_v3_callback(name, DMGL_PARAMS | DMGL_ANSI, put, &k) || !out[0]) {
        snprintf(out, len, "%s", name);
        return -1;
    }
    drop_abi_tags(out);
    return 0;
}
