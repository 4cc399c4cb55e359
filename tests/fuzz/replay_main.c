/* The corpus replay: a plain main (no libFuzzer) that runs one fuzz target
 * over every file given, or every file in the directories given, in
 * name order.  Built with the project's compiler and sanitizer, so `make
 * test` replays every input that ever found a bug, and the seeds, in
 * seconds, under every SANITIZE.  Exit status 0 when every input held (a
 * broken invariant aborts). */
#include "tests/fuzz/fuzz.h"

#include <dirent.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (!buf)
        return -1;
    uint8_t *exact = malloc(n ? n : 1);      /* exactly n bytes: ASan sees an overread */
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    unsigned long inputs = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            bad = 1;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[i]) != 0;
            inputs++;
            continue;
        }
        struct dirent **ents;
        int n = scandir(argv[i], &ents, NULL, NULL);
        if (n < 0) {
            perror(argv[i]);
            bad = 1;
            continue;
        }
        char **names = malloc((size_t)n * sizeof *names);
        int k = 0;
        for (int j = 0; j < n; j++) {
            if (names && ents[j]->d_name[0] != '.')
                names[k++] = strdup(ents[j]->d_name);
            free(ents[j]);
        }
        free(ents);
        if (names)
            qsort(names, (size_t)k, sizeof *names, by_name);
        for (int j = 0; names && j < k; j++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[j]);
            bad |= run_file(path) != 0;
            inputs++;
            free(names[j]);
        }
        free(names);
    }
    printf("%s: %lu input%s replayed\n", argv[0], inputs, inputs == 1 ? "" : "s");
    return bad;
}
