/* operands: which parameters of a kernel a launch dereferences -- the sim's
 * own reading of the kernel, shared with no other part of the project.
 *
 * A parameter is dereferenced when it is 8 bytes and the kernel's code says
 * it is a pointer to global memory:
 *  - the image: a `.ptr` declaration (PTX, or the cubin's KPARAM record of
 *    one, which Triton's kernels carry), or the PTX body using the
 *    parameter's value as an address (image.c, ptxflow.c);
 *  - the mangled name: the parameter's C++ type is a pointer
 *    (`_Z4vaddPKfS0_Pfi`: 0, 1 and 2), read from the demangled signature
 *    (libstdc++'s __cxa_demangle resolves substitutions and template
 *    parameters), when it lists as many parameters as the image.
 * Words inside a parameter passed by value (a struct, a closure, an array)
 * are never called dereferenced here: only a host twin's accesses can show
 * that one is (guard.c). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* libstdc++ (the sim links it): the Itanium demangler */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The index of the '(' that opens the parameter list ending at s[end] == ')'. */
static long open_paren(const char *s, long end)
{
    int depth = 0;
    for (long i = end; i >= 0; i--) {
        char c = s[i];
        if (c == ')' || c == ']' || c == '}')
            depth++;
        else if (c == '(' || c == '[' || c == '{') {
            if (--depth == 0)
                return c == '(' ? i : -1;
        }
    }
    return -1;
}

/* One parameter's type text [b, e): a data pointer when it ends in '*'
 * (qualifiers after it are dropped). */
static int is_pointer_type(const char *b, const char *e)
{
    for (;;) {
        while (e > b && e[-1] == ' ')
            e--;
        static const char *const quals[] = { "const", "volatile", "__restrict", "restrict" };
        int cut = 0;
        for (size_t q = 0; q < sizeof quals / sizeof quals[0] && !cut; q++) {
            size_t n = strlen(quals[q]);
            if ((size_t)(e - b) > n && !memcmp(e - n, quals[q], n) && (e[-n - 1] == ' ' || e[-n - 1] == '*')) {
                e -= n;
                cut = 1;
            }
        }
        if (!cut)
            break;
    }
    return e > b && e[-1] == '*';
}

/* Pointer parameters from the demangled signature into out[0..np); -1 when
 * the name is not a mangled function name or lists another count. */
static int mangled_pointers(const char *name, unsigned np, unsigned char *out)
{
    const char *z = name;
    if (!strncmp(z, "__nv_static_", 12)) {     /* __nv_static_<n>_<id>__Z... */
        z = strstr(z + 12, "_Z");
        if (!z)
            return -1;
    }
    if (strncmp(z, "_Z", 2) != 0)
        return -1;
    int status = 0;
    char *d = __cxa_demangle(z, NULL, NULL, &status);
    if (!d || status != 0) {
        free(d);
        return -1;
    }
    int rc = -1;
    long end = (long)strlen(d) - 1;
    long open = end > 0 && d[end] == ')' ? open_paren(d, end) : -1;
    if (open >= 0) {
        const char *p = d + open + 1, *stop = d + end;
        unsigned count = 0;
        int depth = 0, ok = 1;
        const char *start = p;
        if (stop - p == 4 && !memcmp(p, "void", 4))
            stop = p;
        for (const char *c = p; c <= stop && ok; c++) {
            if (c < stop && (*c == '(' || *c == '<' || *c == '[' || *c == '{'))
                depth++;
            else if (c < stop && (*c == ')' || *c == '>' || *c == ']' || *c == '}'))
                depth--;
            else if ((c == stop || (*c == ',' && depth == 0)) && c > start) {
                if (count < np)
                    out[count] = (unsigned char)is_pointer_type(start, c);
                count++;
                start = c + 1;
            }
            if (depth < 0)
                ok = 0;
        }
        if (ok && depth == 0 && count == np)
            rc = 0;
    }
    free(d);
    return rc;
}

const unsigned char *sim_kernel_derefs(const struct sim_kernel_info *cki)
{
    struct sim_kernel_info *ki = (struct sim_kernel_info *)cki;     /* deref: a cache, lock held */
    unsigned np = ki->nparams;
    if (!ki->deref) {
        /* np flags, then one byte: any flag set */
        unsigned char *d = calloc(np + 1, 1);
        unsigned char *mp = np ? calloc(np, 1) : NULL;
        if (!d || (np && !mp)) {
            free(d);
            free(mp);
            return NULL;        /* asked again next time */
        }
        int have_mangled = np && mangled_pointers(ki->name, np, mp) == 0;
        for (unsigned i = 0; i < np; i++) {
            if (ki->params[i].size != 8)
                continue;
            d[i] = (ki->ptr && ki->ptr[i]) || (have_mangled && mp[i]);
            d[np] |= d[i];
        }
        free(mp);
        ki->deref = d;
    }
    return ki->deref[np] ? ki->deref : NULL;
}
