/* symbolize: names for a stack of the depot, at report time (compiler-rt's
 * symbolizer; see symbolize.h).
 *
 * Serialized by sym_lock: the objects' load segments (dl_iterate_phdr) for
 * the module and its base; the object's own file read without libdw
 * (report/symelf.h) for the ELF symbol, file:line and inlined calls where
 * that reader answers as libdw would; else libdw (dwfl over
 * /proc/self/maps, loaded at the first frame that needs it) for the ELF
 * symbol (static functions too) and the DWARF file:line, the functions
 * inlined at each address (addr2line -i, from each unit's functions indexed
 * once by address), names demangled by the linked-in demangler
 * (report/demangle.h); Python frames from the descriptions of their code
 * objects (report/pystack.h).  Only what is shown is symbolized: frames
 * left out (libdevcheck's, CUPTI's delivery, the interpreter's, the C
 * library's below main) are known by their object first, each address is
 * symbolized once (cached across findings), and a caller that needs names
 * or Python frames only asks for them (dc_stack_symbolize_need).
 *
 * libdw is never linked: it brings libelf, zlib, bzip2, lzma and zstd, which
 * as dependencies of a preloaded object would come ahead of the program's
 * own libraries in the global scope.  It is loaded with dlopen(RTLD_LOCAL)
 * at the first report and called through a table of pointers typed from its
 * header (common/lazylib.h): its symbols stay out of the global scope.
 *
 * Symbolization is offline unless dc_stack_set_debuginfod(1): libdw's standard
 * debuginfo lookup asks the debuginfod servers of DEBUGINFOD_URLS for every
 * module without local debug info (up to 90 s each, inside a report, sending
 * the program's build ids out); devcheck's own lookup reads local files only
 * (the build-id tree, then the .gnu_debuglink places). */
#include "report/symbolize.h"
#include "common/lazylib.h"
#include "report/pystack.h"
#include "report/stackdepot.h"
#include "report/stats.h"
#include "report/symelf.h"
#include "report/symindex.h"
#include "report/symwant.h"
#include "report/modmap.h"
#include "report/fold.h"
#include "report/symline.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HASH_NONFATAL_OOM 1
static int sym_oom;             /* under sym_lock */
#define uthash_nonfatal_oom(obj) do { (void)(obj); sym_oom = 1; } while (0)
#include <uthash.h>

/* libdw.so.1, loaded on first use */
#define DW_FUNCS(X)                     \
    X(dwfl_begin)                       \
    X(dwfl_report_begin)                \
    X(dwfl_linux_proc_report)           \
    X(dwfl_report_end)                  \
    X(dwfl_addrmodule)                  \
    X(dwfl_module_addrname)             \
    X(dwfl_module_info)                 \
    X(dwfl_module_getsrc)               \
    X(dwfl_lineinfo)                    \
    X(dwfl_module_addrdie)              \
    X(dwfl_linux_proc_find_elf)         \
    X(dwfl_standard_find_debuginfo)     \
    X(dwfl_build_id_find_debuginfo)     \
    X(dwfl_module_getdwarf)             \
    X(dwarf_child)                      \
    X(dwarf_siblingof)                  \
    X(dwarf_haspc)                      \
    X(dwarf_ranges)                     \
    X(dwarf_dieoffset)                  \
    X(dwarf_offdie)                     \
    X(dwarf_getsrcfiles)                \
    X(dwarf_tag)                        \
    X(dwarf_attr)                       \
    X(dwarf_attr_integrate)             \
    X(dwarf_formstring)                 \
    X(dwarf_formudata)                  \
    X(dwarf_diename)                    \
    X(dwarf_filesrc)                    \
    X(dwarf_getattrcnt)                 \
    X(dwarf_getabbrevattr)

DC_LAZY_POINTERS(DW_FUNCS)

/* libdw: under sym_lock. */
static int dw_state;                    /* 0 not tried, 1 loaded, -1 unavailable */

static int dw_ready(void)
{
    if (dw_state == 0) {
        /* RTLD_LAZY: libdw's and libelf's 231 PLT slots bound when first
         * called (a few dozen are), not all at the first report (perf, the
         * process's first report: dlopen a third of its time, the symbol
         * lookups a fifth of that).  Their imports are versioned
         * (ELFUTILS_*, GLIBC_*): a missing version still fails dlopen
         * here, not a call later. */
        void *h_ = dlopen("libdw.so.1", RTLD_LAZY | RTLD_LOCAL);
        int ok = 0;
        if (h_)
            DC_LAZY_BIND(h_, DW_FUNCS, ok);
        dw_state = ok ? 1 : -1;
    }
    return dw_state == 1;
}

static int use_debuginfod;

void dc_stack_set_debuginfod(int on)
{
    __atomic_store_n(&use_debuginfod, on != 0, __ATOMIC_RELAXED);
    dc_symelf_set_debuginfod(on);
}

_Static_assert(DC_FRAMES_MAX == DC_STACK_MAX + DC_PYSTACK_MAX, "symbolize.h's DC_FRAMES_MAX");
#define DC_INLINE_MAX 16        /* frames one address can expand to (inlining) */

static int keep_interpreter;

void dc_stack_set_interpreter_frames(int keep) { __atomic_store_n(&keep_interpreter, keep != 0, __ATOMIC_RELAXED); }

/* ---- symbolization -------------------------------------------------------------- */

static pthread_mutex_t sym_lock = PTHREAD_MUTEX_INITIALIZER;
static Dwfl *dwfl;
static int own_known, own_is_main;
static void *own_base;

/* Opens fd on path; the path is handed to libdw (it frees it). */
static int open_debug(const char *path, char **debuginfo_file_name)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && debuginfo_file_name) {
        free(*debuginfo_file_name);
        *debuginfo_file_name = strdup(path);
    }
    return fd;
}

/* libdw's find_debuginfo callback without the network: the build-id tree
 * (/usr/lib/debug/.build-id/xx/yyyy.debug, dwfl_build_id_find_debuginfo, which
 * never asks debuginfod), then the places gdb looks for a .gnu_debuglink
 * file: beside the object, its .debug/, /usr/lib/debug/<its directory>/. */
static int find_debuginfo_offline(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
                                  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                                  char **debuginfo_file_name)
{
    int fd = p_dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                            debuglink_crc, debuginfo_file_name);
    if (fd >= 0 || !debuglink_file || !*debuglink_file || !file_name || strchr(debuglink_file, '/'))
        return fd;
    for (int i = 0; i < DC_DEBUGLINK_PLACES; i++) {
        char path[4096];
        if (dc_debuglink_path(i, file_name, debuglink_file, path, sizeof path) &&
            (fd = open_debug(path, debuginfo_file_name)) >= 0)
            return fd;
    }
    return -1;
}

static Dwfl_Callbacks dwfl_cb;
static void cu_clear(void);

static void dwfl_refresh(void)
{
    if (!dwfl) {
        if (!dw_ready())
            return;
        dwfl_cb.find_elf = p_dwfl_linux_proc_find_elf;
        dwfl_cb.find_debuginfo = __atomic_load_n(&use_debuginfod, __ATOMIC_RELAXED) ? p_dwfl_standard_find_debuginfo
                                                                                  : find_debuginfo_offline;
        dwfl = p_dwfl_begin(&dwfl_cb);
        if (!dwfl)
            return;
    }
    cu_clear();                 /* a module gone may free its Dwarf: the unit indexes name it */
    dc_symelf_forget();         /* before libdw reads the maps (report/symelf.h) */
    p_dwfl_report_begin(dwfl);
    if (p_dwfl_linux_proc_report(dwfl, getpid()) != 0) {
        p_dwfl_report_end(dwfl, NULL, NULL);
        return;
    }
    p_dwfl_report_end(dwfl, NULL, NULL);
}

/* libdw's module holding pc, NULL if none.  dwfl_addrmodule answers an
 * address past the modules it was told of with the highest one: a library
 * loaded since, above them (into the hole an unloaded object left), would
 * be named from another's symbols (tests/unit/test_elfdw.c, three libraries
 * loaded in turn): its range is checked. */
static Dwfl_Module *addrmodule(uintptr_t pc)
{
    Dwfl_Module *m = dwfl ? p_dwfl_addrmodule(dwfl, pc) : NULL;
    Dwarf_Addr lo = 0, hi = 0;
    if (m && (!p_dwfl_module_info(m, NULL, &lo, &hi, NULL, NULL, NULL, NULL) || pc < lo || pc >= hi))
        m = NULL;
    return m;
}

static void own_module(void)
{
    if (own_known)
        return;
    Dl_info info;
    struct link_map *lm = NULL;
    if (dladdr1((void *)(uintptr_t)dc_stack_symbolize_ex, &info, (void **)&lm, RTLD_DL_LINKMAP)) {
        own_base = info.dli_fbase;
        own_is_main = !lm || !lm->l_name || !lm->l_name[0];
    } else {
        own_is_main = 1;
    }
    own_known = 1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* Frames that say nothing about the program: nvcc's launch stubs, the
 * kernel's host-side wrapper (it has the kernel's own symbol), the toolkit's
 * inline helpers (cudaLaunchKernel<>, cudaMalloc<> of cuda_runtime.h,
 * __cudaLaunchKernel_helper of crt/), and the C library's start-up below
 * main. */
static int boring_frame(const struct dc_frame *f, const char *drop_symbol)
{
    if (drop_symbol && *drop_symbol && f->mangled[0] && !strcmp(f->mangled, drop_symbol))
        return 1;
    return strstr(f->function, "__device_stub__") != NULL ||
           strstr(f->mangled, "__device_stub__") != NULL ||
           !strncmp(f->mangled, "__cudaLaunch", 12) ||        /* __cudaLaunchKernel_helper */
           ends_with(f->file, "/cuda_runtime.h") ||
           strstr(f->file, "/include/crt/") != NULL ||
           !strncmp(f->mangled, "__libc_start_", 13) || !strcmp(f->mangled, "_start");
}

/* Innermost frames of a stack captured inside CUDA (libcuda.so*,
 * libcupti.so* delivering a CUPTI callback; libcudart.so*'s launch path or
 * cudaMalloc around the hooked driver call): dropped while no frame has been
 * kept, so a stack starts at the program's call into CUDA under both backends. */
static int callback_machinery(const char *module)
{
    const char *b = strrchr(module, '/');
    b = b ? b + 1 : module;
    return !strncmp(b, "libcuda.so", 10) || !strncmp(b, "libcupti.so", 11) || !strncmp(b, "libcudart.so", 12);
}

/* Name of a subprogram or inlined-subroutine DIE: its linkage name (mangled)
 * if it has one, else its plain name; through DW_AT_abstract_origin. */
static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *n = NULL;
    if (p_dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
        p_dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
        n = p_dwarf_formstring(&attr);
    return n ? n : p_dwarf_diename(die);
}

/* --- the functions of a compile unit, by address ---------------------------------
 *
 * dwarf_getscopes asks every DIE of the unit whether it holds the address
 * (thousands in a CUDA unit: every declaration of the runtime's headers),
 * then walks the whole unit again for an inlined call's abstract origin:
 * measured with callgrind, 20 of the 32 million instructions of a C
 * program's first report (bench/launches.cu first), and a second report
 * in the same unit paid it again.  Instead each unit's functions (their
 * address ranges and DIE offsets) are listed once, sorted, and found by
 * binary search; then only that function's blocks and inlined calls are
 * descended.  Under sym_lock; forgotten with the symbol cache. */
struct cu_fn {
    Dwarf_Addr lo, hi;
    Dwarf_Off off;
};
struct cu_key {
    Dwarf *dbg;
    Dwarf_Off cu;
};
struct cu_index {
    struct cu_key key;
    size_t n, cap;
    struct cu_fn *fn;
    UT_hash_handle hh;
};
static struct cu_index *cu_indexes;
static size_t cu_bytes;

static void cu_push(struct cu_index *x, Dwarf_Addr lo, Dwarf_Addr hi, Dwarf_Off off)
{
    if (x->n == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 64;
        struct cu_fn *v = realloc(x->fn, cap * sizeof *v);
        if (!v)
            return;             /* the unit's index stays partial: those functions lose their inline frames */
        x->fn = v, x->cap = cap;
    }
    x->fn[x->n++] = (struct cu_fn){ lo, hi, off };
}

/* Whether a subprogram DIE may have code: a declaration (most of a CUDA
 * unit's subprograms: the runtime's headers) has no address attribute of
 * its own nor an origin that could lend one, and its abbreviation says so.
 * Asked once per abbreviation (dwarf_tag left it in the DIE), not of each
 * DIE's attributes (dwarf_ranges: callgrind, 0.75 of the 1.9 M
 * instructions of the first unit's list).  Under sym_lock; forgotten at
 * each unit's list. */
#define ABBREV_MEMO 512
static struct {
    Dwarf_Abbrev *abbrev;
    int code;
} abbrev_memo[ABBREV_MEMO];

static int may_have_code(Dwarf_Die *d)
{
    Dwarf_Abbrev *a = d->abbrev;
    if (!a || a == (Dwarf_Abbrev *)-1l)
        return 1;
    size_t h = ((uintptr_t)a >> 4) % ABBREV_MEMO;
    for (size_t probe = 0; probe < 8 && abbrev_memo[h].abbrev; probe++, h = (h + 1) % ABBREV_MEMO)
        if (abbrev_memo[h].abbrev == a)
            return abbrev_memo[h].code;
    size_t n = 0;
    int code = p_dwarf_getattrcnt(a, &n) != 0;
    for (size_t i = 0; i < n && !code; i++) {
        unsigned name = 0, form = 0;
        code = p_dwarf_getabbrevattr(a, i, &name, &form, NULL) != 0 || name == DW_AT_low_pc ||
               name == DW_AT_ranges || name == DW_AT_abstract_origin || name == DW_AT_specification;
    }
    if (!abbrev_memo[h].abbrev)
        abbrev_memo[h].abbrev = a, abbrev_memo[h].code = code;
    return code;
}

/* The functions with code under parent: its children, and those of the
 * namespaces among them. */
static void cu_collect(struct cu_index *x, Dwarf_Die *parent, int depth)
{
    Dwarf_Die d, next;
    if (depth > 32 || p_dwarf_child(parent, &d) != 0)
        return;
    for (;;) {
        int tag = p_dwarf_tag(&d);
        if (tag == DW_TAG_subprogram && may_have_code(&d)) {
            Dwarf_Addr base, lo, hi;
            ptrdiff_t o = 0;
            while ((o = p_dwarf_ranges(&d, o, &base, &lo, &hi)) > 0)
                if (hi > lo)
                    cu_push(x, lo, hi, p_dwarf_dieoffset(&d));
        } else if (tag == DW_TAG_namespace) {
            /* GCC and Clang put a member function's code at the unit's or
             * its namespace's level (DW_AT_specification names the class's
             * declaration): the classes' members, most of a C++ unit's
             * DIEs, are not walked */
            cu_collect(x, &d, depth + 1);
        }
        if (p_dwarf_siblingof(&d, &next) != 0)
            break;
        d = next;
    }
}

static int cu_fn_cmp(const void *a, const void *b)
{
    const struct cu_fn *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void cu_clear(void)
{
    struct cu_index *x, *tmp;
    dc_symline_clear();       /* the same: lines read by report/symline.c */
    HASH_ITER(hh, cu_indexes, x, tmp) {
        HASH_DEL(cu_indexes, x);
        free(x->fn);
        free(x);
    }
    cu_bytes = 0;
}

static struct cu_index *cu_get(Dwarf *dbg, Dwarf_Die *cu)
{
    struct cu_key key;
    memset(&key, 0, sizeof key);
    key.dbg = dbg;
    key.cu = p_dwarf_dieoffset(cu);
    struct cu_index *x;
    HASH_FIND(hh, cu_indexes, &key, sizeof key, x);
    if (x)
        return x;
    if (!(x = calloc(1, sizeof *x)))
        return NULL;
    x->key = key;
    memset(abbrev_memo, 0, sizeof abbrev_memo);
    cu_collect(x, cu, 0);
    if (x->n)
        qsort(x->fn, x->n, sizeof *x->fn, cu_fn_cmp);
    sym_oom = 0;
    HASH_ADD(hh, cu_indexes, key, sizeof x->key, x);
    if (sym_oom) {
        free(x->fn);
        free(x);
        return NULL;
    }
    cu_bytes += sizeof *x + x->cap * sizeof *x->fn;
    return x;
}

/* Scopes that may hold an inlined call below a function. */
static int block_tag(int tag)
{
    return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
           tag == DW_TAG_catch_block || tag == DW_TAG_with_stmt;
}

/* The function of unit cu (its DIE in *fn) holding pc (a DWARF address),
 * and the inlined calls holding it, innermost first, in chain[0..max):
 * returns their count, -1 when no function of the unit holds pc. */
static int cu_function(Dwfl_Module *mod, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn, Dwarf_Die *chain, int max)
{
    Dwarf_Addr bias;
    Dwarf *dbg = p_dwfl_module_getdwarf(mod, &bias);
    struct cu_index *x = dbg ? cu_get(dbg, cu) : NULL;
    if (!x || !x->n)
        return -1;
    size_t lo = 0, hi = x->n;           /* the last function starting at or below pc */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->fn[mid].lo <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo || pc >= x->fn[lo - 1].hi || !p_dwarf_offdie(dbg, x->fn[lo - 1].off, fn))
        return -1;
    Dwarf_Die cur = *fn, c, next, outer[DC_INLINE_MAX];
    int n = 0;
    for (int depth = 0; depth < 64 && p_dwarf_child(&cur, &c) == 0; depth++) {
        int found = 0, tag;
        for (;;) {
            tag = p_dwarf_tag(&c);
            if (block_tag(tag) && p_dwarf_haspc(&c, pc) > 0) {
                found = 1;
                break;
            }
            if (p_dwarf_siblingof(&c, &next) != 0)
                break;
            c = next;
        }
        if (!found)
            break;
        cur = c;
        if (tag == DW_TAG_inlined_subroutine && n < max && n < DC_INLINE_MAX)
            outer[n++] = c;             /* outermost first */
    }
    for (int i = 0; i < n; i++)
        chain[i] = outer[n - 1 - i];
    return n;
}

static int fast_off;            /* dc_symbolize_ip_path's libdw side: report/symelf.c not asked */

/* What a symbolization of one address gives (and a cache entry holds). */
enum sym_kind {
    SK_WHOLE = DC_SYMELF_WHOLE, /* frames of the function and its inlined calls, named, with file and line */
    SK_NAMES = DC_SYMELF_NAMES, /* the function's frame named: no file, line or inlined calls */
    SK_LINES = DC_SYMELF_LINES, /* the frames with file and line, not named (no ELF symbol looked up) */
};

static size_t symbolize_ip_(uintptr_t ip, struct dc_frame *out, size_t max, int *refreshed, enum sym_kind kind);

/* Symbolizes one captured address into up to max frames: the function that
 * holds the call, and the functions inlined into it (innermost first, as
 * addr2line -i).  Returns the number of frames written (>= 1 when max >= 1). */
static size_t symbolize_ip(uintptr_t ip, struct dc_frame *out, size_t max, int *refreshed, enum sym_kind kind)
{
    size_t n = symbolize_ip_(ip, out, max, refreshed, kind);
    if (kind == SK_LINES)
        for (size_t i = 0; i < n; i++)
            out[i].mangled[0] = out[i].function[0] = 0;
    return n;
}

static size_t symbolize_ip_(uintptr_t ip, struct dc_frame *out, size_t max, int *refreshed, enum sym_kind kind)
{
    if (!max)
        return 0;
    uintptr_t pc = ip ? ip - 1 : 0;       /* return address -> call instruction */
    struct dc_frame *f = &out[0];
    memset(f, 0, sizeof *f);
    f->ip = ip;
    f->offset = pc;
    const struct dc_modobj *obj = dc_modmap_of(pc);
    if (obj) {
        snprintf(f->module, sizeof f->module, "%s", obj->name);
        f->offset = pc - obj->base;
        f->module_base = obj->base;
        size_t n = fast_off ? 0
                            : dc_symelf_frames(obj->name, obj->base, obj->bias, dc_modmap_is_main(obj), pc, out,
                                               max, (enum dc_symelf_kind)kind);
        if (n)
            return n;
        f->file[0] = f->mangled[0] = f->function[0] = 0;
        f->line = 0;
    }
    if (!dwfl)
        dwfl_refresh();             /* libdw loaded at the first frame that needs it */
    Dwfl_Module *mod = addrmodule(pc);
    if (!mod && !*refreshed) {
        *refreshed = 1;               /* a library loaded since the last report */
        dwfl_refresh();
        mod = addrmodule(pc);
    }
    const char *sym = mod && kind != SK_LINES ? dc_symindex_name(mod, pc) : NULL; /* dwfl_module_addrname's */
    Dl_info info;
    if (!sym && kind != SK_LINES && dladdr((void *)pc, &info))
        sym = info.dli_sname;       /* the dynamic symbols, when libdw has none */
    if (!mod || kind == SK_NAMES) {
        dc_frame_set_name(f, sym);
        return 1;
    }
    if (!f->module[0]) {
        const char *mname = p_dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        if (mname)
            snprintf(f->module, sizeof f->module, "%s", mname);
    }
    if (dc_below_main(sym)) {
        /* dropped by boring_frame whatever its lines say: not worth the C
         * library's DWARF, which a separate debug file (libc6-dbg) holds
         * zlib-compressed: reading it was most of a C program's first report */
        dc_frame_set_name(f, sym);
        return 1;
    }
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = p_dwfl_module_addrdie(mod, pc, &bias);
    struct dc_symline_unit lu;
    unsigned fileno = 0;
    int line = 0;
    int fast = cu ? dc_symline_find(mod, cu, pc - bias, &lu, &fileno, &line) : -1;
    if (fast > 0 && line > 0) {
        int named = dc_symline_file(&lu, fileno, f->file, sizeof f->file);
        if (named > 0)
            f->line = line;
        else
            f->file[0] = 0;
        if (named < 0)
            fast = -1;
    }
    if (fast < 0) {
        Dwfl_Line *ln = p_dwfl_module_getsrc(mod, pc);
        if (ln) {
            const char *file = p_dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL);
            if (file && line > 0) {
                snprintf(f->file, sizeof f->file, "%s", file);
                f->line = line;
            }
        }
    }
    dc_frame_set_name(f, sym);

    /* Inline chain: the inlined calls holding pc, innermost first. */
    Dwarf_Die fn, chain[DC_INLINE_MAX];
    int nchain = cu ? cu_function(mod, cu, pc - bias, &fn, chain, DC_INLINE_MAX) : -1;
    if (nchain < 0)
        return 1;
    if (nchain == 0) {
        /* the physical function: keep the ELF symbol name unless none */
        if (!f->mangled[0])
            dc_frame_set_name(f, die_name(&fn));
        return 1;
    }
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (fast < 0 && p_dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
        files = NULL;
    size_t k = 0;               /* frame being filled: out[k] */
    for (int i = 0; i < nchain; i++) {
        /* out[k] is inside this inlined subroutine; its caller gets a frame
         * at the call site */
        dc_frame_set_name(&out[k], die_name(&chain[i]));
        if (k + 1 >= max)
            break;
        struct dc_frame *c = &out[k + 1];
        *c = out[k];
        c->mangled[0] = c->function[0] = c->file[0] = 0;
        c->line = 0;
        Dwarf_Attribute attr;
        Dwarf_Word w;
        if (p_dwarf_attr(&chain[i], DW_AT_call_line, &attr) && p_dwarf_formudata(&attr, &w) == 0)
            c->line = (int)w;
        if ((files || fast >= 0) && p_dwarf_attr(&chain[i], DW_AT_call_file, &attr) &&
            p_dwarf_formudata(&attr, &w) == 0) {
            if (fast >= 0) {
                if (dc_symline_file(&lu, w, c->file, sizeof c->file) <= 0)
                    c->file[0] = 0;
            } else {
                const char *file = p_dwarf_filesrc(files, (size_t)w, NULL, NULL);
                if (file)
                    snprintf(c->file, sizeof c->file, "%s", file);
            }
        }
        if (!c->file[0])
            c->line = 0;
        /* the outermost function's name is the ELF symbol (the physical
         * function's DIE when the ELF has none) */
        dc_frame_set_name(c, sym ? sym : die_name(&fn));
        k++;
    }
    return k + 1;
}

/* --- the frames of each address, once ----------------------------------------------
 *
 * A program's findings share most of their frames (one training loop, one
 * call chain, a recursion), and symbolizing an address costs libdw's symbol,
 * line and scope lookups: each distinct address is symbolized once and its
 * frames kept, their strings in one block each.  Forgotten when the
 * process's modules are read again (a library loaded since the last report:
 * an address may now belong to another object).  At most SYM_CACHE_MAX
 * addresses; beyond, symbolized each time.  Under sym_lock. */
#define SYM_CACHE_MAX 65536
struct sym_cframe {
    uintptr_t offset, module_base;
    int line;
    char *module, *function, *mangled, *file;       /* in one block: module's */
};
struct sym_entry {
    uintptr_t ip;
    size_t n;
    enum sym_kind kind;
    struct sym_cframe *f;
    UT_hash_handle hh;
};
static struct sym_entry *sym_cache;
static size_t sym_bytes;

static void sym_entry_free(struct sym_entry *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->f[i].module);
    free(e->f);
    free(e);
}

static void sym_cache_clear(void)
{
    struct sym_entry *e, *tmp;
    HASH_ITER(hh, sym_cache, e, tmp) {
        HASH_DEL(sym_cache, e);
        sym_entry_free(e);
    }
    sym_bytes = 0;
}

static void sym_cache_put(uintptr_t ip, const struct dc_frame *fr, size_t n, enum sym_kind kind)
{
    if (HASH_COUNT(sym_cache) >= SYM_CACHE_MAX)
        return;
    struct sym_entry *e = calloc(1, sizeof *e);
    struct sym_cframe *f = calloc(n ? n : 1, sizeof *f);
    if (!e || !f) {
        free(e);
        free(f);
        return;
    }
    size_t bytes = sizeof *e + n * sizeof *f;
    for (size_t i = 0; i < n; i++) {
        size_t lm = strlen(fr[i].module) + 1, lf = strlen(fr[i].function) + 1, lg = strlen(fr[i].mangled) + 1,
               ll = strlen(fr[i].file) + 1;
        char *s = malloc(lm + lf + lg + ll);
        if (!s) {
            for (size_t j = 0; j < i; j++)
                free(f[j].module);
            free(f), free(e);
            return;
        }
        f[i] = (struct sym_cframe){ fr[i].offset, fr[i].module_base, fr[i].line, s, s + lm, s + lm + lf,
                                    s + lm + lf + lg };
        memcpy(f[i].module, fr[i].module, lm);
        memcpy(f[i].function, fr[i].function, lf);
        memcpy(f[i].mangled, fr[i].mangled, lg);
        memcpy(f[i].file, fr[i].file, ll);
        bytes += lm + lf + lg + ll;
    }
    e->ip = ip;
    e->n = n;
    e->kind = kind;
    e->f = f;
    sym_oom = 0;
    HASH_ADD(hh, sym_cache, ip, sizeof e->ip, e);
    if (sym_oom) {
        for (size_t i = 0; i < n; i++)
            free(f[i].module);
        free(f), free(e);
        return;
    }
    sym_bytes += bytes;
}

/* Cached frame c of address ip into f; whole: its file and line too (else
 * none: a names-only answer). */
static void cframe_out(struct dc_frame *f, uintptr_t ip, const struct sym_cframe *c, int whole)
{
    f->ip = ip;
    f->offset = c->offset;
    f->module_base = c->module_base;
    f->line = whole ? c->line : 0;
    f->python = 0;
    f->unnamed = 0;
    snprintf(f->module, sizeof f->module, "%s", c->module);
    snprintf(f->function, sizeof f->function, "%s", c->function);
    snprintf(f->mangled, sizeof f->mangled, "%s", c->mangled);
    snprintf(f->file, sizeof f->file, "%s", whole ? c->file : "");
}

/* symbolize_ip through the cache.  SK_NAMES: the physical function's frame
 * only, named (module, offset, function; no file, line or inlined calls);
 * SK_LINES: the frames with file and line, named only where a whole entry
 * knows the names.  A whole entry serves every kind; a partial entry asked
 * for another kind is replaced by a whole one. */
static size_t symbolize_ip_cached(uintptr_t ip, struct dc_frame *out, size_t max, int *refreshed, enum sym_kind kind)
{
    struct sym_entry *e;
    enum sym_kind make = kind;
    HASH_FIND(hh, sym_cache, &ip, sizeof ip, e);
    if (e && e->kind != SK_WHOLE && e->kind != kind) {
        HASH_DEL(sym_cache, e);
        sym_entry_free(e);
        e = NULL;
        make = SK_WHOLE;
    }
    if (e && e->n && kind == SK_NAMES && max) {
        cframe_out(&out[0], ip, &e->f[e->n - 1], 0);       /* the outermost: the ELF symbol's function */
        return 1;
    }
    if (e && e->n <= max) {
        for (size_t i = 0; i < e->n; i++)
            cframe_out(&out[i], ip, &e->f[i], 1);
        return e->n;
    }
    int was = *refreshed;
    size_t n = symbolize_ip(ip, out, max, refreshed, make);
    if (*refreshed && !was)
        sym_cache_clear();      /* the modules were read again */
    sym_cache_put(ip, out, n, make);
    if (make == SK_WHOLE && kind == SK_NAMES && n) {
        out[0] = out[n - 1];                                /* the names-only answer of a whole one */
        out[0].line = 0;
        out[0].file[0] = 0;
        n = 1;
    }
    return n;
}

/* ip's frames are cached for kind (a whole answer serves every kind). */
static int cached(uintptr_t ip, enum sym_kind kind)
{
    struct sym_entry *e;
    HASH_FIND(hh, sym_cache, &ip, sizeof ip, e);
    return e && (e->kind == SK_WHOLE || e->kind == kind);
}

size_t dc_symbolize_bytes(void)
{
    pthread_mutex_lock(&sym_lock);
    size_t n = sym_bytes + cu_bytes + dc_symline_bytes() + dc_symindex_bytes() + dc_symelf_bytes() +
               (sym_cache ? HASH_OVERHEAD(hh, sym_cache) : 0);
    pthread_mutex_unlock(&sym_lock);
    return n;
}

static size_t symbolize_ex(uint32_t id, struct dc_frame *out, size_t max, const char *drop_symbol,
                           enum dc_sym_need need);
/* Timed here (--stats): every caller's symbolization counts, the sinks'
 * included. */
size_t dc_stack_symbolize_ex(uint32_t id, struct dc_frame *out, size_t max, const char *drop_symbol)
{
    uint64_t t = DC_STATS_BEGIN();
    size_t n = symbolize_ex(id, out, max, drop_symbol, DC_SYM_WHOLE);
    DC_STATS_END(DC_T_SYMBOLIZE, t);
    return n;
}

size_t dc_stack_symbolize_need(uint32_t id, struct dc_frame *out, size_t max, enum dc_sym_need need)
{
    uint64_t t = DC_STATS_BEGIN();
    size_t n = symbolize_ex(id, out, max, NULL, need);
    DC_STATS_END(DC_T_SYMBOLIZE, t);
    return n;
}

size_t dc_stack_symbolize_ex_need(uint32_t id, struct dc_frame *out, size_t max, const char *drop_symbol,
                                  enum dc_sym_need need)
{
    uint64_t t = DC_STATS_BEGIN();
    size_t n = symbolize_ex(id, out, max, drop_symbol, need);
    DC_STATS_END(DC_T_SYMBOLIZE, t);
    return n;
}

/* Names the unnamed frames of fr[0 .. n) that select() picks (all when
 * NULL), in place; one that says nothing about the program is dropped, and
 * select() asked again of every frame (a run may now end elsewhere).  The
 * frames' count after.  Under sym_lock. */
static size_t name_frames(struct dc_frame *fr, size_t n, const char *drop_symbol,
                          int (*select)(const struct dc_frame *fr, size_t n, size_t i))
{
    static struct dc_frame one[DC_INLINE_MAX];     /* under sym_lock */
    int refreshed = 0;
    for (size_t i = 0; i < n;) {
        if (!fr[i].unnamed || (select && !select(fr, n, i))) {
            i++;
            continue;
        }
        /* an object without DWARF: one frame, the function's */
        size_t m = symbolize_ip_cached(fr[i].ip, one, DC_INLINE_MAX, &refreshed, SK_WHOLE);
        if (m && boring_frame(&one[m - 1], drop_symbol)) {
            memmove(&fr[i], &fr[i + 1], (n - i - 1) * sizeof *fr);
            n--;
            i = 0;
            continue;
        }
        if (m) {
            one[m - 1].ip = fr[i].ip;
            fr[i] = one[m - 1];
        }
        fr[i].unnamed = 0;
        i++;
    }
    return n;
}

static const char *name_module;     /* dc_stack_name_frames's; under sym_lock */

static int of_module(const struct dc_frame *fr, size_t n, size_t i)
{
    (void)n;
    return !strcmp(fr[i].module, name_module);
}

size_t dc_stack_name_frames(struct dc_frame *fr, size_t n, const char *drop_symbol, const char *module)
{
    uint64_t t = DC_STATS_BEGIN();
    pthread_mutex_lock(&sym_lock);
    name_module = module;
    n = name_frames(fr, n, drop_symbol, module ? of_module : NULL);
    pthread_mutex_unlock(&sym_lock);
    DC_STATS_END(DC_T_SYMBOLIZE, t);
    return n;
}

/* A frame a folded text report shows (report/fold.h): not in a folded run.
 * fr[0 .. n): the native frames. */
static int shown(const struct dc_frame *fr, size_t n, size_t i)
{
    int user = dc_frames_any_user(fr, n);
    for (size_t j = 0; j < n;) {
        size_t run = dc_frames_run(fr, n, j, user);
        if (run >= 2 && i >= j && i < j + run)
            return 0;
        j += run >= 2 ? run : 1;
    }
    return 1;
}

static size_t symbolize_ex(uint32_t id, struct dc_frame *out, size_t max, const char *drop_symbol,
                           enum dc_sym_need need)
{
    uintptr_t ips[DC_STACK_MAX];
    struct dc_pyraw py[DC_PYSTACK_MAX];
    uint32_t desc[DC_PYSTACK_MAX];
    size_t n = dc_stackdepot_get(id, ips, DC_STACK_MAX), k = 0;
    size_t npy = dc_stackdepot_get_py(id, py, desc, DC_PYSTACK_MAX);
    if ((!n && !npy) || !max)
        return 0;
    if (npy > max / 2)
        npy = max / 2;
    size_t nmax = max - npy;                        /* room left for the Python frames */
    /* With Python frames, the native stack ends where the interpreter begins
     * (unless interpreter frames are kept): the Python frames say the rest. */
    uintptr_t interp = npy && !__atomic_load_n(&keep_interpreter, __ATOMIC_RELAXED) ? dc_py_interpreter_base() : 0;
    static struct dc_frame tmp[DC_INLINE_MAX];     /* under sym_lock */
    pthread_mutex_lock(&sym_lock);
    own_module();
    if (need == DC_SYM_PYTHON && npy)
        n = 0;                      /* the Python frames alone: libdw not even started */
    if (need == DC_SYM_LINES && !npy)
        need = DC_SYM_WHOLE;
    enum sym_kind kind = need == DC_SYM_WHOLE || need == DC_SYM_SHOWN ? SK_WHOLE
                         : need == DC_SYM_LINES                        ? SK_LINES
                                                                       : SK_NAMES;
    int lazy = need == DC_SYM_SHOWN || need == DC_SYM_NAMES_LAZY;
    int refreshed = 0;
    if (n)
        dc_modmap_refresh();
    dc_symwant_stack(ips, kind != SK_LINES ? n : 0);  /* a large library's frames: named in one pass */
    for (size_t i = 0; i < n && k < nmax; i++) {
        /* frames left out are known by their object: not symbolized */
        const struct dc_modobj *obj = dc_modmap_of(ips[i] ? ips[i] - 1 : 0);
        uintptr_t base = obj ? obj->base : 0;
        if (!own_is_main && own_base && base == (uintptr_t)own_base)
            continue;               /* inside libdevcheck itself */
        if (!k && obj && callback_machinery(obj->name))
            continue;               /* the driver or CUPTI calling a CUPTI callback */
        if (interp && base == interp)
            break;                  /* the interpreter: its Python frames follow */
        if (lazy && k && obj && !dc_modmap_is_main(obj) && !cached(ips[i], kind) &&
            dc_symelf_bare(obj->name, obj->base, 0)) {
            /* its name only, which may never be read: left for name_frames */
            struct dc_frame *f = &out[k++];
            memset(f, 0, sizeof *f);
            f->ip = ips[i];
            f->offset = ips[i] - 1 - obj->base;
            f->module_base = obj->base;
            f->unnamed = 1;
            snprintf(f->module, sizeof f->module, "%s", obj->name);
            continue;
        }
        size_t m = symbolize_ip_cached(ips[i], tmp, DC_INLINE_MAX, &refreshed, kind);
        for (size_t j = 0; j < m && k < nmax; j++)
            if (!boring_frame(&tmp[j], drop_symbol))
                out[k++] = tmp[j];
        if (m && dc_modmap_is_main(obj) && !strcmp(tmp[m - 1].mangled, "main"))
            break;                  /* the program's main: below it the C library's start-up (boring_frame) */
    }
    if (need == DC_SYM_SHOWN)
        k = name_frames(out, k, drop_symbol, shown);       /* those the report shows */
    for (size_t i = 0; i < npy && k < max; i++) {
        struct dc_frame *f = &out[k++];
        memset(f, 0, sizeof *f);
        f->python = 1;
        dc_py_resolve(desc[i], py[i].offset, f->file, sizeof f->file, &f->line, f->function, sizeof f->function);
    }
    pthread_mutex_unlock(&sym_lock);
    return k;
}

size_t dc_symbolize_ip_path(uintptr_t ip, int libdw, int names, struct dc_frame *out, size_t max)
{
    enum sym_kind kind = names ? SK_NAMES : SK_WHOLE;
    size_t n = 0;
    int refreshed = 0;
    pthread_mutex_lock(&sym_lock);
    dc_modmap_refresh();
    if (libdw) {
        fast_off = 1;
        n = symbolize_ip(ip, out, max, &refreshed, kind);
        fast_off = 0;
    } else if (max) {
        uintptr_t pc = ip ? ip - 1 : 0;
        const struct dc_modobj *obj = dc_modmap_of(pc);
        memset(&out[0], 0, sizeof out[0]);
        out[0].ip = ip;
        out[0].offset = pc;
        if (obj) {
            snprintf(out[0].module, sizeof out[0].module, "%s", obj->name);
            out[0].offset = pc - obj->base;
            out[0].module_base = obj->base;
            n = dc_symelf_frames(obj->name, obj->base, obj->bias, dc_modmap_is_main(obj), pc, out, max,
                                 (enum dc_symelf_kind)kind);
        }
    }
    pthread_mutex_unlock(&sym_lock);
    return n;
}

size_t dc_stack_symbolize(uint32_t id, struct dc_frame *out, size_t max)
{
    return dc_stack_symbolize_ex(id, out, max, NULL);
}

/* fork: sym_lock is taken before the depot's and the capture's locks
 * (report/report.c orders them); dc_stack_symbolize reads the depot before
 * it takes sym_lock, so the two are never held together. */
void dc_symbolize_fork_prepare(void) { pthread_mutex_lock(&sym_lock); }
void dc_symbolize_fork_parent(void) { pthread_mutex_unlock(&sym_lock); }
void dc_symbolize_fork_child(void) { pthread_mutex_unlock(&sym_lock); }
