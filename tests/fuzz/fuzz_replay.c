/* Fuzz target: devcheck replay's readers (replay/replay.c): a trace (JSON
 * Lines, plain or gzip'd) and the --origins TSV, read and judged as
 * `devcheck replay --origins O --json J T` does: dc_replay_run, which starts
 * the core (the report, the record's answers bound as the driver) itself.
 *
 * The input is the trace, optionally followed by a line "==origins==" and
 * the origins TSV; the trace's file is named fuzz.jsonl (its trace name in
 * the TSV: "fuzz").  Between inputs the core forgets what the last one left
 * (dc_report_reset, dc_check_reset, dc_kernels_unloaded: the replay frees its
 * kernel handles, and a later input may get the same addresses).
 *
 * Invariants:
 *  - the exit status is 0 or 1 (both files can be read);
 *  - a file that is not a trace or a TSV is said so in a few lines: at most
 *    REPLAY_BAD_SHOWN + 2 lines name the trace (file:line, the damaged
 *    gzip stream, the count of lines skipped), as many the origins;
 *  - what the replay writes to stderr (its own lines, dc_log's, the
 *    reports) is valid UTF-8 with no control character but newline and tab
 *    (names from the record are escaped: \x1b, not ESC);
 *  - every line of the JSON output (json_path) is valid JSON and UTF-8.
 * stderr is captured while the replay runs; a sanitizer's report goes to
 * the stderr the target started with (__sanitizer_set_report_fd). */
#include "tests/fuzz/fuzz.h"
#include "common/format.h"
#include "common/json.h"
#include "core/core.h"
#include "replay/replay.h"
#include "report/report.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define BAD_SHOWN 5             /* replay.c's REPLAY_BAD_SHOWN */

void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

static char dir[64], trace[96], tsv[96], err_path[96], json_path[96];
static int saved_err = -1;

/* The files go after each input (libFuzzer may end without running atexit
 * handlers; a crash leaves them, with the input). */
static void cleanup(void)
{
    unlink(trace);
    unlink(tsv);
    unlink(err_path);
    unlink(json_path);
    rmdir(dir);
}

static void setup(void)
{
    /* tmpfs where there is one: the JSON sink's fsync at exit is free there
     * (on a disk it was most of an input's time) */
    snprintf(dir, sizeof dir, "%s", "/dev/shm/dc-fuzz-replay.XXXXXX");
    if (!mkdtemp(dir)) {
        snprintf(dir, sizeof dir, "%s", "/tmp/dc-fuzz-replay.XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    snprintf(trace, sizeof trace, "%s/fuzz.jsonl", dir);
    snprintf(tsv, sizeof tsv, "%s/origins.tsv", dir);
    snprintf(err_path, sizeof err_path, "%s/stderr", dir);
    snprintf(json_path, sizeof json_path, "%s/out.json", dir);
    atexit(cleanup);
    saved_err = dup(2);
    if (saved_err < 0)
        abort();
    if (__sanitizer_set_report_fd)
        __sanitizer_set_report_fd((void *)(intptr_t)saved_err);
    char opts[256], why[512];
    snprintf(opts, sizeof opts, "json_path=%s", json_path);
    if (dc_options_parse(opts, why, sizeof why) != 0) {
        fprintf(stderr, "%s\n", why);
        abort();
    }
}

static void put(const char *path, const uint8_t *p, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        abort();
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            abort();
        p += w;
        n -= (size_t)w;
    }
    close(fd);
}

/* The whole file (NUL-terminated, *n bytes); NULL when empty or absent. */
static char *slurp(const char *path, size_t *n)
{
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *p = NULL;
    size_t cap = 0;
    for (;;) {
        if (*n + 4096 + 1 > cap) {
            char *q = realloc(p, cap = cap * 2 + 8192);
            if (!q)
                abort();
            p = q;
        }
        size_t r = fread(p + *n, 1, cap - *n - 1, f);
        if (!r)
            break;
        *n += r;
    }
    fclose(f);
    p[*n] = 0;
    return p;
}

/* Lines of text[0..n) that start with "devcheck: PATH:". */
static unsigned lines_naming(const char *text, size_t n, const char *path)
{
    char pre[128];
    int pl = snprintf(pre, sizeof pre, "devcheck: %s:", path);
    unsigned c = 0;
    for (size_t at = 0; at < n;) {
        const char *nl = memchr(text + at, '\n', n - at);
        size_t len = nl ? (size_t)(nl - (text + at)) : n - at;
        c += len >= (size_t)pl && !memcmp(text + at, pre, (size_t)pl);
        at += len + 1;
    }
    return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    if (saved_err < 0)
        setup();
    else if (mkdir(dir, 0700) != 0)
        abort();
    static const char sep[] = "\n==origins==\n";
    const uint8_t *o = memmem(data, size, sep, sizeof sep - 1);
    size_t tn = o ? (size_t)(o - data) + 1 : size;      /* the trace keeps its last newline */
    put(trace, data, tn);
    if (o)
        put(tsv, o + sizeof sep - 1, size - (size_t)(o + sizeof sep - 1 - data));
    unlink(json_path);

    int cap = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (cap < 0)
        abort();
    fflush(stderr);
    dup2(cap, 2);
    close(cap);
    dc_report_reset();
    dc_check_reset();
    char *files[] = { trace, NULL };
    int rc = dc_replay_run(files, 1, o ? tsv : NULL);
    dc_kernels_unloaded();
    fflush(stderr);
    dup2(saved_err, 2);

    FUZZ_CHECK(rc == 0 || rc == 1);
    size_t n;
    char *err = slurp(err_path, &n);
    if (err) {
        FUZZ_CHECK(dc_utf8_valid(err, n));
        for (size_t i = 0; i < n; i++)
            FUZZ_CHECK(err[i] == '\n' || err[i] == '\t' || ((unsigned char)err[i] >= 0x20 && err[i] != 0x7f));
        FUZZ_CHECK(lines_naming(err, n, trace) <= BAD_SHOWN + 2);
        FUZZ_CHECK(lines_naming(err, n, tsv) <= BAD_SHOWN + 1);
        free(err);
    }
    char *js = slurp(json_path, &n);
    if (js) {
        FUZZ_CHECK(dc_utf8_valid(js, n));
        for (char *s = js; *s;) {
            char *e = strchr(s, '\n');
            size_t len = e ? (size_t)(e - s) : strlen(s);
            struct dc_json *v = len ? dc_json_parse(s, len, NULL) : NULL;
            FUZZ_CHECK(!len || v != NULL);
            dc_json_free(v);
            s += len + (e != NULL);
        }
        free(js);
    }
    cleanup();
    return 0;
}
