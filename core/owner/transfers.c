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

void dc_copy_event(uintptr_t dst, int dst_device, uintptr_t src, int src_device, size_t bytes)
{
    int d = column(dst, dst_device), s = column(src, src_device);
    dc_report_count_transfer(s, d, bytes, dc_stack_capture(1));
}
