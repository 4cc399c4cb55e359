/* See report/gpus.h. */
#include "report/gpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int state;                  /* atomic: 0 free, 1 being written, 2 set */
    char uuid[48], pci[24];
} gpus[DC_GPUS_MAX];
static void (*reader)(void);   /* atomic */
static int complete;            /* atomic */
static int renumbered;          /* CUDA_VISIBLE_DEVICES is set: ordinals are not the machine's */

void dc_gpus_set_reader(void (*r)(void))
{
    renumbered = getenv("CUDA_VISIBLE_DEVICES") != NULL;
    __atomic_store_n(&reader, r, __ATOMIC_RELEASE);
}
void dc_gpus_complete(void) { __atomic_store_n(&complete, 1, __ATOMIC_RELEASE); }

void dc_gpus_refresh(void)
{
    void (*r)(void) = __atomic_load_n(&reader, __ATOMIC_ACQUIRE);
    if (r && !__atomic_load_n(&complete, __ATOMIC_ACQUIRE))
        r();
}

void dc_gpus_set(int dev, const char *uuid, const char *pci)
{
    int free_ = 0;
    if (dev < 0 || dev >= DC_GPUS_MAX ||
        !__atomic_compare_exchange_n(&gpus[dev].state, &free_, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;
    snprintf(gpus[dev].uuid, sizeof gpus[dev].uuid, "%s", uuid ? uuid : "");
    snprintf(gpus[dev].pci, sizeof gpus[dev].pci, "%s", pci ? pci : "");
    __atomic_store_n(&gpus[dev].state, 2, __ATOMIC_RELEASE);
}

int dc_gpus_get(int dev, const char **uuid, const char **pci)
{
    if (dev < 0 || dev >= DC_GPUS_MAX || __atomic_load_n(&gpus[dev].state, __ATOMIC_ACQUIRE) != 2)
        return 0;
    *uuid = gpus[dev].uuid;
    *pci = gpus[dev].pci;
    return 1;
}

/* The next device of devs[0..n) (every device when devs is NULL) with a known
 * identity, each once: the one walk both the JSON and the text sink use. */
static int next_gpu(const int *devs, int n, int *i, unsigned long long *seen,
                    int *dev, const char **u, const char **p)
{
    while (*i < (devs ? n : DC_GPUS_MAX)) {
        int d = devs ? devs[*i] : *i;
        (*i)++;
        if (d < 0 || d >= DC_GPUS_MAX || (*seen >> d & 1) || !dc_gpus_get(d, u, p))
            continue;
        *seen |= 1ull << d;             /* DC_GPUS_MAX == 64 */
        *dev = d;
        return 1;
    }
    return 0;
}

void dc_gpus_json(struct dc_buf *b, const int *devs, int n)
{
    int first = 1, i = 0, d;
    unsigned long long seen = 0;
    const char *u, *p;
    while (next_gpu(devs, n, &i, &seen, &d, &u, &p)) {
        dc_bput(b, "%s{\"device\":%d,\"uuid\":", first ? ",\"gpus\":[" : ",", d);
        dc_bjson_str(b, *u ? u : NULL);
        dc_bput(b, ",\"pci_bus_id\":");
        dc_bjson_str(b, *p ? p : NULL);
        dc_bput(b, "}");
        first = 0;
    }
    if (!first)
        dc_bput(b, "]");
}

int dc_gpus_of_finding(const struct dc_finding *f, int *devs, int max)
{
    int n = 0;
    if (f->launch && n + 2 <= max) {
        devs[n++] = f->launch->device;
        devs[n++] = f->launch->current_device;
    }
    if (f->has_operand && f->alloc_known && n < max)
        devs[n++] = f->alloc.owner;
    if (f->kind == DC_F_POINTER_REFUSED && n < max)
        devs[n++] = f->owner_device;            /* the refused pointer's owner (launch: the current device) */
    if (f->action == DC_ACT_MIGRATED && n < max)
        devs[n++] = f->to_device;
    for (unsigned i = 0; i < f->ntensors && n < max; i++) {
        int d;
        if (f->tensors[i].device && sscanf(f->tensors[i].device, "cuda:%d", &d) == 1)
            devs[n++] = d;
    }
    return n;
}

void dc_gpus_text(struct dc_buf *b, const struct dc_finding *f)
{
    if (!renumbered)
        return;
    int devs[24], n = dc_gpus_of_finding(f, devs, 24), shown = 0, i = 0, d;
    unsigned long long seen = 0;
    const char *u, *p;
    while (next_gpu(devs, n, &i, &seen, &d, &u, &p)) {
        if (!*u && !*p)
            continue;
        /* short: the UUID's first and last hex digits tell a machine's GPUs apart */
        size_t ul = strlen(u);
        dc_bput(b, "%scuda:%d (", shown++ ? ", " : "    GPUs: ", d);
        if (ul > 16)
            dc_bput(b, "%.12s...%s", u, u + ul - 4);
        else
            dc_bput(b, "%s", *u ? u : "?");
        dc_bput(b, "%s%s)", *p ? ", " : "", p);
    }
    if (shown)
        dc_bput(b, "\n");
}
