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
 * Bounded work: a name's substitutions can make its printed form double with
 * every few bytes of input (213 bytes that print 2^40 characters), and the
 * printer runs until it has printed everything.  put() counts what the
 * printer produced and, past DC_DEMANGLE_OUT_MAX, jumps back out of it:
 * the demangler's work space is its callers' stack arrays (no heap, no lock,
 * nothing to release), so leaving through longjmp loses nothing.  Such a name
 * is shown mangled, with its length (`_Z1f... [213-byte name, demangled over
 * 65536 bytes]`).
 *
 * ABI tags are left out of the result: numba tags every kernel with its
 * version and a base64 digest of its compile flags
 * (`add[abi:v1][abi:cw51cXTLSUwv1sDU...]`), and `[abi:cxx11]` says nothing
 * to a reader either.  Filters still see the mangled name. */
#include "report/demangle.h"

#include <libiberty/demangle.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#define DC_DEMANGLE_IN_MAX 8192

struct sink {
    char *out;
    size_t len, pos;
    size_t total;           /* bytes the printer produced, kept or not */
    jmp_buf over;           /* taken once total passes DC_DEMANGLE_OUT_MAX */
};

static void put(const char *s, size_t n, void *opaque)
{
    struct sink *k = opaque;
    k->total += n;
    if (k->total > DC_DEMANGLE_OUT_MAX)
        longjmp(k->over, 1);
    if (k->pos + n >= k->len)
        n = k->len - 1 - k->pos;
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

/* 1 demangled, 0 not a name libiberty reads, -1 over the budget.  Apart
 * from dc_demangle so that nothing live across setjmp is a register. */
static __attribute__((noinline)) int print_bounded(const char *name, struct sink *k)
{
    if (setjmp(k->over))
        return -1;
    return cplus_demangle_v3_callback(name, DMGL_PARAMS | DMGL_ANSI, put, k) ? 1 : 0;
}

int dc_demangle(const char *name, char *out, size_t len)
{
    if (!len)
        return -1;
    snprintf(out, len, "%s", name ? name : "");
    if (!name || name[0] != '_' || name[1] != 'Z' || strnlen(name, DC_DEMANGLE_IN_MAX) >= DC_DEMANGLE_IN_MAX)
        return -1;
    struct sink k = { .out = out, .len = len };
    out[0] = 0;
    int rc = print_bounded(name, &k);
    if (rc < 0) {
        snprintf(out, len, "%s [%zu-byte name, demangled over %d bytes]", name, strlen(name),
                 DC_DEMANGLE_OUT_MAX);
        return -2;
    }
    if (!rc || !out[0]) {
        snprintf(out, len, "%s", name);
        return -1;
    }
    drop_abi_tags(out);
    return 0;
}
