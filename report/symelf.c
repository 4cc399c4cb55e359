/* symelf: a frame from its object's own file, without libdw (see symelf.h).
 *
 * An object's file is mapped at its first frame and read by report/elfdw.c
 * (the ELF symbol, the unit, function and inlined calls) and report/dwline.c
 * (the line): no libdw loaded, no /proc/self/maps read.  What those do not
 * read as libdw does (a separate debug file, compressed sections, ...)
 * answers "ask libdw": that frame alone takes report/symbolize.c's libdw
 * path.  The mappings stay until libdw reads the process's maps
 * (dc_symelf_forget; their sections key report/symline.c's indexes, which
 * the symbolizer forgets then too; a dlclose'd object's file costs only its
 * address space), at most FAST_MAX objects.  Under the symbolizer's lock. */
#include "report/symelf.h"
#include "report/elfdw.h"
#include "report/symline.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define FAST_MAX 256
struct fast_mod {
    char *name;
    uintptr_t base;
    int ok;
    struct dc_elfdw e;
};
static struct fast_mod fast_mods[FAST_MAX];
static size_t fast_n;

static struct dc_elfdw *fast_of(const char *name, uintptr_t base, int main)
{
    for (size_t i = 0; i < fast_n; i++)
        if (fast_mods[i].base == base && !strcmp(fast_mods[i].name, name))
            return fast_mods[i].ok ? &fast_mods[i].e : NULL;
    if (fast_n == FAST_MAX)
        return NULL;
    struct fast_mod *m = &fast_mods[fast_n];
    if (!(m->name = strdup(name)))
        return NULL;
    m->base = base;
    m->ok = 0;
    fast_n++;
    /* the program: its file, whatever argv[0] says (libdw reads the mapping's) */
    const char *path = main ? "/proc/self/exe" : name;
    int fd = path[0] ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    if (fd < 0)
        return NULL;
    void *img = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0
                    ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
                    : MAP_FAILED;
    close(fd);
    if (img == MAP_FAILED)
        return NULL;
    if (dc_elfdw_open(&m->e, img, (size_t)st.st_size) != 0) {
        munmap(img, (size_t)st.st_size);
        return NULL;
    }
    m->ok = 1;
    return &m->e;
}

/* libdw's dwfl_linux_proc_report takes consecutive lines of /proc/self/maps
 * of one file for one module: a copy mapped here next to the object's own
 * segments would make its module start at the copy (its symbols and lines
 * then lost: tests/unit/test_elfdw.c with a library loaded by dlopen).  So
 * before libdw reads the maps, nothing of this room's is mapped; after, what
 * libdw knows stays as it read it.  The lines read from the copies are
 * forgotten with libdw's (report/symbolize.c's cu_clear, just before). */
void dc_symelf_forget(void)
{
    for (size_t i = 0; i < fast_n; i++) {
        if (fast_mods[i].ok) {
            dc_elfdw_free(&fast_mods[i].e);
            munmap((void *)fast_mods[i].e.img, fast_mods[i].e.size);
        }
        free(fast_mods[i].name);
    }
    fast_n = 0;
}

size_t dc_symelf_bytes(void)
{
    size_t n = 0;
    for (size_t i = 0; i < fast_n; i++)
        n += sizeof fast_mods[i] + strlen(fast_mods[i].name) + 1 + (fast_mods[i].ok ? dc_elfdw_bytes(&fast_mods[i].e) : 0);
    return n;
}

size_t dc_symelf_frames(const char *name, uintptr_t base, uintptr_t bias, int main, uintptr_t pc,
                        struct dc_frame *out, size_t max, enum dc_symelf_kind kind)
{
    struct dc_elfdw *e = max ? fast_of(name, base, main) : NULL;
    if (!e)
        return 0;
    struct dc_frame *f = &out[0];
    uint64_t addr = pc - bias;
    const char *sym = NULL;
    if (kind != DC_SYMELF_LINES && dc_elfdw_symbol(e, addr, &sym) < 0)
        return 0;
    struct dc_elfdw_at at;
    int where = kind == DC_SYMELF_NAMES || dc_below_main(sym) ? 0 : dc_elfdw_at(e, addr, &at);
    if (where < 0)
        return 0;
    struct dc_symline_unit lu;
    unsigned fileno = 0;
    int line = 0, found = 0;
    if (where > 0) {
        found = dc_symline_find_in(&e->lines, at.stmt_list, at.addr_size, at.comp_dir, addr, &lu, &fileno, &line);
        if (found < 0)
            return 0;
        if (found > 0 && line > 0) {
            int named = dc_symline_file(&lu, fileno, f->file, sizeof f->file);
            if (named < 0)
                return 0;
            f->line = named > 0 ? line : 0;
            if (!named)
                f->file[0] = 0;
        }
    }
    Dl_info info;
    if (!sym && kind != DC_SYMELF_LINES && dladdr((void *)pc, &info))
        sym = info.dli_sname;       /* the dynamic symbols, when the file has none */
    dc_frame_set_name(f, sym);
    if (where <= 0 || !at.fn)
        return 1;
    if (!at.n) {
        /* the physical function: keep the ELF symbol name unless none */
        if (!f->mangled[0])
            dc_frame_set_name(f, at.fn_name);
        return 1;
    }
    /* the call sites' files first: a file dwline cannot name is libdw's */
    char files[DC_ELFDW_INLINE_MAX][sizeof f->file];
    for (int i = 0; i < at.n; i++) {
        files[i][0] = 0;
        if (at.chain[i].has_file) {
            int named = dc_symline_file(&lu, at.chain[i].file, files[i], sizeof files[i]);
            if (named < 0)
                return 0;
            if (!named)
                files[i][0] = 0;
        }
    }
    size_t k = 0;
    for (int i = 0; i < at.n; i++) {
        dc_frame_set_name(&out[k], at.chain[i].name);
        if (k + 1 >= max)
            break;
        struct dc_frame *c = &out[k + 1];
        *c = out[k];
        c->mangled[0] = c->function[0] = c->file[0] = 0;
        c->line = at.chain[i].has_line ? (int)at.chain[i].line : 0;
        memcpy(c->file, files[i], sizeof c->file);
        if (!c->file[0])
            c->line = 0;
        dc_frame_set_name(c, sym ? sym : at.fn_name);
        k++;
    }
    return k + 1;
}

