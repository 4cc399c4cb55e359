/* modmap: the object holding an address, without dladdr (see modmap.h).
 *
 * dladdr also looks for the nearest dynamic symbol, over every symbol of the
 * object (about 20,000 instructions an address in a C program, far more in
 * libtorch_cpu's).  The objects' load segments are listed once with
 * dl_iterate_phdr, and again when one was loaded or unloaded since
 * (dlpi_adds, dlpi_subs); an object's name and base are those dladdr gives
 * (dli_fname: the link map's name, argv[0] for the program; dli_fbase: the
 * page of its lowest load segment).  Under the symbolizer's lock. */
#include "report/modmap.h"

#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mod_seg {
    uintptr_t lo, hi;
    size_t obj;
};
static struct mod_seg *mod_segs;
static size_t mod_nsegs, mod_capsegs;
static struct dc_modobj *mod_objs;
static size_t mod_nobjs, mod_capobjs;
static unsigned long long mod_adds, mod_subs;
static int mod_listed;

static int mod_counts_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    unsigned long long *c = data;
    if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
        return 1;
    c[0] = info->dlpi_adds, c[1] = info->dlpi_subs, c[2] = 1;
    return 1;
}

static int mod_list_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), base = UINTPTR_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            uintptr_t lo = info->dlpi_addr + (info->dlpi_phdr[i].p_vaddr & ~(page - 1));
            if (lo < base)
                base = lo;
        }
    if (base == UINTPTR_MAX)
        return 0;
    if (mod_nobjs == mod_capobjs) {
        size_t cap = mod_capobjs ? mod_capobjs * 2 : 64;
        struct dc_modobj *v = realloc(mod_objs, cap * sizeof *v);
        if (!v)
            return 0;
        mod_objs = v, mod_capobjs = cap;
    }
    const char *name = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name
                       : mod_nobjs == 0                       ? program_invocation_name
                                                              : "";
    char *copy = strdup(name ? name : "");
    if (!copy)
        return 0;
    size_t obj = mod_nobjs;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !ph->p_memsz)
            continue;
        if (mod_nsegs == mod_capsegs) {
            size_t cap = mod_capsegs ? mod_capsegs * 2 : 256;
            struct mod_seg *v = realloc(mod_segs, cap * sizeof *v);
            if (!v)
                break;
            mod_segs = v, mod_capsegs = cap;
        }
        mod_segs[mod_nsegs++] = (struct mod_seg){ info->dlpi_addr + ph->p_vaddr,
                                                  info->dlpi_addr + ph->p_vaddr + ph->p_memsz, obj };
    }
    mod_objs[mod_nobjs++] = (struct dc_modobj){ base, info->dlpi_addr, copy };
    return 0;
}

static int mod_seg_cmp(const void *a, const void *b)
{
    const struct mod_seg *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The objects listed again if one was loaded or unloaded since. */
void dc_modmap_refresh(void)
{
    unsigned long long c[3] = { 0, 0, 0 };
    dl_iterate_phdr(mod_counts_cb, c);
    if (mod_listed && c[2] && c[0] == mod_adds && c[1] == mod_subs)
        return;
    for (size_t i = 0; i < mod_nobjs; i++)
        free(mod_objs[i].name);
    mod_nobjs = mod_nsegs = 0;
    dl_iterate_phdr(mod_list_cb, NULL);
    if (mod_nsegs)
        qsort(mod_segs, mod_nsegs, sizeof *mod_segs, mod_seg_cmp);
    mod_adds = c[0], mod_subs = c[1], mod_listed = c[2];
}

/* The object holding pc, NULL if none. */
const struct dc_modobj *dc_modmap_of(uintptr_t pc)
{
    size_t lo = 0, hi = mod_nsegs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (mod_segs[mid].lo <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && pc < mod_segs[lo - 1].hi ? &mod_objs[mod_segs[lo - 1].obj] : NULL;
}


int dc_modmap_is_main(const struct dc_modobj *o) { return mod_nobjs && o == &mod_objs[0]; }
