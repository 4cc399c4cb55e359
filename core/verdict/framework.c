/* framework: a framework's own device error, explained (see core.h,
 * dc_framework_error).  The interpreter side (preload/python/) only collects
 * what only the interpreter has: the error's message, the failing op's
 * Python stack and its tensors (as the user's code names them, their device
 * and data pointer).  Everything else is decided here: where each tensor's
 * memory was allocated (the registry's record, with its Python stack), which
 * tensor is misplaced and the fix in one line. */
#include "core/owner/blocks.h"
#include "core/verdict/verdict.h"
#include "core/owner/registry.h"
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

/* The frameworks' device-mismatch messages (PyTorch's), tested before the
 * interpreter does any work for an error.  Every message they match says
 * "device" somewhere: tested first, once, as most errors do not. */
static const char *const device_messages[] = {
    "to be on the same device",             /* Expected all tensors to be on the same device, ... */
    "Expected tensor for argument",         /* ... to have the same device as tensor for argument */
    "must be on the same device",
    "are on different devices",
    "should be either on cpu or on the same device",
    "not at the same device",               /* RNN: Input and parameter tensors are not at the same device */
    "Expected object of device type",
    "to have the same device",
};

int dc_framework_device_message(const char *message)
{
    if (!message || !strstr(message, "device"))
        return 0;
    for (size_t i = 0; i < sizeof device_messages / sizeof device_messages[0]; i++)
        if (strstr(message, device_messages[i]))
            return 1;
    return 0;
}

/* The anchor: the tensor whose device the op should run on.  A module's
 * parameter or buffer says where the model was put (flag DC_TENSOR_PARAM);
 * otherwise the op's first tensor on a GPU (PyTorch's "self": torch.cat's
 * first input, the logits of a loss), else the first one. */
static unsigned anchor_of(unsigned n, const struct dc_fw_tensor *t)
{
    for (unsigned i = 0; i < n; i++)
        if (t[i].flags & DC_TENSOR_PARAM)
            return i;
    for (unsigned i = 0; i < n; i++)
        if (t[i].device && !strncmp(t[i].device, "cuda", 4))
            return i;
    return 0;
}

/* "image_features = image_features.to(inputs_embeds.device)" for each tensor
 * off the anchor's device, joined with "; ".  The anchor's device is named
 * by its module when the module says it (model.device), else by itself. */
static void make_fix(char *out, size_t len, unsigned n, const struct dc_fw_tensor *t, unsigned anchor)
{
    size_t pos = 0;
    out[0] = 0;
    const struct dc_fw_tensor *a = &t[anchor];
    const char *dev_of = (a->flags & DC_TENSOR_MODULE_DEVICE) && a->module ? a->module : a->expr;
    for (unsigned i = 0; i < n && pos < len; i++) {
        if (i == anchor || !t[i].device || !a->device || !strcmp(t[i].device, a->device))
            continue;
        int w = snprintf(out + pos, len - pos, "%s%s = %s.to(%s.device)", pos ? "; " : "", t[i].expr, t[i].expr,
                         dev_of);
        if (w < 0)
            break;
        pos += (size_t)w;
    }
}

int dc_framework_error(const char *framework, const char *message, unsigned nframes, const struct dc_fw_frame *frames,
                       unsigned ntensors, const struct dc_fw_tensor *tensors, char *note, size_t note_len)
{
    if (note && note_len)
        note[0] = 0;
    if (!message || (ntensors && !tensors) || (nframes && !frames))
        return -1;
    if (ntensors > DC_TENSORS_MAX)
        ntensors = DC_TENSORS_MAX;
    if (nframes > DC_PYLOCS_MAX)
        nframes = DC_PYLOCS_MAX;
    struct dc_tensor t[DC_TENSORS_MAX];
    struct dc_pyloc pl[DC_PYLOCS_MAX];
    memset(t, 0, sizeof t);
    for (unsigned i = 0; i < ntensors; i++) {
        const struct dc_fw_tensor *in = &tensors[i];
        t[i].expr = in->expr ? in->expr : "?";
        t[i].device = in->device ? in->device : "?";
        t[i].module = in->module;
        struct dc_alloc a;
        if (in->ptr && dc_reg_lookup(in->ptr, &a) == 0) {
            t[i].alloc_known = 1;
            t[i].alloc = (struct dc_finding_alloc){ .base = a.base, .size = a.size, .kind = a.kind, .owner = a.owner,
                                                    .alloc_stack = a.alloc_stack, .from_driver = a.from_driver };
            (void)dc_block_view(&t[i].alloc, &a, in->ptr);  /* the tensor's own block of a cached segment */
        } else if (in->made_file && in->made_line > 0) {
            t[i].made = (struct dc_pyloc){ in->made_file, in->made_line, in->made_function ? in->made_function : "",
                                           NULL };
        }
    }
    uint64_t h = fnv(message, 0xcbf29ce484222325ull);
    for (unsigned i = 0; i < nframes; i++) {
        pl[i] = (struct dc_pyloc){ frames[i].file ? frames[i].file : "", frames[i].line,
                                   frames[i].function ? frames[i].function : "", frames[i].source };
        char ln[16];
        snprintf(ln, sizeof ln, ":%d", frames[i].line);
        h = fnv(ln, fnv(pl[i].file, h));
    }
    unsigned anchor = anchor_of(ntensors, tensors);
    char fix[1024];
    make_fix(fix, sizeof fix, ntensors, tensors, anchor);
    int dev = -1;
    if (ntensors && tensors[anchor].device && !strncmp(tensors[anchor].device, "cuda:", 5))
        sscanf(tensors[anchor].device + 5, "%d", &dev);

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
    if (note && note_len)
        dc_report_framework_note(&f, note, note_len);
    return 0;
}
