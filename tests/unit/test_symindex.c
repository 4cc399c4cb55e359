/* report/symindex.c names an address as libdw's dwfl_module_addrname does:
 *  - every byte of a planted table (below: this program's own symbols, made
 *    many enough to be indexed) where libdw's choice matters: aliases of
 *    each binding at one address, a weak symbol nested in a global (libdw
 *    keeps whichever its walk meets last), nested and overlapping globals,
 *    a local that only the second walk finds, labels without size, gaps;
 *  - for every other module of this process with enough symbols (the C
 *    library's, from libc6-dbg's debug file), addresses at, inside, at the
 *    last byte of, just past and just below a sample of its symbols;
 * both name each address alike, or not at all; with the index filled from
 * the symbol tables' own entries (the default) and from libdw's reading of
 * each symbol (dc_symindex_set_direct_read(0)), and named in passes over
 * the tables without an index (dc_symindex_prefetch, 256 addresses a call,
 * every one asked before it is compared: fewer bytes than the indexes).
 * Also: an index was built (its bytes counted), and a module is indexed
 * once. */
#include "report/symindex.h"
#include "tests/unit/unit.h"

#include <elfutils/libdwfl.h>
#include <stdint.h>
#include <unistd.h>

/* The planted table: 2100 local 4-byte functions (the index wants 2048
 * symbols), then the cases, between si_begin and si_end. */
__asm__(".pushsection .text\n"
        ".macro si_pad\n"
        ".type si_pad\\@, @function\n"
        "si_pad\\@: .byte 0x90, 0x90, 0x90, 0x90\n"
        ".size si_pad\\@, 4\n"
        ".endm\n"
        ".rept 2100\n si_pad\n .endr\n"
        ".globl si_begin\n si_begin: .fill 8, 1, 0x90\n"
        /* aliases: a global, a weak and a local at one address, one size */
        ".globl si_a\n .type si_a, @function\n .weak si_a_weak\n .type si_a_weak, @function\n"
        ".type si_a_local, @function\n"
        "si_a: si_a_weak: si_a_local: .fill 32, 1, 0x90\n"
        ".size si_a, 32\n .size si_a_weak, 32\n .size si_a_local, 32\n"
        /* one start, two sizes: the smaller wins where both hold */
        ".globl si_d\n .type si_d, @function\n .globl si_d_small\n .type si_d_small, @function\n"
        "si_d: si_d_small: .fill 48, 1, 0x90\n"
        ".size si_d, 48\n .size si_d_small, 16\n"
        /* a weak one inside a global, and a global inside that */
        ".globl si_e\n .type si_e, @function\n"
        "si_e: .fill 8, 1, 0x90\n"
        ".weak si_e_weak\n .type si_e_weak, @function\n"
        "si_e_weak: .fill 8, 1, 0x90\n"
        ".globl si_e_in\n .type si_e_in, @function\n"
        "si_e_in: .fill 8, 1, 0x90\n .size si_e_in, 8\n"
        ".fill 16, 1, 0x90\n"
        ".size si_e_weak, 32\n .size si_e, 48\n"
        /* a local holding a global's tail: the local only past the global */
        ".type si_b_local, @function\n"
        "si_b_local: .fill 16, 1, 0x90\n"
        ".globl si_b\n .type si_b, @function\n"
        "si_b: .fill 16, 1, 0x90\n .size si_b, 16\n"
        ".fill 16, 1, 0x90\n .size si_b_local, 48\n"
        /* the same two cases again under other names: a global table's
         * order is the linker's, and libdw's choice depends on it */
        ".macro si_nest name\n"
        ".globl \\name\n .type \\name, @function\n .weak \\name\\()_weak\n .type \\name\\()_weak, @function\n"
        "\\name: .fill 8, 1, 0x90\n \\name\\()_weak: .fill 24, 1, 0x90\n"
        ".size \\name\\()_weak, 16\n .size \\name, 32\n"
        ".endm\n"
        ".macro si_two name\n"
        ".globl \\name\n .type \\name, @function\n .globl \\name\\()_small\n .type \\name\\()_small, @function\n"
        "\\name: \\name\\()_small: .fill 32, 1, 0x90\n .size \\name, 32\n .size \\name\\()_small, 8\n"
        ".endm\n"
        "si_nest si_n1\n si_two si_t1\n si_nest si_n2\n si_two si_t2\n si_nest si_n3\n si_two si_t3\n"
        "si_nest si_n4\n si_two si_t4\n si_nest si_n5\n si_two si_t5\n si_nest si_n6\n si_two si_t6\n"
        /* a global label inside a local: libdw's first walk meets the
         * label exactly at it and never walks the locals */
        ".type si_c_local, @function\n"
        "si_c_local: .fill 8, 1, 0x90\n"
        ".globl si_c_label\n si_c_label: .fill 8, 1, 0x90\n"
        ".size si_c_local, 16\n"
        /* labels without size: a global one, a local one, then a gap */
        ".globl si_label\n si_label: .fill 16, 1, 0x90\n"
        "si_local_label: .fill 16, 1, 0x90\n"
        ".globl si_f\n .type si_f, @function\n si_f: .fill 8, 1, 0x90\n .size si_f, 8\n"
        ".fill 16, 1, 0x90\n"
        ".globl si_end\n si_end: .byte 0x90\n"
        ".popsection\n");
extern const char si_begin[], si_end[];

#define PER_MODULE 120      /* symbols sampled per module: five addresses each */

static int compared, indexed_modules, planted;
/* collecting: the addresses each_module would compare, for dc_symindex_prefetch */
static int collecting, prefetched;     /* prefetched: only addresses inside their module */
static uintptr_t wanted[8192];
static size_t nwanted;
static Dwfl *the_dwfl;

static void same(Dwfl_Module *mod, const char *modname, GElf_Addr a)
{
    if ((collecting || prefetched) && dwfl_addrmodule(the_dwfl, a) != mod)
        return;                 /* the symbolizer asks a module of its own addresses only */
    if (collecting) {
        if (nwanted < sizeof wanted / sizeof wanted[0])
            wanted[nwanted++] = (uintptr_t)a + 1;   /* a return address: prefetch takes one less */
        return;
    }
    const char *want = dwfl_module_addrname(mod, a);
    const char *got = dc_symindex_name(mod, a);
    compared++;
    unit_checks++;
    if (!want != !got || (want && strcmp(want, got))) {
        unit_failures++;
        fprintf(stderr, "%s: %s+0x%llx: libdw says %s, the index %s\n", __FILE__, modname, (unsigned long long)a,
                want ? want : "(none)", got ? got : "(none)");
    }
}

static int each_module(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start, void *arg)
{
    (void)userdata, (void)start;
    int n = dwfl_module_getsymtab(mod);
    if (n < 2048)       /* symindex.c's SYMINDEX_MIN: libdw answers those itself */
        return DWARF_CB_OK;
    if (dwfl_addrmodule(*(Dwfl **)arg,
                        (Dwarf_Addr)(uintptr_t)si_begin) == mod) {
        planted++;
        for (const char *a = si_begin - 8; a <= si_end + 8; a++)
            same(mod, name, (GElf_Addr)(uintptr_t)a);
    }
    indexed_modules++;
    const char *base = strrchr(name, '/');
    printf("test_symindex: %s, %d symbols\n", base ? base + 1 : name, n);
    int step = n / PER_MODULE > 0 ? n / PER_MODULE : 1;
    for (int i = 1; i < n; i += step) {
        GElf_Sym s;
        GElf_Addr v;
        if (!dwfl_module_getsym_info(mod, i, &s, &v, NULL, NULL, NULL) || s.st_shndx == SHN_UNDEF)
            continue;
        same(mod, name, v);
        same(mod, name, v - 1);
        same(mod, name, v + s.st_size);
        if (s.st_size) {
            same(mod, name, v + s.st_size / 2);
            same(mod, name, v + s.st_size - 1);
        }
    }
    if (collecting) {           /* this module's addresses, 256 a pass */
        for (size_t k = 0; k < nwanted; k += 256)
            dc_symindex_prefetch(*(Dwfl **)arg, wanted + k, nwanted - k < 256 ? nwanted - k : 256);
        nwanted = 0;
    }
    return DWARF_CB_OK;
}

int main(void)
{
    static const Dwfl_Callbacks cb = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = dwfl_build_id_find_debuginfo,     /* local files only */
    };
    Dwfl *dwfl = dwfl_begin(&cb);
    CHECK(dwfl != NULL);
    if (!dwfl)
        return unit_done("test_symindex");
    dwfl_report_begin(dwfl);
    CHECK(dwfl_linux_proc_report(dwfl, getpid()) == 0);
    dwfl_report_end(dwfl, NULL, NULL);

    for (int direct = 1; direct >= 0; direct--) {
        dc_symindex_set_direct_read(direct);
        compared = indexed_modules = planted = 0;
        dwfl_getmodules(dwfl, each_module, &dwfl, 0);
        CHECK(indexed_modules > 1);     /* this program's own symbols, the C library's */
        CHECK_EQ_LL(planted, 1);
        CHECK(compared > 500);
        size_t bytes = dc_symindex_bytes();
        CHECK(bytes > 0);
        /* asked again: the indexes are reused, not made anew */
        compared = indexed_modules = 0;
        dwfl_getmodules(dwfl, each_module, &dwfl, 0);
        CHECK_EQ_LL(dc_symindex_bytes(), bytes);

        dc_symindex_clear();
        CHECK_EQ_LL(dc_symindex_bytes(), 0);
        if (!direct)
            continue;
        /* the same addresses named by prefetch passes, no index made */
        the_dwfl = dwfl;
        collecting = 1, nwanted = 0;
        dwfl_getmodules(dwfl, each_module, &dwfl, 0);
        collecting = 0;
        size_t answers = dc_symindex_bytes();
        compared = indexed_modules = planted = 0;
        prefetched = 1;
        dwfl_getmodules(dwfl, each_module, &dwfl, 0);
        prefetched = 0;
        CHECK_EQ_LL(planted, 1);
        CHECK(compared > 500);
        CHECK(answers > 0);
        CHECK_EQ_LL(dc_symindex_bytes(), answers);      /* every address answered: no index made */
        dc_symindex_clear();
    }
    dwfl_end(dwfl);
    printf("test_symindex: %d addresses in %d indexed modules named as libdw names them\n", compared,
           indexed_modules);
    return unit_done("test_symindex");
}
