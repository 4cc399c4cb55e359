/* finding: the names of the finding vocabulary (see finding.h), as the
 * reports spell them, and what a finding's evidence amounts to. */
#include "report/finding.h"
#include <string.h>

const char *dc_severity_name(enum dc_severity s)
{
    return s == DC_SEV_ERROR ? "error" : s == DC_SEV_WARNING ? "warning" : "info";
}

const char *dc_path_name(enum dc_path p)
{
    return p == DC_PATH_CUPTI ? "cupti" : "interpose";
}

const char *dc_mem_kind_name(enum dc_mem_kind k)
{
    static const char *const names[DC_MEM_KIND_COUNT] = {
        "device", "pool", "vmm", "ipc", "managed", "pinned", "registered", "pageable",
    };
    return (unsigned)k < DC_MEM_KIND_COUNT ? names[k] : "unknown";
}

const char *dc_finding_kind_name(enum dc_finding_kind k)
{
    static const char *const names[DC_F_KIND_COUNT] = {
#define DC_KIND(E, id, ...) [DC_F_##E] = #id,
#include "report/kinds.def"
#undef DC_KIND
    };
    return (unsigned)k < DC_F_KIND_COUNT ? names[k] : "unknown";
}

uint64_t dc_kernel_name_hash(const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *c = (const unsigned char *)name; c && *c; c++) {
        h ^= *c;
        h *= 0x100000001b3ull;
    }
    return h ? h : 1;
}

const char *dc_action_name(enum dc_action a)
{
    return a == DC_ACT_MIGRATED ? "migrated" : a == DC_ACT_NOT_MIGRATED ? "not_migrated" : "reported";
}

const char *dc_word_kind_name(enum dc_word_kind k)
{
    static const char *const names[DC_WK_COUNT] = { "pointer_param", "pointer_field", "unknown", "buffer" };
    return (unsigned)k < DC_WK_COUNT ? names[k] : "unknown";
}

int dc_finding_shape_only(const struct dc_finding *f)
{
    return f->evidence && !strcmp(f->evidence, "launch_shape");
}

int dc_finding_framework(const struct dc_finding *f)
{
    return f->kind == DC_F_FRAMEWORK_DEVICE_ERROR || f->kind == DC_F_POINTER_REFUSED;
}
