/* Hostile names through report/ (issue 40), called directly:
 *  - case 2: a kernel name holding a newline and ESC: the text report
 *    escapes it (\x1b, \x0a), the finding's header stays one line, no raw
 *    control byte reaches the log;
 *  - case 3: a name with bytes that are not UTF-8: the JSON file is valid
 *    UTF-8 and the raw bytes come back from it (\udcXX, PEP 383);
 *  - case 6: --gen-suppressions' entry for a 4,110-character name, and for
 *    names with control characters, blanks at the ends and glob
 *    metacharacters, is read back by the suppression reader and matches
 *    the finding it was made for;
 *  - glob matching: the same answers as fnmatch(3) on a grid of patterns,
 *    and a pattern of 30 stars against 100,000 bytes answers at once (the
 *    test's time limit is the guard: fnmatch takes hours on it).
 * Usage: test_hostile [OUTDIR] */
#include "common/format.h"
#include "common/json.h"
#include "report/finding.h"
#include "report/report.h"
#include "report/suppress.h"
#include "tests/unit/unit.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *outdir;

static void report_one(const char *name, const char *tag, char **log, char **json)
{
    char jp[4096], lp[4096];
    snprintf(jp, sizeof jp, "%s/%s.json", outdir, tag);
    snprintf(lp, sizeof lp, "%s/%s.log", outdir, tag);
    struct dc_report_config rc = { .log_path = lp, .json_path = jp, .print_limit = 100 };
    dc_report_reset();
    dc_report_init(&rc);
    struct dc_finding_launch l = { .kernel = name, .api = "cuLaunchKernel", .device = 0, .current_device = -1 };
    struct dc_finding f = { .kind = DC_F_DEVICE_MISMATCH, .severity = DC_SEV_ERROR, .launch = &l, .has_operand = 1,
                            .param = 0, .address = 0x1000, .alloc_known = 1,
                            .alloc = { .base = 0x1000, .size = 64, .kind = DC_MEM_DEVICE, .owner = 1 },
                            .access = "peer access not enabled" };
    dc_report_finding(&f);
    dc_report_finish();
    *log = unit_slurp(lp, NULL);
    *json = unit_slurp(jp, NULL);
    dc_report_reset();
}

static void test_text_escapes(void)
{
    const char *name = "evil\n\x1b[2J\x1b]0;owned\x07kernel\xff\xfe";
    char *log, *json;
    report_one(name, "esc", &log, &json);
    CHECK(log != NULL);
    if (log) {
        for (const unsigned char *c = (const unsigned char *)log; *c; c++)
            if ((*c < 0x20 && *c != '\n' && *c != '\t') || *c == 0x7f)
                CHECK(!"a raw control byte in the text report");
        CHECK(dc_utf8_valid(log, strlen(log)));
        /* the header: one line, the whole name in it, escaped */
        CHECK_STR_CONTAINS(log, "==devcheck== ERROR: device_mismatch: kernel evil\\x0a\\x1b[2J\\x1b]0;owned\\x07kernel"
                                "\\xff\\xfe launched on cuda:0");
    }
    CHECK(json != NULL);
    if (json) {
        size_t n = strcspn(json, "\n");
        CHECK(dc_utf8_valid(json, strlen(json)));
        CHECK_STR_CONTAINS(json, "\\u001b[2J");
        CHECK_STR_CONTAINS(json, "\\udcff\\udcfe");
        struct dc_json *v = dc_json_parse(json, n, NULL);
        CHECK(v != NULL);
        const char *back = dc_json_str(dc_json_get(v, "kernel_mangled"));
        CHECK(back && !strcmp(back, name));                     /* the raw bytes recovered */
        dc_json_free(v);
    }
    free(log);
    free(json);
    /* dc_text_escape: a cut escape never splits, the result is terminated */
    char small[12] = "ab\x1b\x1b\x1b";
    size_t end = dc_text_escape(small, 0, 5, sizeof small, 0);
    CHECK_EQ_LL(end, 10);
    CHECK(!strcmp(small, "ab\\x1b\\x1b"));
    /* a UTF-8 character is kept, an overlong form and a surrogate are not */
    char u[64] = "\xc3\xa9 \xc0\xaf \xed\xa0\x80";
    end = dc_text_escape(u, 0, strlen(u), sizeof u, 0);
    CHECK(!strcmp(u, "\xc3\xa9 \\xc0\\xaf \\xed\\xa0\\x80"));
}

static int supp_roundtrip(const char *name, const char *tag)
{
    char buf[40000];
    struct dc_buf b = { buf, sizeof buf, 0, 0 };
    struct dc_sframe fr = { "main", "main", "/bin/prog\nx", "/src/a.cu", 7, 0 };
    dc_supp_generate(&b, "device_mismatch", name, &fr, 1);
    CHECK(!b.truncated);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.supp", outdir, tag);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(buf, f);
    fclose(f);
    char err[512];
    int rc = dc_supp_load(path, err, sizeof err);
    if (rc)
        fprintf(stderr, "test_hostile: %s: %s\n", tag, err);
    CHECK_EQ_LL(rc, 0);
    int m = dc_supp_match("device_mismatch", name, NULL, &fr, 1, 0);
    CHECK_EQ_LL(m, 0);
    char other[64];
    snprintf(other, sizeof other, "x%.40s", name);
    CHECK_EQ_LL(dc_supp_match("device_mismatch", other, NULL, &fr, 1, 0), -1);      /* not every name */
    dc_supp_reset();
    return rc || m;
}

static void test_gen_suppressions(void)
{
    size_t n = 4110 - 7;                    /* "kernel:" + 4,103 characters, as in the issue */
    char *big = malloc(n + 1);
    if (!big)
        return;
    memset(big, 'k', n);
    memcpy(big, "_Z", 2);
    big[n] = 0;
    supp_roundtrip(big, "long");
    char *huge = malloc(100001);
    if (huge) {
        memset(huge, 'h', 100000);
        huge[100000] = 0;
        supp_roundtrip(huge, "huge");      /* over the line bound: a prefix and '*' */
        free(huge);
    }
    free(big);
    supp_roundtrip(" a[b]*?\\c\n\x1b\r ", "meta");
    supp_roundtrip("\t", "tab");
}

static void test_glob(void)
{
    static const char *pats[] = { "*", "?", "a*", "*a", "a?c", "[abc]x", "[!a]*", "[^a]*", "[a-c]*", "[]]", "[!]]",
                                  "\\*", "a\\", "[", "[a", "*[b-]", "**a**b", "a*b*c", "", "x[\\]]y", "[z-a]",
                                  "*[nf(l-", "[l-", "[a-b", "[-", "[\\", "[a\\", "[!" };
    static const char *strs[] = { "", "a", "abc", "ba", "ax", "xx", "]", "*", "a\\", "[", "[a", "-", "aXbYc",
                                  "x]y", "ab", "zz", "t[nf(l-", "[l-", "[a-b", "[-", "[\\", "[a\\", "[!" };
    for (size_t i = 0; i < sizeof pats / sizeof *pats; i++)
        for (size_t j = 0; j < sizeof strs / sizeof *strs; j++) {
            int want = fnmatch(pats[i], strs[j], 0) == 0, got = dc_supp_glob(pats[i], strs[j]);
            if (want != got)
                fprintf(stderr, "test_hostile: glob '%s' '%s': fnmatch %d, ours %d\n", pats[i], strs[j], want, got);
            CHECK_EQ_LL(got, want);
        }
    char pat[64] = "";
    for (int i = 0; i < 30; i++)
        strcat(pat, "*a");
    strcat(pat, "*b");
    char *s = malloc(100001);
    if (!s)
        return;
    memset(s, 'a', 100000);
    s[100000] = 0;
    CHECK_EQ_LL(dc_supp_glob(pat, s), 0);
    s[99999] = 'b';
    CHECK_EQ_LL(dc_supp_glob(pat, s), 1);
    free(s);
}

int main(int argc, char **argv)
{
    outdir = unit_outdir("test_hostile", argc > 1 ? argv[1] : NULL);
    if (!outdir)
        return 1;
    test_text_escapes();
    test_gen_suppressions();
    test_glob();
    return unit_done("test_hostile");
}
