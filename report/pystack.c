/* pystack: Python frames by the interpreter's own layout (see pystack.h).
 *
 * Layouts, x86-64 and aarch64 (LP64), from CPython's own headers (the
 * offsets are checked against each version's headers by
 * tests/unit/pyframes.sh):
 *   3.9, 3.10  PyThreadState.frame -> PyFrameObject {f_back, f_code, f_lasti}
 *              (f_lasti: 3.9 a byte offset, 3.10 an index of 2-byte units);
 *              line tables: co_lnotab (3.9), co_linetable (3.10's format)
 *   3.11, 3.12 PyThreadState.cframe -> _PyCFrame.current_frame ->
 *              _PyInterpreterFrame {f_code, previous, prev_instr, owner};
 *              co_linetable in the location-table format (Objects/locations.md)
 *   3.13       PyThreadState.current_frame -> {f_executable, previous,
 *              instr_ptr, owner}: offsets from _PyRuntime.debug_offsets
 *              (cookie "xdebugpy"), the table below when it is absent.
 * Frames owned by the C stack (3.12+: the interpreter's entry shims) are not
 * the program's and are skipped.
 *
 * Capture reads plain memory: the thread's own frames cannot change while it
 * is inside the hook, and every object on the chain is alive. */
#include "report/pystack.h"

#include "common/forklock.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
static int desc_oom;
#define uthash_nonfatal_oom(obj) do { (void)(obj); desc_oom = 1; } while (0)
#include <uthash.h>

struct layout {
    int minor;                  /* 3.minor */
    size_t ts_frame;            /* 3.9/3.10: ->frame; 3.11/3.12: ->cframe; 3.13: ->current_frame */
    long cframe_current;        /* 3.11/3.12: _PyCFrame.current_frame; -1: none */
    size_t f_back, f_code, f_instr;   /* f_instr: f_lasti (int) for 3.9/3.10, else the instruction pointer */
    long f_owner;               /* char; -1: not checked */
    size_t co_filename, co_name, co_firstlineno, co_linetable, co_code;  /* co_code: co_code_adaptive (3.11+) */
    size_t uni_ascii_size, uni_compact_size;
};

static const struct layout layouts[] = {
    { 9, 24, -1, 24, 32, 104, -1, 104, 112, 40, 120, 0, 48, 72 },
    { 10, 24, -1, 24, 32, 96, -1, 104, 112, 40, 120, 0, 48, 72 },
    { 11, 56, 8, 48, 32, 56, -1, 112, 120, 72, 136, 184, 48, 72 },
    { 12, 56, 0, 8, 0, 56, 70, 112, 120, 68, 136, 192, 40, 56 },
    { 13, 72, -1, 8, 0, 56, 70, 112, 120, 68, 136, 200, 40, 56 },
};

#define FRAME_OWNED_BY_CSTACK 3
#define WALK_MAX 4096           /* frames visited at most (a corrupt chain cannot loop us) */

/* 3.13's _Py_DebugOffsets, the part read here (Include/internal/pycore_runtime.h) */
struct py313_debug_offsets {
    char cookie[8];
    uint64_t version;
    uint64_t free_threaded;
    struct { uint64_t size, finalizing, interpreters_head; } runtime_state;
    struct { uint64_t size, id, next, threads_head, gc, imports_modules, sysdict, builtins, ceval_gil,
             gil_runtime_state, gil_runtime_state_enabled, gil_runtime_state_locked,
             gil_runtime_state_holder; } interpreter_state;
    struct { uint64_t size, prev, next, interp, current_frame, thread_id, native_thread_id, datastack_chunk,
             status; } thread_state;
    struct { uint64_t size, previous, executable, instr_ptr, localsplus, owner; } interpreter_frame;
    struct { uint64_t size, filename, name, qualname, linetable, firstlineno, argcount, localsplusnames,
             localspluskinds, co_code_adaptive; } code_object;
};

static struct layout lay;                       /* the process's, once found */
static int py_state;                            /* 0 not looked, 1 found, -1 none: release/acquire */
static pthread_mutex_t py_init_lock = PTHREAD_MUTEX_INITIALIZER;
static int (*p_is_initialized)(void);
static void *(*p_this_thread_state)(void);
static uintptr_t code_type, unicode_type, bytes_type, interp_base;

static inline uintptr_t rdp(uintptr_t a) { return *(const uintptr_t *)a; }
static inline int32_t rd32(uintptr_t a) { return *(const int32_t *)a; }

static void *sym(const char *name) { return dlsym(RTLD_DEFAULT, name); }

/* "3.11.7 (main, ...)" -> 11; -1 unless 3.x */
static int minor_of(const char *v)
{
    if (!v || v[0] != '3' || v[1] != '.')
        return -1;
    char *end;
    long m = strtol(v + 2, &end, 10);
    return end != v + 2 && (*end == '.' || *end == ' ' || *end == '+' || *end == 'a' || *end == 'b' ||
                            *end == 'r' || !*end) ? (int)m : -1;
}

static int init_locked(void)
{
    p_is_initialized = (int (*)(void))sym("Py_IsInitialized");
    p_this_thread_state = (void *(*)(void))sym("PyGILState_GetThisThreadState");
    const char *(*get_version)(void) = (const char *(*)(void))sym("Py_GetVersion");
    code_type = (uintptr_t)sym("PyCode_Type");
    unicode_type = (uintptr_t)sym("PyUnicode_Type");
    bytes_type = (uintptr_t)sym("PyBytes_Type");
    if (!p_is_initialized || !p_this_thread_state || !get_version || !code_type || !unicode_type || !bytes_type)
        return 0;
    int minor = minor_of(get_version());
    const struct layout *l = NULL;
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i].minor == minor)
            l = &layouts[i];
    if (!l)
        return 0;
    lay = *l;
    if (minor == 13) {
        /* The interpreter's own description of its layout, when it has one. */
        const struct py313_debug_offsets *d = sym("_PyRuntime");
        if (d && !memcmp(d->cookie, "xdebugpy", 8) && (d->version >> 16) == 0x030d && !d->free_threaded) {
            lay.ts_frame = d->thread_state.current_frame;
            lay.f_back = d->interpreter_frame.previous;
            lay.f_code = d->interpreter_frame.executable;
            lay.f_instr = d->interpreter_frame.instr_ptr;
            lay.f_owner = (long)d->interpreter_frame.owner;
            lay.co_filename = d->code_object.filename;
            lay.co_name = d->code_object.name;
            lay.co_linetable = d->code_object.linetable;
            lay.co_firstlineno = d->code_object.firstlineno;
            lay.co_code = d->code_object.co_code_adaptive;
        } else if (d && !memcmp(d->cookie, "xdebugpy", 8)) {
            return 0;           /* free-threaded or another layout: not read */
        }
    }
    Dl_info info;
    if (dladdr((void *)(uintptr_t)p_is_initialized, &info))
        interp_base = (uintptr_t)info.dli_fbase;
    return 1;
}

static int py_ready(void)
{
    int st = __atomic_load_n(&py_state, __ATOMIC_ACQUIRE);
    if (__builtin_expect(st != 0, 1))
        return st == 1;
    pthread_mutex_lock(&py_init_lock);
    if (py_state == 0)
        __atomic_store_n(&py_state, init_locked() ? 1 : -1, __ATOMIC_RELEASE);
    st = py_state;
    pthread_mutex_unlock(&py_init_lock);
    return st == 1;
}

uintptr_t dc_py_interpreter_base(void)
{
    return py_ready() ? interp_base : 0;
}

size_t dc_py_capture(struct dc_pyraw *out, size_t max)
{
    if (!py_ready() || !p_is_initialized())
        return 0;
    uintptr_t ts = (uintptr_t)p_this_thread_state();
    if (!ts)
        return 0;
    uintptr_t f = rdp(ts + lay.ts_frame);
    if (lay.cframe_current >= 0)
        f = f ? rdp(f + (size_t)lay.cframe_current) : 0;
    size_t n = 0;
    for (int walked = 0; f && n < max && walked < WALK_MAX; walked++, f = rdp(f + lay.f_back)) {
        if (lay.f_owner >= 0 && *(const char *)(f + (size_t)lay.f_owner) == FRAME_OWNED_BY_CSTACK)
            continue;
        uintptr_t code = rdp(f + lay.f_code);
        if (!code || rdp(code + sizeof(uintptr_t)) != code_type)
            continue;
        long off;
        if (lay.minor <= 10) {
            int lasti = rd32(f + lay.f_instr);
            off = lasti < 0 ? 0 : lay.minor == 9 ? lasti : 2L * lasti;
        } else {
            off = (long)(rdp(f + lay.f_instr) - (code + lay.co_code));
            if (off < 0 || off > (1L << 30))
                off = 0;
        }
        out[n].code = code;
        out[n].offset = (uint32_t)off;
        out[n].firstlineno = rd32(code + lay.co_firstlineno);
        n++;
    }
    return n;
}

/* ---- code descriptions -------------------------------------------------------------- *
 * A stack seen for the first time has its code objects described while they
 * are certainly alive (each frame of the chain holds its code): file, name,
 * first line and a copy of the line table, once per code object, kept for
 * the process's life.  A stack refers to them by id, so a code object freed
 * (or its address reused) before the report changes nothing. */

struct desc {
    UT_hash_handle hh;
    struct { uintptr_t code; int32_t firstlineno; int32_t pad; } key;
    uint32_t id;
    int firstlineno;
    char *file, *name;
    unsigned char *table;
    size_t ntable;
};

static pthread_mutex_t desc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct desc *descs;          /* by (code, first line) */
static struct desc **desc_by_id;    /* [id - 1] */
static uint32_t ndescs, cap_descs;
static size_t desc_bytes;           /* --stats */

/* Appends code point c as UTF-8. */
static size_t put_utf8(char *o, size_t room, uint32_t c)
{
    unsigned char b[4];
    size_t k;
    if (c < 0x80) b[0] = (unsigned char)c, k = 1;
    else if (c < 0x800) b[0] = 0xc0 | (c >> 6), b[1] = 0x80 | (c & 63), k = 2;
    else if (c < 0x10000) b[0] = 0xe0 | (c >> 12), b[1] = 0x80 | ((c >> 6) & 63), b[2] = 0x80 | (c & 63), k = 3;
    else b[0] = 0xf0 | (c >> 18), b[1] = 0x80 | ((c >> 12) & 63), b[2] = 0x80 | ((c >> 6) & 63),
         b[3] = 0x80 | (c & 63), k = 4;
    if (k > room)
        return 0;
    memcpy(o, b, k);
    return k;
}

/* A live str object's text as UTF-8 (compact strings: every name and file
 * name the interpreter makes), or NULL. */
static char *str_copy(uintptr_t s)
{
    if (!s || rdp(s + sizeof(uintptr_t)) != unicode_type)
        return NULL;
    size_t len = (size_t)rdp(s + 2 * sizeof(uintptr_t));
    uint32_t state = (uint32_t)rd32(s + 32);
    unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
    if (!compact || (kind != 1 && kind != 2 && kind != 4))
        return NULL;
    if (len > 4096)
        len = 4096;
    const unsigned char *data = (const unsigned char *)(s + (ascii ? lay.uni_ascii_size : lay.uni_compact_size));
    char *out = malloc(len * 4 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t c = kind == 1 ? data[i] : kind == 2 ? ((const uint16_t *)data)[i] : ((const uint32_t *)data)[i];
        o += put_utf8(out + o, len * 4 - o, c);
    }
    out[o] = 0;
    return out;
}

/* desc_lock held.  A new description of live code object c, or NULL. */
static struct desc *describe_locked(uintptr_t c, int32_t firstlineno)
{
    if (ndescs == cap_descs) {
        uint32_t ncap = cap_descs ? cap_descs * 2 : 256;
        struct desc **nb = realloc(desc_by_id, ncap * sizeof *nb);
        if (!nb)
            return NULL;
        desc_by_id = nb;
        cap_descs = ncap;
    }
    struct desc *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->key.code = c;
    d->key.firstlineno = firstlineno;
    d->firstlineno = firstlineno;
    d->file = str_copy(rdp(c + lay.co_filename));
    d->name = str_copy(rdp(c + lay.co_name));
    uintptr_t lt = rdp(c + lay.co_linetable);
    if (lt && rdp(lt + sizeof(uintptr_t)) == bytes_type) {
        size_t n = (size_t)rdp(lt + 2 * sizeof(uintptr_t));
        if (n > 64 * 1024)
            n = 64 * 1024;
        d->table = malloc(n ? n : 1);
        if (d->table) {
            memcpy(d->table, (const void *)(lt + 4 * sizeof(uintptr_t)), n);
            d->ntable = n;
        }
    }
    d->id = ndescs + 1;
    desc_oom = 0;
    HASH_ADD(hh, descs, key, sizeof d->key, d);
    if (desc_oom) {
        free(d->file), free(d->name), free(d->table), free(d);
        return NULL;
    }
    desc_by_id[ndescs++] = d;
    desc_bytes += sizeof *d + (d->file ? strlen(d->file) + 1 : 0) + (d->name ? strlen(d->name) + 1 : 0) + d->ntable;
    return d;
}

void dc_py_describe(const struct dc_pyraw *py, size_t n, uint32_t *ids)
{
    pthread_mutex_lock(&desc_lock);
    for (size_t i = 0; i < n; i++) {
        struct { uintptr_t code; int32_t firstlineno; int32_t pad; } key = { py[i].code, py[i].firstlineno, 0 };
        struct desc *d;
        HASH_FIND(hh, descs, &key, sizeof key, d);
        if (d && d->name) {
            /* the same address and first line: still the same function? */
            char *name = str_copy(rdp(py[i].code + lay.co_name));
            int same = name && !strcmp(name, d->name);
            free(name);
            if (!same) {
                HASH_DEL(descs, d);     /* the old one stays, by id, for the stacks that name it */
                d = NULL;
            }
        }
        if (!d)
            d = describe_locked(py[i].code, py[i].firstlineno);
        ids[i] = d ? d->id : 0;
    }
    pthread_mutex_unlock(&desc_lock);
}

static unsigned read_varint(const unsigned char **p, const unsigned char *end)
{
    unsigned r = *p < end ? *(*p)++ : 0, val = r & 63, shift = 0;
    while ((r & 64) && *p < end && shift < 28) {
        r = *(*p)++;
        shift += 6;
        val |= (r & 63) << shift;
    }
    return val;
}

static int read_svarint(const unsigned char **p, const unsigned char *end)
{
    unsigned u = read_varint(p, end);
    return (u & 1) ? -(int)(u >> 1) : (int)(u >> 1);
}

/* Line of the instruction at byte offset addr, as PyCode_Addr2Line computes
 * it for each version; -1 when the instruction has no line. */
static int addr2line(const unsigned char *t, size_t n, int first, int addr)
{
    const unsigned char *end = t + n;
    int line = first;
    if (lay.minor == 9) {                       /* co_lnotab */
        int a = 0;
        for (size_t i = 0; i + 1 < n; i += 2) {
            a += t[i];
            if (a > addr)
                break;
            line += (signed char)t[i + 1];
        }
        return line;
    }
    if (lay.minor == 10) {                      /* 3.10 co_linetable: (bytes, line delta) pairs */
        int start, stop = 0, cur = -1;
        for (size_t i = 0; i + 1 < n; i += 2) {
            start = stop;
            stop += t[i];
            signed char d = (signed char)t[i + 1];
            if (d == -128)
                cur = -1;
            else
                line += d, cur = line;
            if (start != stop && addr >= start && addr < stop)
                return cur;
        }
        return -1;
    }
    /* 3.11+: location table */
    int a = 0;
    const unsigned char *p = t;
    while (p < end) {
        unsigned char b = *p;
        int code = (b >> 3) & 15, len = ((b & 7) + 1) * 2;
        const unsigned char *q = p + 1;
        if (code == 13 || code == 14)
            line += read_svarint(&q, end);
        else if (code >= 10 && code <= 12)
            line += code - 10;
        if (addr < a + len)
            return code == 15 ? -1 : line;
        a += len;
        for (p++; p < end && !(*p & 0x80); p++)
            ;
    }
    return -1;
}

int dc_py_resolve(uint32_t id, uint32_t offset, char *file, size_t filelen, int *line, char *func, size_t funclen)
{
    *line = 0;
    snprintf(file, filelen, "%s", "");
    snprintf(func, funclen, "%s", "<unknown>");
    pthread_mutex_lock(&desc_lock);
    const struct desc *d = id >= 1 && id <= ndescs ? desc_by_id[id - 1] : NULL;
    if (d) {
        snprintf(file, filelen, "%s", d->file ? d->file : "");
        snprintf(func, funclen, "%s", d->name ? d->name : "<unknown>");
        int l = d->table ? addr2line(d->table, d->ntable, d->firstlineno, (int)offset) : -1;
        *line = l > 0 ? l : 0;
    }
    pthread_mutex_unlock(&desc_lock);
    return d != NULL;
}

/* fork: the loading lock, then the descriptions' (neither is taken while
 * the other is held). */
size_t dc_py_bytes(void)
{
    pthread_mutex_lock(&desc_lock);
    size_t n = desc_bytes + (size_t)cap_descs * sizeof *desc_by_id;
    pthread_mutex_unlock(&desc_lock);
    return n;
}

void dc_py_fork_prepare(void)
{
    pthread_mutex_lock(&py_init_lock);
    pthread_mutex_lock(&desc_lock);
}

void dc_py_fork_parent(void)
{
    pthread_mutex_unlock(&desc_lock);
    pthread_mutex_unlock(&py_init_lock);
}

void dc_py_fork_child(void)
{
    dc_mutex_fork_child(&desc_lock);
    dc_mutex_fork_child(&py_init_lock);
}

/* Library roots: folders whose files are never the user's code, each with
 * the rule that named it.  Written once each (an entry is complete before
 * the count that publishes it), read without a lock. */
#define ROOTS_MAX 128
static struct root {
    char path[1024];
    size_t len;
    char rule[32];
} roots[ROOTS_MAX];
static unsigned nroots;
static pthread_mutex_t roots_lock = PTHREAD_MUTEX_INITIALIZER;

int dc_py_root_add(const char *rule, const char *path)
{
    size_t n = path ? strlen(path) : 0;
    while (n > 1 && path[n - 1] == '/')
        n--;
    if (!n || path[0] != '/' || n >= sizeof roots[0].path)
        return -1;
    pthread_mutex_lock(&roots_lock);
    unsigned k = __atomic_load_n(&nroots, __ATOMIC_RELAXED);
    int rc = -1;
    for (unsigned i = 0; i < k; i++)
        if (roots[i].len == n && !strncmp(roots[i].path, path, n)) {
            rc = 0;                             /* named already: the first rule stands */
            goto out;
        }
    if (k < ROOTS_MAX) {
        memcpy(roots[k].path, path, n);
        roots[k].path[n] = 0;
        roots[k].len = n;
        snprintf(roots[k].rule, sizeof roots[k].rule, "%s", rule && *rule ? rule : "option");
        __atomic_store_n(&nroots, k + 1, __ATOMIC_RELEASE);
        rc = 1;
    }
out:
    pthread_mutex_unlock(&roots_lock);
    return rc;
}

const char *dc_py_root_at(unsigned i, const char **rule)
{
    if (i >= __atomic_load_n(&nroots, __ATOMIC_ACQUIRE))
        return NULL;
    *rule = roots[i].rule;
    return roots[i].path;
}

void dc_py_roots_add_list(const char *rule, const char *list)
{
    char one[1024];
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ",");
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one ? n : sizeof one - 1), p);
        dc_py_root_add(rule, one);
        p += n + (p[n] == ',');
    }
}

/* IPython's cells: written once each (complete before the count that
 * publishes it), read without a lock; a notebook runs thousands of cells at
 * most, a later one past the room is named by its file. */
#define CELLS_MAX 4096
static struct cell {
    char *file;
    int number;
} cells[CELLS_MAX];
static unsigned ncells;
static pthread_mutex_t cells_lock = PTHREAD_MUTEX_INITIALIZER;

int dc_py_cell_add(const char *file, int number)
{
    if (!file || !*file || strlen(file) >= 4096 || number < 0)
        return -1;
    if (dc_py_cell(file) >= 0)
        return 0;
    pthread_mutex_lock(&cells_lock);
    unsigned k = __atomic_load_n(&ncells, __ATOMIC_RELAXED);
    int rc = -1;
    if (k < CELLS_MAX && (cells[k].file = strdup(file)) != NULL) {
        cells[k].number = number;
        __atomic_store_n(&ncells, k + 1, __ATOMIC_RELEASE);
        rc = 1;
    }
    pthread_mutex_unlock(&cells_lock);
    return rc;
}

int dc_py_cell(const char *file)
{
    unsigned k = __atomic_load_n(&ncells, __ATOMIC_ACQUIRE);
    if (!k || !file)
        return -1;
    for (unsigned i = k; i-- > 0;)              /* the newest first: the cell being run */
        if (!strcmp(cells[i].file, file))
            return cells[i].number;
    return -1;
}

const char *dc_py_library_rule(const char *f, const char **root)
{
    if (root)
        *root = NULL;
    if (!f || !*f)
        return NULL;
    if (dc_py_cell(f) >= 0)
        return NULL;                            /* an IPython cell: the user's own code */
    if (f[0] == '<')
        return "generated";
    size_t n = strlen(f), h = strlen("/_devcheck_hook.py");
    if (n >= h && !strcmp(f + n - h, "/_devcheck_hook.py"))
        return "devcheck";                      /* devcheck's own Python hook (its Triton launcher wrapper) */
    unsigned k = __atomic_load_n(&nroots, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < k; i++)
        if (!strncmp(f, roots[i].path, roots[i].len) && f[roots[i].len] == '/') {
            if (root)
                *root = roots[i].path;
            return roots[i].rule;
        }
    if (strstr(f, "/site-packages/"))
        return "site-packages";
    if (strstr(f, "/dist-packages/"))
        return "dist-packages";
    const char *s = strstr(f, "/lib/python3.");
    if (s) {                                    /* the standard library: .../lib/python3.N/x.py */
        s += strlen("/lib/python3.");
        while (*s >= '0' && *s <= '9')
            s++;
        if (*s == '/')
            return "stdlib";
    }
    return NULL;
}

int dc_py_user_file(const char *f)
{
    return f && *f && !dc_py_library_rule(f, NULL);
}
