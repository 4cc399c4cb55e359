/* framework: a framework's own device error, explained (see core.h,
 * dc_framework_error).  The interpreter side (preload/python/) only collects
 * what only the interpreter has: the error's message, the failing op's
 * Python stack and its tensors (as the user's code names them, their device
 * and data pointer).  Everything else is decided here: where each tensor's
 * memory was allocated (the registry's record, with its Python stack), which
 * tensor is misplaced and the fix in one line. */
#include "core/core.h"
#include "core/registry.h"
#include "report/finding.h"

#include <stdio.h>
#include <string.h>

static uint64_t fnv(const char *s, uint64_t h)
{
    for (; s && *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The anchor: the tensor whose device the op should run on.  A module's
 * parameter or buffer says where the model was put (flag DC_TENSOR_PARAM);
 * otherwise the op's first tensor on a GPU (PyTorch's "self": torch.cat's
 * first input, the logits of a loss), else the first one. */
static unsigned anchor_of(unsigned n, const char *const *devices, const int *flags)
{
    for (unsigned i = 0; i < n; i++)
        if (flags && (flags[i] & DC_TENSOR_PARAM))
            return i;
    for (unsigned i = 0; i < n; i++)
        if (devices[i] && !strncmp(devices[i], "cuda", 4))
            return i;
    return 0;
}

/* "image_features.to(inputs_embeds.device)" for each tensor off the anchor's
 * device, joined with "; ". */
static void make_fix(char *out, size_t len, unsigned n, const char *const *exprs, const char *const *devices,
                     unsigned anchor)
{
    size_t pos = 0;
    out[0] = 0;
    for (unsigned i = 0; i < n && pos < len; i++) {
        if (i == anchor || !devices[i] || !devices[anchor] || !strcmp(devices[i], devices[anchor]))
            continue;
        int w = snprintf(out + pos, len - pos, "%s%s = %s.to(%s.device)", pos ? "; " : "", exprs[i], exprs[i],
                         exprs[anchor]);
        if (w < 0)
            break;
        pos += (size_t)w;
    }
}

int dc_framework_error(const char *framework, const char *message, unsigned nframes, const char *const *files,
                       const int *lines, const char *const *functions, unsigned ntensors, const char *const *exprs,
                       const uintptr_t *ptrs, const char *const *devices, const int *flags)
{
    if (!message || (ntensors && (!exprs || !ptrs || !devices)) || (nframes && (!files || !lines || !functions)))
        return -1;
    if (ntensors > DC_TENSORS_MAX)
        ntensors = DC_TENSORS_MAX;
    if (nframes > DC_PYLOCS_MAX)
        nframes = DC_PYLOCS_MAX;
    struct dc_tensor t[DC_TENSORS_MAX];
    struct dc_pyloc pl[DC_PYLOCS_MAX];
    memset(t, 0, sizeof t);
    for (unsigned i = 0; i < ntensors; i++) {
        t[i].expr = exprs[i] ? exprs[i] : "?";
        t[i].device = devices[i] ? devices[i] : "?";
        struct dc_alloc a;
        if (ptrs[i] && dc_reg_lookup(ptrs[i], &a) == 0) {
            t[i].alloc_known = 1;
            t[i].alloc = (struct dc_finding_alloc){ .base = a.base, .size = a.size, .kind = a.kind, .owner = a.owner,
                                                    .alloc_stack = a.alloc_stack, .from_driver = a.from_driver };
        }
    }
    uint64_t h = fnv(message, 0xcbf29ce484222325ull);
    for (unsigned i = 0; i < nframes; i++) {
        pl[i] = (struct dc_pyloc){ files[i] ? files[i] : "", lines[i], functions[i] ? functions[i] : "" };
        char ln[16];
        snprintf(ln, sizeof ln, ":%d", lines[i]);
        h = fnv(ln, fnv(pl[i].file, h));
    }
    unsigned anchor = anchor_of(ntensors, devices, flags);
    char fix[1024];
    make_fix(fix, sizeof fix, ntensors, exprs, devices, anchor);
    int dev = -1;
    if (ntensors && devices[anchor] && !strncmp(devices[anchor], "cuda:", 5))
        sscanf(devices[anchor] + 5, "%d", &dev);

    struct dc_finding_launch l = {
        .kernel = NULL,
        .kernel_key = (const void *)(uintptr_t)(h | 1),
        .api = framework ? framework : "python",
        .device = dev,
        .current_device = -1,
        .path = DC_PATH_INTERPOSE,
    };
    struct dc_finding f;
    memset(&f, 0, sizeof f);
    f.kind = DC_F_FRAMEWORK_DEVICE_ERROR;
    f.severity = DC_SEV_ERROR;
    f.launch = &l;
    f.framework = l.api;
    f.message = message;
    f.tensors = t;
    f.ntensors = ntensors;
    f.pylocs = pl;
    f.npylocs = nframes;
    f.fix = fix[0] ? fix : NULL;
    dc_report_finding(&f);
    return 0;
}
