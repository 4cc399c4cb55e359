/* Fuzz target: report/dwline.c, the symbolizer's reader of DWARF line
 * programs (issue 38).  The input: one byte of flags (bit 0: 4-byte
 * addresses), eight bytes of the address asked, then a .debug_line section,
 * which also serves as .debug_line_str and .debug_str (so string offsets
 * land somewhere).  Invariants: every answer is -1, 0 or 1; the one-shot
 * decoder and the indexed lookup agree (row, file, line) at the address
 * and around every sequence's ends; a file name is NUL-terminated within
 * its buffer; the index's sequences lie inside the program. */
#include "tests/fuzz/fuzz.h"
#include "report/dwline.h"

static void same(const struct dc_dwline_sec *s, unsigned asz, const struct dc_dwline_index *x, uint64_t pc)
{
    unsigned f1 = 0, f2 = 0;
    int l1 = 0, l2 = 0;
    int a = dc_dwline_find(s, 0, asz, pc, &f1, &l1);
    int b = dc_dwline_lookup(x, pc, &f2, &l2);
    FUZZ_CHECK(a >= 0 && a <= 1);
    FUZZ_CHECK(a == b);
    if (a == 1) {
        FUZZ_CHECK(f1 == f2 && l1 == l2);
        char name[64];
        char name2[64];
        int n = dc_dwline_file(s, 0, asz, "/comp", f1, name, sizeof name);
        FUZZ_CHECK(n >= -1 && n <= 1);
        FUZZ_CHECK(dc_dwline_index_file(s, x, "/comp", f1, name2, sizeof name2) == n);
        if (n == 1)
            FUZZ_CHECK(memchr(name, 0, sizeof name) != NULL && !strcmp(name, name2));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 9)
        return 0;
    unsigned asz = (data[0] & 1) ? 4 : 8;
    uint64_t pc = 0;
    for (int i = 8; i >= 1; i--)
        pc = pc << 8 | data[i];
    size_t n = size - 9;
    uint8_t *sec = malloc(n ? n : 1);           /* its own buffer: ASan sees a read past it */
    if (!sec)
        abort();
    memcpy(sec, data + 9, n);
    struct dc_dwline_sec s = { sec, n, sec, n, sec, n };
    struct dc_dwline_index x;
    int ok = dc_dwline_index(&s, 0, asz, &x);
    unsigned f;
    int l;
    int one = dc_dwline_find(&s, 0, asz, pc, &f, &l);
    FUZZ_CHECK(ok == 0 || ok == -1);
    FUZZ_CHECK(one >= -1 && one <= 1);
    FUZZ_CHECK((ok == -1) == (one == -1));      /* both decode the whole program */
    if (ok == 0) {
        same(&s, asz, &x, pc);
        for (size_t i = 0; i < x.nseq && i < 8; i++) {
            FUZZ_CHECK(x.seq[i].lo <= x.seq[i].hi && x.seq[i].rows > 0 && x.seq[i].at < n);
            FUZZ_CHECK(x.seq[i].mark0 + x.seq[i].nmarks <= x.nmark);
            same(&s, asz, &x, x.seq[i].lo);
            same(&s, asz, &x, x.seq[i].lo - 1);
            same(&s, asz, &x, x.seq[i].hi);
            same(&s, asz, &x, x.seq[i].hi - 1);
            same(&s, asz, &x, x.seq[i].lo + (x.seq[i].hi - x.seq[i].lo) / 2);
        }
        for (size_t i = 0; i < x.nmark && i < 8; i++) {
            same(&s, asz, &x, x.mark[i].addr);
            same(&s, asz, &x, x.mark[i].addr + 1);
        }
        dc_dwline_index_free(&x);
    }
    for (uint64_t i = 0; i < 4; i++) {
        char name[16];
        int r = dc_dwline_file(&s, 0, asz, i & 1 ? NULL : "/c", i, name, sizeof name);
        FUZZ_CHECK(r >= -1 && r <= 1);
        if (r == 1)
            FUZZ_CHECK(memchr(name, 0, sizeof name) != NULL);
    }
    free(sec);
    return 0;
}
