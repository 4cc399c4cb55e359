/* Fuzz target: kernel names -- the hand parser of mangled parameter lists
 * (core/kernel/mangle.c, mangle_type.c) and the bounded demangler
 * (report/demangle.c, libiberty).  Invariants: the parser answers -1 or a
 * count no larger than the name allows; each parameter's kind is one the
 * header defines; the demangler's output is terminated within its buffer,
 * is the name itself when it says "not demangled", starts with the name
 * when it says "over the budget"; and (the differential check against the
 * maintained parser) where both parse a name, the hand parser counts as
 * many top-level parameters as libiberty's parse tree holds. */
#include "tests/fuzz/fuzz.h"
#include "core/kernel/mangle.h"
#include "report/demangle.h"

#include <libiberty/demangle.h>

/* The top-level parameters of a function name by libiberty's parse tree
 * (cplus_demangle_v3_components: the parser c++filt and gdb use; parsing
 * is linear in the name, nothing is printed), or -1. */
static int iberty_params(const char *name)
{
    void *mem = NULL;
    struct demangle_component *dc = cplus_demangle_v3_components(name, DMGL_PARAMS | DMGL_ANSI, &mem);
    int n = -1;
    if (dc && dc->type == DEMANGLE_COMPONENT_TYPED_NAME) {
        const struct demangle_component *ft = dc->u.s_binary.right;
        if (ft && ft->type == DEMANGLE_COMPONENT_FUNCTION_TYPE) {
            n = 0;
            for (const struct demangle_component *a = ft->u.s_binary.right;
                 a && a->type == DEMANGLE_COMPONENT_ARGLIST; a = a->u.s_binary.right)
                if (a->u.s_binary.left && a->u.s_binary.left->type == DEMANGLE_COMPONENT_PACK_EXPANSION)
                    n = -1000;      /* a pack: one node here, its arguments in the hand parser's count */
                else
                    n += a->u.s_binary.left != NULL;
            const struct demangle_component *a = ft->u.s_binary.right;
            if (n == 1 && a->u.s_binary.left->type == DEMANGLE_COMPONENT_BUILTIN_TYPE) {
                size_t sz;
                char *t = cplus_demangle_print(0, a->u.s_binary.left, 8, &sz);
                if (t && !strcmp(t, "void"))
                    n = 0;          /* f(void) */
                free(t);
            }
        }
    }
    free(mem);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *name = fuzz_cstr(data, size);
    size_t len = strlen(name);
    struct dc_sig_param p[64];
    int n = dc_sig_params(name, p, 64);
    FUZZ_CHECK(n >= -1);
    if (n >= 0) {
        FUZZ_CHECK((size_t)n <= 64 * len + 1);
        for (int i = 0; i < n && i < 64; i++)
            FUZZ_CHECK(p[i].kind <= DC_SIG_SCALAR_ARRAY);
    }
    /* the differential check: where both parse a name, as many top-level
     * parameters as libiberty finds (numba's arrays, which the hand parser
     * expands, left out; libiberty refuses some names the hand parser reads,
     * a real cuDNN kernel's among them: report/FORMAT.md) */
    if (n >= 0 && !strstr(name, "5Array")) {
        int m = iberty_params(name);
        if (m < 0)          /* libiberty refuses it (or a pack): nothing to compare */
            m = n;
        if (m != n)
            fprintf(stderr, "fuzz_mangle: '%s': the hand parser reads %d parameters, libiberty %d\n", name, n, m);
        FUZZ_CHECK(m == n);
    }
    char out[1024];
    int rc = dc_demangle(name, out, sizeof out);
    FUZZ_CHECK(rc >= -2 && rc <= 0);
    FUZZ_CHECK(memchr(out, 0, sizeof out) != NULL);
    if (rc == -1)
        FUZZ_CHECK(!strncmp(out, name, strlen(out)) && strlen(out) == (len < sizeof out ? len : sizeof out - 1));
    if (rc == -2)
        FUZZ_CHECK(!strncmp(out, name, strlen(out) < len ? strlen(out) : len));
    free(name);
    return 0;
}
