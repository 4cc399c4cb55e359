/* ranges: see ranges.h. */
#include "report/ranges.h"

#include <string.h>

struct thread_ranges {
    int depth;                                  /* open ranges, stored or not */
    char names[DC_RANGES_MAX][DC_RANGE_NAME];
};

static __thread struct thread_ranges tr;

int dc_ranges_push(const char *name)
{
    if (tr.depth < DC_RANGES_MAX) {
        const char *n = name ? name : "?";
        size_t len = strnlen(n, DC_RANGE_NAME - 1);
        memcpy(tr.names[tr.depth], n, len);
        tr.names[tr.depth][len] = 0;
    }
    return tr.depth++;
}

int dc_ranges_pop(void)
{
    if (tr.depth <= 0)
        return -1;
    return tr.depth--;
}

unsigned dc_ranges_get(const char **names, unsigned max)
{
    unsigned n = tr.depth < DC_RANGES_MAX ? (unsigned)tr.depth : DC_RANGES_MAX;
    if (n > max)
        n = max;
    for (unsigned i = 0; i < n; i++)
        names[i] = tr.names[i];
    return n;
}
