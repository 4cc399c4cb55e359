/* Fuzz target: the NVRTC source scanner (core/kernel/source.c,
 * dc_source_parse).  Invariants: the text is read within its length (the
 * input sits in a buffer of exactly its size, with no NUL after it); every
 * kernel reported has a non-empty name no longer than the text; each
 * parameter's kind is one the header defines, with the size it promises (a
 * pointer: 8); the count returned is the number of callbacks. */
#include "tests/fuzz/fuzz.h"
#include "core/kernel/source.h"

struct seen {
    size_t len;
    unsigned calls;
};

static void on_kernel(void *arg, const char *name, int extern_c, const struct dc_src_param *p, unsigned n)
{
    struct seen *s = arg;
    (void)extern_c;
    s->calls++;
    FUZZ_CHECK(name && name[0] && strlen(name) <= s->len);
    FUZZ_CHECK(n == 0 || p);
    for (unsigned i = 0; i < n; i++) {
        FUZZ_CHECK(p[i].kind <= DC_SRC_SCALAR);
        if (p[i].kind == DC_SRC_POINTER)
            FUZZ_CHECK(p[i].size == 8);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size || size > (1u << 20))     /* a length of 0 means "up to the NUL" (source.h) */
        return 0;
    struct seen s = { size, 0 };
    unsigned k = dc_source_parse((const char *)data, size, on_kernel, &s);
    FUZZ_CHECK(k == s.calls);
    return 0;
}
