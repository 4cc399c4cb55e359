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
#include "report/symwant.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HASH_NONFATAL_OOM 1
static int fast_oom;
#define uthash_nonfatal_oom(obj) do { (void)(obj); fast_oom = 1; } while (0)
#include <uthash.h>

/* An address of a large table's object named by a pass (res: dc_elfdw_symbol's). */
struct fast_answer {
    uint64_t addr;
    int res;
    const char *name;
    UT_hash_handle hh;
};

#define FAST_MAX 256
struct fast_mod {
    char *name;
    uintptr_t base;
    int ok;
    struct dc_elfdw e;
    struct fast_answer *answers;        /* a large table's addresses named so far */
    size_t nanswers;
    int passes;
};
static struct fast_mod fast_mods[FAST_MAX];
static size_t fast_n;
static int fast_debuginfod;

void dc_symelf_set_debuginfod(int on) { __atomic_store_n(&fast_debuginfod, on != 0, __ATOMIC_RELAXED); }

int dc_debuglink_path(int i, const char *file_name, const char *link, char *path, size_t len)
{
    static const char *const fmt[DC_DEBUGLINK_PLACES] = { "%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s" };
    if (i < 0 || i >= DC_DEBUGLINK_PLACES || !file_name || !link || !*link || strchr(link, '/'))
        return 0;
    const char *slash = strrchr(file_name, '/');
    int dlen = slash ? (int)(slash - file_name) : 0;
    int n = snprintf(path, len, fmt[i], dlen, file_name, link);
    return n > 0 && (size_t)n < len && strcmp(path, file_name);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* No separate debug file where libdw would look for one for the object
 * path (its name as loaded; its real path, as /proc/self/maps gives libdw):
 * with find_debuginfo_offline (report/symbolize.c), libdw's build-id tree
 * (elfutils libdwfl/dwfl_build_id_find_elf.c: the default debuginfo path's
 * one absolute directory, /usr/lib/debug/.build-id/xx/yyyy.debug), then the
 * .gnu_debuglink places.  With debuginfod, libdw may fetch one: never. */
static int no_debug_file(const struct dc_elfdw *e, const char *path)
{
    if (__atomic_load_n(&fast_debuginfod, __ATOMIC_RELAXED))
        return 0;
    char p[PATH_MAX + 64];
    if (e->build_id) {
        static const char hex[] = "0123456789abcdef";
        size_t n = (size_t)snprintf(p, sizeof p, "/usr/lib/debug/.build-id/%c%c/", hex[e->build_id[0] >> 4],
                                    hex[e->build_id[0] & 15]);
        for (size_t i = 1; i < e->build_id_len && n + 8 < sizeof p; i++) {
            p[n++] = hex[e->build_id[i] >> 4];
            p[n++] = hex[e->build_id[i] & 15];
        }
        if (n + 8 >= sizeof p)
            return 0;
        memcpy(p + n, ".debug", 7);
        if (exists(p))
            return 0;
    }
    if (!e->debuglink)
        return 1;
    char real[PATH_MAX];
    const char *names[2] = { path, realpath(path, real) };
    for (int k = 0; k < 2; k++)
        for (int i = 0; names[k] && i < DC_DEBUGLINK_PLACES; i++)
            if (dc_debuglink_path(i, names[k], e->debuglink, p, sizeof p) && exists(p))
                return 0;
    return 1;
}

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
    if ((!m->e.own_dwarf || !m->e.has_symtab) && no_debug_file(&m->e, path))
        dc_elfdw_no_debug_file(&m->e);
    m->ok = 1;
    return &m->e;
}

static void fast_answers_free(struct fast_mod *m)
{
    struct fast_answer *a, *tmp;
    HASH_ITER(hh, m->answers, a, tmp) {
        HASH_DEL(m->answers, a);
        free(a);
    }
    m->nanswers = 0;
}

#define FAST_PASSES_MAX 8       /* passes over one object's table; then libdw's (report/symindex.c's index) */
#define FAST_WANT_MAX 256       /* addresses one pass names */

struct fast_ctx {
    const struct dc_elfdw *e;
    uintptr_t bias;
};

static int fast_mine(void *arg, uint64_t pc)
{
    const struct fast_ctx *c = arg;
    return pc >= c->bias && dc_elfdw_loaded(c->e, pc - c->bias);
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A large table: addr and the object's other addresses the report is
 * about to name (report/symwant.h) named in one pass, kept. */
static void fast_pass(struct fast_mod *m, uintptr_t bias, uint64_t addr)
{
    static uint64_t pcs[FAST_WANT_MAX];        /* under the symbolizer's lock */
    static int res[FAST_WANT_MAX];
    static const char *names[FAST_WANT_MAX];
    struct fast_ctx c = { &m->e, bias };
    pcs[0] = addr;
    size_t n = 1 + dc_symwant_collect(fast_mine, &c, pcs + 1, FAST_WANT_MAX - 1), u = 0;
    for (size_t k = 1; k < n; k++)
        pcs[k] -= bias;
    qsort(pcs, n, sizeof *pcs, u64_cmp);
    for (size_t k = 0; k < n; k++) {
        struct fast_answer *have;
        HASH_FIND(hh, m->answers, &pcs[k], sizeof pcs[k], have);
        if (!have && (!u || pcs[k] != pcs[u - 1]))
            pcs[u++] = pcs[k];
    }
    m->passes++;
    if (!u || dc_elfdw_symbols(&m->e, pcs, u, res, names) != 0)
        return;
    for (size_t k = 0; k < u; k++) {
        struct fast_answer *a = malloc(sizeof *a);
        if (!a)
            return;
        a->addr = pcs[k];
        a->res = res[k];
        a->name = names[k];
        fast_oom = 0;
        HASH_ADD(hh, m->answers, addr, sizeof a->addr, a);
        if (fast_oom) {
            free(a);
            return;
        }
        m->nanswers++;
    }
}

/* The ELF symbol of addr (dc_elfdw_symbol's answer), a large table's named
 * in passes. */
static int fast_symbol(struct fast_mod *m, uintptr_t bias, uint64_t addr, const char **name)
{
    if (dc_elfdw_walks(&m->e))
        return dc_elfdw_symbol(&m->e, addr, name);
    struct fast_answer *a;
    HASH_FIND(hh, m->answers, &addr, sizeof addr, a);
    if (!a && m->passes < FAST_PASSES_MAX) {
        fast_pass(m, bias, addr);
        HASH_FIND(hh, m->answers, &addr, sizeof addr, a);
    }
    *name = a ? a->name : NULL;
    return a ? a->res : -1;
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
            fast_answers_free(&fast_mods[i]);
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
        n += sizeof fast_mods[i] + strlen(fast_mods[i].name) + 1 +
             (fast_mods[i].ok ? dc_elfdw_bytes(&fast_mods[i].e) : 0) +
             fast_mods[i].nanswers * sizeof(struct fast_answer) +
             (fast_mods[i].answers ? HASH_OVERHEAD(hh, fast_mods[i].answers) : 0);
    return n;
}

int dc_symelf_bare(const char *name, uintptr_t base, int main)
{
    const struct dc_elfdw *e = fast_of(name, base, main);
    return e && !e->own_dwarf && e->no_debug_file;
}

size_t dc_symelf_frames(const char *name, uintptr_t base, uintptr_t bias, int main, uintptr_t pc,
                        struct dc_frame *out, size_t max, enum dc_symelf_kind kind)
{
    struct dc_elfdw *e = max ? fast_of(name, base, main) : NULL;
    if (!e)
        return 0;
    struct fast_mod *m = (struct fast_mod *)((char *)e - offsetof(struct fast_mod, e));
    struct dc_frame *f = &out[0];
    uint64_t addr = pc - bias;
    const char *sym = NULL;
    if (kind != DC_SYMELF_LINES && fast_symbol(m, bias, addr, &sym) < 0)
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

