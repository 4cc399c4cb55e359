/* report/dwline.c against libdw (issue 38): for every compile unit of
 * real objects (this program, and when BUILD is set the sim's runtime and
 * the bench's CUDA program: DWARF 5 from gcc and nvcc's host compiler), the
 * line row of every row's address, of the byte before and after it, and
 * every file name of the unit's table, as dwfl_module_getsrc (its search
 * over libdw's sorted table, copied here) and dwarf_filesrc give them.
 * The symbolizer uses dwline in place of those calls: its reports must not
 * change. */
#include "tests/unit/unit.h"
#include "report/dwline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

static size_t n_units, n_addrs, n_files;

static void sections(Elf *elf, struct dc_dwline_sec *s)
{
    size_t shstrndx;
    memset(s, 0, sizeof *s);
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
            continue;
        const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!name || !d)
            continue;
        if (!strcmp(name, ".debug_line"))
            s->line = d->d_buf, s->line_size = d->d_size;
        else if (!strcmp(name, ".debug_line_str"))
            s->line_str = d->d_buf, s->line_str_size = d->d_size;
        else if (!strcmp(name, ".debug_str"))
            s->str = d->d_buf, s->str_size = d->d_size;
    }
}

/* dwfl_module_getsrc's choice (libdwfl/dwfl_module_getsrc.c, 0.188) */
static Dwarf_Line *libdw_row(Dwarf_Lines *lines, size_t nlines, Dwarf_Addr addr)
{
    if (!nlines)
        return NULL;
    size_t l = 0, u = nlines - 1;
    while (l < u) {
        size_t idx = u - (u - l) / 2;
        Dwarf_Addr a;
        dwarf_lineaddr(dwarf_onesrcline(lines, idx), &a);
        if (addr < a)
            u = idx - 1;
        else
            l = idx;
    }
    Dwarf_Line *line = dwarf_onesrcline(lines, l);
    Dwarf_Addr a;
    bool end;
    dwarf_lineaddr(line, &a);
    dwarf_lineendsequence(line, &end);
    /* read_srclines marks the unit's last row an end_sequence */
    if (l == nlines - 1)
        end = true;
    return !end && a <= addr ? line : NULL;
}

static void one(const struct dc_dwline_sec *s, Dwarf_Die *cu, Dwarf_Lines *lines, size_t nlines, const char *path)
{
    Dwarf_Attribute attr;
    Dwarf_Word off;
    Dwarf_Die die;
    uint8_t asz, osz;
    if (!dwarf_attr(cu, DW_AT_stmt_list, &attr) || dwarf_formudata(&attr, &off) || !dwarf_diecu(cu, &die, &asz, &osz))
        return;
    const char *comp_dir = dwarf_attr(cu, DW_AT_comp_dir, &attr) ? dwarf_formstring(&attr) : NULL;
    struct dc_dwline_index x;
    CHECK_EQ_LL(dc_dwline_index(s, off, asz, &x), 0);
    n_units++;
    for (size_t i = 0; i < nlines; i++) {
        Dwarf_Addr a;
        dwarf_lineaddr(dwarf_onesrcline(lines, i), &a);
        for (int d = -1; d <= 1; d++) {
            Dwarf_Addr pc = a + (Dwarf_Addr)(int64_t)d;
            Dwarf_Line *want = libdw_row(lines, nlines, pc);
            unsigned file = 0, file2 = 0;
            int line = 0, line2 = 0;
            int got = dc_dwline_lookup(&x, pc, &file, &line);
            n_addrs++;
            if (!want) {
                if (got != 0)
                    fprintf(stderr, "%s: %#llx: libdw has no row, dwline %d (line %d)\n", path, (unsigned long long)pc,
                            got, line);
                CHECK_EQ_LL(got, 0);
                continue;
            }
            int wline = 0;
            dwarf_lineno(want, &wline);
            const char *wfile = dwarf_linesrc(want, NULL, NULL);
            char name[4096];
            CHECK_EQ_LL(got, 1);
            if (got != 1)
                continue;
            if (line != wline)
                fprintf(stderr, "%s: %#llx: line %d, libdw %d\n", path, (unsigned long long)pc, line, wline);
            CHECK_EQ_LL(line, wline);
            CHECK_EQ_LL(dc_dwline_index_file(s, &x, comp_dir, file, name, sizeof name), wfile ? 1 : 0);
            if (wfile)
                CHECK(!strcmp(name, wfile));
            if (i % 101 == 0) {         /* the one-shot decoder agrees with the index */
                CHECK_EQ_LL(dc_dwline_find(s, off, asz, pc, &file2, &line2), 1);
                CHECK_EQ_LL(file2, file);
                CHECK_EQ_LL(line2, line);
            }
        }
    }
    Dwarf_Files *files;
    size_t nfiles;
    if (dwarf_getsrcfiles(cu, &files, &nfiles) == 0) {
        for (size_t i = 0; i <= nfiles; i++) {
            const char *want = dwarf_filesrc(files, i, NULL, NULL);
            char name[4096];
            char name2[4096];
            int got = dc_dwline_file(s, off, asz, comp_dir, i, name, sizeof name);
            CHECK_EQ_LL(got, want ? 1 : 0);
            CHECK_EQ_LL(dc_dwline_index_file(s, &x, comp_dir, i, name2, sizeof name2), got);
            if (got == 1)
                CHECK(!strcmp(name, name2));
            if (want && got == 1) {
                if (strcmp(name, want))
                    fprintf(stderr, "%s: file %zu: '%s', libdw '%s'\n", path, i, name, want);
                CHECK(!strcmp(name, want));
            }
            n_files++;
        }
    }
    dc_dwline_index_free(&x);
}

static void object(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "test_dwline: %s: not there, skipped\n", path);
        return;
    }
    Dwarf *dbg = dwarf_begin(fd, DWARF_C_READ);
    if (dbg) {
        struct dc_dwline_sec s;
        sections(dwarf_getelf(dbg), &s);
        Dwarf_Off o = 0, next;
        size_t hsize;
        while (dwarf_nextcu(dbg, o, &next, &hsize, NULL, NULL, NULL) == 0) {
            Dwarf_Die cu;
            Dwarf_Lines *lines;
            size_t nlines;
            if (dwarf_offdie(dbg, o + hsize, &cu) && dwarf_getsrclines(&cu, &lines, &nlines) == 0)
                one(&s, &cu, lines, nlines, path);
            o = next;
        }
        dwarf_end(dbg);
    }
    close(fd);
}

int main(void)
{
    elf_version(EV_CURRENT);
    object("/proc/self/exe");
    const char *build = getenv("BUILD");
    if (build) {
        char p[4096];
        snprintf(p, sizeof p, "%s/sim/libcudart.so.13", build);
        object(p);
        snprintf(p, sizeof p, "%s/bench/launches", build);
        object(p);
    }
    /* garbage answers -1 or 0, never a crash (tests/fuzz/fuzz_dwline.c fuzzes it) */
    static const uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff, 5, 0, 8, 0 };
    struct dc_dwline_sec s = { junk, sizeof junk, NULL, 0, NULL, 0 };
    unsigned f;
    int l;
    CHECK_EQ_LL(dc_dwline_find(&s, 0, 8, 0, &f, &l), -1);
    printf("test_dwline: %zu units, %zu addresses, %zu file names as libdw gives them\n", n_units, n_addrs, n_files);
    CHECK(n_units > 10 && n_addrs > 1000);
    return unit_done("test_dwline");
}
