/* Tiny assertion helpers for the driver tests: each test is a program that
 * exits 0 when every check held, 1 otherwise. */
#ifndef DRV_CHECK_H
#define DRV_CHECK_H
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

static int drv_failures;

static const char *drv_errname(CUresult r)
{
    const char *s = NULL;
    if (cuGetErrorName(r, &s) != CUDA_SUCCESS || !s)
        return "?";
    return s;
}

/* EXPECT(call, code): the call returns exactly `code`. */
#define EXPECT(call, code) do { \
        CUresult got_ = (call); \
        if (got_ != (code)) { \
            fprintf(stderr, "%s:%d: %s\n    returned %s (%d), expected %s (%d)\n", __FILE__, __LINE__, #call, \
                    drv_errname(got_), (int)got_, drv_errname(code), (int)(code)); \
            drv_failures++; \
        } \
    } while (0)
#define OK(call) EXPECT(call, CUDA_SUCCESS)
/* Stop at once: later checks depend on this one. */
#define MUST(call) do { \
        CUresult got_ = (call); \
        if (got_ != CUDA_SUCCESS) { \
            fprintf(stderr, "%s:%d: %s returned %s: cannot continue\n", __FILE__, __LINE__, #call, drv_errname(got_)); \
            exit(1); \
        } \
    } while (0)
#define TRUE(cond) do { \
        if (!(cond)) { \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            drv_failures++; \
        } \
    } while (0)
#define EQ(a, b) do { \
        long long a_ = (long long)(a), b_ = (long long)(b); \
        if (a_ != b_) { \
            fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, a_, #b, b_); \
            drv_failures++; \
        } \
    } while (0)

/* The bytes of file dir/name, NUL-terminated (PTX), length in *len unless
 * NULL; exits when it cannot be read. */
static inline void *drv_slurp(const char *dir, const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
        exit(1);
    b[n] = 0;
    fclose(f);
    if (len)
        *len = (size_t)n;
    return b;
}

static int drv_done(const char *name)
{
    if (drv_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, drv_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}
#endif
