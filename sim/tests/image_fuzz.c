/* image_fuzz: truncated and corrupted images never crash sim_image_parse()
 * and never read outside the bytes given (each input sits in a buffer of
 * exactly its size, so the SANITIZE=address build catches any overread).
 * Truncated binary images must be refused; mutated ones may parse, but only
 * into sane kernels.  Deterministic: a fixed xorshift seed.
 *
 * Unsized images (cuModuleLoadData passes no size; issue 40): a cubin whose
 * headers claim more than the program mapped -- a .symtab of 0xffffffff
 * bytes, one of 1.5 MiB, a section header table far away -- is refused
 * (CUDA_ERROR_INVALID_IMAGE), not read: each sits at the very end of its
 * mapping, the page after it unmapped, so a read past it faults. */
#include "image.h"

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int failures;
/* reports the first few failures of a kind, counts all */
#define FAIL(...) do {                                                      \
        if (failures++ < 20) fprintf(stderr, __VA_ARGS__);                  \
    } while (0)
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void *load(const char *file, size_t *size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", IMAGE_DIR, file);
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *d = malloc((size_t)n);
    if (!d || fread(d, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(2); }
    fclose(f);
    *size = (size_t)n;
    return d;
}

/* Parses a private copy of exactly n bytes; returns the result. */
static int parse_copy(const char *what, const uint8_t *src, size_t n)
{
    uint8_t *d = malloc(n);
    if (!d) exit(2);
    memcpy(d, src, n);
    struct sim_image img;
    int rc = sim_image_parse(d, n, &img);
    if (rc != 0 && rc != -1) {
        FAIL("FAIL %s: rc %d\n", what, rc);
    }
    if (rc == -1 && (img.nkernels || img.kernels)) {
        FAIL("FAIL %s: -1 with kernels left in *out\n", what);
    }
    for (unsigned i = 0; rc == 0 && i < img.nkernels; i++) {
        const struct sim_kernel_info *k = &img.kernels[i];
        int bad = !k->name || !k->name[0] || !k->base || (k->nparams && !k->params);
        for (unsigned j = 0; !bad && j < k->nparams; j++)
            bad = k->params[j].size == 0 || k->params[j].offset + k->params[j].size > 32764;
        if (bad) {
            FAIL("FAIL %s: insane kernel %u\n", what, i);
            break;
        }
    }
    sim_image_free(&img);
    free(d);
    return rc;
}

static void fuzz(const char *file, int binary, int rounds)
{
    size_t n;
    uint8_t *img = load(file, &n);
    if (parse_copy(file, img, n) != 0) {
        FAIL("FAIL %s: the intact image does not parse\n", file);
    }
    /* every truncation */
    for (size_t len = 1; len < n; len++) {
        int rc = parse_copy(file, img, len);
        if (binary && rc != -1) {
            FAIL("FAIL %s: truncated to %zu bytes but accepted\n", file, len);
        }
    }
    /* random corruption: 1..8 bytes, half of the time in the first 256 bytes
     * (headers), sometimes with a truncation too */
    uint8_t *m = malloc(n);
    if (!m) exit(2);
    for (int r = 0; r < rounds; r++) {
        memcpy(m, img, n);
        int k = 1 + (int)(next() % 8);
        for (int i = 0; i < k; i++) {
            size_t at = (next() & 1) ? next() % (n < 256 ? n : 256) : next() % n;
            uint64_t v = next();
            switch (v % 4) {
            case 0: m[at] ^= (uint8_t)(1u << (v >> 8) % 8); break;
            case 1: m[at] = 0xff; break;
            case 2: m[at] = 0; break;
            default: m[at] = (uint8_t)(v >> 16); break;
            }
        }
        size_t len = (next() % 8 == 0) ? 1 + next() % n : n;
        parse_copy(file, m, len);
    }
    /* PTX is also read unsized, up to its NUL: every NUL-terminated prefix */
    if (!binary) {
        char *s = malloc(n + 1);
        if (!s) exit(2);
        for (size_t len = 0; len <= n; len += 7) {
            char *t = malloc(len + 1);
            if (!t) exit(2);
            memcpy(t, img, len);
            t[len] = '\0';
            struct sim_image im;
            if (sim_image_parse(t, 0, &im) == 0) sim_image_free(&im);
            free(t);
        }
        free(s);
    }
    free(m);
    free(img);
}

/* A copy of the n bytes ending exactly at the end of a mapping (the next
 * page unmapped); *base and *len for munmap. */
static uint8_t *at_map_end(const uint8_t *src, size_t n, void **base, size_t *len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), data = (n + page - 1) / page * page;
    uint8_t *m = mmap(NULL, data + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) exit(2);
    munmap(m + data, page);
    *base = m, *len = data;
    memcpy(m + data - n, src, n);
    return m + data - n;
}

static void unsized(const char *file)
{
    size_t n;
    uint8_t *img = load(file, &n);
    Elf64_Ehdr eh;
    memcpy(&eh, img, sizeof eh);
    static const uint64_t sizes[] = { 0xffffffffull, 0x180000ull /* 24 * 65536 */, 0xfffffff0ull };
    for (int k = 0; k < 5; k++) {
        void *base;
        size_t len;
        uint8_t *p = at_map_end(img, n, &base, &len);
        if (k < 3) {
            for (unsigned i = 0; i < eh.e_shnum; i++) {
                Elf64_Shdr sh;
                memcpy(&sh, p + eh.e_shoff + i * sizeof sh, sizeof sh);
                if (sh.sh_type != SHT_SYMTAB) continue;
                sh.sh_size = sizes[k];
                memcpy(p + eh.e_shoff + i * sizeof sh, &sh, sizeof sh);
            }
        } else if (k == 3) {
            Elf64_Ehdr h = eh;
            h.e_shoff = 1ull << 29;                 /* the section headers 512 MiB away */
            memcpy(p, &h, sizeof h);
        }
        struct sim_image im;
        int rc = sim_image_parse(p, 0, &im);
        if (k < 4 && rc != -1)
            FAIL("FAIL %s unsized, mutation %d: accepted\n", file, k);
        if (k == 4 && rc != 0)                      /* intact: still read */
            FAIL("FAIL %s unsized, intact: refused\n", file);
        if (rc == 0) sim_image_free(&im);
        munmap(base, len);
    }
    free(img);
}

int main(void)
{
    unsized("kernels.cubin");
    unsized("rdc.cubin");
    fuzz("kernels.cubin", 1, 20000);
    fuzz("rdc.cubin", 1, 5000);
    fuzz("kernels.fatbin", 1, 20000);
    fuzz("kernels_multi.fatbin", 1, 10000);
    fuzz("kernels_zstd.fatbin", 1, 10000);
    fuzz("kernels_ptx.fatbin", 1, 10000);
    fuzz("kernels.ptx", 0, 20000);
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("image_fuzz: all checks passed\n");
    return 0;
}
