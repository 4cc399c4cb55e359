/* Fuzz target: report/elfdw.c, the symbolizer's reader of an object's ELF
 * symbols and DWARF functions (issue 38).  The input: eight bytes of the
 * address asked, then an ELF file.  Invariants: every answer is -1, 0 or 1;
 * a name given lies inside the image, NUL-terminated there; an address's
 * inlined calls are at most DC_ELFDW_INLINE_MAX; asking again gives the same
 * answer (the unit read once is the one read again); the units are freed.
 * Then with no debug file (the .dynsym may become the table), and a pass
 * over three addresses answering each as one lookup does; the build id and
 * the debug link lie in the image. */
#include "tests/fuzz/fuzz.h"
#include "report/elfdw.h"

static void in_image(const uint8_t *img, size_t size, const char *s)
{
    if (!s)
        return;
    FUZZ_CHECK((const uint8_t *)s >= img && (const uint8_t *)s < img + size);
    FUZZ_CHECK(memchr(s, 0, size - (size_t)((const uint8_t *)s - img)) != NULL);
}

static void ask(struct dc_elfdw *e, uint64_t addr)
{
    const char *name = NULL;
    int k = dc_elfdw_symbol(e, addr, &name);
    FUZZ_CHECK(k >= -1 && k <= 1);
    FUZZ_CHECK((k == 1) == (name != NULL));
    in_image(e->img, e->size, name);
    struct dc_elfdw_at a, b;
    int r = dc_elfdw_at(e, addr, &a);
    FUZZ_CHECK(r >= -1 && r <= 1);
    if (r != 1)
        return;
    FUZZ_CHECK(a.n >= 0 && a.n <= DC_ELFDW_INLINE_MAX);
    FUZZ_CHECK(!a.n || a.fn);
    in_image(e->img, e->size, a.comp_dir);
    in_image(e->img, e->size, a.fn_name);
    for (int i = 0; i < a.n; i++)
        in_image(e->img, e->size, a.chain[i].name);
    FUZZ_CHECK(dc_elfdw_at(e, addr, &b) == 1);
    FUZZ_CHECK(b.n == a.n && b.fn == a.fn && b.fn_name == a.fn_name && b.stmt_list == a.stmt_list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    uint64_t addr = 0;
    for (int i = 7; i >= 0; i--)
        addr = addr << 8 | data[i];
    size_t n = size - 8;
    uint8_t *img = malloc(n ? n : 1);           /* its own buffer: ASan sees a read past it */
    if (!img)
        abort();
    memcpy(img, data + 8, n);
    struct dc_elfdw e;
    if (dc_elfdw_open(&e, img, n) == 0) {
        FUZZ_CHECK(e.ok);
        ask(&e, addr);
        ask(&e, addr + 1);
        ask(&e, addr ^ 0x10);
        FUZZ_CHECK(!e.build_id || (e.build_id >= img && e.build_id_len <= n && e.build_id <= img + n - e.build_id_len));
        in_image(img, n, e.debuglink);
        (void)dc_elfdw_loaded(&e, addr);
        /* no debug file: the .dynsym may become the table, no DWARF answers 0 */
        dc_elfdw_no_debug_file(&e);
        ask(&e, addr);
        /* a pass over several addresses answers each as one lookup does */
        uint64_t many[3] = { addr, addr + 1, addr + 2 };
        int res[3];
        const char *names[3];
        if (addr <= UINT64_MAX - 2 && dc_elfdw_symbols(&e, many, 3, res, names) == 0)
            for (int k = 0; k < 3; k++) {
                FUZZ_CHECK(res[k] >= -1 && res[k] <= 1 && (res[k] == 1) == (names[k] != NULL));
                in_image(img, n, names[k]);
                const char *one = NULL;
                if (dc_elfdw_walks(&e))
                    FUZZ_CHECK(dc_elfdw_symbol(&e, many[k], &one) == res[k] && one == names[k]);
            }
        dc_elfdw_free(&e);
        FUZZ_CHECK(!e.units);
    } else {
        FUZZ_CHECK(!e.ok);
    }
    free(img);
    return 0;
}
