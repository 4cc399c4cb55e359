/* Fuzz target: suppression files (report/suppress.c): the reader, the
 * matcher and the generator.  The input is split at its first NUL bytes
 * into a suppression file, a kernel name and a frame's function.
 * Invariants: the reader loads or refuses with one line naming the file;
 * matching is bounded (the glob is linear: no exponential backtracking, so
 * libFuzzer's time limit is the check) and agrees with fnmatch(3) on short
 * patterns; an entry --gen-suppressions writes for any name is read back
 * and matches that name (issue 40, case 6). */
#include "tests/fuzz/fuzz.h"
#include "common/format.h"
#include "report/suppress.h"

#include <fnmatch.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *part(const uint8_t **p, const uint8_t *end)
{
    const uint8_t *s = *p, *z = memchr(s, 0, (size_t)(end - s));
    *p = z ? z + 1 : end;
    return (const char *)s;
}

static int load_text(const char *text, size_t n, char *err, size_t errlen)
{
    int fd = memfd_create("fuzz_supp", MFD_CLOEXEC);
    if (fd < 0)
        return -2;
    int rc = -2;
    if (write(fd, text, n) == (ssize_t)n) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        rc = dc_supp_load(path, err, errlen);
    }
    close(fd);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 16))
        return 0;
    char *in = fuzz_cstr(data, size);              /* parts: each NUL-terminated */
    const uint8_t *p = (const uint8_t *)in, *end = (const uint8_t *)in + size;
    const char *file = part(&p, end), *kname = p < end ? part(&p, end) : "", *fun = p < end ? part(&p, end) : "";
    char err[512] = "";
    int rc = load_text(file, strlen(file), err, sizeof err);
    FUZZ_CHECK(rc == 0 || rc == -2 || (rc == -1 && !strncmp(err, "devcheck: ERROR: ", 17) && !strchr(err, '\n')));
    struct dc_sframe fr = { fun, fun, "/lib/libx.so", "/src/x.cu", 3, 0 };
    if (rc == 0) {
        int m = dc_supp_match("device_mismatch", kname, kname, &fr, 1, 1);
        FUZZ_CHECK(m >= -1 && m < (int)dc_supp_count());
    }
    dc_supp_reset();
    /* the glob against fnmatch on short patterns (fnmatch is exponential
     * in its stars: only a few) */
    size_t stars = 0;
    for (const char *c = file; *c; c++)
        stars += *c == '*';
    if (strlen(file) <= 32 && strlen(kname) <= 64 && stars <= 4 && !strstr(file, "[:") && !strstr(file, "[=") &&
        !strstr(file, "[."))
        FUZZ_CHECK(dc_supp_glob(file, kname) == (fnmatch(file, kname, 0) == 0));
    (void)dc_supp_glob(file, kname);                    /* any size: bounded */
    /* generated entries are read back and match what they were made for */
    if (*kname) {
        char *buf = malloc(1 << 16);
        if (buf) {
            struct dc_buf b = { buf, 1 << 16, 0, 0 };
            dc_supp_generate(&b, "device_mismatch", kname, &fr, *fun ? 1 : 0);
            if (!b.truncated) {
                rc = load_text(buf, b.pos, err, sizeof err);
                if (rc == -1)
                    fprintf(stderr, "fuzz_supp: the generated entry is refused: %s\n", err);
                FUZZ_CHECK(rc != -1);
                if (rc == 0)
                    FUZZ_CHECK(dc_supp_match("device_mismatch", kname, NULL, &fr, *fun ? 1 : 0, 0) == 0);
                dc_supp_reset();
            }
            free(buf);
        }
    }
    free(in);
    return 0;
}
