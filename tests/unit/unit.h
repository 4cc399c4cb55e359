/* Minimal assertions for the core unit tests: CHECK records a failure with
 * its location and goes on; main returns unit_done() (exit status 1 if any
 * check failed). */
#ifndef DEVCHECK_UNIT_H
#define DEVCHECK_UNIT_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_failures, unit_checks;

#define CHECK(cond) do { \
        unit_checks++; \
        if (!(cond)) { \
            unit_failures++; \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        } \
    } while (0)

#define CHECK_EQ_LL(a, b) do { \
        long long _a = (long long)(a), _b = (long long)(b); \
        unit_checks++; \
        if (_a != _b) { \
            unit_failures++; \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", \
                    __FILE__, __LINE__, #a, #b, _a, _b); \
        } \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle) do { \
        const char *_h = (hay), *_n = (needle); \
        unit_checks++; \
        if (!_h || !strstr(_h, _n)) { \
            unit_failures++; \
            fprintf(stderr, "%s:%d: CHECK failed: '%.400s'... does not contain '%s'\n", \
                    __FILE__, __LINE__, _h ? _h : "(null)", _n); \
        } \
    } while (0)

/* Where a test writes its report files: `given` (the test scripts pass a
 * fresh directory), else a new directory /tmp/devcheck-NAME.XXXXXX, said on
 * stdout -- never the working directory, where a later run would append to
 * an earlier run's files. */
static inline const char *unit_outdir(const char *name, const char *given)
{
    static char dir[256];
    if (given)
        return given;
    snprintf(dir, sizeof dir, "/tmp/devcheck-%s.XXXXXX", name);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(2);
    }
    printf("%s: report files in %s\n", name, dir);
    return dir;
}

/* The whole of file `path`, NUL-terminated (free it), its length in *len
 * when len is not NULL; NULL if it cannot be read. */
static inline char *unit_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    if (b)
        b[n] = 0;
    fclose(f);
    if (b && len)
        *len = (size_t)n;
    return b;
}

static inline int unit_done(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
    return unit_failures ? 1 : 0;
}
#endif
