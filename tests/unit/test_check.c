/* Unit tests for the launch check and the reports: synthetic registry
 * contents and launches (kernelParams arrays, packed buffers, structs by value
 * holding pointers) through dc_check_launch; asserts the findings through the
 * report counters and the text output.  Writes its JSON Lines files to the
 * directory argv[1] for tests/unit/check_reports.sh to validate against
 * report/finding.schema.json (scenario files: <dir>/<name>.json, .log). */
#include "core/owner/registry.h"
#include "core/verdict/check.h"
#include "core/verdict/lmemo.h"
#include "core/verdict/libfirst.h"
#include "report/report.h"
#include "report/stack.h"
#include "core/base/options.h"
#include "core/core.h"
#include "core/kernel/origin.h"
#include "report/matrix.h"
#include "core/verdict/wmemo.h"
#include "tests/unit/unit.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Makes the C++ runtime's demangler part of this program, as it is in the
 * C++ programs devcheck runs in (the core itself never links libstdc++). */
extern char *__cxa_demangle(const char *, char *, size_t *, int *);
char *(*volatile keep_demangler)(const char *, char *, size_t *, int *) = __cxa_demangle;

static const char *outdir;

/* n, unknown to the compiler: a loop repeating a launch to `opaque(n)` is not
 * unrolled into n call sites, whose launch stacks (part of a finding's key)
 * would differ -- GCC for aarch64 unrolled a two-round loop so. */
static inline int opaque(int n)
{
    __asm__("" : "+r"(n));
    return n;
}

static char path_buf[4096];

static const char *out(const char *name, const char *ext)
{
    snprintf(path_buf, sizeof path_buf, "%s/%s.%s", outdir, name, ext);
    return path_buf;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return strdup("");
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return strdup(buf);
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Starts a scenario: clean core, options from `opts` plus the scenario's
 * log and JSON files. */
static void scenario(const char *name, const char *opts)
{
    char o[16384], logp[4096];
    snprintf(logp, sizeof logp, "%s", out(name, "log"));
    snprintf(o, sizeof o, "log_path=%s:json_path=%s%s%s", logp, out(name, "json"), *opts ? ":" : "", opts);
    char err[1024];
    if (dc_options_parse(o, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        CHECK(!"options");
    }
    dc_report_reset();
    dc_check_reset();
    dc_reg_reset();
    dc_core_open();
}

static struct dc_report_stats stats(void)
{
    struct dc_report_stats s;
    dc_report_stats(&s);
    return s;
}

/* Distinct allocation sites: each helper is its own call site (the empty asm
 * after the call keeps it from becoming a tail call that hides the frame). */
__attribute__((noipa)) static uint32_t site_a(void)
{
    uint32_t id = dc_stack_capture(0);
    __asm__ volatile("" ::: "memory");
    return id;
}

__attribute__((noipa)) static uint32_t site_b(void)
{
    uint32_t id = dc_stack_capture(0);
    __asm__ volatile("" ::: "memory");
    return id;
}

static void add(uintptr_t base, size_t size, enum dc_mem_kind kind, int owner, dc_devmask access,
                uint64_t pool, uint32_t stack)
{
    struct dc_alloc a;
    memset(&a, 0, sizeof a);
    a.base = base;
    a.size = size;
    a.kind = kind;
    a.owner = owner;
    a.access = access;
    a.pool = pool;
    a.alloc_stack = stack;
    CHECK_EQ_LL(dc_reg_add(&a), 0);
}

/* Addresses of the synthetic allocations: never mapped in this process. */
#define D0   0x510000000000ull   /* device, cuda:0 */
#define D1   0x510000010000ull   /* device, cuda:1 */
#define D2   0x510000020000ull   /* device, cuda:2, peer 0->2 enabled */
#define PIN  0x510000030000ull
#define REG  0x510000040000ull
#define MAN  0x510000050000ull
#define POA  0x510000060000ull   /* pool of cuda:1, access granted to cuda:0 */
#define POB  0x510000070000ull   /* pool of cuda:1, no access */
#define VMA  0x510000080000ull   /* VMM backed by cuda:1, access granted to cuda:0 */
#define VMB  0x510000090000ull   /* VMM backed by cuda:0, no access granted */
#define IPC  0x5100000a0000ull   /* IPC import from cuda:3 */

static void populate(void)
{
    uint32_t sa = site_a(), sb = site_b();
    add(D0, 4096, DC_MEM_DEVICE, 0, 0, 0, sa);
    add(D1, 4096, DC_MEM_DEVICE, 1, 0, 0, sb);
    add(D2, 4096, DC_MEM_DEVICE, 2, 0, 0, sa);
    dc_reg_set_peer(0, 2, 1);
    add(PIN, 4096, DC_MEM_HOST_PINNED, -1, 0, 0, sa);
    add(REG, 4096, DC_MEM_HOST_REGISTERED, -1, 0, 0, sa);
    add(MAN, 4096, DC_MEM_MANAGED, -1, 0, 0, sa);
    add(POA, 4096, DC_MEM_POOL, 1, 0, 0x77, sa);
    dc_reg_pool_set_access(0x77, 0, 1);
    add(POB, 4096, DC_MEM_POOL, 1, 0, 0x78, sa);
    add(VMA, 4096, DC_MEM_VMM, 1, DC_DEV_BIT(0) | DC_DEV_BIT(1), 0, sa);
    add(VMB, 4096, DC_MEM_VMM, 0, 0, 0, sa);
    add(IPC, 4096, DC_MEM_IPC, 3, 0, 0, sa);
}

struct by_value {           /* a struct of pointers passed by value */
    int n;
    int pad;
    uintptr_t stale;        /* +8: on the wrong device */
    uintptr_t fine;         /* +16 */
    uintptr_t zero;         /* +24 */
};

static const char *VADD = "_Z4vaddPKfS0_Pfi";

/* Parameters as the kernel's evidence describes them (core/kernel/kernels.h): a
 * pointer parameter, a non-pointer, and struct by_value with its pointer
 * fields known (its host function's debug information would say so). */
#define PTR(off)        { (uint32_t)(off), 8, DC_PC_POINTER, DC_EV_SIGNATURE, NULL }
#define SCALAR(off, n)  { (uint32_t)(off), (uint32_t)(n), DC_PC_NONPTR, DC_EV_SIGNATURE, NULL }
static const uint8_t by_value_words[] = { DC_WORD_NONPTR, DC_WORD_FIELD, DC_WORD_FIELD, DC_WORD_FIELD };
#define BY_VALUE(off)   { (uint32_t)(off), sizeof(struct by_value), DC_PC_WORDS, DC_EV_DEBUG_INFO, by_value_words }

/* The origin of launch_all's kernel (enum dc_origin; 0: unknown). */
static int all_origin;

/* The big launch of scenario "all": one parameter per memory kind. */
static int launch_all(int device, int pageable_ok, void *pageable)
{
    uintptr_t p[11] = { D0 + 8, D1 + 64, D2, PIN + 4, REG, MAN + 100, POA, POB + 4095, VMA, VMB, (uintptr_t)pageable };
    struct by_value s = { 7, 0, D1 + 128, D0, 0 };
    int n = 1024;
    uintptr_t ipc = IPC + 16;
    void *args[14];
    struct dc_param params[14];
    for (int i = 0; i < 11; i++) {
        args[i] = &p[i];
        params[i] = (struct dc_param)PTR(8 * i);
    }
    args[11] = &s;
    params[11] = (struct dc_param)BY_VALUE(88);
    args[12] = &n;
    params[12] = (struct dc_param)SCALAR(120, 4);
    args[13] = &ipc;
    params[13] = (struct dc_param)PTR(128);
    struct dc_launch l = {
        .kernel = VADD, .kernel_key = (void *)0x1000, .api = "__cudaLaunchKernel",
        .device = device, .current_device = -1, .stream = 0, .pageable_ok = pageable_ok,
        .args = args, .params = params, .nparams = 14, .layout_known = 1, .origin = all_origin,
    };
    return dc_check_launch(&l);
}

static void test_all(void)
{
    scenario("all", "");
    populate();
    void *pageable = malloc(4096);
    int errs = 0;
    for (int i = 0; i < opaque(5); i++)
        errs += launch_all(0, 0, pageable);      /* one call site: 5 repeats */
    /* d1, pool without access, VMM without grant, pageable, struct +8, IPC */
    CHECK_EQ_LL(errs, 5 * 6);
    struct dc_report_stats s = stats();
    CHECK_EQ_LL(s.findings, 9);
    CHECK_EQ_LL(s.errors, 6);
    CHECK_EQ_LL(s.warnings, 3);   /* peer d2, pool granted, VMM granted */
    CHECK_EQ_LL(s.quiet, 5 * 2);  /* pinned, registered: counted, not reported */
    CHECK_EQ_LL(s.launches_checked, 5);
    CHECK_EQ_LL(dc_report_error_count(), 6);

    /* stream_mismatch: current device 1, stream of cuda:0, clean operand */
    uintptr_t d0 = D0;
    void *args[] = { &d0 };
    struct dc_param prm[] = { PTR(0) };
    struct dc_launch l = {
        .kernel = "_Z5cleanPf", .kernel_key = (void *)0x2000, .api = "cudaLaunchKernel",
        .device = 0, .current_device = 1, .stream = 0x5000, .args = args, .params = prm,
        .nparams = 1, .layout_known = 1,
    };
    CHECK_EQ_LL(dc_check_launch(&l), 1);
    /* unchecked_kernel: no layout, kernelParams style: once, counted; seen
     * by the CUPTI path */
    struct dc_launch u = {
        .kernel = "_Z6opaquePf", .kernel_key = (void *)0x3000, .api = "cuLaunchKernel",
        .device = 1, .current_device = -1, .stream = 0x6000, .args = args, .layout_known = 0,
        .path = DC_PATH_CUPTI,
    };
    for (int i = 0; i < opaque(3); i++)
        CHECK_EQ_LL(dc_check_launch(&u), 0);
    s = stats();
    CHECK_EQ_LL(s.findings, 11);
    CHECK_EQ_LL(s.errors, 7);
    CHECK_EQ_LL(s.warnings, 3);
    CHECK_EQ_LL(s.infos, 1);
    CHECK_EQ_LL(s.kernels, 3);
    CHECK_EQ_LL(s.launches_checked, 6);
    CHECK_EQ_LL(s.launches_unchecked, 3);
    CHECK_EQ_LL(s.launches_interpose, 6);
    CHECK_EQ_LL(s.launches_cupti, 3);
    CHECK_EQ_LL(s.printed, 11);
    dc_report_finish();
    dc_report_finish();     /* idempotent */

    char *log = slurp(out("all", "log"));
    CHECK_EQ_LL(count_of(log, "==devcheck== "), 11);
    CHECK_EQ_LL(count_of(log, "==devcheck== ERROR: device_mismatch: "), 5);
    CHECK_EQ_LL(count_of(log, "==devcheck== ERROR: host_memory: "), 1);
    CHECK_EQ_LL(count_of(log, "==devcheck== WARNING: host_memory: "), 0);
    CHECK_EQ_LL(count_of(log, "==devcheck== WARNING: peer_access: "), 3);
    CHECK_EQ_LL(count_of(log, "==devcheck== ERROR: stream_mismatch: "), 1);
    CHECK_EQ_LL(count_of(log, "==devcheck== INFO: unchecked_kernel: "), 1);
    CHECK_STR_CONTAINS(log, "==devcheck== ERROR: device_mismatch: kernel vadd(float const*, float const*, float*, int) launched on cuda:0 (stream 0x0, via __cudaLaunchKernel)\n"
                            "    operand: param 1, word +0 = 0x510000010040: offset 64 in a 4096-byte device allocation owned by cuda:1; cuda:0 has no access (peer access not enabled)\n"
                            "    launch stack:\n      #0 ");
    CHECK_STR_CONTAINS(log, "operand: param 11, word +8 = 0x510000010080: offset 128 in a 4096-byte device allocation owned by cuda:1");
    CHECK_STR_CONTAINS(log, "operand: param 10, word +0 = 0x");
    CHECK_STR_CONTAINS(log, "pageable host memory (not allocated through CUDA); cuda:0 cannot access pageable host memory");
    CHECK_STR_CONTAINS(log, "launched into stream 0x5000 of cuda:0 while the current device is cuda:1 (via cudaLaunchKernel)");
    CHECK_STR_CONTAINS(log, "kernel opaque(float*) launched on cuda:1 (stream 0x6000, via cuLaunchKernel): parameter layout unknown");
    CHECK_STR_CONTAINS(log, "launch_all at tests/unit/test_check.c:");
    CHECK_STR_CONTAINS(log, "test_all at tests/unit/test_check.c:");
    CHECK_STR_CONTAINS(log, "allocated at:\n      #0 site_b at tests/unit/test_check.c:");
    CHECK_STR_CONTAINS(log, "hint: move the operand to cuda:0 before the launch");
    CHECK_STR_CONTAINS(log, "grant cuda:0 access with cuMemSetAccess");
    CHECK_STR_CONTAINS(log, "devcheck: SUMMARY: 11 findings (7 errors, 3 warnings) in 3 kernels; 6 launches checked, 3 unchecked (6 seen by interpose, 3 by cupti); 10 host memory operands not reported\n");
    CHECK_EQ_LL(count_of(log, "SUMMARY"), 1);
    CHECK(strstr(log, "__libc_start") == NULL);
    free(log);
    free(pageable);
}

/* Packed argument buffers (cuLaunchKernel `extra`), with and without layout. */
static void test_argbuf(void)
{
    scenario("argbuf", "");
    populate();
    unsigned char buf[40];
    memset(buf, 0, sizeof buf);
    uintptr_t d0 = D0, d1 = D1 + 8;
    int n = 5;
    memcpy(buf, &d0, 8);
    memcpy(buf + 8, &d1, 8);
    memcpy(buf + 16, &n, 4);
    struct dc_param prm[] = { PTR(0), PTR(8), SCALAR(16, 4) };
    struct dc_launch l = {
        .kernel = VADD, .api = "cuLaunchKernel", .device = 0, .current_device = -1,
        .argbuf = buf, .argbuf_size = 20, .params = prm, .nparams = 3, .layout_known = 1,
    };
    CHECK_EQ_LL(dc_check_launch(&l), 1);
    /* no layout: the buffer's words have unknown meaning; nothing found, the
     * launch unchecked with its reason */
    l.layout_known = 0;
    l.params = NULL;
    l.nparams = 0;
    l.unchecked = "the driver has no cuFuncGetParamInfo/cuKernelGetParamInfo";
    CHECK_EQ_LL(dc_check_launch(&l), 0);
    /* a parameter reaching past the buffer is cut at its end, not read */
    static const uint8_t fields[8] = { DC_WORD_FIELD, DC_WORD_FIELD, DC_WORD_FIELD, DC_WORD_FIELD,
                                       DC_WORD_FIELD, DC_WORD_FIELD, DC_WORD_FIELD, DC_WORD_FIELD };
    struct dc_param past[] = { { 8, 64, DC_PC_WORDS, DC_EV_DEBUG_INFO, fields } };
    l.layout_known = 1;
    l.params = past;
    l.nparams = 1;
    l.argbuf_size = 12;             /* word +8 no longer fits */
    CHECK_EQ_LL(dc_check_launch(&l), 0);
    /* an aggregate at a misaligned offset: its words straddle the scan's
     * 8-byte grid, so their meaning is unknown: nothing */
    unsigned char mis[32];
    memset(mis, 0, sizeof mis);
    memcpy(mis + 16, &d1, 8);
    struct dc_param odd[] = { { 4, 20, DC_PC_WORDS, DC_EV_DEBUG_INFO, fields } };
    struct dc_launch m = {
        .kernel = "_Z3oddv", .api = "cuLaunchKernel", .device = 0, .current_device = -1,
        .argbuf = mis, .argbuf_size = sizeof mis, .params = odd, .nparams = 1, .layout_known = 1,
    };
    CHECK_EQ_LL(dc_check_launch(&m), 0);
    /* the same word as a field of an aligned aggregate: found */
    struct dc_param even[] = { { 8, 16, DC_PC_WORDS, DC_EV_DEBUG_INFO, fields } };
    m.params = even;
    CHECK_EQ_LL(dc_check_launch(&m), 1);
    struct dc_report_stats s = stats();
    CHECK_EQ_LL(s.findings, 3);     /* param 1; unchecked_kernel; the field */
    CHECK_EQ_LL(s.launches_checked, 4);
    CHECK_EQ_LL(s.launches_unchecked, 1);
    dc_report_finish();
    char *log = slurp(out("argbuf", "log"));
    CHECK_STR_CONTAINS(log, "operand: param 1, word +0 = 0x510000010008");
    CHECK_STR_CONTAINS(log, "operand: param 0, word +8 = 0x510000010008");
    CHECK_STR_CONTAINS(log, "hint: no parameter layout: the driver has no cuFuncGetParamInfo/cuKernelGetParamInfo; "
                            "its launches are counted as unchecked");
    CHECK(strstr(log, "argument buffer +") == NULL);
    free(log);
}

__attribute__((noinline)) static int launch_param(int param)
{
    uintptr_t ptrs[5] = { D0, D0, D0, D0, D0 };
    ptrs[param] = D1;
    void *args[5];
    struct dc_param prm[5];
    for (int i = 0; i < 5; i++) {
        args[i] = &ptrs[i];
        prm[i] = (struct dc_param)PTR(8 * i);
    }
    struct dc_launch l = {
        .kernel = VADD, .api = "cuLaunchKernel", .device = 0, .current_device = -1,
        .args = args, .params = prm, .nparams = 5, .layout_known = 1,
    };
    return dc_check_launch(&l);
}

static void test_print_limit(void)
{
    scenario("limit", "print_limit=2");
    populate();
    for (int p = 0; p < 5; p++)
        for (int r = 0; r < opaque(2); r++)       /* one call site: 2 repeats */
            CHECK_EQ_LL(launch_param(p), 1);
    struct dc_report_stats s = stats();
    CHECK_EQ_LL(s.findings, 5);
    CHECK_EQ_LL(s.printed, 2);
    dc_report_finish();
    char *log = slurp(out("limit", "log"));
    CHECK_EQ_LL(count_of(log, "==devcheck== ERROR: device_mismatch"), 2);
    CHECK_EQ_LL(count_of(log, "devcheck: print_limit (2) reached"), 1);
    CHECK_STR_CONTAINS(log, "devcheck: SUMMARY: 5 findings (5 errors, 0 warnings) in 1 kernel; 10 launches checked, 0 unchecked");
    free(log);
    char *js = slurp(out("limit", "json"));
    CHECK_EQ_LL(count_of(js, "\"type\":\"finding\""), 10);    /* 5 first + 5 updates (count 2) */
    free(js);
}

static int launch_named(const char *kernel, const void *key)
{
    uintptr_t d1 = D1;
    void *args[] = { &d1 };
    struct dc_param prm[] = { PTR(0) };
    struct dc_launch l = {
        .kernel = kernel, .kernel_key = key, .api = "cuLaunchKernel", .device = 0,
        .current_device = -1, .args = args, .params = prm, .nparams = 1, .layout_known = 1,
    };
    return dc_check_launch(&l);
}

static void test_filters(void)
{
    struct { const char *opts; int vadd, gemm; } cases[] = {
        { "", 1, 1 },
        { "kernel_name=vadd", 1, 0 },
        { "kernel_name=_Z4gemm", 0, 1 },
        { "kernel_name=vadd,gemm", 1, 1 },
        { "kernel_name=' vadd , gemm '", 1, 1 },
        { "kernel_name==vadd", 1, 0 },                      /* exact, without the parameter list */
        { "kernel_name==vad", 0, 0 },
        { "kernel_name==_Z4gemmPf", 0, 1 },                 /* exact mangled */
        { "kernel_name='=gemm(float*)'", 0, 1 },            /* exact demangled */
        { "kernel_name_exclude=vadd", 0, 1 },
        { "kernel_name=vadd,gemm:kernel_name_exclude=gemm", 1, 0 },
        { "kernel_name_exclude=float", 0, 0 },              /* in both demangled names */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        scenario("filters", cases[i].opts);
        populate();
        CHECK_EQ_LL(launch_named(VADD, (void *)0x10), cases[i].vadd);
        CHECK_EQ_LL(launch_named("_Z4gemmPf", (void *)0x20), cases[i].gemm);
        CHECK_EQ_LL(launch_named(VADD, (void *)0x10), cases[i].vadd);   /* cached decision */
        struct dc_report_stats s = stats();
        CHECK_EQ_LL(s.launches_checked, 2 * cases[i].vadd + cases[i].gemm);
        /* the two vadd launches are two call sites: two findings */
        CHECK_EQ_LL(s.findings, 2 * cases[i].vadd + cases[i].gemm);
        if (s.findings != (uint64_t)(2 * cases[i].vadd + cases[i].gemm))
            fprintf(stderr, "  filter case %zu: %s\n", i, cases[i].opts);
        dc_report_finish();
    }
}

/* mode=migrate's API: the operands to move come back in dc_moves (with their
 * offsets in the argument layout), dc_check_moves_report reports each as
 * migrated or not_migrated; a caller that cannot rewrite (CUPTI) gets them
 * reported as not migrated with its reason; sync=1's async_error names the
 * operands. */
static void test_migrate_api(void)
{
    scenario("migrate", "mode=migrate");
    populate();
    uintptr_t a0 = D1 + 64, a1 = D0, a2 = D1 + 128;    /* two operands in one allocation */
    struct by_value sv = { 7, 0, POB + 8, D0, 0 };
    void *args[] = { &a0, &a1, &a2, &sv };
    struct dc_param params[] = { PTR(0), PTR(8), PTR(16), BY_VALUE(24) };
    struct dc_moves m = { 0, 0, NULL };
    struct dc_launch l = {
        .kernel = "_Z4movePfS_S_1S", .kernel_key = (void *)0x4000, .api = "cuLaunchKernel",
        .device = 0, .current_device = -1, .args = args, .params = params, .nparams = 4,
        .layout_known = 1, .moves = &m,
    };
    CHECK_EQ_LL(dc_check_launch(&l), 3);
    CHECK_EQ_LL(m.n, 3);
    CHECK_EQ_LL(stats().findings, 0);           /* held back for the caller */
    CHECK_EQ_LL(m.v[0].param, 0);
    CHECK_EQ_LL(m.v[0].arg_offset, 0);
    CHECK_EQ_LL(m.v[0].alloc.base, D1);
    CHECK_EQ_LL(m.v[1].param, 2);
    CHECK_EQ_LL(m.v[1].arg_offset, 16);
    CHECK_EQ_LL(m.v[2].param, 3);
    CHECK_EQ_LL(m.v[2].word_offset, 8);
    CHECK_EQ_LL(m.v[2].arg_offset, 32);         /* the struct's word +8, at 24 + 8 */
    CHECK_EQ_LL(m.v[2].address, POB + 8);
    m.v[0].new_address = 0x600000000040ull;     /* the caller moved D1 ... */
    m.v[0].bytes = 4096;
    m.v[1].new_address = 0x600000000080ull;     /* ... once for both operands */
    m.v[2].reason = "cannot allocate 4096 bytes on cuda:0: CUDA_ERROR_OUT_OF_MEMORY";
    dc_check_moves_report(&l, &m);
    CHECK(m.v == NULL && m.n == 0);
    dc_check_count_migrated(4096);              /* copied back */
    struct dc_report_stats s = stats();
    CHECK_EQ_LL(s.findings, 3);
    CHECK_EQ_LL(s.errors, 3);
    CHECK_EQ_LL(s.bytes_migrated, 8192);

    /* A launch seen only through CUPTI: reported, not migrated, with why. */
    uintptr_t c0 = D1;
    void *cargs[] = { &c0 };
    struct dc_launch c = {
        .kernel = "_Z5cuptiPf", .kernel_key = (void *)0x5000, .api = "cuLaunchKernel",
        .device = 0, .current_device = -1, .args = cargs, .params = params, .nparams = 1,
        .layout_known = 1, .path = DC_PATH_CUPTI,    /* no_rewrite left NULL: the path says it */
    };
    CHECK_EQ_LL(dc_check_launch(&c), 1);
    CHECK_EQ_LL(stats().findings, 4);

    /* sync=1: the launch faulted. */
    dc_check_async_error(&c, "CUDA_ERROR_ILLEGAL_ADDRESS");
    CHECK_EQ_LL(stats().findings, 5);
    dc_report_finish();

    char *log = slurp(out("migrate", "log"));
    CHECK_EQ_LL(count_of(log, "    action: migrated: 4096 bytes copied to cuda:0 for this launch and back after it\n"), 1);
    CHECK_EQ_LL(count_of(log, "    action: migrated to cuda:0 for this launch (shares the copy of another operand)\n"), 1);
    CHECK_STR_CONTAINS(log, "    action: not migrated: cannot allocate 4096 bytes on cuda:0: CUDA_ERROR_OUT_OF_MEMORY; the launch went ahead unmodified on cuda:0\n");
    CHECK_STR_CONTAINS(log, "    action: not migrated: launch seen only through CUPTI: arguments cannot be rewritten; the launch went ahead unmodified on cuda:0\n");
    CHECK_STR_CONTAINS(log, "==devcheck== ERROR: async_error: kernel cupti(float*) launched on cuda:0 (stream 0x0, via cuLaunchKernel) failed on the device: CUDA_ERROR_ILLEGAL_ADDRESS\n"
                            "    operands:\n"
                            "      param 0, word +0 = 0x510000010000: device memory owned by cuda:1; cuda:0 may not access it\n");
    CHECK_EQ_LL(count_of(log, "hint: move the operand to cuda:0 before the launch"), 4);
    CHECK_STR_CONTAINS(log, "devcheck: SUMMARY: 5 findings (5 errors, 0 warnings) in 2 kernels; 2 launches checked, 0 unchecked (1 seen by interpose, 1 by cupti); 8192 bytes migrated\n");
    free(log);
}

static void test_mode_off(void)
{
    scenario("off", "mode=off");
    populate();
    void *pageable = malloc(64);
    CHECK_EQ_LL(launch_all(0, 0, pageable), 0);
    struct dc_report_stats s = stats();
    CHECK_EQ_LL(s.findings, 0);
    CHECK_EQ_LL(s.launches_checked, 0);
    dc_report_finish();
    char *log = slurp(out("off", "log"));
    CHECK_EQ_LL(strlen(log), 0);
    free(log);
    free(pageable);
}

/* What a word proves by who made the image (report/FORMAT.md): launch_all's
 * kernel as NVIDIA's closed library's, and as a framework's. */
static void test_origins(void)
{
    void *pageable = malloc(64);
    struct { int origin; const char *opts; int errors, warnings, weak, quiet; } cases[] = {
        { DC_ORIGIN_PROGRAM, "", 6, 3, 0, 2 },          /* test_all's: pinned, registered counted */
        { DC_ORIGIN_JIT, "", 6, 3, 0, 2 },
        { DC_ORIGIN_PROGRAM, "host_memory=warn", 5, 6, 0, 0 },
        /* d1, pool and VMM without access, struct +8, IPC: weak warnings;
         * pinned, registered, pageable: counted */
        { DC_ORIGIN_LIBRARY, "", 0, 8, 5, 3 },
        { DC_ORIGIN_LIBRARY, "host_memory=error", 0, 8, 5, 3 },
        { DC_ORIGIN_FRAMEWORK, "", 6, 3, 0, 2 },
        { DC_ORIGIN_FRAMEWORK, "host_memory=warn", 5, 6, 0, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "origins%zu", i);  /* a file each: a report appends */
        scenario(name, cases[i].opts);
        populate();
        all_origin = cases[i].origin;
        uint64_t quiet0 = dc_report_quiet_operands();
        CHECK_EQ_LL(launch_all(0, 0, pageable), cases[i].errors);
        struct dc_report_stats s = stats();
        CHECK_EQ_LL(s.errors, cases[i].errors);
        CHECK_EQ_LL(s.warnings, cases[i].warnings);
        CHECK_EQ_LL(s.quiet - quiet0, cases[i].quiet);
        dc_report_finish();
        char *json = slurp(out(name, "json"));
        int weak = 0;
        for (const char *p = json; p && (p = strstr(p, "\"weak_evidence\":true")) != NULL; p++)
            weak++;
        CHECK_EQ_LL(weak, cases[i].weak);
        char want[64];
        snprintf(want, sizeof want, "\"origin\":\"%s\"", dc_origin_name(cases[i].origin));
        if (cases[i].errors + cases[i].warnings)
            CHECK_STR_CONTAINS(json, want);
        if (cases[i].quiet)
            CHECK_STR_CONTAINS(json, "\"quiet_operands\":");
        free(json);
        if (s.errors != (uint64_t)cases[i].errors || s.warnings != (uint64_t)cases[i].warnings)
            fprintf(stderr, "  origin case %zu\n", i);
    }
    all_origin = 0;
    free(pageable);
    /* the objects and labels the origin is decided from */
    static const struct { const char *what; int origin; } objs[] = {
        { "/x/site-packages/nvidia/cu13/lib/libcublasLt.so.13", DC_ORIGIN_LIBRARY },
        { "/usr/lib/libcudnn_engines_precompiled.so.9", DC_ORIGIN_LIBRARY },
        { "libcublasLt.so.13 / libcublas.so.13", DC_ORIGIN_LIBRARY },
        { "libcudnn (libcudnn_*.so.9)", DC_ORIGIN_LIBRARY },
        { "/x/torch/lib/libtorch_cuda.so", DC_ORIGIN_FRAMEWORK },
        { "/x/site-packages/cupy/cuda/cub.cpython-312-x86_64-linux-gnu.so", DC_ORIGIN_FRAMEWORK },
        { "/x/site-packages/jaxlib/_jax.so", DC_ORIGIN_FRAMEWORK },
        { "cupy (CUB, compiled into cupy)", DC_ORIGIN_FRAMEWORK },
        { "/x/site-packages/cupy_backends/cuda/api/driver.cpython-312-x86_64-linux-gnu.so", DC_ORIGIN_UNKNOWN },
        { "NVRTC (CuPy RawKernel)", DC_ORIGIN_JIT },
        { "Triton (torch inductor)", DC_ORIGIN_JIT },
        { "the program (nvcc)", DC_ORIGIN_PROGRAM },
        { "/home/me/app/build/my_app", DC_ORIGIN_UNKNOWN },
        { NULL, DC_ORIGIN_UNKNOWN },
    };
    for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++)
        if (dc_origin_of_object(objs[i].what) != objs[i].origin) {
            fprintf(stderr, "  origin of %s: %d\n", objs[i].what ? objs[i].what : "NULL",
                    dc_origin_of_object(objs[i].what));
            CHECK(!"dc_origin_of_object");
        }
}

static void test_policies(void)
{
    void *pageable = malloc(64);
    struct { const char *opts; int pageable_ok; int errors, warnings; } cases[] = {
        /* default: 6 errors, 3 warnings (see test_all) */
        { "peer=error", 0, 6 + 3, 0 },                  /* d2, pool granted, VMM granted */
        { "peer=ignore", 0, 6, 0 },
        { "host_memory=ignore", 0, 5, 3 },              /* no pinned/registered/pageable */
        { "host_memory=error", 0, 6 + 2, 3 },
        { "host_memory=warn", 0, 5, 6 },
        { "", 1, 5, 4 },                                /* auto + pageable access: warn */
        { "host_memory=error", 1, 8, 3 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        scenario("policies", cases[i].opts);
        populate();
        CHECK_EQ_LL(launch_all(0, cases[i].pageable_ok, pageable), cases[i].errors);
        struct dc_report_stats s = stats();
        CHECK_EQ_LL(s.errors, cases[i].errors);
        CHECK_EQ_LL(s.warnings, cases[i].warnings);
        if (s.errors != (uint64_t)cases[i].errors || s.warnings != (uint64_t)cases[i].warnings)
            fprintf(stderr, "  policy case %zu: %s\n", i, cases[i].opts);
        dc_report_finish();
    }
    /* the owner's own memory and peer-enabled memory on the other side */
    scenario("policies", "");
    populate();
    CHECK_EQ_LL(launch_all(1, 0, pageable), 6);
    /* on cuda:1: D0 (param 0 and struct +16), D2, VMB, pageable, IPC; D1, the
     * pools and VMA (granted to cuda:1) are its own */
    struct dc_report_stats s = stats();
    CHECK_EQ_LL(s.errors, 6);
    CHECK_EQ_LL(s.warnings, 0);     /* pinned, registered: counted */
    dc_report_finish();
    free(pageable);
}

/* Unwritable paths: one line on stderr each, reports fall back to stderr. */
static void test_unwritable(void)
{
    char errpath[4096];
    snprintf(errpath, sizeof errpath, "%s/stderr.txt", outdir);
    fflush(stderr);
    int saved = dup(2);
    int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && saved >= 0);
    dup2(fd, 2);
    close(fd);
    char err[256];
    CHECK_EQ_LL(dc_options_parse("log_path=/nonexistent-dir/x.log:json_path=/nonexistent-dir/y.json", err, sizeof err), 0);
    dc_report_reset();
    dc_check_reset();
    dc_reg_reset();
    dc_core_open();
    populate();
    CHECK_EQ_LL(launch_param(2), 1);
    dc_report_finish();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char *e = slurp(errpath);
    CHECK_STR_CONTAINS(e, "devcheck: cannot open log_path '/nonexistent-dir/x.log': No such file or directory; writing to stderr\n");
    CHECK_STR_CONTAINS(e, "devcheck: cannot open json_path '/nonexistent-dir/y.json': No such file or directory; no JSON output\n");
    CHECK_STR_CONTAINS(e, "==devcheck== ERROR: device_mismatch");
    CHECK_STR_CONTAINS(e, "devcheck: SUMMARY: 1 finding (1 error, 0 warnings) in 1 kernel; 1 launch checked, 0 unchecked");
    free(e);

    /* %p in a path is the process id */
    char opts[4096], expect[4096];
    snprintf(opts, sizeof opts, "log_path=%s/pid.%%p.log", outdir);
    snprintf(expect, sizeof expect, "%s/pid.%d.log", outdir, (int)getpid());
    CHECK_EQ_LL(dc_options_parse(opts, err, sizeof err), 0);
    dc_report_reset();
    dc_core_open();
    dc_log("hello %d", 42);
    dc_report_finish();
    char *pl = slurp(expect);
    CHECK_STR_CONTAINS(pl, "devcheck: hello 42\n");
    CHECK_STR_CONTAINS(pl, "devcheck: SUMMARY: 0 findings");
    free(pl);
}

/* Threads launching the same bad kernel from one call site: one finding,
 * every occurrence counted (the JSON's final count); suppressed, every
 * occurrence counted as suppressed.  Repeats take the report's lookup and
 * count, each thread proving its stack from its own cache (issue 25). */
enum { THREADS = 4, LAUNCHES = 2000 };
static void *launcher(void *arg)
{
    (void)arg;
    for (int i = 0; i < LAUNCHES; i++)
        launch_param(3);
    return NULL;
}

static void test_threads(void)
{
    scenario("threads", "");
    populate();
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, launcher, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    struct dc_report_stats s = stats();
    CHECK_EQ_LL(s.findings, 1);
    CHECK_EQ_LL(s.launches_checked, THREADS * LAUNCHES);
    dc_report_finish();
    char *json = slurp(out("threads", "json"));
    char want[64];
    snprintf(want, sizeof want, "\"count\":%d,", THREADS * LAUNCHES);
    CHECK_STR_CONTAINS(json, want);
    free(json);

    char supp[4200], opts[4300];
    snprintf(supp, sizeof supp, "%s/threads.supp", outdir);
    FILE *f = fopen(supp, "w");
    CHECK(f != NULL);
    fputs("{\n   every\n   devcheck:*\n}\n", f);
    fclose(f);
    snprintf(opts, sizeof opts, "suppressions=%s", supp);
    scenario("threads_supp", opts);
    populate();
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, launcher, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    s = stats();
    CHECK_EQ_LL(s.findings, 0);
    CHECK_EQ_LL(s.suppressed, THREADS * LAUNCHES);
    dc_report_finish();
}

/* fork: the child's report starts empty and a %p path gets the child's pid. */
static void test_fork(void)
{
    char opts[4200], err[256];
    snprintf(opts, sizeof opts, "log_path=%s/fork.%%p.log", outdir);
    CHECK_EQ_LL(dc_options_parse(opts, err, sizeof err), 0);
    dc_report_reset();
    dc_check_reset();
    dc_reg_reset();
    dc_core_open();
    populate();
    CHECK_EQ_LL(launch_param(0), 1);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        for (volatile int i = 0; i < 2; i++)    /* volatile: one call site, not unrolled */
            launch_param(1);
        dc_report_finish();
        _exit(dc_report_error_count() == 1 ? 0 : 3);
    }
    int st = -1;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_EQ_LL(launch_param(2), 1);
    dc_report_finish();
    char path[4200];
    snprintf(path, sizeof path, "%s/fork.%d.log", outdir, (int)pid);
    char *child = slurp(path);
    CHECK_STR_CONTAINS(child, "operand: param 1,");
    CHECK(strstr(child, "operand: param 0,") == NULL);
    CHECK_STR_CONTAINS(child, "SUMMARY: 1 finding (1 error, 0 warnings) in 1 kernel; 2 launches checked");
    free(child);
    snprintf(path, sizeof path, "%s/fork.%d.log", outdir, (int)getpid());
    char *parent = slurp(path);
    CHECK_STR_CONTAINS(parent, "operand: param 0,");
    CHECK_STR_CONTAINS(parent, "operand: param 2,");
    CHECK(strstr(parent, "operand: param 1,") == NULL);
    CHECK_STR_CONTAINS(parent, "SUMMARY: 2 findings (2 errors, 0 warnings) in 1 kernel; 2 launches checked");
    free(parent);
}

/* The thread's shortcuts for a library call in a loop (core/verdict/libcall.h):
 * two equal clean calls (the second is the first's again), then one operand
 * freed and its address reallocated on another device, and the same call
 * again: judged afresh, its finding (a shortcut blind to the free loses
 * it).  The same for a kernel the call launches: clean again while nothing
 * changed, looked at afresh after the free; a hook's named shortcut
 * (dc_libcall_clean_named) the same. */
#define LX 0x5100000b0000ull    /* B: cuda:0's, then cuda:1's */
static void test_libcall_again(void)
{
    scenario("libagain", "");
    populate();
    uint32_t sa = site_a();
    add(LX, 4096, DC_MEM_DEVICE, 0, 0, 0, sa);
    const uintptr_t st = 0x5ee0;
    struct dc_lib_arg a[3] = { { "A", D0, 0 }, { "B", LX + 64, 0 }, { "C", D0 + 512, 0 } };
    CHECK_EQ_LL(dc_check_libcall("cublasSgemm_v2", 0, st, a, 3), 0);
    CHECK_EQ_LL(dc_check_libcall("cublasSgemm_v2", 0, st, a, 3), 0);
    CHECK_EQ_LL(dc_libcover.n, 3);                  /* the first's cover, again */
    /* a hook's own shortcut (cublasLtMatmul's): this clean call by name */
    uint64_t name = dc_libcall_clean_name("cublasSgemm_v2", 0, st, a, 3);
    CHECK(name != 0);
    CHECK_EQ_LL(dc_libcall_clean_name("cublasSgemm_v2", 1, st, a, 3), 0);
    CHECK_EQ_LL(dc_libcall_clean_named(name, 0, st), 1);
    CHECK_EQ_LL(dc_libcall_clean_named(name, 1, st), 0);        /* another device */
    CHECK_EQ_LL(dc_libcall_clean_named(name, 0, st + 16), 0);   /* another stream */
    CHECK_EQ_LL(dc_libcall_clean_named(name + 1, 0, st), 0);    /* another call's */
    /* its kernel: a library's, into the call's stream, B among its words */
    uintptr_t p[2] = { D0, LX + 64 };
    int m = 8;                                      /* a size: no word of the plan */
    void *args[3] = { &p[0], &p[1], &m };
    struct dc_param params[3] = { PTR(0), PTR(8), SCALAR(16, 4) };
    const struct dc_pword plan[2] = { { 0, 0, 0, DC_WK_POINTER_PARAM, DC_EV_SIGNATURE },
                                      { 1, 0, 8, DC_WK_POINTER_PARAM, DC_EV_SIGNATURE } };
    struct dc_launch l = {
        .kernel = "simblas_gemm", .kernel_key = (void *)0x2000, .api = "cuLaunchKernel", .device = 0,
        .current_device = -1, .stream = st, .pageable_ok = -1, .args = args, .params = params, .nparams = 3,
        .pwords = plan, .npwords = 2, .words_planned = 1,
        .layout_known = 1, .origin = DC_ORIGIN_LIBRARY, .path = DC_PATH_INTERPOSE,
    };
    dc_libcall_active = 1;
    CHECK_EQ_LL(dc_libcall_launch_again(l.kernel_key, st, args), 0);   /* not seen yet */
    CHECK_EQ_LL(dc_check_launch(&l), 0);
    CHECK_EQ_LL(dc_libcall_launch_again(l.kernel_key, st, args), 1);   /* clean again */
    m = 16;
    CHECK_EQ_LL(dc_libcall_launch_again(l.kernel_key, st, args), 1);   /* a word outside the plan: again */
    p[1] = LX + 128;
    CHECK_EQ_LL(dc_libcall_launch_again(l.kernel_key, st, args), 0);   /* other bytes */
    p[1] = LX + 64;
    CHECK_EQ_LL(dc_libcall_launch_again(l.kernel_key, st + 16, args), 0);   /* another stream */
    /* the call's first launch, expected when the shortcut finds the call
     * again (dc_lib_expect, cublasLtMatmul's): taken by the next launch
     * only, that launch's kernel and stream, remembered at the first repeat
     * from the launch memo */
    CHECK_EQ_LL(dc_libcall_clean_named_expect(name, 0, st), 1);
    CHECK_EQ_LL(dc_lib_expect, name);
    CHECK_EQ_LL(dc_libcall_launch_expected((void *)0x2001, st, args), 0);  /* another kernel: checked */
    CHECK_EQ_LL(dc_lib_expect, 0);
    CHECK_EQ_LL(dc_libcall_launch_expected(l.kernel_key, st, args), 0);    /* taken: the call's later launches */
    CHECK_EQ_LL(dc_libcall_clean_named_expect(name, 0, st), 1);
    CHECK_EQ_LL(dc_libcall_launch_expected(l.kernel_key, st, args), 1);    /* found by its words, remembered */
    CHECK_EQ_LL(dc_libcall_clean_named_expect(name, 0, st), 1);
    CHECK_EQ_LL(dc_libcall_launch_expected(l.kernel_key, st + 16, args), 0);   /* another stream */
    CHECK_EQ_LL(dc_libcall_clean_named_expect(name, 0, st), 1);
    CHECK_EQ_LL(dc_libcall_launch_expected((void *)0x2001, st, args), 0);  /* another kernel */
    CHECK_EQ_LL(dc_libcall_clean_named_expect(name, 0, st), 1);
    CHECK_EQ_LL(dc_libcall_launch_expected(l.kernel_key, st, NULL), 1);    /* remembered: no word read */
    CHECK_EQ_LL(dc_libcall_clean_named_expect(name, 0, st), 1);
    dc_libcall_active = 0;
    CHECK_EQ_LL(dc_libcall_launch_expected(l.kernel_key, st, args), 0);    /* after the call */
    CHECK_EQ_LL(dc_libcall_clean_named_expect(name, 0, st), 1);     /* armed, then the registry changes */
    struct dc_alloc gone;
    CHECK_EQ_LL(dc_reg_remove(LX, &gone), 0);
    add(LX, 4096, DC_MEM_DEVICE, 1, 0, 0, sa);      /* the same address, now cuda:1's */
    dc_libcall_active = 1;
    CHECK_EQ_LL(dc_libcall_launch_expected(l.kernel_key, st, args), 0);    /* the registry changed */
    CHECK_EQ_LL(dc_libcall_launch_again(l.kernel_key, st, args), 0);   /* the registry changed */
    dc_libcall_active = 0;
    CHECK_EQ_LL(dc_libcall_clean_named(name, 0, st), 0);        /* the registry changed */
    CHECK_EQ_LL(dc_check_libcall("cublasSgemm_v2", 0, st, a, 3), 1);
    CHECK_EQ_LL(stats().findings, 1);
    dc_report_finish();
    char *log = slurp(out("libagain", "log"));
    CHECK_STR_CONTAINS(log, "device_mismatch: cublasSgemm_v2 argument B on cuda:0");
    free(log);
}

/* The thread's last clean launch (core/verdict/lmemo.h, issue 38): kept
 * after a clean planned launch, found again for the same kernel, plan,
 * device and words; lost at any registry change (an allocation, a free, a
 * peer, pool or VMM access change), a changed word, another device, a
 * current device that is not the launch's.  A free and a new allocation at
 * the same address on another device between two launches is the finding
 * a memo blind to the registry's generation would hide. */
/* A launch on cuda:0 of n pointer parameters p[i], planned as
 * core/kernel/kernels.c would (a word each). */
static struct dc_launch planned(const char *name, const void *key, uintptr_t *p, void **args,
                                struct dc_param *params, struct dc_pword *pw, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        args[i] = &p[i];
        params[i] = (struct dc_param)PTR(8 * i);
        pw[i] = (struct dc_pword){ i, 0, 8 * i, DC_WK_POINTER_PARAM, DC_EV_SIGNATURE };
    }
    return (struct dc_launch){
        .kernel = name, .kernel_key = key, .api = "cuLaunchKernel", .device = 0, .current_device = -1,
        .pageable_ok = -1, .args = args, .params = params, .nparams = n, .pwords = pw, .npwords = n,
        .words_planned = 1, .layout_known = 1,
    };
}

#define LM 0x5100000c0000ull    /* cuda:0's, then cuda:3's */
static void test_lmemo(void)
{
    scenario("lmemo", "");
    populate();
    uint32_t sa = site_a();
    add(LM, 4096, DC_MEM_DEVICE, 0, 0, 0, sa);
    uintptr_t p[3] = { LM + 64, MAN, 0 };
    void *args[3];
    struct dc_param params[3];
    struct dc_pword pw[3];
    const void *key = (void *)0x4000;
    struct dc_launch l = planned("_Z4memoPfS_S_", key, p, args, params, pw, 3);
#define AGAIN(dev, cur) dc_lmemo_again(key, pw, (dev), (cur), DC_PATH_INTERPOSE, args)
    CHECK_EQ_LL(AGAIN(0, -1), 0);                   /* nothing kept yet */
    CHECK_EQ_LL(dc_check_launch(&l), 0);
    CHECK_EQ_LL(AGAIN(0, -1), 1);
    CHECK_EQ_LL(AGAIN(0, 0), 1);
    CHECK_EQ_LL(stats().launches_checked, 3);       /* a hit counts as a checked launch */
    CHECK_EQ_LL(dc_report_clean_operands(0, 0), 3); /* and its operands: own memory */
    CHECK_EQ_LL(dc_report_clean_operands(0, 1), 3); /* managed */
    CHECK_EQ_LL(AGAIN(1, -1), 0);                   /* another launch device */
    CHECK_EQ_LL(AGAIN(0, 1), 0);                    /* a stream_mismatch to find */
    CHECK_EQ_LL(dc_lmemo_again((void *)0x4001, pw, 0, -1, DC_PATH_INTERPOSE, args), 0);
    p[0] = LM + 128;                                /* another word */
    CHECK_EQ_LL(AGAIN(0, -1), 0);
    p[0] = LM + 64;
    CHECK_EQ_LL(AGAIN(0, -1), 1);
    /* every kind of registry change loses it; a check keeps it again */
    for (int change = 0; change < 4; change++) {
        if (change == 0)
            dc_reg_set_peer(0, 1, 1);
        else if (change == 1)
            dc_reg_pool_set_access(0x78, 0, 1);
        else if (change == 2)
            dc_reg_set_access(VMB, 4096, 1, 1);
        else
            add(LM + 8192, 4096, DC_MEM_DEVICE, 1, 0, 0, sa);
        CHECK_EQ_LL(AGAIN(0, -1), 0);
        CHECK_EQ_LL(dc_check_launch(&l), 0);
        CHECK_EQ_LL(AGAIN(0, -1), 1);
    }
    /* freed, and the same address allocated on cuda:3 (no peer access): the launch's finding */
    struct dc_alloc gone;
    CHECK_EQ_LL(dc_reg_remove(LM, &gone), 0);
    add(LM, 4096, DC_MEM_DEVICE, 3, 0, 0, sa);
    CHECK_EQ_LL(AGAIN(0, -1), 0);
    CHECK_EQ_LL(dc_check_launch(&l), 1);
    CHECK_EQ_LL(AGAIN(0, -1), 0);                   /* a launch with a finding is not kept */
    /* a word the registry does not know is not kept either */
    CHECK_EQ_LL(dc_reg_remove(LM, &gone), 0);
    add(LM, 4096, DC_MEM_DEVICE, 0, 0, 0, sa);
    p[2] = 0x7f0000000010ull;
    CHECK_EQ_LL(dc_check_launch(&l), 0);
    CHECK_EQ_LL(AGAIN(0, -1), 0);
    struct dc_report_stats s = stats();
    CHECK_EQ_LL(s.findings, 1);
    CHECK_EQ_LL(s.errors, 1);
    /* a launch whose one word repeats a finding (legal peer traffic: its
     * record's key has no stack) is kept with it: found again, the record
     * counted again; a registry change loses it */
    p[2] = 0;
    p[1] = D2 + 8;                                  /* cuda:2's, peer access 0->2 on */
    CHECK_EQ_LL(dc_check_launch(&l), 0);            /* the new warning: not kept */
    CHECK_EQ_LL(AGAIN(0, -1), 0);
    CHECK_EQ_LL(dc_check_launch(&l), 0);            /* its repeat: the word memo keeps it */
    CHECK_EQ_LL(AGAIN(0, -1), 0);
    CHECK_EQ_LL(dc_check_launch(&l), 0);            /* the word memo's repeat: kept */
    CHECK_EQ_LL(stats().repeated, 2);
    CHECK_EQ_LL(AGAIN(0, -1), 1);
    s = stats();
    CHECK_EQ_LL(s.repeated, 3);
    CHECK_EQ_LL(s.findings, 2);
    dc_reg_set_peer(0, 2, 0);
    CHECK_EQ_LL(AGAIN(0, -1), 0);
    CHECK_EQ_LL(dc_check_launch(&l), 1);            /* no peer access now: an error */
#undef AGAIN
    s = stats();
    CHECK_EQ_LL(s.findings, 3);
    CHECK_EQ_LL(s.errors, 2);
    CHECK_EQ_LL(s.repeated, 3);
    dc_report_finish();
    char *log = slurp(out("lmemo", "log"));
    CHECK_STR_CONTAINS(log, "ERROR: device_mismatch: kernel memo(float*, float*, float*) launched on cuda:0");
    CHECK_STR_CONTAINS(log, "WARNING: peer_access: kernel memo(float*, float*, float*) launched on cuda:0");
    free(log);
}

/* Kernels launched in turn each keep their last clean launch: four whose
 * keys share a set all stay (a direct-mapped memo kept one); a fifth in that
 * set takes a way, the others of the set and the fifth stay; eight kernels
 * of a loop all stay. */
static void test_lmemo_sets(void)
{
    scenario("lmemosets", "");
    populate();
    add(LM, 4096, DC_MEM_DEVICE, 0, 0, 0, site_a());
    uintptr_t p[2] = { LM + 64, 0 };
    void *args[2];
    struct dc_param params[2];
    struct dc_pword pw[2];
    const void *same[5];
    size_t ns = 0;
    for (uintptr_t k = 0x6000; ns < 5; k += 16)
        if (dc_lmemo_set_of((void *)k) == dc_lmemo_set_of((void *)0x6000))
            same[ns++] = (void *)k;
#define AGAIN_K(k) dc_lmemo_again((k), pw, 0, -1, DC_PATH_INTERPOSE, args)
    for (size_t i = 0; i < 4; i++) {
        struct dc_launch l = planned("_Z4setsPfS_", same[i], p, args, params, pw, 2);
        CHECK_EQ_LL(dc_check_launch(&l), 0);
    }
    CHECK_EQ_LL(AGAIN_K(same[0]) + AGAIN_K(same[1]) + AGAIN_K(same[2]) + AGAIN_K(same[3]), 4);
    struct dc_launch l5 = planned("_Z4setsPfS_", same[4], p, args, params, pw, 2);
    CHECK_EQ_LL(dc_check_launch(&l5), 0);
    CHECK_EQ_LL(AGAIN_K(same[4]), 1);
    CHECK_EQ_LL(AGAIN_K(same[0]) + AGAIN_K(same[1]) + AGAIN_K(same[2]) + AGAIN_K(same[3]), 3);
    static const uintptr_t spacing[] = { 0x90, 0x58, 0x40, 0x1000 };
    for (size_t sp = 0; sp < sizeof spacing / sizeof spacing[0]; sp++) {
        const void *loop[8];
        for (size_t i = 0; i < 8; i++) {
            loop[i] = (void *)(0x5621a3b04000ull + spacing[sp] * i);
            struct dc_launch l = planned("_Z4loopPfS_", loop[i], p, args, params, pw, 2);
            CHECK_EQ_LL(dc_check_launch(&l), 0);
        }
        int kept = 0;
        for (size_t i = 0; i < 8; i++)
            kept += AGAIN_K(loop[i]);
        CHECK_EQ_LL(kept, 8);
    }
#undef AGAIN_K
    dc_report_finish();
}

/* The word memo keeps 4 words of one set; a fifth takes the way used
 * longest ago; 8 kernels' peer words (one value, plans evenly spaced) all
 * stay, whatever the spacing. */
static void test_wmemo_sets(void)
{
    const struct dc_pword *same[5];
    size_t ns = 0;
    const uintptr_t v = DC_WMEMO_PEER(1);
    for (uintptr_t a = 0x10000; ns < 5; a += 48)
        if (dc_wmemo_set((const struct dc_pword *)a, v) == dc_wmemo_set((const struct dc_pword *)0x10000, v))
            same[ns++] = (const struct dc_pword *)a;
    struct dc_wmemo e = { .kernel_key = (void *)0x9000, .v = v, .reg_gen = 0, .kernels_gen = 7, .device = 0 };
#define FOUND(p) (dc_wmemo_find((void *)0x9000, (p), v, 0, 0, 7) != NULL)
    for (size_t i = 0; i < 4; i++) {
        e.pw = same[i];
        dc_wmemo_put(&e);
    }
    CHECK_EQ_LL(FOUND(same[0]) + FOUND(same[1]) + FOUND(same[2]) + FOUND(same[3]), 4);
    CHECK(FOUND(same[0]));                  /* same[1] now the one used longest ago */
    e.pw = same[4];
    dc_wmemo_put(&e);
    CHECK(FOUND(same[4]) && FOUND(same[0]) && FOUND(same[2]) && FOUND(same[3]));
    CHECK(!FOUND(same[1]));
    static const uintptr_t spacing[] = { 0x90, 0x58, 0x40, 0x1000 };   /* 0x90: 144, a Fibonacci number */
    for (size_t s = 0; s < sizeof spacing / sizeof spacing[0]; s++) {
        int kept = 0;
        for (int i = 0; i < 8; i++) {
            e.pw = (const struct dc_pword *)(0x55d0a1c3e2a0ull + spacing[s] * (uintptr_t)i);
            dc_wmemo_put(&e);
        }
        for (int i = 0; i < 8; i++)
            kept += FOUND((const struct dc_pword *)(0x55d0a1c3e2a0ull + spacing[s] * (uintptr_t)i));
        CHECK_EQ_LL(kept, 8);
    }
#undef FOUND
}

/* Legal peer traffic under peer=ignore: counted, nothing reported, kept at
 * its first launch; lost when peer access goes (then the error). */
static void test_lmemo_ignore(void)
{
    scenario("lmemoign", "peer=ignore");
    populate();
    uintptr_t p[2] = { D0, D2 + 8 };
    void *args[2];
    struct dc_param params[2];
    struct dc_pword pw[2];
    const void *key = (void *)0x4200;
    struct dc_launch l = planned("_Z4memoPfS_", key, p, args, params, pw, 2);
    CHECK_EQ_LL(dc_check_launch(&l), 0);
    CHECK_EQ_LL(dc_lmemo_again(key, pw, 0, -1, DC_PATH_CUPTI, args), 1);
    struct dc_report_stats s = stats();
    CHECK_EQ_LL(s.findings, 0);
    CHECK_EQ_LL(s.launches_checked, 2);
    CHECK_EQ_LL(s.launches_cupti, 1);
    dc_reg_set_peer(0, 2, 0);
    CHECK_EQ_LL(dc_lmemo_again(key, pw, 0, -1, DC_PATH_CUPTI, args), 0);
    CHECK_EQ_LL(dc_check_launch(&l), 1);
    CHECK_EQ_LL(stats().errors, 1);
    dc_report_finish();
}

int main(int argc, char **argv)
{
    outdir = unit_outdir("test_check", argc > 1 ? argv[1] : NULL);
    mkdir(outdir, 0755);
    test_all();
    test_argbuf();
    test_print_limit();
    test_filters();
    test_mode_off();
    test_migrate_api();
    test_policies();
    test_origins();
    test_unwritable();
    test_threads();
    test_fork();
    test_libcall_again();
    test_lmemo();
    test_lmemo_ignore();
    test_wmemo_sets();
    test_lmemo_sets();
    return unit_done("test_check");
}
