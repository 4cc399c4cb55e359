/* finding: the vocabulary of devcheck's findings and the one call that
 * hands a finding to the report.  The core (core/verdict/check.c) fills a struct
 * dc_finding with values; report/ never reaches back into the core: what a
 * finding says about its launch and its allocation is copied here.
 * report/ includes nothing of core/, preload/ or cupti/; core/ includes this
 * header (the registry's memory kinds are these). */
#ifndef DEVCHECK_FINDING_H
#define DEVCHECK_FINDING_H
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Kinds of memory, as the registry records them and the reports name them. */
enum dc_mem_kind {
    DC_MEM_DEVICE = 0,      /* cuMemAlloc, cudaMalloc, pitch */
    DC_MEM_POOL,            /* stream-ordered / pool allocation; access from the pool */
    DC_MEM_VMM,             /* cuMemMap'ed range; access only as cuMemSetAccess granted */
    DC_MEM_IPC,             /* imported with cuIpcOpenMemHandle */
    DC_MEM_MANAGED,         /* cuMemAllocManaged: accessible everywhere */
    DC_MEM_HOST_PINNED,     /* cuMemHostAlloc, cuMemAllocHost */
    DC_MEM_HOST_REGISTERED, /* cuMemHostRegister */
    DC_MEM_HOST_PAGEABLE,   /* never stored: a lookup result for plain host memory */
    DC_MEM_KIND_COUNT
};
const char *dc_mem_kind_name(enum dc_mem_kind k);   /* "device", "pool", ... (JSON "memory") */

enum dc_finding_kind {          /* described once each in report/kinds.def */
#define DC_KIND(E, id, ...) DC_F_##E,
#include "report/kinds.def"
#undef DC_KIND
    DC_F_KIND_COUNT
};
const char *dc_finding_kind_name(enum dc_finding_kind k);  /* "device_mismatch", ... */
/* FNV-1a of a kernel's name: a finding's kernel in the store's key
 * (report/store.h).  Never 0 (0 says "not given" in dc_finding_launch). */
uint64_t dc_kernel_name_hash(const char *name);
struct dc_finding;
/* A framework's own error explained from the interpreter (framework_device_error,
 * pointer_refused): no kernel ran; the fields below "framework_device_error"
 * describe it. */
int dc_finding_framework(const struct dc_finding *f);

enum dc_severity { DC_SEV_ERROR = 0, DC_SEV_WARNING, DC_SEV_INFO };
const char *dc_severity_name(enum dc_severity s);   /* "error", "warning", "info" */

/* What devcheck did about a finding (JSON "action"). */
enum dc_action { DC_ACT_REPORTED = 0, DC_ACT_MIGRATED, DC_ACT_NOT_MIGRATED };
const char *dc_action_name(enum dc_action a);       /* "reported", "migrated", "not_migrated" */

/* Which detection path saw a launch: the interposed entry points or the
 * CUPTI callbacks (cupti/).  Reported per finding and counted in the summary. */
enum dc_path { DC_PATH_INTERPOSE = 0, DC_PATH_CUPTI, DC_PATH_COUNT };
const char *dc_path_name(enum dc_path p);                  /* "interpose", "cupti" */

/* What the scanned word is, by the kernel's evidence (JSON operand "word"). */
enum dc_word_kind {
    DC_WK_POINTER_PARAM = 0,    /* a pointer parameter */
    DC_WK_POINTER_FIELD,        /* a pointer field of a parameter whose layout is known */
    DC_WK_UNKNOWN,              /* a word of unknown meaning (async_error suspects only) */
    DC_WK_BUFFER,               /* a word of a packed buffer without a layout (async_error only) */
    DC_WK_COUNT
};
const char *dc_word_kind_name(enum dc_word_kind k);       /* "pointer_param", ... */
struct dc_finding;
/* Is the finding's only evidence the launch's shape (core/kernel/kernels.h)? */
int dc_finding_shape_only(const struct dc_finding *f);

/* The launch a finding belongs to, as reported. */
struct dc_finding_launch {
    const char *kernel;        /* mangled (or plain) kernel name; NULL if unknown */
    const void *kernel_key;    /* the kernel's handle: its identity when the name is unknown */
    const char *api;           /* entry point that launched: "__cudaLaunchKernel", "cuLaunchKernel", ... */
    int device;                /* launch device */
    int current_device;        /* runtime API: the calling thread's current device; -1 if not applicable */
    uintptr_t stream;          /* as the program passed it */
    enum dc_path path;         /* the detection path that saw it */
    const char *origin;        /* who made the kernel's image: "program", "jit", "framework", "library", "unknown"; NULL: not said */
    uint64_t kernel_hash;      /* dc_kernel_name_hash(kernel) when the caller has it (computed once per kernel); 0: not given */
};

/* An allocation a finding names, as reported. */
struct dc_finding_alloc {
    uintptr_t base;
    size_t size;
    enum dc_mem_kind kind;
    int owner;                  /* owning device, -1 for host memory */
    uint32_t alloc_stack;       /* dc_stack id of the allocating call, 0 if none */
    int from_driver;            /* devcheck did not see it allocated: the driver told its owner */
    /* a caching allocator's block (core/owner/blocks.h): base, size and
     * alloc_stack are the block's, these the segment's; segment_size 0: not a block */
    uintptr_t segment_base;
    size_t segment_size;
};

/* One operand of an async_error's launch. */
struct dc_opnd {
    int param;
    uint32_t word_offset;
    uintptr_t address;
    int alloc_known;            /* 0: pageable host memory */
    int accessible;             /* the launch device may access it */
    struct dc_finding_alloc alloc;
    enum dc_word_kind word;     /* what the word is */
    const char *argument;       /* a library call's argument name (dc_finding.argument); NULL in a launch */
};
#define DC_ASYNC_OPERANDS_MAX 16

/* framework_device_error: one tensor of the refused op. */
/* A Python frame handed over by the interpreter side (the op's stack). */
struct dc_pyloc {
    const char *file;
    int line;
    const char *function;
    const char *source;         /* the statement's first line; NULL unknown */
};
struct dc_tensor {
    const char *expr;           /* as the user's code names it: "image_features", "model[0].weight" */
    const char *device;         /* "cuda:1", "cpu" */
    const char *module;         /* the user's module holding it ("model"), NULL */
    int alloc_known;            /* the registry knows its memory */
    struct dc_finding_alloc alloc;
    struct dc_pyloc made;       /* no record (a CPU tensor): the user's statement that made it; file NULL unknown */
};
#define DC_TENSORS_MAX 16
#define DC_PYLOCS_MAX 32

#define DC_PEER_PAIR(dev, owner) ((((uint32_t)(dev) + 1) << 16) | ((uint32_t)(owner) + 1))
struct dc_finding {
    enum dc_finding_kind kind;
    enum dc_severity severity;
    const struct dc_finding_launch *launch;
    uint32_t launch_stack;      /* dc_stack id, 0 if none */
    int launch_stack_in_key;    /* 0: once per kernel (unchecked_kernel) */
    /* nonzero: legal peer traffic (peer_access, a warning), keyed once per
     * (kernel, parameter, word, device pair): DC_PEER_PAIR(launch device,
     * owner); neither stack is in its key (issue 38) */
    uint32_t key_pair;
    /* operand findings (device_mismatch, peer_access, host_memory): */
    int has_operand;
    int param;                  /* parameter index; -1 when the layout is unknown */
    const char *param_name;     /* its name in the kernel's source (a Triton kernel's x_ptr); NULL unknown */
    uint32_t word_offset;       /* byte offset of the word in the parameter (buffer if param == -1) */
    uintptr_t address;          /* the word's value */
    int alloc_known;            /* 0: pageable host memory, not in the registry */
    struct dc_finding_alloc alloc;  /* when alloc_known */
    const char *access;         /* short access state, e.g. "peer access not enabled" */
    uint32_t peer_stack;        /* peer_access by peer access: the stack of the call that enabled it; 0 unknown */
    enum dc_word_kind word;     /* what the word is */
    const char *evidence;       /* what said so: "signature", "ptx", "cubin", "debug_info", "numba"; NULL: none */
    int weak;                   /* the word is weak evidence of an access: a closed library's kernel may not read it */
    const char *argument;       /* a library call's argument by its header name ("B", "sendbuff",
                                 * "CUBLASLT_MATMUL_DESC_BIAS_POINTER"); launch->api names the call,
                                 * launch->kernel is NULL; "" for a library call's async_error
                                 * without a suspect; NULL for a kernel launch (core/verdict/libcall.h) */
    /* mode=migrate */
    enum dc_action action;
    int to_device;              /* DC_ACT_MIGRATED: the copy's device */
    uint64_t moved_bytes;       /* DC_ACT_MIGRATED: bytes copied for it (0: shared a copy) */
    const char *reason;         /* DC_ACT_NOT_MIGRATED: why; unchecked_kernel: why no layout */
    /* async_error */
    const char *error;          /* the driver's error name */
    const struct dc_opnd *ops;  /* the launch's operands */
    unsigned nops;
    /* NVTX ranges open on the thread, outermost first (any kind) */
    const char *const *nvtx;
    unsigned nnvtx;
    /* framework_device_error, pointer_refused (param: the kernel parameter the
     * refused pointer was, -1 unknown; address: the pointer; owner_device its
     * owner; launch->device and launch->current_device the current device;
     * launch_stack: a program with no Python frame's call stack, 0 else) */
    const char *framework;      /* "torch", "triton" */
    const char *message;        /* the framework's own error message */
    const struct dc_tensor *tensors;
    unsigned ntensors;
    const struct dc_pyloc *pylocs;  /* the failing op's Python stack, innermost first */
    unsigned npylocs;
    const char *fix;            /* the fix in one line, in the user's words */
    int owner_device;           /* pointer_refused: the refused pointer's owner */
};

/* Records one finding: deduplicates it, and on its first occurrence prints
 * the report block (print_limit permitting) and writes its JSON line; halts
 * the program on an error under halt_on_error.  Copies what it keeps: f and
 * what it points to need live only for the call. */
void dc_report_finding(const struct dc_finding *f);
/* 1 when f (its key's fields set: kind, launch, param, word_offset,
 * alloc.alloc_stack, launch_stack, action) is a finding this thread has
 * seen in the store: counted as dc_report_finding counts a repeat, and then
 * it needs no dc_report_finding, and *ref (when not NULL) names its record.
 * 0 (nothing done) otherwise.  Lets a caller skip what only a first report
 * needs (names, a tensor's block). */
struct dc_stored;
struct dc_report_ref {          /* a finding's record, as dc_report_repeat found it */
    struct dc_stored *r;
    uint64_t gen;               /* the store's generation then */
};
int dc_report_repeat(const struct dc_finding *f, struct dc_report_ref *ref);
/* One more occurrence of the finding ref names (filled by a dc_report_repeat
 * that said 1, on this thread): 1 when counted, 0 when the store has
 * changed since (then the caller reports the finding again). */
int dc_report_repeat_ref(const struct dc_report_ref *ref);
/* framework_device_error: the note for the framework's exception (see
 * report/text.h, dc_text_framework_note) into out[0..len), cut when it does
 * not fit; whether or not the finding was a repeat. */
void dc_report_framework_note(const struct dc_finding *f, char *out, size_t len);

#pragma GCC visibility pop
#endif
