/* transfers: the copy events of both front ends -> the transfer counters
 * of report/matrix.h.  Each end of a copy is classified by the registry (a
 * device, pinned or registered host memory, managed memory) or, when the
 * registry does not know it, as pageable host memory; the call site is the
 * copying call's stack (captured and deduplicated by report/stack.c).  O(1)
 * per copy; no lock but the stack table's read lock.  The caller holds the
 * guard. */
#include "core/owner/owner.h"
#include "core/owner/registry.h"
#include "report/matrix.h"
#include "report/stack.h"

static int column(uintptr_t p, int known_device)
{
    if (known_device >= 0)
        return known_device;
    struct dc_alloc a;
    if (!p || dc_reg_lookup(p, &a) != 0)
        return DC_COL_PAGEABLE;
    switch (a.kind) {
    case DC_MEM_HOST_PINNED:
    case DC_MEM_HOST_REGISTERED:
        return DC_COL_PINNED;
    case DC_MEM_MANAGED:
        return DC_COL_MANAGED;
    case DC_MEM_HOST_PAGEABLE:
        return DC_COL_PAGEABLE;
    default:
        return a.owner >= 0 ? a.owner : DC_COL_PAGEABLE;
    }
}

__thread struct dc_copy_in dc_copy_in __attribute__((tls_model("initial-exec")));

/* The thread's last copy: its ends' columns while the registry has not
 * changed (dc_reg_gen: a copy in a loop looks nothing up), and its call
 * site with the library call's key it was captured under (ra 0: a
 * program's copy, not reused). */
static __thread struct {
    uintptr_t dst, src;
    int dst_device, src_device, d, s;
    uint64_t gen;               /* 0: none */
    struct dc_copy_in in;
    uint32_t site;
} last __attribute__((tls_model("initial-exec")));

/* The columns and site of a copy the last one does not answer. */
static __attribute__((noinline)) void copy_new(uintptr_t dst, int dst_device, uintptr_t src, int src_device,
                                               uint64_t g)
{
    if (last.gen != g || last.dst != dst || last.src != src || last.dst_device != dst_device ||
        last.src_device != src_device) {
        last.d = column(dst, dst_device);
        last.s = column(src, src_device);
        last.dst = dst;
        last.src = src;
        last.dst_device = dst_device;
        last.src_device = src_device;
        last.gen = g;                   /* read before the lookups: a change since makes it stale */
    }
    if (!dc_copy_in.ra || last.in.ra != dc_copy_in.ra || last.in.cfa != dc_copy_in.cfa) {
        last.site = dc_stack_capture(2);        /* the copying call's: past this function and dc_copy_event */
        last.in = dc_copy_in;
    }
}

void dc_copy_event(uintptr_t dst, int dst_device, uintptr_t src, int src_device, size_t bytes)
{
    uint64_t g = __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE);
    if (last.gen != g || last.dst != dst || last.src != src || last.dst_device != dst_device ||
        last.src_device != src_device || !dc_copy_in.ra || last.in.ra != dc_copy_in.ra ||
        last.in.cfa != dc_copy_in.cfa)
        copy_new(dst, dst_device, src, src_device, g);
    dc_report_count_transfer(last.s, last.d, bytes, last.site);
}
