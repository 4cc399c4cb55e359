/* Helpers of the fuzz targets (tests/fuzz/fuzz_*.c).  Each target defines
 * LLVMFuzzerTestOneInput and asserts its reader's own contract with
 * FUZZ_CHECK, not only "did not crash": a broken invariant aborts, which
 * libFuzzer reports as a finding and the corpus replay (replay_main.c) as a
 * failed test. */
#ifndef DEVCHECK_FUZZ_H
#define DEVCHECK_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond) do { \
        if (!(cond)) { \
            fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            abort(); \
        } \
    } while (0)

/* The input as a NUL-terminated string in a buffer of exactly size + 1
 * bytes (ASan sees a read past it); free it. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#endif
