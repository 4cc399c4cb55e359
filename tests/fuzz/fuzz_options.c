/* Fuzz target: the options parser (core/base/options.c), both spellings:
 * DEVCHECK_OPTIONS text and the wrapper's argv (the input split at NULs).
 * Invariants: an error is one line, starts with "devcheck: ERROR: ", holds
 * no control character (values are escaped) and is short (values are
 * shortened: a message never grows with its input); the argv form's
 * DEVCHECK_OPTIONS text parses again; `consumed` stays within argc. */
#include "tests/fuzz/fuzz.h"
#include "core/base/options.h"

static void check_err(const char *err)
{
    FUZZ_CHECK(!strncmp(err, "devcheck: ERROR: ", 17));
    for (const unsigned char *c = (const unsigned char *)err; *c; c++)
        FUZZ_CHECK(*c >= 0x20 && *c != 0x7f);
    FUZZ_CHECK(strlen(err) < 1500);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 16))
        return 0;
    char *s = fuzz_cstr(data, size);
    char err[2048];
    dc_options_defaults();
    err[0] = 0;
    if (dc_options_parse(s, err, sizeof err) != 0)
        check_err(err);
    /* argv: the input's NUL-separated words */
    char *argv[64];
    int argc = 0;
    for (size_t at = 0; at < size && argc < 63; at += strlen(s + at) + 1)
        argv[argc++] = s + at;
    argv[argc] = NULL;
    int consumed = -1;
    char env[4096];
    dc_options_defaults();
    err[0] = 0;
    if (dc_options_from_argv(argc, argv, &consumed, env, sizeof env, err, sizeof err) != 0) {
        check_err(err);
    } else {
        FUZZ_CHECK(consumed >= 0 && consumed <= argc);
        dc_options_defaults();
        char err2[2048];
        int rc = dc_options_parse(env, err2, sizeof err2);
        if (rc)
            fprintf(stderr, "fuzz_options: '%s' does not parse again: %s\n", env, err2);
        FUZZ_CHECK(rc == 0);
    }
    dc_options_defaults();
    free(s);
    return 0;
}
