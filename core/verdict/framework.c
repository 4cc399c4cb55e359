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
#include "core/base/cudacall.h"
#include "report/finding.h"
#include "report/report.h"
#include "report/stack.h"
#include "report/symbolize.h"

#include <pthread.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

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

/* PyTorch's convolutions (conv1d/2d/3d, their transposes; ATen's
 * check_input_same_type_as_parameters) say "Input type (torch.cuda.FloatTensor)
 * and weight type (torch.FloatTensor) should be the same" (also "... and bias
 * type ..."): a type in the legacy spelling, whose "torch.cuda." prefix is
 * the device.  A device mismatch when exactly one of the two is a CUDA type;
 * two CUDA types (FloatTensor, HalfTensor) are a dtype mismatch: not ours. */
static int conv_type_message(const char *m)
{
    const char *in = strstr(m, "Input type (");
    if (!in || !strstr(m, "should be the same"))
        return 0;
    const char *other = strstr(in, ") and weight type (");
    if (!other)
        other = strstr(in, ") and bias type (");
    if (!other)
        return 0;
    const char *a = in + strlen("Input type (");
    const char *b = strchr(other + 2, '(');
    if (!b)
        return 0;
    b++;
    /* "torch.cuda.FloatTensor" (Python's spelling), "CUDAFloatType" (the
     * C++ API's, libtorch and older releases) against "torch.FloatTensor",
     * "CPUFloatType" */
    int a_cuda = !strncmp(a, "torch.cuda.", 11) || !strncmp(a, "CUDA", 4);
    int b_cuda = !strncmp(b, "torch.cuda.", 11) || !strncmp(b, "CUDA", 4);
    return a_cuda != b_cuda;
}

/* ATen's TensorUtils checks that name a device without the word "device":
 *  - checkSameGPU, a CPU tensor among GPU ones: "Tensor for argument #2
 *    'mat1' is on CPU, but expected it to be on GPU (while checking
 *    arguments for addmm)" ("... expected them ...");
 *  - checkBackend / checkDeviceType: "Expected tensor to have CUDA Backend,
 *    but got tensor with CPU Backend (while checking arguments for ...)",
 *    "Expected tensor to have cuda DeviceType, but got tensor with cpu
 *    DeviceType (...)": a device mismatch when one is CUDA and the other
 *    the CPU (a sparse or other backend is a layout's business: not ours). */
static int tensorutils_message(const char *m)
{
    if (strstr(m, "is on CPU, but expected") && strstr(m, "to be on GPU (while checking arguments for"))
        return 1;
    const char *want = strstr(m, "Expected tensor to have ");
    if (!want)
        return 0;
    want += strlen("Expected tensor to have ");
    const char *got = strstr(want, ", but got tensor with ");
    if (!got)
        return 0;
    got += strlen(", but got tensor with ");
    static const char *const kinds[] = { " Backend", " DeviceType" };
    for (size_t k = 0; k < 2; k++) {
        size_t kl = strlen(kinds[k]);
        if (strncmp(want + 4, kinds[k], kl) && strncmp(want + 3, kinds[k], kl))
            continue;
        int want_cuda = !strncasecmp(want, "CUDA", 4) && !strncmp(want + 4, kinds[k], kl);
        int want_cpu = !strncasecmp(want, "CPU", 3) && !strncmp(want + 3, kinds[k], kl);
        int got_cuda = !strncasecmp(got, "CUDA", 4) && !strncmp(got + 4, kinds[k], kl);
        int got_cpu = !strncasecmp(got, "CPU", 3) && !strncmp(got + 3, kinds[k], kl);
        return (want_cuda && got_cpu) || (want_cpu && got_cuda);
    }
    return 0;
}

int dc_framework_device_message(const char *message)
{
    if (!message)
        return 0;
    if (!strstr(message, "device"))
        return conv_type_message(message) || tensorutils_message(message);
    for (size_t i = 0; i < sizeof device_messages / sizeof device_messages[0]; i++)
        if (strstr(message, device_messages[i]))
            return 1;
    return 0;
}

/* The anchor: the tensor whose device the op should run on.  A module's
 * parameter or buffer on a GPU says where the model was put (flag
 * DC_TENSOR_PARAM); otherwise the op's first tensor on a GPU (PyTorch's
 * "self": torch.cat's first input, the logits of a loss; a GPU input of a
 * module left on the CPU) that is not an image's (vision_named), else a
 * parameter, else the first one. */
static int on_gpu(const struct dc_fw_tensor *t)
{
    return t->device && !strncmp(t->device, "cuda", 4);
}

/* A tensor the user's code names as an image's or a vision tower's
 * (image_features, pixel_values, vision_embeds, visual_tokens): in a
 * vision-language merge (torch.cat([image_features, inputs_embeds])) the
 * usual fix moves it to the text model's device, not the text to it. */
static int vision_named(const struct dc_fw_tensor *t)
{
    static const char *const words[] = { "image", "img", "pixel", "vision", "visual", "patch" };
    for (size_t i = 0; t->expr && i < sizeof words / sizeof words[0]; i++)
        if (strcasestr(t->expr, words[i]))
            return 1;
    return 0;
}

static unsigned anchor_of(unsigned n, const struct dc_fw_tensor *t)
{
    for (unsigned i = 0; i < n; i++)
        if ((t[i].flags & DC_TENSOR_PARAM) && on_gpu(&t[i]))
            return i;
    for (unsigned i = 0; i < n; i++)
        if (on_gpu(&t[i]) && !vision_named(&t[i]))
            return i;
    for (unsigned i = 0; i < n; i++)
        if (on_gpu(&t[i]))
            return i;
    for (unsigned i = 0; i < n; i++)
        if (t[i].flags & DC_TENSOR_PARAM)
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
        int w, moved = 0;
        if ((t[i].flags & DC_TENSOR_PARAM) && t[i].module && !(a->flags & DC_TENSOR_PARAM)) {
            for (unsigned j = 0; j < i && !moved; j++)      /* its weight and its bias: the module once */
                moved = (t[j].flags & DC_TENSOR_PARAM) && t[j].module && !strcmp(t[j].module, t[i].module) &&
                        t[j].device && strcmp(t[j].device, a->device);
            if (moved)
                continue;
        }
        if ((t[i].flags & DC_TENSOR_PARAM) && t[i].module && !(a->flags & DC_TENSOR_PARAM))
            /* a module's parameter off the input's device: the module moves (in place) */
            w = snprintf(out + pos, len - pos, "%s%s.to(%s.device)", pos ? "; " : "", t[i].module, dev_of);
        else
            w = snprintf(out + pos, len - pos, "%s%s = %s.to(%s.device)", pos ? "; " : "", t[i].expr, t[i].expr,
                         dev_of);
        if (w < 0)
            break;
        pos += (size_t)w;
    }
}

/* The interpreter's tensors and frames as the finding holds them; the hash
 * of the message and the frames' lines (the finding's key). */
static uint64_t fw_convert(const char *message, unsigned nframes, const struct dc_fw_frame *frames, unsigned ntensors,
                           const struct dc_fw_tensor *tensors, struct dc_tensor *t, struct dc_pyloc *pl)
{
    memset(t, 0, sizeof *t * DC_TENSORS_MAX);
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
    return h;
}

/* Reports f (its kind and the framework's facts filled in): the launch
 * fields name the framework, the device (and the current one), the key the
 * hash; the note for the exception into note[0..note_len). */
static void fw_report(struct dc_finding *f, const char *framework, uint64_t h, int dev, int cur, char *note,
                      size_t note_len)
{
    struct dc_finding_launch l = {
        .kernel = NULL,
        .kernel_key = (const void *)(uintptr_t)(h | 1),
        .api = framework ? framework : "python",
        .device = dev,
        .current_device = cur,
        .path = DC_PATH_INTERPOSE,
    };
    f->severity = DC_SEV_ERROR;
    f->launch = &l;
    f->framework = l.api;
    dc_report_finding(f);
    if (note && note_len)
        dc_report_framework_note(f, note, note_len);
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
    uint64_t h = fw_convert(message, nframes, frames, ntensors, tensors, t, pl);
    unsigned anchor = anchor_of(ntensors, tensors);
    char fix[1024];
    make_fix(fix, sizeof fix, ntensors, tensors, anchor);
    int dev = -1;
    if (ntensors && tensors[anchor].device && !strncmp(tensors[anchor].device, "cuda:", 5))
        sscanf(tensors[anchor].device + 5, "%d", &dev);
    struct dc_finding f;
    memset(&f, 0, sizeof f);
    f.kind = DC_F_FRAMEWORK_DEVICE_ERROR;
    f.param = -1;
    f.message = message;
    f.tensors = t;
    f.ntensors = ntensors;
    f.pylocs = pl;
    f.npylocs = nframes;
    f.fix = fix[0] ? fix : NULL;
    fw_report(&f, framework, h, dev, -1, note, note_len);
    return 0;
}

/* --- pointer refusals -------------------------------------------------------------- */

/* The thread's last refusal devcheck can explain: only ever written by the
 * pointer hook after a refusal (rare), read when a framework raises. */
static __thread struct {
    uintptr_t ptr;
    int owner, current;
} refusal;

/* The process's last refusal no framework explained, any thread: the
 * pointer, its owner, the current device and the query's stack (taken at
 * the refusal: a rare, error path), for a program that exits with an error
 * status without raising or launching over it (dc_pointer_refusal_at_exit). */
static pthread_mutex_t unexplained_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uintptr_t ptr;
    int owner, current;
    uint32_t stack;
    uint64_t launches;          /* launches seen before the refusal: one since means the program carried on */
} unexplained;

static uint64_t launches_seen(void)
{
    struct dc_report_stats st;
    dc_report_stats(&st);
    return st.launches_checked + st.launches_unchecked;
}

static void unexplained_forget(uintptr_t ptr)
{
    if (__builtin_expect(__atomic_load_n(&unexplained.ptr, __ATOMIC_RELAXED) != ptr, 1))
        return;
    pthread_mutex_lock(&unexplained_lock);
    if (unexplained.ptr == ptr)
        unexplained.ptr = 0;
    pthread_mutex_unlock(&unexplained_lock);
}

void dc_pointer_refused(uintptr_t ptr)
{
    struct dc_alloc a;
    if (!ptr || dc_reg_lookup(ptr, &a) != 0 || a.owner < 0)
        return;
    if (a.kind != DC_MEM_DEVICE && a.kind != DC_MEM_POOL && a.kind != DC_MEM_VMM && a.kind != DC_MEM_IPC)
        return;
    int cur = dc_current_device_tracked();
    if (cur < 0 || cur == a.owner)
        return;                 /* refused on its own device: not a placement devcheck can fix */
    refusal.ptr = ptr;
    refusal.owner = a.owner;
    refusal.current = cur;
    uint32_t stack = dc_stack_capture(1);
    uint64_t launches = launches_seen();
    pthread_mutex_lock(&unexplained_lock);
    unexplained.launches = launches;
    unexplained.owner = a.owner;
    unexplained.current = cur;
    unexplained.stack = stack;
    __atomic_store_n(&unexplained.ptr, ptr, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&unexplained_lock);
}

void dc_pointer_accepted(uintptr_t ptr)
{
    if (__builtin_expect(refusal.ptr == ptr, 0))
        refusal.ptr = 0;
    unexplained_forget(ptr);
}

uintptr_t dc_pointer_refusal_pending(void)
{
    return refusal.ptr;
}

static void refused_report(uintptr_t ptr, int owner, int cur, const char *framework, const char *message, int param,
                           unsigned nframes, const struct dc_fw_frame *frames, unsigned ntensors,
                           const struct dc_fw_tensor *tensors, uint32_t cstack, char *note, size_t note_len);

int dc_pointer_refused_error(const char *framework, const char *message, int param, unsigned nframes,
                             const struct dc_fw_frame *frames, unsigned ntensors, const struct dc_fw_tensor *tensors,
                             char *note, size_t note_len)
{
    if (note && note_len)
        note[0] = 0;
    uintptr_t ptr = refusal.ptr;
    if (!ptr || !message || (ntensors && !tensors) || (nframes && !frames))
        return -1;
    refusal.ptr = 0;
    unexplained_forget(ptr);
    refused_report(ptr, refusal.owner, refusal.current, framework, message, param, nframes, frames, ntensors, tensors,
                   0, note, note_len);
    return 0;
}

void dc_pointer_refusal_at_exit(int program_status)
{
    if (program_status <= 0)
        return;                 /* finished (or status unknown): a refusal it survived was a probe */
    if (pthread_mutex_trylock(&unexplained_lock) != 0)
        return;                 /* held by a thread a fork left behind: never wait at exit */
    uintptr_t ptr = unexplained.ptr;
    int owner = unexplained.owner, cur = unexplained.current;
    uint32_t stack = unexplained.stack;
    uint64_t launches = unexplained.launches;
    unexplained.ptr = 0;
    pthread_mutex_unlock(&unexplained_lock);
    if (!ptr || launches_seen() != launches)
        return;                 /* a kernel launched since: the program carried on past the refusal */
    /* The query's stack, innermost first: its frames with a file and line
     * (the program's own with debug information, the Python frames). */
    static struct dc_frame fr[DC_PYLOCS_MAX * 2];
    struct dc_fw_frame frames[DC_PYLOCS_MAX];
    size_t n = stack ? dc_stack_symbolize(stack, fr, sizeof fr / sizeof fr[0]) : 0;
    unsigned nframes = 0;
    int python = 0;
    for (size_t i = 0; i < n; i++)
        python |= fr[i].python;
    for (size_t i = 0; i < n && nframes < DC_PYLOCS_MAX; i++)
        if (fr[i].file[0] && fr[i].line > 0 && !strstr(fr[i].file, "/_devcheck_hook.py"))  /* devcheck's wrapper */
            frames[nframes++] = (struct dc_fw_frame){ .file = fr[i].file, .function = fr[i].function,
                                                      .line = fr[i].line };
    char message[160];
    snprintf(message, sizeof message,
             "the program exited with status %d after this refusal, with no launch over it and no exception devcheck saw",
             program_status & 0xff);
    /* A program with no Python frame (a C program): its call stack is the
     * finding's stack (JSON launch_stack), and the fix a C one. */
    refused_report(ptr, owner, cur, "driver", message, -1, nframes, frames, 0, NULL, python ? 0 : stack, NULL, 0);
}

static void refused_report(uintptr_t ptr, int owner, int cur, const char *framework, const char *message, int param,
                           unsigned nframes, const struct dc_fw_frame *frames, unsigned ntensors,
                           const struct dc_fw_tensor *tensors, uint32_t cstack, char *note, size_t note_len)
{
    if (ntensors > DC_TENSORS_MAX)
        ntensors = DC_TENSORS_MAX;
    if (nframes > DC_PYLOCS_MAX)
        nframes = DC_PYLOCS_MAX;
    struct dc_tensor t[DC_TENSORS_MAX];
    struct dc_pyloc pl[DC_PYLOCS_MAX];
    /* The refused tensor first: the one the report and the fix are about. */
    struct dc_fw_tensor in[DC_TENSORS_MAX];
    unsigned n = 0, refused = ntensors;
    for (unsigned i = 0; i < ntensors; i++)
        if (refused == ntensors && tensors[i].ptr == ptr)
            refused = i;
    char own[16], cur_s[16];
    snprintf(own, sizeof own, "cuda:%d", owner);
    snprintf(cur_s, sizeof cur_s, "cuda:%d", cur);
    if (refused < ntensors)
        in[n++] = tensors[refused];
    else if (ntensors < DC_TENSORS_MAX)   /* not among the arguments handed over: the pointer itself */
        in[n++] = (struct dc_fw_tensor){ .expr = "the refused pointer", .device = own, .ptr = ptr };
    for (unsigned i = 0; i < ntensors; i++)
        if (i != refused)
            in[n++] = tensors[i];
    uint64_t h = fw_convert(message, nframes, frames, n, in, t, pl);
    h = fnv("pointer_refused", h);
    /* The fix: every other tensor already on the owner's device: launch
     * there; else bring the refused one to the current device. */
    char fix[1024];
    const char *expr = refused < ntensors && in[0].expr ? in[0].expr : NULL;
    int all_on_owner = refused < ntensors;
    for (unsigned i = 1; i < n && all_on_owner; i++)
        if (!in[i].device || strcmp(in[i].device, own))
            all_on_owner = 0;
    if (cstack)
        snprintf(fix, sizeof fix, "make %s current (cudaSetDevice(%d), or cuCtxSetCurrent with its context) before "
                 "asking for its address, or copy the memory to %s (cudaMemcpyPeer)", own, owner, cur_s);
    else if (expr && all_on_owner && n > 1)
        snprintf(fix, sizeof fix, "with torch.cuda.device(%s.device): launch the kernel there (every tensor is on %s)",
                 expr, own);
    else if (expr)
        snprintf(fix, sizeof fix, "%s = %s.to(\"%s\")  (or make %s current: with torch.cuda.device(%s.device))", expr,
                 expr, cur_s, own, expr);
    else
        snprintf(fix, sizeof fix, "make %s current (torch.cuda.device(%d)) or move the memory to %s", own, owner,
                 cur_s);

    struct dc_finding f;
    memset(&f, 0, sizeof f);
    f.kind = DC_F_POINTER_REFUSED;
    f.param = param;
    f.address = ptr;
    f.message = message;
    f.tensors = t;
    f.ntensors = n;
    f.pylocs = pl;
    f.npylocs = nframes;
    f.fix = fix;
    f.owner_device = owner;
    f.launch_stack = cstack;
    fw_report(&f, framework, h, cur, cur, note, note_len);
}
