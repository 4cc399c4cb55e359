/* nvtx: devcheck as an NVTX injection library.  The wrapper sets
 * NVTX_INJECTION64_PATH to libdevcheck.so; the first NVTX call of every copy
 * of NVTX in the process (the header-only nvtx3 in PyTorch, libnvToolsExt,
 * a program's own) loads it -- already loaded, as LD_PRELOAD put it there --
 * and calls InitializeInjectionNvtx2, which fills that copy's function table
 * with the range push/pop callbacks below.  Each thread's open ranges go to
 * report/ranges.c, so a finding names the ranges it happened in
 * (torch.cuda.nvtx.range_push("decoder.layer.3"), the op names
 * torch.autograd.profiler.emit_nvtx() pushes).  Marks, start/end ranges
 * (not nested per thread) and names of devices or streams are not recorded.
 *
 * Defined against the toolkit's nvtx3 headers (types and callback ids). */
#include "preload/export.h"
#include "report/ranges.h"

#include <nvtx3/nvToolsExt.h>

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* "decoder.layer.3" from an event attribute's message (ASCII, wide, or a
 * string registered with nvtxDomainRegisterString: our copy). */
static int push_message(nvtxMessageType_t type, nvtxMessageValue_t m)
{
    char buf[DC_RANGE_NAME];
    switch (type) {
    case NVTX_MESSAGE_TYPE_ASCII:
    case NVTX_MESSAGE_TYPE_REGISTERED:      /* our handles are the strings themselves */
        return dc_ranges_push(m.ascii ? m.ascii : "?");
    case NVTX_MESSAGE_TYPE_UNICODE:
        if (m.unicode && wcstombs(buf, m.unicode, sizeof buf - 1) != (size_t)-1) {
            buf[sizeof buf - 1] = 0;
            return dc_ranges_push(buf);
        }
        return dc_ranges_push("?");
    default:
        return dc_ranges_push("?");
    }
}

static int range_push_a(const char *message) { return dc_ranges_push(message); }

static int range_push_w(const wchar_t *message)
{
    nvtxMessageValue_t m;
    m.unicode = message;
    return push_message(NVTX_MESSAGE_TYPE_UNICODE, m);
}

static int range_push_ex(const nvtxEventAttributes_t *a)
{
    if (!a)
        return dc_ranges_push("?");
    return push_message((nvtxMessageType_t)a->messageType, a->message);
}

static int range_pop(void) { return dc_ranges_pop(); }

static int domain_range_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    (void)d;
    return range_push_ex(a);
}

static int domain_range_pop(nvtxDomainHandle_t d)
{
    (void)d;
    return dc_ranges_pop();
}

/* A registered string's handle is a copy of it (kept for the process's
 * life, as NVTX's handles are). */
static nvtxStringHandle_t domain_register_string_a(nvtxDomainHandle_t d, const char *s)
{
    (void)d;
    return (nvtxStringHandle_t)(s ? strdup(s) : NULL);
}

/* A domain handle must be non-NULL for the program to go on using it. */
static nvtxDomainHandle_t domain_create_a(const char *name)
{
    static char dummy;
    (void)name;
    return (nvtxDomainHandle_t)(void *)&dummy;
}

static void set_slot(NvtxGetExportTableFunc_t get, NvtxCallbackModule module, unsigned id, NvtxFunctionPointer fn)
{
    const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable table = NULL;
    unsigned int size = 0;
    if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable ||
        !cb->GetModuleFunctionTable(module, &table, &size) || !table || id >= size || !table[id])
        return;
    *table[id] = fn;
}

DC_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
    if (!get)
        return 0;
    set_slot(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)range_push_a);
    set_slot(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushW, (NvtxFunctionPointer)range_push_w);
    set_slot(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx, (NvtxFunctionPointer)range_push_ex);
    set_slot(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)range_pop);
    set_slot(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx, (NvtxFunctionPointer)domain_range_push_ex);
    set_slot(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, (NvtxFunctionPointer)domain_range_pop);
    set_slot(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringA,
             (NvtxFunctionPointer)domain_register_string_a);
    set_slot(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA, (NvtxFunctionPointer)domain_create_a);
    return 1;
}
