/* Unit tests of report/'s outputs (issues 11 and 14), called directly:
 *  - a record over 64 KiB (a 100,000-character kernel name) is written
 *    whole to the JSON file, not dropped;
 *  - path expansion: %p %r %h %q{VAR} %%;
 *  - suppressions: parsing errors name file and line; matching by kind,
 *    kernel and frames (fun:, obj:, src: with and without a line, ...), and
 *    no over-match (another kernel, another frame, a frame that is not the
 *    innermost);
 *  - the JSON reader: valid records, truncated and corrupt lines refused
 *    without a crash;
 *  - the merge: the same finding from two processes is one finding with
 *    two shares; a later line of the same id replaces the first.
 * Usage: test_outputs [OUTDIR] (default: a new directory under /tmp) */
#include "report/finding.h"
#include "common/json.h"
#include "report/merge.h"
#include "report/report.h"
#include "report/sinks.h"
#include "report/suppress.h"
#include "tests/unit/unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *outdir;

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_big_record(void)
{
    char json[4096], log[4096];
    snprintf(json, sizeof json, "%s/big.json", outdir);
    snprintf(log, sizeof log, "%s/big.log", outdir);
    struct dc_report_config rc = { .log_path = log, .json_path = json, .print_limit = 100 };
    dc_report_reset();
    dc_report_init(&rc);
    size_t n = 100000;
    char *name = malloc(n + 1);
    CHECK(name != NULL);
    if (!name)
        return;
    memset(name, 'k', n);
    name[n] = 0;
    struct dc_finding_launch l = { .kernel = name, .api = "cuLaunchKernel", .device = 0, .current_device = -1 };
    struct dc_finding f = { .kind = DC_F_DEVICE_MISMATCH, .severity = DC_SEV_ERROR, .launch = &l, .has_operand = 1,
                            .param = 0, .address = 0x1000, .alloc_known = 1,
                            .alloc = { .base = 0x1000, .size = 64, .kind = DC_MEM_DEVICE, .owner = 1 },
                            .access = "peer access not enabled" };
    dc_report_finding(&f);
    dc_report_finish();
    size_t len = 0;
    char *s = unit_slurp(json, &len);
    CHECK(s != NULL);
    if (s) {
        char *nl = strchr(s, '\n');
        CHECK(nl != NULL);
        CHECK(nl && (size_t)(nl - s) > n);              /* kernel_mangled whole */
        CHECK_STR_CONTAINS(s, "\"type\":\"finding\"");
        CHECK_STR_CONTAINS(s, "\"type\":\"summary\"");
        if (nl) {
            struct dc_json *v = dc_json_parse(s, (size_t)(nl - s), NULL);
            CHECK(v != NULL);
            CHECK(v && strlen(dc_json_str(dc_json_get(v, "kernel_mangled"))) == n);
            dc_json_free(v);
        }
    }
    free(s);
    char *lg = unit_slurp(log, NULL);
    CHECK(lg && !strstr(lg, "left out"));
    free(lg);
    free(name);
    dc_report_reset();
}

static void test_paths(void)
{
    char out[512], want[512], host[256];
    setenv("DC_TEST_VAR", "xyz", 1);
    setenv("RANK", "3", 1);
    CHECK_EQ_LL(dc_path_expand("a-%p-%r-%q{DC_TEST_VAR}-%q{DC_UNSET_VAR}-%%", out, sizeof out), 0);
    snprintf(want, sizeof want, "a-%d-3-xyz--%%", (int)getpid());
    CHECK(!strcmp(out, want));
    gethostname(host, sizeof host);
    CHECK_EQ_LL(dc_path_expand("%h.log", out, sizeof out), 0);
    snprintf(want, sizeof want, "%s.log", host);
    CHECK(!strcmp(out, want));
    CHECK_EQ_LL(dc_path_expand("x%q{UNCLOSED", out, sizeof out), -1);
    unsetenv("RANK");
    setenv("OMPI_COMM_WORLD_RANK", "1", 1);
    CHECK_EQ_LL(dc_env_rank(), 1);
    unsetenv("OMPI_COMM_WORLD_RANK");
    CHECK_EQ_LL(dc_env_rank(), -1);
    CHECK_EQ_LL(dc_path_expand("r%r", out, sizeof out), 0);
    CHECK(!strcmp(out, "r0"));
}

static struct dc_sframe fr(const char *fn, const char *obj, const char *file, int line)
{
    return (struct dc_sframe){ fn, fn, obj, file, line, 0 };
}

static const struct dc_sframe *main_only_frames(void)
{
    static struct dc_sframe f[1];
    f[0] = fr("main", "/bin/prog", "/src/prog.cu", 57);
    return f;
}

static void test_suppressions(void)
{
    char p1[4096], p2[4096], err[1024];
    snprintf(p1, sizeof p1, "%s/good.supp", outdir);
    snprintf(p2, sizeof p2, "%s/bad.supp", outdir);
    write_file(p1,
               "# comment\n"
               "{\n   concat-in-main\n   devcheck:device_mismatch\n   kernel:concat*\n   fun:main\n}\n"
               "{\n   any-kind-model\n   devcheck:*\n   ...\n   src:*/modeling_*.py:12\n}\n"
               "{\n   in-lib\n   devcheck:peer_access\n   obj:*/libfoo.so\n   fun:main\n}\n");
    CHECK_EQ_LL(dc_supp_load(p1, err, sizeof err), 0);
    CHECK_EQ_LL(dc_supp_count(), 3);
    struct dc_sframe main_only[] = { fr("main", "/bin/prog", "/src/prog.cu", 57) };
    struct dc_sframe helper_main[] = { fr("helper", "/bin/prog", "/src/prog.cu", 20), fr("main", "/bin/prog", "/src/prog.cu", 57) };
    struct dc_sframe py[] = { fr("forward", "python", "/w/modeling_glm.py", 12), fr("run", "python", "/w/train.py", 3) };
    struct dc_sframe py_other_line[] = { fr("forward", "python", "/w/modeling_glm.py", 13) };
    struct dc_sframe lib[] = { fr("helper", "/opt/libfoo.so", NULL, 0), fr("main", "/bin/prog", NULL, 0) };
    /* matches */
    CHECK_EQ_LL(dc_supp_match("device_mismatch", "_Z6concatPKf", "concat(float const*)", main_only, 1, 1), 0);
    CHECK_EQ_LL(dc_supp_match("host_memory", NULL, NULL, py, 2, 1), 1);        /* ... then src: with line */
    CHECK_EQ_LL(dc_supp_match("peer_access", "k", "k", lib, 2, 1), 2);
    /* no over-match */
    CHECK_EQ_LL(dc_supp_match("device_mismatch", "_Z4vaddPf", "vadd(float*)", main_only, 1, 1), -1);  /* another kernel */
    CHECK_EQ_LL(dc_supp_match("device_mismatch", "_Z6concatPKf", "concat(float const*)", helper_main, 2, 1), -1);
    CHECK_EQ_LL(dc_supp_match("peer_access", "_Z6concatPKf", "concat(float const*)", main_only, 1, 1), -1);
    CHECK_EQ_LL(dc_supp_match("host_memory", NULL, NULL, py_other_line, 1, 1), -1);
    CHECK_EQ_LL(dc_supp_match("peer_access", "k", "k", helper_main, 2, 1), -1);               /* obj differs */
    uint64_t count = 0;
    const char *file;
    int line;
    CHECK(!strcmp(dc_supp_entry(0, &file, &line, &count), "concat-in-main"));
    CHECK_EQ_LL(count, 1);
    CHECK_EQ_LL(line, 2);
    CHECK(!strcmp(file, p1));

    /* malformed files: the error names the file and the line, nothing loaded */
    static const struct { const char *text; int line; const char *what; } bad[] = {
        { "{\n  name\n  memcheck:Leak\n}\n", 3, "devcheck:KIND" },
        { "name\n", 1, "expected '{'" },
        { "{\n  name\n  devcheck:*\n  fun:main\n", 5, "missing '}'" },
        { "{\n  name\n  devcheck:*\n  fun:\n}\n", 4, "empty pattern" },
        { "{\n  name\n  devcheck:*\n  bogus:x\n}\n", 4, "expected 'kernel:GLOB'" },
        { "{\n  name\n  devcheck:*\n  fun:x\n  kernel:y\n}\n", 5, "'kernel:' comes once" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(p2, bad[i].text);
        char both[8300], want[4200];
        snprintf(both, sizeof both, "%s,%s", p1, p2);
        CHECK_EQ_LL(dc_supp_load(both, err, sizeof err), -1);
        snprintf(want, sizeof want, "suppressions file '%s' line %d: ", p2, bad[i].line);
        CHECK_STR_CONTAINS(err, want);
        CHECK_STR_CONTAINS(err, bad[i].what);
        CHECK_EQ_LL(dc_supp_count(), 3);                /* the earlier load stands */
    }
    CHECK_EQ_LL(dc_supp_load("/nonexistent/x.supp", err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "/nonexistent/x.supp");

    /* a generated entry matches the finding it was made for, and only it */
    char gen[2048];
    struct dc_buf g = { gen, sizeof gen, 0, 0 };
    dc_supp_generate(&g, "device_mismatch", "_Z6concatPKf", helper_main, 2);
    CHECK_STR_CONTAINS(gen, "devcheck:device_mismatch\n   kernel:_Z6concatPKf\n   fun:helper\n   fun:main\n}");
    char *named = strdup(gen);
    char *ins = strstr(named, "<insert_a_suppression_name_here>");
    if (ins)
        memcpy(ins, "generated_entry_xxxxxxxxxxxxxxxx", 32);
    write_file(p2, named);
    free(named);
    CHECK_EQ_LL(dc_supp_load(p2, err, sizeof err), 0);
    CHECK_EQ_LL(dc_supp_match("device_mismatch", "_Z6concatPKf", "concat(float const*)", helper_main, 2, 0), 0);
    CHECK_EQ_LL(dc_supp_match("device_mismatch", "_Z6concatPKf", "concat(float const*)", main_only, 1, 0), -1);
    dc_supp_reset();
}

/* Python suppressions (issue 41): py: frames match the Python frames alone,
 * op: a framework error's operator; a generated entry for a framework error
 * hides that one error: not the same op at another line, not another test
 * calling the same line, not another op. */
static struct dc_sframe pyf(const char *fn, const char *file, int line)
{
    return (struct dc_sframe){ fn, NULL, file, file, line, 1 };
}

static void test_python_suppressions(void)
{
    char p[4096], err[1024];
    snprintf(p, sizeof p, "%s/py.supp", outdir);
    write_file(p,
               "{\n   cat-in-merge\n   devcheck:framework_device_error\n   op:cat\n   py:*/vlm.py:merge:8\n}\n"
               "{\n   loader-anywhere\n   devcheck:device_mismatch\n   ...\n   py:*/loader.py:load\n}\n");
    CHECK_EQ_LL(dc_supp_load(p, err, sizeof err), 0);
    struct dc_sframe op[] = { pyf("merge", "/w/vlm.py", 8), pyf("test_caught", "/w/test_vlm.py", 12) };
    struct dc_sframe op_line9[] = { pyf("merge", "/w/vlm.py", 9) };
    /* native frames first, then the Python ones: py: looks at the Python frames */
    struct dc_sframe launch[] = { fr("cuLaunchKernel", "/lib/libcuda.so.1", NULL, 0),
                                  pyf("__call__", "/venv/lib/python3.11/site-packages/triton/jit.py", 30),
                                  pyf("load", "/w/loader.py", 5) };
    CHECK_EQ_LL(dc_supp_match_op("framework_device_error", NULL, NULL, "cat", op, 2, 0), 0);
    CHECK_EQ_LL(dc_supp_match_op("framework_device_error", NULL, NULL, "index_select", op, 2, 0), -1);
    CHECK_EQ_LL(dc_supp_match_op("framework_device_error", NULL, NULL, NULL, op, 2, 0), -1);
    CHECK_EQ_LL(dc_supp_match_op("framework_device_error", NULL, NULL, "cat", op_line9, 1, 0), -1);
    CHECK_EQ_LL(dc_supp_match_op("device_mismatch", "k", "k", NULL, launch, 3, 0), 1);
    CHECK_EQ_LL(dc_supp_match_op("device_mismatch", "k", "k", NULL, main_only_frames(), 1, 0), -1);
    static const char *const bad[] = {
        "{\n  x\n  devcheck:*\n  fun:main\n  py:*/a.py\n}\n",           /* mixed */
        "{\n  x\n  devcheck:*\n  py:*/a.py\n  op:cat\n}\n",             /* op: after the frames */
    };
    for (size_t i = 0; i < 2; i++) {
        write_file(p, bad[i]);
        CHECK_EQ_LL(dc_supp_load(p, err, sizeof err), -1);
        CHECK_STR_CONTAINS(err, "line 5");
    }
    /* generated for a framework error: op and the Python frames up to the
     * user's second, library frames one `...` */
    struct dc_sframe stack[] = { pyf("cat", "/venv/lib/python3.11/site-packages/torch/functional.py", 40),
                                 pyf("merge", "/w/vlm.py", 8), pyf("test_caught", "/w/test_vlm.py", 12),
                                 pyf("pytest_pyfunc_call", "/venv/lib/python3.11/site-packages/_pytest/python.py", 159) };
    char gen[2048];
    struct dc_buf g = { gen, sizeof gen, 0, 0 };
    dc_supp_generate_op(&g, "framework_device_error", NULL, "cat", stack, 4);
    CHECK_STR_CONTAINS(gen, "   devcheck:framework_device_error\n   op:cat\n   ...\n   py:*/vlm.py:merge:8\n"
                            "   py:*/test_vlm.py:test_caught:12\n}\n");
    char *ins = strstr(gen, "<insert_a_suppression_name_here>");
    if (ins)
        memcpy(ins, "generated_entry_xxxxxxxxxxxxxxxx", 32);
    write_file(p, gen);
    CHECK_EQ_LL(dc_supp_load(p, err, sizeof err), 0);
    CHECK_EQ_LL(dc_supp_match_op("framework_device_error", NULL, NULL, "cat", stack, 4, 0), 0);
    struct dc_sframe other_test[] = { stack[0], stack[1], pyf("test_raises", "/w/test_vlm.py", 20), stack[3] };
    CHECK_EQ_LL(dc_supp_match_op("framework_device_error", NULL, NULL, "cat", other_test, 4, 0), -1);
    CHECK_EQ_LL(dc_supp_match_op("framework_device_error", NULL, NULL, "stack", stack, 4, 0), -1);
    dc_supp_reset();
}

static void test_json_and_merge(void)
{
    static const char *bad[] = {
        "{\"type\":\"finding\",\"id\":1,\"kind\":\"device_mism",       /* truncated */
        "{\"type\":\"finding\" \"id\":1}",                                /* no colon */
        "[1,2,",
        "{\"a\":\"\\uZZZZ\"}",
        "garbage",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(dc_json_parse(bad[i], strlen(bad[i]), NULL) == NULL);
    const char *ok = "{\"s\":\"a\\\"b\\u00e9\",\"n\":-12,\"f\":1.5,\"t\":true,\"z\":null,\"a\":[1,{}]}";
    struct dc_json *v = dc_json_parse(ok, strlen(ok), NULL);
    CHECK(v != NULL);
    CHECK(v && !strcmp(dc_json_str(dc_json_get(v, "s")), "a\"b\xc3\xa9"));
    CHECK_EQ_LL(dc_json_int(dc_json_get(v, "n"), 0), -12);
    CHECK_EQ_LL(dc_json_len(dc_json_get(v, "a")), 2);
    dc_json_free(v);

    struct dc_model *m = dc_model_new("/src");
    const char *rec = "{\"type\":\"finding\",\"id\":1,\"pid\":%d,\"rank\":%d,\"host\":\"h\",\"kind\":\"device_mismatch\","
                      "\"severity\":\"error\",\"kernel\":\"k\",\"kernel_mangled\":\"k\",\"launch\":{\"device\":0},"
                      "\"operand\":{\"param\":1,\"word_offset\":0,\"owner_device\":1,\"memory\":\"device\"},"
                      "\"action\":\"reported\",\"count\":%d,\"launch_stack\":[{\"function\":\"main\",\"file\":\"/src/a.cu\","
                      "\"line\":7}],\"alloc_stack\":[]}";
    char line[2048];
    char why[256];
    snprintf(line, sizeof line, rec, 10, 0, 1);
    CHECK_EQ_LL(dc_model_add(m, line, strlen(line), "f0", 1, why, sizeof why), 0);
    snprintf(line, sizeof line, rec, 10, 0, 5);                             /* the exit's final count */
    CHECK_EQ_LL(dc_model_add(m, line, strlen(line), "f0", 2, why, sizeof why), 0);
    snprintf(line, sizeof line, rec, 11, 1, 2);                             /* rank 1, same finding */
    CHECK_EQ_LL(dc_model_add(m, line, strlen(line), "f1", 1, why, sizeof why), 0);
    CHECK_EQ_LL(dc_model_add(m, "{\"type\":\"finding\",\"id\":2", 22, "f1", 2, why, sizeof why), -1);
    CHECK_STR_CONTAINS(why, "truncated");
    CHECK_EQ_LL(dc_model_add(m, "{\"type\":\"other\"}", 16, "f1", 3, why, sizeof why), -1);
    CHECK_STR_CONTAINS(why, "not a devcheck record");
    dc_model_merge(m);
    CHECK_EQ_LL(m->nf, 1);
    CHECK_EQ_LL(m->f[0].count, 7);
    CHECK_EQ_LL(m->f[0].nshares, 2);
    CHECK_EQ_LL(m->totals.errors, 1);
    CHECK_EQ_LL(m->nprocs, 2);
    const char *file;
    char rel[256];
    int in_tree;
    CHECK(dc_model_site(m, m->f[0].rec, "launch", &file, rel, sizeof rel, &in_tree) != NULL);
    CHECK(file && !strcmp(file, "a.cu") && in_tree);
    dc_model_free(m);
}

int main(int argc, char **argv)
{
    static char tmp[] = "/tmp/devcheck-test_outputs.XXXXXX";
    outdir = argc > 1 ? argv[1] : mkdtemp(tmp);
    if (!outdir)
        return 1;
    test_big_record();
    test_paths();
    test_suppressions();
    test_python_suppressions();
    test_json_and_merge();
    if (argc <= 1) {                    /* our own directory: leave nothing behind */
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", outdir);
        if (system(cmd) != 0)
            fprintf(stderr, "test_outputs: could not remove %s\n", outdir);
    }
    return unit_done("test_outputs");
}
