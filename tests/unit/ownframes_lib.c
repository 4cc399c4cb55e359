/* A stand-in for libdevcheck.so: the core linked into a shared object, with
 * one exported entry point that registers an allocation and checks a launch
 * the way a hook would.  test_ownframes checks that the reports show only the
 * program's frames. */
#include "core/owner/registry.h"
#include "core/verdict/check.h"
#include "report/report.h"
#include "report/stack.h"
#include "core/base/options.h"
#include "core/core.h"

#include <string.h>

__attribute__((visibility("default"))) uint32_t ownframes_alloc(uintptr_t base, int owner)
{
    struct dc_alloc a;
    memset(&a, 0, sizeof a);
    a.base = base;
    a.size = 4096;
    a.kind = DC_MEM_DEVICE;
    a.owner = owner;
    a.alloc_stack = dc_stack_capture(0);
    return dc_reg_add(&a) == 0 ? a.alloc_stack : 0;
}

__attribute__((visibility("default"))) int ownframes_launch(void **args, int device)
{
    struct dc_param p = { 0, 8, DC_PC_POINTER, DC_EV_SIGNATURE, NULL };
    struct dc_launch l = {
        .kernel = "_Z4vaddPf", .api = "cuLaunchKernel", .device = device, .current_device = -1,
        .args = args, .params = &p, .nparams = 1, .layout_known = 1,
    };
    return dc_check_launch(&l);
}

__attribute__((visibility("default"))) int ownframes_init(const char *opts)
{
    char err[512];
    if (dc_options_parse(opts, err, sizeof err) != 0)
        return -1;
    dc_core_open();
    return 0;
}

__attribute__((visibility("default"))) void ownframes_finish(void)
{
    dc_report_finish();
}
