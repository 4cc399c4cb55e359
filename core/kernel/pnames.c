/* pnames: parameter names of JIT kernels (see pnames.h). */
#include "core/kernel/pnames.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct entry {
    char *kernel;
    unsigned n;
    char **names;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry table[DC_PNAMES_MAX];
static unsigned used;

static struct entry *find(const char *kernel)
{
    for (unsigned i = 0; i < used; i++)
        if (!strcmp(table[i].kernel, kernel))
            return &table[i];
    return NULL;
}

int dc_pnames_set(const char *kernel, unsigned nnames, const char *const *names)
{
    if (!kernel || !*kernel || !names || !nnames || nnames > DC_PNAMES_PARAMS)
        return -1;
    for (unsigned i = 0; i < nnames; i++)
        if (!names[i] || !*names[i] || strlen(names[i]) > 128)
            return -1;
    pthread_mutex_lock(&lock);
    int rc = 0;
    if (find(kernel)) {
        rc = 0;                         /* told before: kept */
    } else if (used == DC_PNAMES_MAX) {
        rc = -1;
    } else {
        struct entry e = { strdup(kernel), nnames, calloc(nnames, sizeof(char *)) };
        int ok = e.kernel && e.names;
        for (unsigned i = 0; ok && i < nnames; i++)
            ok = (e.names[i] = strdup(names[i])) != NULL;
        if (ok) {
            table[used] = e;
            __atomic_store_n(&used, used + 1, __ATOMIC_RELEASE);
        } else {
            for (unsigned i = 0; e.names && i < nnames; i++)
                free(e.names[i]);
            free(e.names);
            free(e.kernel);
            rc = -1;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

const char *dc_pnames_get(const char *kernel, int param)
{
    if (!kernel || param < 0 || !__atomic_load_n(&used, __ATOMIC_ACQUIRE))
        return NULL;
    pthread_mutex_lock(&lock);
    const struct entry *e = find(kernel);
    const char *name = e && (unsigned)param < e->n ? e->names[param] : NULL;
    pthread_mutex_unlock(&lock);
    return name;
}

void dc_pnames_reset(void)
{
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; i < used; i++) {
        for (unsigned j = 0; j < table[i].n; j++)
            free(table[i].names[j]);
        free(table[i].names);
        free(table[i].kernel);
    }
    used = 0;
    pthread_mutex_unlock(&lock);
}
