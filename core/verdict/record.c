/* record: record_launches=DIR (see record.h). */
#include "core/verdict/record.h"
#include "core/verdict/verdict.h"
#include "core/base/cudacall.h"
#include "core/base/options.h"
#include "core/kernel/origin.h"
#include "core/owner/registry.h"
#include "core/kernel/hostdwarf.h"
#include "common/format.h"
#include "common/forklock.h"
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int dc_record_on;

/* Per kernel handle: its launch count (open addressing on the handle). */
struct kcount {
    const void *key;
    char *name;
    unsigned long launches;
};
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kcount *tab;
static size_t tab_cap, tab_used;
static int fd = -1;
static pid_t fd_pid;            /* the process the file is of */
static unsigned long seq;

void dc_record_fork_prepare(void) { pthread_mutex_lock(&rec_lock); }
void dc_record_fork_parent(void) { pthread_mutex_unlock(&rec_lock); }
void dc_record_fork_child(void) { dc_mutex_fork_child(&rec_lock); }

void dc_record_open(void)
{
    __atomic_store_n(&dc_record_on, dc_opt.record_launches && dc_opt.record_launches[0], __ATOMIC_RELEASE);
}

/* One whole line with one write() (rec_lock held). */
static void put_line(struct dc_sbuf *b)
{
    if (b->oom || !b->p || fd < 0)
        return;
    dc_sputn(b, "\n", 1);
    size_t off = 0;
    while (off < b->len) {
        ssize_t w = write(fd, b->p + off, b->len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        off += (size_t)w;
    }
}

static void forget_counts(void)
{
    for (size_t i = 0; i < tab_cap; i++)
        free(tab[i].name);
    free(tab);
    tab = NULL;
    tab_cap = tab_used = 0;
    seq = 0;
}

/* The file of this process, opened on its first launch (rec_lock held); a
 * forked child starts its own.  0, or -1 (said once; recording stops). */
static int ensure_file(void)
{
    pid_t pid = getpid();
    if (fd >= 0 && fd_pid == pid)
        return 0;
    if (fd >= 0) {                      /* a child of fork: its own file and counts */
        close(fd);
        fd = -1;
        forget_counts();
    }
    const char *dir = dc_opt.record_launches;
    char path[4096];
    (void)mkdir(dir, 0777);             /* an existing one is fine */
    if ((size_t)snprintf(path, sizeof path, "%s/%d.jsonl", dir, (int)pid) >= sizeof path ||
        (fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666)) < 0) {
        dc_log("record_launches: cannot write %s: %s; launches are not recorded", path, strerror(errno));
        __atomic_store_n(&dc_record_on, 0, __ATOMIC_RELEASE);
        return -1;
    }
    fd_pid = pid;
    struct dc_sbuf b = { 0 };
    dc_sput(&b, "{\"recorder\":\"devcheck\",\"pid\":%d,\"cuda_version\":%d}", (int)pid, dc_driver_version());
    put_line(&b);
    dc_sfree(&b);
    return 0;
}

/* The count of key, incremented; 0 when memory ran out (rec_lock held). */
static unsigned long count_launch(const void *key, const char *name)
{
    if ((tab_used + 1) * 2 > tab_cap) {
        size_t cap = tab_cap ? tab_cap * 2 : 256;
        struct kcount *n = calloc(cap, sizeof *n);
        if (!n)
            return 0;
        for (size_t i = 0; i < tab_cap; i++) {
            if (!tab[i].key)
                continue;
            size_t j = dc_mix64((uintptr_t)tab[i].key) & (cap - 1);
            while (n[j].key)
                j = (j + 1) & (cap - 1);
            n[j] = tab[i];
        }
        free(tab);
        tab = n;
        tab_cap = cap;
    }
    size_t i = dc_mix64((uintptr_t)key) & (tab_cap - 1);
    while (tab[i].key && tab[i].key != key)
        i = (i + 1) & (tab_cap - 1);
    if (!tab[i].key) {
        tab[i].key = key;
        tab[i].name = name ? strdup(name) : NULL;
        tab_used++;
    }
    return ++tab[i].launches;
}

/* The process's mappings, read once per recorded launch that has a word to
 * place, and indexed by address: each word is then a binary search, not a
 * scan of every line (a framework process has thousands). */
struct maps {
    char *text;                 /* /proc/self/maps, its lines split at '\0' */
    size_t n;
    struct map_line {
        uintptr_t lo, hi;
        const char *line;
    } *e;                       /* in the kernel's order: by address */
};

static char *read_maps_text(void)
{
    int m = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (m < 0)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *t = malloc(cap);
    while (t) {
        if (len + 1 >= cap) {
            char *n = realloc(t, cap * 2);
            if (!n) {
                free(t);
                t = NULL;
                break;
            }
            t = n;
            cap *= 2;
        }
        ssize_t r = read(m, t + len, cap - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(m);
    if (t)
        t[len] = 0;
    return t;
}

/* 0 when it could not be read (every word's map is then ""). */
static int read_maps(struct maps *ms)
{
    memset(ms, 0, sizeof *ms);
    ms->text = read_maps_text();
    if (!ms->text)
        return 0;
    size_t lines = 1;
    for (const char *c = ms->text; *c; c++)
        lines += *c == '\n';
    ms->e = malloc(lines * sizeof *ms->e);
    if (!ms->e)
        return 0;
    for (char *line = ms->text; line && *line;) {
        char *nl = strchr(line, '\n'), *end;
        if (nl)
            *nl = 0;
        unsigned long lo = strtoul(line, &end, 16), hi;
        if (*end == '-') {
            hi = strtoul(end + 1, &end, 16);
            if (lo < hi)
                ms->e[ms->n++] = (struct map_line){ lo, hi, line };
        }
        line = nl ? nl + 1 : NULL;
    }
    return 1;
}

static void free_maps(struct maps *ms)
{
    free(ms->e);
    free(ms->text);
}

/* The `map` field of v: "perms name" of the mapping holding it (a file's
 * name without its directory; device files, memfd and /dev/shm names whole),
 * "" when none holds it. */
static void map_of(const struct maps *ms, uintptr_t v, struct dc_sbuf *b)
{
    size_t lo_i = 0, hi_i = ms->e ? ms->n : 0;
    const struct map_line *m = NULL;
    while (lo_i < hi_i) {
        size_t mid = lo_i + (hi_i - lo_i) / 2;
        if (v < ms->e[mid].lo)
            hi_i = mid;
        else if (v >= ms->e[mid].hi)
            lo_i = mid + 1;
        else {
            m = &ms->e[mid];
            break;
        }
    }
    unsigned long lo, hi, off, inode;
    char perms[8], dev[16];
    int pos = 0;
    char one[600];
    if (m) {
        snprintf(one, sizeof one, "%s", m->line);
        if (sscanf(one, "%lx-%lx %7s %lx %15s %lu %n", &lo, &hi, perms, &off, dev, &inode, &pos) >= 6) {
            const char *path = pos > 0 ? one + pos : "";
            while (*path == ' ')
                path++;
            const char *name = path;
            if (path[0] == '/' && strncmp(path, "/dev/", 5) && strncmp(path, "/memfd:", 7)) {
                const char *s = strrchr(path, '/');
                name = s ? s + 1 : path;
            }
            char field[600];
            snprintf(field, sizeof field, "%s %s", perms, name);
            dc_sjson_str(b, field);
            return;
        }
    }
    dc_sjson_str(b, "");
}

static const char *class_name(const struct dc_kernel *k, unsigned p, uint32_t o)
{
    static const char *const names[] = { "nonptr", "unknown", "ptr", "field" };
    int c = DC_WORD_UNKNOWN;
    if (k->layout_known && p < k->nparams && k->params) {
        const struct dc_param *q = &k->params[p];
        if (q->cls == DC_PC_POINTER)
            c = o == 0 ? DC_WORD_PTR : DC_WORD_NONPTR;
        else if (q->cls == DC_PC_NONPTR)
            c = DC_WORD_NONPTR;
        else if (q->cls == DC_PC_WORDS && q->words && o % 8 == 0 && (uint64_t)o + 8 <= q->size)
            c = q->words[o / 8];
    }
    return names[c & 3];
}

/* What the host function's debug information said of parameter p, when its
 * class came from there (the replay has no host code or image to ask): "dwarf":
 * "pointer", "scalar", or "words:" and one letter per word (n nonptr, u
 * unknown, p ptr, f field). */
static void put_dwarf(struct dc_sbuf *b, const struct dc_param *p)
{
    /* ... and what its image said: "image": "pointer" (PTX), "kparam" (the
     * cubin's KPARAM record), "dwarf" (the cubin's own DWARF), "source" (the
     * NVRTC source), "nonptr" */
    if (p->ev == DC_EV_PTX || p->ev == DC_EV_CUBIN || p->ev == DC_EV_DWARF || p->ev == DC_EV_SOURCE) {
        if (p->cls == DC_PC_POINTER)
            dc_sput(b, "\"image\":\"%s\",", p->ev == DC_EV_CUBIN ? "kparam" : p->ev == DC_EV_DWARF ? "dwarf"
                                               : p->ev == DC_EV_SOURCE ? "source" : "pointer");
        else if (p->cls == DC_PC_NONPTR)
            dc_sput(b, "\"image\":\"nonptr\",");
        return;
    }
    if (p->ev != DC_EV_DEBUG_INFO)
        return;
    if (p->cls == DC_PC_POINTER) {
        dc_sput(b, "\"dwarf\":\"pointer\",");
    } else if (p->cls == DC_PC_NONPTR) {
        dc_sput(b, "\"dwarf\":\"scalar\",");
    } else if (p->cls == DC_PC_WORDS && p->words) {
        dc_sput(b, "\"dwarf\":\"words:");
        for (uint32_t w = 0; w < p->size / 8; w++)
            dc_sput(b, "%c", "nupf"[p->words[w] & 3]);
        dc_sput(b, "\",");
    }
}

/* A registry allocation as the `dc` field. */
static void put_alloc(struct dc_sbuf *b, const char *field, const struct dc_alloc *a, int device)
{
    dc_sput(b, ",\"%s\":{\"kind\":\"%s\",\"owner\":%d,\"base\":\"0x%lx\",\"size\":%lu,\"may\":%d,\"from_driver\":%d}",
            field, dc_mem_kind_name(a->kind), a->owner, (unsigned long)a->base, (unsigned long)a->size,
            dc_reg_may_access(a, device), a->from_driver);
}

static void put_word(struct dc_sbuf *b, const struct dc_launch *l, const struct dc_kernel *k, const struct maps *maps,
                     unsigned p, uint32_t o, uintptr_t v, int *first)
{
    unsigned type = 0;
    int ordinal = -2;
    CUdeviceptr start = 0;
    size_t size = 0;
    bool managed = 0, mapped = 0;
    CUpointer_attribute attrs[] = {
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
        CU_POINTER_ATTRIBUTE_RANGE_SIZE,  CU_POINTER_ATTRIBUTE_IS_MANAGED,     CU_POINTER_ATTRIBUTE_MAPPED,
    };
    void *data[] = { &type, &ordinal, &start, &size, &managed, &mapped };
    CUresult r = DC_CALL(cuPointerGetAttributes, sizeof attrs / sizeof attrs[0], attrs, data, (CUdeviceptr)v);
    dc_sput(b, "%s{\"p\":%u,\"o\":%u,\"v\":\"0x%lx\",\"cls\":\"%s\",\"r\":%d,\"mt\":%u,\"dev\":%d,\"base\":\"0x%lx\","
               "\"size\":%lu,\"managed\":%d,\"mapped\":%d,\"map\":",
            *first ? "" : ",", p, o, (unsigned long)v, class_name(k, p, o), (int)r, type, ordinal,
            (unsigned long)start, (unsigned long)size, (int)managed, (int)mapped);
    *first = 0;
    map_of(maps, v, b);
    /* devcheck's registry: the allocation holding v, and one ending at v (an
     * end iterator is judged by it) */
    struct dc_alloc a;
    if (dc_reg_lookup(v, &a) == 0)
        put_alloc(b, "dc", &a, l->device);
    if (dc_reg_lookup(v - 1, &a) == 0 && a.base + a.size == v)
        put_alloc(b, "dc_before", &a, l->device);
    dc_sput(b, "}");
}

void dc_record_launch(const struct dc_launch *l, const struct dc_kernel *k)
{
    if (!l->kernel_key)
        return;
    pthread_mutex_lock(&rec_lock);
    if (ensure_file() != 0 || count_launch(l->kernel_key, l->kernel) > DC_RECORD_PER_KERNEL) {
        pthread_mutex_unlock(&rec_lock);
        return;
    }
    struct dc_sbuf b = { 0 };
    dc_sput(&b, "{\"seq\":%lu,\"api\":", seq++);
    dc_sjson_str(&b, l->api);
    dc_sput(&b, ",\"name\":");
    dc_sjson_str(&b, l->kernel);
    dc_sput(&b, ",\"ctxdev\":%d,\"dev\":%d,\"curdev\":%d,\"path\":\"%s\",\"stream\":\"0x%lx\",\"pageable\":%d,"
                "\"origin\":\"%s\",\"via\":\"%s\"",
            dc_current_device(), l->device, l->current_device, dc_path_name(l->path), (unsigned long)l->stream,
            l->device >= 0 ? dc_pageable_ok(l->device) : 0, dc_origin_name(k->origin),
            l->args ? "kernelParams" : "extra");
    struct maps maps = { 0 };
    int have_maps = 0;
    if (l->layout_known && l->params) {
        dc_sput(&b, ",\"params\":[");
        for (unsigned i = 0; i < l->nparams; i++) {
            const struct dc_param *p = &l->params[i];
            dc_sput(&b, "%s{\"off\":%u,\"size\":%u,", i ? "," : "", p->offset, p->size);
            put_dwarf(&b, p);
            dc_sput(&b, "\"hex\":\"");
            const unsigned char *src = l->args ? l->args[i] : l->argbuf && (uint64_t)p->offset + p->size <=
                                                                l->argbuf_size ? (const unsigned char *)l->argbuf + p->offset : NULL;
            for (uint32_t j = 0; src && j < p->size; j++)
                dc_sput(&b, "%02x", src[j]);
            dc_sput(&b, "\"}");
        }
        dc_sput(&b, "],\"words\":[");
        int first = 1;
        for (unsigned i = 0; i < l->nparams; i++) {
            const struct dc_param *p = &l->params[i];
            uint64_t off = p->offset, end = off + p->size;
            for (uint64_t a = (off + 7) & ~(uint64_t)7; a + 8 <= end; a += 8) {
                uintptr_t v;
                if (!dc_launch_word(l, (int)i, off, a, &v) || v < 0x10000 || v >= ((uintptr_t)1 << 57))
                    continue;
                if (!have_maps)
                    have_maps = 1, (void)read_maps(&maps);
                put_word(&b, l, k, &maps, i, (uint32_t)(a - off), v, &first);
            }
        }
        dc_sput(&b, "]");
    }
    dc_sput(&b, "}");
    put_line(&b);
    dc_sfree(&b);
    free_maps(&maps);
    pthread_mutex_unlock(&rec_lock);
}

void dc_record_finish(void)
{
    if (!__atomic_load_n(&dc_record_on, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&rec_lock);
    if (fd >= 0 && fd_pid == getpid()) {
        for (size_t i = 0; i < tab_cap; i++) {
            if (!tab[i].key)
                continue;
            struct dc_sbuf b = { 0 };
            dc_sput(&b, "{\"kernel\":");
            dc_sjson_str(&b, tab[i].name);
            dc_sput(&b, ",\"launches\":%lu}", tab[i].launches);
            put_line(&b);
            dc_sfree(&b);
        }
        close(fd);
        fd = -1;
    }
    pthread_mutex_unlock(&rec_lock);
}
