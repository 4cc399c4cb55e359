/* The sim as an older driver, or as one without chosen entry points.
 *
 *   SIMCUDA_DRIVER_VERSION=12020   cuDriverGetVersion reports it, and every
 *                                  symbol whose ABI (the PFN_<name>_v<N>
 *                                  version of cudaTypedefs.h) is newer than
 *                                  it is absent
 *   SIMCUDA_HIDE=name[,name...]    those entry points are absent ("cuMemAlloc"
 *                                  names every variant, "cuMemAlloc_v2" one)
 *
 * An absent symbol is absent the ways a process can look for it:
 *   - cuGetProcAddress(_v2) answers as that driver would: a base whose every
 *     variant is absent is CUDA_ERROR_NOT_FOUND with
 *     CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND; otherwise the newest variant
 *     the driver has, up to the requested version;
 *   - dlsym() on libcuda.so.1 returns NULL, and a lazily bound call from a
 *     program linked with -lcuda fails to bind ("symbol lookup error"), as
 *     with a real driver that never exported it: at load time the library's
 *     own dynamic symbol table entry is turned into an undefined one;
 *   - a reference bound before that (a program linked with -z now, or a
 *     pointer taken earlier) still reaches the implementation, which returns
 *     CUDA_ERROR_NOT_SUPPORTED and says so in one line, once per name.
 * The sim's runtime refuses a driver older than its own CUDA_VERSION with
 * cudaErrorInsufficientDriver, as NVIDIA's does. */
#include "internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_HIDE 64

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_state;                 /* 0 not parsed, 1 nothing absent, 2 some */
static int g_version = CUDA_VERSION;
static char g_hide[MAX_HIDE][96];
static int g_nhide;
static unsigned char *g_absent;     /* per row of sim_proc_table */
static const char **g_gone;         /* absent exported symbols, sorted */
static size_t g_ngone;

/* names reported once by sim_absent: a small set of string pointers */
static const char *g_said[256];
static unsigned g_nsaid;
static pthread_mutex_t g_said_lock = PTHREAD_MUTEX_INITIALIZER;

static int hidden_name(const char *sym)
{
    for (int i = 0; i < g_nhide; i++)
        if (sim_name_matches(g_hide[i], sym))
            return 1;
    return 0;
}

/* 1 when the exported symbol `sym` is absent: newer than the version (its
 * rows' lowest version), or hidden (called once per row, at parse). */
static int absent_by_table(const char *sym)
{
    if (hidden_name(sym))
        return 1;
    int known = 0, newest_ok = 0;
    for (size_t i = 0; i < sim_proc_count; i++)
        if (!strcmp(sim_proc_table[i].sym, sym)) {
            known = 1;
            newest_ok |= sim_proc_table[i].version <= g_version;
        }
    return known && !newest_ok;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void parse(void)
{
    g_version = simdev_driver_version(CUDA_VERSION, 0);
    const char *h = getenv("SIMCUDA_HIDE");
    if (h && *h) {
        char buf[2048];
        snprintf(buf, sizeof buf, "%s", h);
        char *save = NULL;
        for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
            if (g_nhide == MAX_HIDE || strlen(t) >= sizeof g_hide[0]) {
                fprintf(stderr, "simcuda: SIMCUDA_HIDE: ignoring '%s'\n", t);
                continue;
            }
            snprintf(g_hide[g_nhide++], sizeof g_hide[0], "%s", t);
        }
    }
    int any = 0;
    g_absent = calloc(sim_proc_count + 1, 1);
    g_gone = calloc(sim_proc_count + 1, sizeof *g_gone);
    for (size_t i = 0; g_absent && g_gone && i < sim_proc_count; i++) {
        const struct procent *p = &sim_proc_table[i];
        g_absent[i] = p->version > g_version || hidden_name(p->sym);
        any |= g_absent[i];
        if (g_absent[i] && absent_by_table(p->sym))
            g_gone[g_ngone++] = p->sym;
    }
    if (g_gone)
        qsort(g_gone, g_ngone, sizeof *g_gone, str_cmp);
    __atomic_store_n(&g_state, any || g_nhide ? 2 : 1, __ATOMIC_RELEASE);
}

static int active(void)
{
    int s = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
    if (s == 0) {
        pthread_once(&g_once, parse);
        s = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
    }
    return s == 2;
}

int sim_driver_version(void)
{
    (void)active();
    return g_version;
}

int sim_proc_absent(size_t i)
{
    return active() && g_absent && i < sim_proc_count && g_absent[i];
}

/* fn is an absent exported symbol */
static int symbol_absent(const char *fn)
{
    return hidden_name(fn) || (g_gone && bsearch(&fn, g_gone, g_ngone, sizeof *g_gone, str_cmp));
}

CUresult sim_absent(const char *fn)
{
    if (!active() || !fn || !symbol_absent(fn))
        return CUDA_SUCCESS;
    int fresh = 1;
    pthread_mutex_lock(&g_said_lock);
    for (unsigned i = 0; i < g_nsaid && fresh; i++)
        fresh = g_said[i] != fn && strcmp(g_said[i], fn) != 0;
    if (fresh && g_nsaid < sizeof g_said / sizeof g_said[0])
        g_said[g_nsaid++] = fn;
    pthread_mutex_unlock(&g_said_lock);
    if (fresh) {
        if (hidden_name(fn))
            sim_log(CU_LOG_LEVEL_ERROR, "%s is hidden (SIMCUDA_HIDE): CUDA_ERROR_NOT_SUPPORTED", fn);
        else
            sim_log(CU_LOG_LEVEL_ERROR, "%s is not in a driver of version %d (SIMCUDA_DRIVER_VERSION): "
                    "CUDA_ERROR_NOT_SUPPORTED", fn, g_version);
    }
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* ---- unexporting at load time ---- */
static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = h * 33 + *p;
    return h;
}

static uintptr_t dyn_ptr(const struct link_map *lm, ElfW(Addr) v)
{
    /* glibc relocates these entries in place on most targets, not on all */
    return v < lm->l_addr ? v + lm->l_addr : v;
}

struct self { ElfW(Sym) *symtab; const char *strtab; const uint32_t *gnuhash; };

static ElfW(Sym) *find_sym(const struct self *me, const char *name)
{
    const uint32_t *gh = me->gnuhash;
    uint32_t nbuckets = gh[0], symoffset = gh[1], bloom_size = gh[2];
    if (nbuckets == 0)
        return NULL;
    const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)&gh[4] + bloom_size);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t h = gnu_hash(name), idx = buckets[h % nbuckets];
    if (idx < symoffset)
        return NULL;
    for (;; idx++) {
        uint32_t h2 = chain[idx - symoffset];
        if ((h | 1) == (h2 | 1) && !strcmp(me->strtab + me->symtab[idx].st_name, name))
            return &me->symtab[idx];
        if (h2 & 1)
            return NULL;
    }
}

struct seg_query { uintptr_t addr; int prot; uintptr_t base; };

static int seg_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct seg_query *q = arg;
    if (info->dlpi_addr != q->base)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && q->addr >= lo && q->addr < lo + ph->p_memsz) {
            q->prot = ((ph->p_flags & PF_R) ? PROT_READ : 0) | ((ph->p_flags & PF_W) ? PROT_WRITE : 0) |
                      ((ph->p_flags & PF_X) ? PROT_EXEC : 0);
            return 1;
        }
    }
    return 0;
}

/* Turns the library's own dynamic symbol `sym` into an undefined one, so
 * the dynamic linker (dlsym, lazy binding) no longer finds it here. */
static void unexport(const struct self *me, const struct link_map *lm, const char *name)
{
    ElfW(Sym) *s = find_sym(me, name);
    if (!s || s->st_shndx == SHN_UNDEF)
        return;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t page = (uintptr_t)s & ~(uintptr_t)(pg - 1);
    size_t len = ((uintptr_t)(s + 1) - page + pg - 1) & ~(pg - 1);
    struct seg_query q = { (uintptr_t)s, PROT_READ, lm->l_addr };
    dl_iterate_phdr(seg_cb, &q);
    if (!(q.prot & PROT_WRITE) && mprotect((void *)page, len, PROT_READ | PROT_WRITE) != 0)
        return;
    s->st_value = 0;
    s->st_shndx = SHN_UNDEF;
    if (!(q.prot & PROT_WRITE))
        mprotect((void *)page, len, q.prot);
}

__attribute__((constructor)) static void unexport_absent(void)
{
    if (!active())
        return;
    Dl_info info;
    struct link_map *lm = NULL;
    if (!dladdr1((void *)&unexport_absent, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return;
    struct self me = { NULL, NULL, NULL };
    for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_SYMTAB)
            me.symtab = (ElfW(Sym) *)dyn_ptr(lm, d->d_un.d_ptr);
        else if (d->d_tag == DT_STRTAB)
            me.strtab = (const char *)dyn_ptr(lm, d->d_un.d_ptr);
        else if (d->d_tag == DT_GNU_HASH)
            me.gnuhash = (const uint32_t *)dyn_ptr(lm, d->d_un.d_ptr);
    }
    if (!me.symtab || !me.strtab || !me.gnuhash) {
        fprintf(stderr, "simcuda: no GNU hash table: absent entry points stay visible to dlsym\n");
        return;
    }
    for (size_t i = 0; i < sim_proc_count; i++)
        if (symbol_absent(sim_proc_table[i].sym))
            unexport(&me, lm, sim_proc_table[i].sym);
    for (int i = 0; i < g_nhide; i++)
        unexport(&me, lm, g_hide[i]);   /* an exact name outside the table */
}
