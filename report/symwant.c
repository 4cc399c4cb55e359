/* symwant: the addresses a report is about to name (see symwant.h). */
#include "report/symwant.h"
#include "report/stack.h"
#include "report/stackdepot.h"

#include <pthread.h>
#include <string.h>

#define WANT_STACK_MAX 256

/* The stack being named (dc_symwant_stack; under the symbolizer's lock) and
 * the stacks a report announced (dc_symwant_announce, under ann_lock: the
 * reporter holds the report's lock, not the symbolizer's; fork holds both,
 * so no thread is inside ann_lock then). */
static uintptr_t stack_ips[WANT_STACK_MAX];
static size_t stack_n;
static pthread_mutex_t ann_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t ann_ips[3 * DC_STACK_MAX];
static size_t ann_n;

void dc_symwant_stack(const uintptr_t *ips, size_t n)
{
    stack_n = ips && n < WANT_STACK_MAX ? n : ips ? WANT_STACK_MAX : 0;
    if (stack_n)
        memcpy(stack_ips, ips, stack_n * sizeof *ips);
}

void dc_symwant_announce(const uint32_t *ids, size_t n)
{
    pthread_mutex_lock(&ann_lock);
    ann_n = 0;
    for (size_t i = 0; i < n && i < 3; i++)
        if (ids[i])
            ann_n += dc_stackdepot_get(ids[i], ann_ips + ann_n, DC_STACK_MAX);
    pthread_mutex_unlock(&ann_lock);
}

size_t dc_symwant_collect(int (*mine)(void *arg, uint64_t pc), void *arg, uint64_t *out, size_t max)
{
    size_t m = 0;
    for (size_t i = 0; i < stack_n && m < max; i++)
        if (stack_ips[i] && mine(arg, stack_ips[i] - 1))
            out[m++] = stack_ips[i] - 1;
    pthread_mutex_lock(&ann_lock);
    for (size_t i = 0; i < ann_n && m < max; i++)
        if (ann_ips[i] && mine(arg, ann_ips[i] - 1))
            out[m++] = ann_ips[i] - 1;
    pthread_mutex_unlock(&ann_lock);
    return m;
}
