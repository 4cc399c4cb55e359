/* report/elfdw.c (the symbolizer without libdw, issue 38) against libdw's
 * path of report/symbolize.c, frame by frame (module, offset, function,
 * mangled name, file, line, and every inlined call with its call site):
 *  - named only, every byte of a planted table where libdw's choice of ELF
 *    symbol matters (aliases of each binding, one start with two sizes, a
 *    weak symbol nested in a global, a local holding a global's tail, labels
 *    without size, a gap);
 *  - as a whole, return addresses across this program's own code, which is
 *    report/ and core/ compiled -O2 -g (inlined calls at many depths, units
 *    of C with DWARF 5 ranges lists);
 * the two agree wherever the file's own reader answers, and it answers for
 * most addresses (it is not a path never taken).  Also the C library's
 * frames (no .symtab in its file): left to libdw. */
#include "report/symbolize.h"
#include "report/symwant.h"
#include "report/stackdepot.h"
#include "tests/unit/unit.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>

__asm__(".pushsection .text\n"
        ".globl ed_begin\n ed_begin: .fill 8, 1, 0x90\n"
        ".globl ed_a\n .type ed_a, @function\n .weak ed_a_weak\n .type ed_a_weak, @function\n"
        ".type ed_a_local, @function\n"
        "ed_a: ed_a_weak: ed_a_local: .fill 32, 1, 0x90\n"
        ".size ed_a, 32\n .size ed_a_weak, 32\n .size ed_a_local, 32\n"
        ".globl ed_d\n .type ed_d, @function\n .globl ed_d_small\n .type ed_d_small, @function\n"
        "ed_d: ed_d_small: .fill 48, 1, 0x90\n"
        ".size ed_d, 48\n .size ed_d_small, 16\n"
        ".globl ed_e\n .type ed_e, @function\n"
        "ed_e: .fill 8, 1, 0x90\n"
        ".weak ed_e_weak\n .type ed_e_weak, @function\n"
        "ed_e_weak: .fill 8, 1, 0x90\n"
        ".globl ed_e_in\n .type ed_e_in, @function\n"
        "ed_e_in: .fill 8, 1, 0x90\n .size ed_e_in, 8\n"
        ".fill 16, 1, 0x90\n"
        ".size ed_e_weak, 32\n .size ed_e, 48\n"
        ".type ed_b_local, @function\n"
        "ed_b_local: .fill 16, 1, 0x90\n"
        ".globl ed_b\n .type ed_b, @function\n"
        "ed_b: .fill 16, 1, 0x90\n .size ed_b, 16\n"
        ".fill 16, 1, 0x90\n .size ed_b_local, 48\n"
        ".globl ed_label\n ed_label: .fill 16, 1, 0x90\n"
        "ed_local_label: .fill 16, 1, 0x90\n"
        ".globl ed_f\n .type ed_f, @function\n ed_f: .fill 8, 1, 0x90\n .size ed_f, 8\n"
        ".fill 16, 1, 0x90\n"
        ".globl ed_end\n ed_end: .byte 0x90\n"
        ".popsection\n");
extern const char ed_begin[], ed_end[];

#define STEP 37             /* bytes between the return addresses compared across the code */
#define MAXF 24

static int asked, fast_answers, compared, mismatches;

static int same_frame(const struct dc_frame *a, const struct dc_frame *b)
{
    return a->offset == b->offset && a->module_base == b->module_base && a->line == b->line &&
           !strcmp(a->module, b->module) && !strcmp(a->function, b->function) && !strcmp(a->mangled, b->mangled) &&
           !strcmp(a->file, b->file);
}

static void compare(uintptr_t ip, int names)
{
    static struct dc_frame a[MAXF], b[MAXF];
    asked++;
    size_t n = dc_symbolize_ip_path(ip, 0, names, a, MAXF);
    if (!n)
        return;
    fast_answers++;
    size_t m = dc_symbolize_ip_path(ip, 1, names, b, MAXF);
    compared++;
    int ok = n == m;
    for (size_t i = 0; ok && i < n; i++)
        ok = same_frame(&a[i], &b[i]);
    if (!ok && mismatches++ < 5) {
        fprintf(stderr, "ip %#lx (names %d): elfdw %zu frames, libdw %zu\n", (unsigned long)ip, names, n, m);
        for (size_t i = 0; i < n || i < m; i++)
            fprintf(stderr, "  #%zu %s | %s:%d  vs  %s | %s:%d\n", i, i < n ? a[i].mangled : "-", i < n ? a[i].file : "-",
                    i < n ? a[i].line : 0, i < m ? b[i].mangled : "-", i < m ? b[i].file : "-", i < m ? b[i].line : 0);
    }
}

struct text {
    uintptr_t lo, hi;
    const char *name;           /* NULL: the program */
};

static int main_text(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct text *t = data;
    if (t->name && (!info->dlpi_name || !strstr(info->dlpi_name, t->name)))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
            t->lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            t->hi = t->lo + info->dlpi_phdr[i].p_memsz;
        }
    return 1;                   /* the program is the first object, or the one named */
}

static int same_frames(const struct dc_frame *a, size_t n, const struct dc_frame *b, size_t m)
{
    int ok = n == m;
    for (size_t i = 0; ok && i < n; i++)
        ok = same_frame(&a[i], &b[i]) && !a[i].unnamed && !b[i].unnamed;
    return ok;
}

/* DC_SYM_SHOWN and DC_SYM_NAMES_LAZY (issue 38) on stacks of this program's
 * frames (DWARF: the user's) around frames of a library's 4-byte functions
 * from lo (bare: no DWARF anywhere, so its folded frames stay unnamed),
 * before any whole answer names them: a run of 4 library frames folds and
 * stays unnamed, one alone between the user's frames is shown and named;
 * dc_stack_name_frames then gives the whole answer. */
static void lazy_frames(uintptr_t lo, int bare)
{
    uintptr_t user1 = (uintptr_t)compare + 9, user2 = (uintptr_t)same_frames + 9;
    uintptr_t run[6] = { user1, lo + 41, lo + 45, lo + 49, lo + 53, user2 };
    uintptr_t one[3] = { user1, lo + 61, user2 };
    uint32_t id_run = dc_stackdepot_put(run, 6, 0), id_one = dc_stackdepot_put(one, 3, 0);
    static struct dc_frame a[MAXF], b[MAXF];
    size_t n = dc_stack_symbolize_need(id_run, a, MAXF, DC_SYM_SHOWN);
    size_t k = dc_stack_symbolize_need(id_one, b, MAXF, DC_SYM_SHOWN);
    CHECK(n >= 6 && k >= 3);
    int folded_unnamed = 0, shown_named = !a[0].unnamed && a[0].function[0] && !b[1].unnamed && b[1].function[0];
    for (size_t i = 0; i < n; i++)
        folded_unnamed += a[i].unnamed && !a[i].function[0] && strstr(a[i].module, "libelfdw") &&
                          a[i].offset == run[i] - 1 - a[i].module_base;
    fprintf(stderr, "lazy frames (bare %d): %d folded frames unnamed, shown named %d\n", bare, folded_unnamed,
            shown_named);

    CHECK_EQ_LL(folded_unnamed, bare ? 4 : 0);
    CHECK(shown_named);
    /* named now, and as a whole answer names them */
    static struct dc_frame w[MAXF];
    n = dc_stack_name_frames(a, n, NULL, NULL);
    size_t m = dc_stack_symbolize_need(id_run, w, MAXF, DC_SYM_WHOLE);
    CHECK(same_frames(a, n, w, m));
    m = dc_stack_symbolize_need(id_one, w, MAXF, DC_SYM_WHOLE);
    CHECK(same_frames(b, k, w, m));
    /* the peer enabler's: after the first frame, unnamed; then named by module */
    uintptr_t lib[3] = { lo + 69, lo + 73, lo + 77 };
    uint32_t id_lib = dc_stackdepot_put(lib, 3, 0);
    n = dc_stack_symbolize_need(id_lib, a, MAXF, DC_SYM_NAMES_LAZY);
    CHECK(n == 3 && !a[0].unnamed && a[0].function[0] && a[1].unnamed == bare && a[2].unnamed == bare);
    n = dc_stack_name_frames(a, n, NULL, a[0].module);
    m = dc_stack_symbolize_need(id_lib, w, MAXF, DC_SYM_NAMES);
    CHECK(same_frames(a, n, w, m));
}

/* Arguments (tests/unit/elfdw_libs.sh; by hand, any library): libraries to
 * load and compare too, every ELFDW_STEP bytes of their code.  One a run: libdw reading the
 * maps again after a second dlopen may take its own mapping of a file for
 * part of that file's module (its range then too large, its lines lost). */
int main(int argc, char **argv)
{
    /* the planted table, named only: every byte (+1: a return address) */
    for (const char *p = ed_begin; p <= ed_end; p++)
        compare((uintptr_t)p + 1, 1);
    CHECK(fast_answers > 0);
    int planted = fast_answers;

    /* this program's code, as a whole */
    struct text t = { 0, 0, NULL };
    dl_iterate_phdr(main_text, &t);
    CHECK(t.hi > t.lo);
    for (uintptr_t ip = t.lo + 1; ip < t.hi; ip += STEP) {
        compare(ip, 0);
        if ((ip - t.lo) % (STEP * 7) == 1)
            compare(ip, 1);
    }
    for (int i = 1; i < argc; i++) {
        void *h = dlopen(argv[i], RTLD_LAZY | RTLD_LOCAL);
        if (!h) {
            fprintf(stderr, "%s\n", dlerror());
            return 2;
        }
        struct text lt = { 0, 0, strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i] };
        dl_iterate_phdr(main_text, &lt);
        /* at most ~1,500 addresses: a large table is read in 8 passes of 256
         * at most (report/symelf.c), then left to libdw */
        uintptr_t step = getenv("ELFDW_STEP") ? strtoul(getenv("ELFDW_STEP"), NULL, 0) : 101;
        if (!getenv("ELFDW_STEP") && (lt.hi - lt.lo) / step > 1500)
            step = (lt.hi - lt.lo) / 1500 + 1;
        int asked0 = asked, fast0 = fast_answers, mis0 = mismatches;
        /* a report's way: the addresses about to be named told first, so a
         * large table is read once for 256 of them (report/symwant.h) */
        uintptr_t chunk[256];
        for (uintptr_t ip = lt.lo + 1; ip < lt.hi;) {
            size_t m = 0;
            for (uintptr_t j = ip; j < lt.hi && m < 256; j += step ? step : 1)
                chunk[m++] = j;
            dc_symwant_stack(chunk, m);
            for (size_t k = 0; k < m; k++)
                compare(chunk[k], k % 7 == 3);
            ip = chunk[m - 1] + (step ? step : 1);
        }
        dc_symwant_stack(NULL, 0);
        fprintf(stderr, "%s: %d of %d answered without libdw, %d differ\n", argv[i], fast_answers - fast0,
                asked - asked0, mismatches - mis0);
        void *fn = getenv("ELFDW_BARE") ? dlsym(h, "eb_g100") : NULL;      /* tests/unit/elfdw_big.c's */
        if (getenv("ELFDW_BARE"))
            CHECK(fn != NULL);
        if (fn)
            lazy_frames((uintptr_t)fn, atoi(getenv("ELFDW_BARE")));
    }
    /* a frame of the C library (no .symtab in its file; its own getpid, not
     * a sanitizer's interceptor): with its debug file in the build-id tree
     * (ELFDW_LIBC_DEBUG=1, elfdw_libs.sh: libc6-dbg) libdw reads that, so
     * elfdw answers nothing; without one (the cross build's C library under
     * qemu), elfdw names it from the .dynsym as libdw does */
    struct dc_frame f[MAXF];
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    void *in_libc = libc ? dlsym(libc, "getpid") : NULL;
    CHECK(in_libc != NULL);
    if (in_libc && getenv("ELFDW_LIBC_DEBUG") && atoi(getenv("ELFDW_LIBC_DEBUG")))
        CHECK(dc_symbolize_ip_path((uintptr_t)in_libc + 1, 0, 0, f, MAXF) == 0);
    else if (in_libc)
        compare((uintptr_t)in_libc + 1, 0);

    fprintf(stderr, "test_elfdw: %d planted addresses, %d of %d in all answered without libdw, %d compared, %d differ\n",
            planted, fast_answers, asked, compared, mismatches);
    CHECK(fast_answers > 2000);
    CHECK_EQ_LL(mismatches, 0);
    return unit_done("test_elfdw");
}
