/* Unit tests for the flag table: DEVCHECK_OPTIONS parsing, errors, help, and
 * the wrapper's command-line mapping. */
#include "core/base/options.h"
#include "tests/unit/unit.h"

#include <stdlib.h>

static char err[2048];

static void test_defaults(void)
{
    dc_options_defaults();
    CHECK(dc_opt.mode == DC_MODE_REPORT);
    CHECK(dc_opt.peer == DC_POLICY_WARN);
    CHECK(dc_opt.host_memory == DC_POLICY_AUTO);
    CHECK_EQ_LL(dc_opt.print_limit, 100);
    CHECK_EQ_LL(dc_opt.error_exitcode, 0);
    CHECK_EQ_LL(dc_opt.verbosity, 0);
    CHECK_EQ_LL(dc_opt.help, 0);
    CHECK_EQ_LL(dc_opt.sim, 0);
    CHECK(dc_opt.log_path && !strcmp(dc_opt.log_path, ""));
    CHECK(dc_opt.json_path && !strcmp(dc_opt.json_path, ""));
    CHECK(dc_opt.kernel_name && !*dc_opt.kernel_name);
    CHECK(dc_opt.kernel_name_exclude && !*dc_opt.kernel_name_exclude);
    CHECK_EQ_LL(dc_options_parse(NULL, err, sizeof err), 0);
    CHECK_EQ_LL(dc_options_parse("", err, sizeof err), 0);
    CHECK(dc_opt.print_limit == 100);
}

static void test_parse(void)
{
    CHECK_EQ_LL(dc_options_parse("mode=off:peer=error:host_memory=ignore:print_limit=5:"
                                 "log_path=/tmp/x.%p:json_path=f.json:error_exitcode=3:"
                                 "kernel_name=vadd,=gemm:kernel_name_exclude=_Z3foo:verbosity=2:help=yes:sim=4",
                                 err, sizeof err), 0);
    CHECK(dc_opt.mode == DC_MODE_OFF);
    CHECK(dc_opt.peer == DC_POLICY_ERROR);
    CHECK(dc_opt.host_memory == DC_POLICY_IGNORE);
    CHECK_EQ_LL(dc_opt.print_limit, 5);
    CHECK(!strcmp(dc_opt.log_path, "/tmp/x.%p"));
    CHECK(!strcmp(dc_opt.json_path, "f.json"));
    CHECK_EQ_LL(dc_opt.error_exitcode, 3);
    CHECK(!strcmp(dc_opt.kernel_name, "vadd,=gemm"));
    CHECK(!strcmp(dc_opt.kernel_name_exclude, "_Z3foo"));
    CHECK_EQ_LL(dc_opt.verbosity, 2);
    CHECK_EQ_LL(dc_opt.help, 1);
    CHECK_EQ_LL(dc_opt.sim, 4);

    /* each parse starts from the defaults; the last occurrence wins */
    CHECK_EQ_LL(dc_options_parse("peer=ignore peer=warn  print_limit=0", err, sizeof err), 0);
    CHECK(dc_opt.peer == DC_POLICY_WARN);
    CHECK(dc_opt.mode == DC_MODE_REPORT);
    CHECK_EQ_LL(dc_opt.print_limit, 0);
    CHECK(!strcmp(dc_opt.log_path, ""));

    /* bool spellings, bare bool key */
    const char *truths[] = { "help=1", "help=true", "help=yes", "help=YES", "help" };
    for (size_t i = 0; i < sizeof truths / sizeof truths[0]; i++) {
        CHECK_EQ_LL(dc_options_parse(truths[i], err, sizeof err), 0);
        CHECK_EQ_LL(dc_opt.help, 1);
    }
    const char *falses[] = { "help=0", "help=false", "help=no" };
    for (size_t i = 0; i < sizeof falses / sizeof falses[0]; i++) {
        CHECK_EQ_LL(dc_options_parse(falses[i], err, sizeof err), 0);
        CHECK_EQ_LL(dc_opt.help, 0);
    }
    /* quoted values keep ':' and spaces */
    CHECK_EQ_LL(dc_options_parse("log_path='C:/a b/log.%p':json_path=\"x:y\":mode=off", err, sizeof err), 0);
    CHECK(!strcmp(dc_opt.log_path, "C:/a b/log.%p"));
    CHECK(!strcmp(dc_opt.json_path, "x:y"));
    CHECK(dc_opt.mode == DC_MODE_OFF);
    CHECK_EQ_LL(dc_options_parse("host_memory=auto:host_memory=warn", err, sizeof err), 0);
    CHECK(dc_opt.host_memory == DC_POLICY_WARN);
}

static void test_errors(void)
{
    CHECK_EQ_LL(dc_options_parse("peer=sometimes:print_limit=7", err, sizeof err), -1);
    CHECK(!strcmp(err, "devcheck: ERROR: option 'peer': invalid value 'sometimes' (expected error|warn|ignore)"));
    CHECK_EQ_LL(dc_opt.print_limit, 100);       /* back to the defaults */

    CHECK_EQ_LL(dc_options_parse("print_limit=7:colour=red", err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "devcheck: ERROR: unknown option 'colour' (valid: mode, sync, halt_on_error, halt, peer, host_memory, print_limit");
    CHECK_STR_CONTAINS(err, "kernel_name_exclude");
    CHECK_EQ_LL(dc_opt.print_limit, 100);

    CHECK_EQ_LL(dc_options_parse("help=maybe", err, sizeof err), -1);
    CHECK(!strcmp(err, "devcheck: ERROR: option 'help': invalid value 'maybe' (expected 0|1|true|false|yes|no)"));
    CHECK_EQ_LL(dc_options_parse("print_limit=-1", err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "option 'print_limit': invalid value '-1'");
    CHECK_EQ_LL(dc_options_parse("print_limit=12abc", err, sizeof err), -1);
    CHECK_EQ_LL(dc_options_parse("print_limit=", err, sizeof err), -1);
    CHECK_EQ_LL(dc_options_parse("error_exitcode=256", err, sizeof err), -1);
    CHECK_EQ_LL(dc_options_parse("verbosity=3", err, sizeof err), -1);
    CHECK_EQ_LL(dc_options_parse("mode=on", err, sizeof err), -1);
    CHECK(!strcmp(err, "devcheck: ERROR: option 'mode': invalid value 'on' (expected report|off|migrate)"));
    CHECK_EQ_LL(dc_options_parse("halt=stop", err, sizeof err), -1);
    CHECK(!strcmp(err, "devcheck: ERROR: option 'halt': invalid value 'stop' (expected abort|trap)"));
    CHECK_EQ_LL(dc_options_parse("sync=sometimes", err, sizeof err), -1);
    CHECK_EQ_LL(dc_options_parse("host_memory=sometimes", err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "(expected auto|error|warn|ignore)");
    CHECK_EQ_LL(dc_options_parse("peer=auto", err, sizeof err), -1);   /* auto is host_memory's only */
    CHECK_EQ_LL(dc_options_parse("peer", err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "option 'peer' needs a value");
    CHECK_EQ_LL(dc_options_parse("log_path='unterminated", err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "unterminated quote");
    /* strings longer than the storage are refused, not truncated */
    char *big = malloc(20000);
    CHECK(big != NULL);
    if (big) {
        strcpy(big, "log_path=");
        memset(big + 9, 'a', 10000);
        big[10009] = 0;
        CHECK_EQ_LL(dc_options_parse(big, err, sizeof err), -1);
        CHECK_STR_CONTAINS(err, "too long");
        free(big);
    }
    /* a tiny error buffer is truncated, never overrun */
    char small[8];
    CHECK_EQ_LL(dc_options_parse("nope=1", small, sizeof small), -1);
    CHECK_EQ_LL(strlen(small), 7);
    CHECK_EQ_LL(dc_options_parse("nope=1", NULL, 0), -1);
}

static void test_help(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    if (!f)
        return;
    dc_options_help(f);
    fclose(f);
    const char *keys[] = { "mode", "sync", "halt_on_error", "--halt-on-error", "abort|trap",
                           "report|off|migrate", "default abort", "peer", "host_memory", "print_limit", "log_path", "json_path",
                           "error_exitcode", "kernel_name", "kernel_name_exclude", "verbosity", "help",
                           "--log-file", "--json", "--error-exitcode", "--kernel-name-exclude",
                           "--print-limit", "--host-memory", "error|warn|ignore", "default 100" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        CHECK_STR_CONTAINS(text, keys[i]);
    free(text);
}

static int argv_map(char **argv, int argc, int *consumed, char *out, size_t len)
{
    return dc_options_from_argv(argc, argv, consumed, out, len, err, sizeof err);
}

static void test_argv(void)
{
    char env[1024];
    int consumed = -1;
    char *a1[] = { "--error-exitcode", "3", "--log-file", "x.%p", "--json", "f", "--print-limit", "5",
                   "--kernel-name", "k", "--kernel-name-exclude", "k2", "--peer", "warn",
                   "--host-memory", "error", "--mode", "off", "--", "./prog", "--peer", "x" };
    CHECK_EQ_LL(argv_map(a1, 22, &consumed, env, sizeof env), 0);
    CHECK_EQ_LL(consumed, 19);          /* argv[19] is the program */
    CHECK(!strcmp(env, "error_exitcode=3:log_path=x.%p:json_path=f:print_limit=5:kernel_name=k:"
                       "kernel_name_exclude=k2:peer=warn:host_memory=error:mode=off"));
    CHECK_EQ_LL(dc_options_parse(env, err, sizeof err), 0);
    CHECK_EQ_LL(dc_opt.error_exitcode, 3);
    CHECK(!strcmp(dc_opt.log_path, "x.%p"));
    CHECK(!strcmp(dc_opt.json_path, "f"));
    CHECK_EQ_LL(dc_opt.print_limit, 5);
    CHECK(!strcmp(dc_opt.kernel_name, "k"));
    CHECK(!strcmp(dc_opt.kernel_name_exclude, "k2"));
    CHECK(dc_opt.peer == DC_POLICY_WARN);
    CHECK(dc_opt.host_memory == DC_POLICY_ERROR);
    CHECK(dc_opt.mode == DC_MODE_OFF);

    /* --key=value, underscore spelling, the program without "--", bool flags */
    char *a2[] = { "--log-path=a b:c", "--json_path=j", "--help", "--verbosity=1", "prog", "--mode", "off" };
    CHECK_EQ_LL(argv_map(a2, 7, &consumed, env, sizeof env), 0);
    CHECK_EQ_LL(consumed, 4);
    CHECK(!strcmp(env, "log_path=\"a b:c\":json_path=j:help=1:verbosity=1"));
    CHECK_EQ_LL(dc_options_parse(env, err, sizeof err), 0);
    CHECK(!strcmp(dc_opt.log_path, "a b:c"));
    CHECK_EQ_LL(dc_opt.help, 1);
    CHECK(dc_opt.mode == DC_MODE_REPORT);

    /* the modes of issue 5: bool flags without a value, halt's enum */
    char *a6[] = { "--mode", "migrate", "--sync", "--halt-on-error", "--halt", "trap", "prog" };
    CHECK_EQ_LL(argv_map(a6, 7, &consumed, env, sizeof env), 0);
    CHECK_EQ_LL(consumed, 6);
    CHECK(!strcmp(env, "mode=migrate:sync=1:halt_on_error=1:halt=trap"));
    CHECK_EQ_LL(dc_options_parse(env, err, sizeof err), 0);
    CHECK(dc_opt.mode == DC_MODE_MIGRATE);
    CHECK_EQ_LL(dc_opt.sync, 1);
    CHECK_EQ_LL(dc_opt.halt_on_error, 1);
    CHECK(dc_opt.halt == DC_HALT_TRAP);
    CHECK_EQ_LL(dc_options_parse("sync:halt_on_error", err, sizeof err), 0);
    CHECK(dc_opt.mode == DC_MODE_REPORT && dc_opt.sync == 1 && dc_opt.halt_on_error == 1);
    CHECK(dc_opt.halt == DC_HALT_ABORT);

    char *a3[] = { "-h" };
    CHECK_EQ_LL(argv_map(a3, 1, &consumed, env, sizeof env), 0);
    CHECK(!strcmp(env, "help=1"));
    CHECK_EQ_LL(consumed, 1);

    char *a4[] = { "./prog" };        /* no options at all */
    CHECK_EQ_LL(argv_map(a4, 1, &consumed, env, sizeof env), 0);
    CHECK_EQ_LL(consumed, 0);
    CHECK(!strcmp(env, ""));

    /* a value with both quote kinds cannot be carried */
    char *a5[] = { "--log-file", "a'b\"c" };
    CHECK_EQ_LL(argv_map(a5, 2, &consumed, env, sizeof env), -1);

    /* errors: unknown flag (names the valid ones), bad value, missing value */
    char *e1[] = { "--peer", "warn", "--colour", "red", "--", "prog" };
    CHECK_EQ_LL(argv_map(e1, 6, &consumed, env, sizeof env), -1);
    CHECK_EQ_LL(consumed, 2);
    CHECK_STR_CONTAINS(err, "devcheck: ERROR: unknown option '--colour' (valid: --mode, --sync, --halt-on-error, --halt, --peer");
    CHECK_STR_CONTAINS(err, "--log-path (--log-file)");
    CHECK_STR_CONTAINS(err, "--error-exitcode");
    CHECK(!strcmp(env, ""));
    char *e2[] = { "--peer", "sometimes" };
    CHECK_EQ_LL(argv_map(e2, 2, &consumed, env, sizeof env), -1);
    CHECK(!strcmp(err, "devcheck: ERROR: option 'peer': invalid value 'sometimes' (expected error|warn|ignore)"));
    /* issue 40: a long value (with an ESC in it) is named after the option,
     * shortened, escaped, with its length */
    static char longv[5001];
    memset(longv, 'w', 5000);
    longv[3] = '\x1b';
    char *e2b[] = { "--peer", longv };
    CHECK_EQ_LL(argv_map(e2b, 2, &consumed, env, sizeof env), -1);
    CHECK(!strncmp(err, "devcheck: ERROR: option 'peer': invalid value 'www\\x1bwww", 54));
    CHECK_STR_CONTAINS(err, "...' (5000 bytes) (expected error|warn|ignore)");
    CHECK(strlen(err) < 200 && !strchr(err, '\x1b'));
    char *e2c[] = { "--print-limit", longv };
    CHECK_EQ_LL(argv_map(e2c, 2, &consumed, env, sizeof env), -1);
    CHECK(!strncmp(err, "devcheck: ERROR: option 'print_limit': invalid value 'www", 54));
    char *e3[] = { "--print-limit" };
    CHECK_EQ_LL(argv_map(e3, 1, &consumed, env, sizeof env), -1);
    CHECK_STR_CONTAINS(err, "needs a value");
    char *e4[] = { "-x" };
    CHECK_EQ_LL(argv_map(e4, 1, &consumed, env, sizeof env), -1);
    char *e5[] = { "--error-exitcode", "300" };
    CHECK_EQ_LL(argv_map(e5, 2, &consumed, env, sizeof env), -1);
    char *e6[] = { "--help=perhaps" };
    CHECK_EQ_LL(argv_map(e6, 1, &consumed, env, sizeof env), -1);
    /* one syntax (issue 41): a bool's value may follow it as the next word
     * when it is a true/false word; otherwise the bool alone means 1 and the
     * next word is the program, never swallowed; a value that is not one is
     * an error naming the option, never a program to run */
    char *b1[] = { "--sim", "2", "--framework-errors", "0", "--", "python", "x.py" };
    CHECK_EQ_LL(argv_map(b1, 7, &consumed, env, sizeof env), 0);
    CHECK_EQ_LL(consumed, 5);           /* argv[5] is the program */
    CHECK(!strcmp(env, "sim=2:framework_errors=0"));
    char *b2[] = { "--sim", "2", "--halt-on-error", "false", "python", "x.py" };
    CHECK_EQ_LL(argv_map(b2, 6, &consumed, env, sizeof env), 0);
    CHECK_EQ_LL(consumed, 4);           /* python, not /bin/false */
    CHECK(!strcmp(env, "sim=2:halt_on_error=false"));
    char *b3[] = { "--sync", "python", "x.py" };
    CHECK_EQ_LL(argv_map(b3, 3, &consumed, env, sizeof env), 0);
    CHECK_EQ_LL(consumed, 1);
    CHECK(!strcmp(env, "sync=1"));
    char *b4[] = { "--sync=yes", "--nvtx", "no", "--gen-suppressions", "TRUE", "prog" };
    CHECK_EQ_LL(argv_map(b4, 6, &consumed, env, sizeof env), 0);
    CHECK_EQ_LL(consumed, 5);
    CHECK(!strcmp(env, "sync=yes:nvtx=no:gen_suppressions=TRUE"));
    char *b5[] = { "--sim", "python", "x.py" };
    CHECK_EQ_LL(argv_map(b5, 3, &consumed, env, sizeof env), -1);
    CHECK_STR_CONTAINS(err, "option 'sim': invalid value 'python'");
    char *b6[] = { "--json", "--sync", "prog" };
    CHECK_EQ_LL(argv_map(b6, 3, &consumed, env, sizeof env), -1);
    CHECK_STR_CONTAINS(err, "option '--json' needs a value");
    CHECK_STR_CONTAINS(err, "'--sync' is an option");
    char *b7[] = { "--json=--odd", "prog" };
    CHECK_EQ_LL(argv_map(b7, 2, &consumed, env, sizeof env), 0);
    CHECK(!strcmp(env, "json_path=--odd"));
    char *b8[] = { "--mode", "python", "x.py" };
    CHECK_EQ_LL(argv_map(b8, 3, &consumed, env, sizeof env), -1);
    CHECK_STR_CONTAINS(err, "option 'mode': invalid value 'python'");
    /* out_env too small */
    char tiny[8];
    char *e7[] = { "--log-file", "a-long-path" };
    CHECK_EQ_LL(argv_map(e7, 2, &consumed, tiny, sizeof tiny), -1);
    CHECK_STR_CONTAINS(err, "too long");
}

int main(void)
{
    test_defaults();
    test_parse();
    test_errors();
    test_help();
    test_argv();
    dc_options_defaults();
    return unit_done("test_options");
}
