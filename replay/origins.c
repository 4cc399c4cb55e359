/* replay's --origins table: trace name, kernel name, origin label per line
 * (see origins.h). */
#include "replay/origins.h"
#include "core/core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define uthash_nonfatal_oom(obj) do { (void)(obj); } while (0)
#include <uthash.h>

struct origin_ent {
    UT_hash_handle hh;
    int origin;
    char key[];                 /* "trace\tkernel" */
};
static struct origin_ent *origins;

/* 0, or -1 when the file cannot be read (said).  A malformed line is named
 * and skipped (the first REPLAY_BAD_SHOWN; the rest counted, and a file
 * none of whose lines names an origin devcheck knows is said to be no
 * origins table). */
int dc_replay_load_origins(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        fprintf(stderr, "devcheck: ERROR: replay: cannot read the origins '%s': %s\n", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long lineno = 0, skipped = 0, known = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        if (!n || line[0] == '#')
            continue;
        char *t1 = strchr(line, '\t');
        char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t1 || !t2 || t1 == line || t2 == t1 + 1 || !t2[1]) {
            if (++skipped <= REPLAY_BAD_SHOWN)
                fprintf(stderr, "devcheck: %s:%ld: not 'trace<TAB>kernel<TAB>origin'; skipped\n", path, lineno);
            continue;
        }
        *t2 = 0;
        size_t klen = (size_t)(t2 - line);
        struct origin_ent *e;
        HASH_FIND(hh, origins, line, klen, e);
        if (e)
            continue;               /* the first line for a kernel wins */
        e = malloc(sizeof *e + klen + 1);
        if (!e)
            break;
        memcpy(e->key, line, klen + 1);
        e->origin = dc_origin_of_object(t2 + 1);
        known += e->origin != DC_ORIGIN_UNKNOWN;
        HASH_ADD(hh, origins, key, klen, e);
    }
    if (skipped > REPLAY_BAD_SHOWN)
        fprintf(stderr, "devcheck: %s: %ld of %ld lines skipped (the first %d named above)%s\n", path, skipped,
                lineno, REPLAY_BAD_SHOWN, known ? "" : "; not an origins table");
    free(line);
    fclose(f);
    return 0;
}

int dc_replay_origin_from_tsv(const char *trace, const char *kernel)
{
    if (!origins || !kernel)
        return -1;
    size_t tl = strlen(trace), kl = strlen(kernel);
    char *key = malloc(tl + kl + 2);
    if (!key)
        return -1;
    memcpy(key, trace, tl);
    key[tl] = '\t';
    memcpy(key + tl + 1, kernel, kl + 1);
    struct origin_ent *e;
    HASH_FIND(hh, origins, key, tl + kl + 1, e);
    free(key);
    return e ? e->origin : -1;
}

void dc_replay_free_origins(void)
{
    struct origin_ent *e, *t;
    HASH_ITER(hh, origins, e, t) {
        HASH_DEL(origins, e);
        free(e);
    }
}
