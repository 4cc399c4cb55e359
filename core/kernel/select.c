/* select: the kernel-name filters (see select.h). */
#include "core/kernel/select.h"
#include "report/symbolize.h"

#include <string.h>

/* Does `name` match one of the comma-separated patterns?  "=x": exact match
 * with the mangled name, the demangled name, or the demangled name without its
 * parameter list; otherwise a substring of the mangled or demangled name. */
static int matches(const char *list, const char *mangled, const char *demangled)
{
    const char *p = list;
    size_t bare = strcspn(demangled, "(");
    while (*p) {
        size_t n = strcspn(p, ",");
        const char *pat = p;
        p += n;
        if (*p == ',')
            p++;
        while (n && (*pat == ' ')) pat++, n--;
        while (n && pat[n - 1] == ' ') n--;
        if (!n)
            continue;
        if (*pat == '=') {
            pat++, n--;
            if ((strlen(mangled) == n && !strncmp(mangled, pat, n)) ||
                (strlen(demangled) == n && !strncmp(demangled, pat, n)) ||
                (bare == n && !strncmp(demangled, pat, n)))
                return 1;
            continue;
        }
        char tmp[512];
        if (n >= sizeof tmp)
            n = sizeof tmp - 1;
        memcpy(tmp, pat, n);
        tmp[n] = 0;
        if (strstr(mangled, tmp) || strstr(demangled, tmp))
            return 1;
    }
    return 0;
}

int dc_kernel_name_selected(const char *name, const char **why)
{
    if (!dc_name_filters_set())
        return 1;
    const char *inc = dc_opt.kernel_name, *exc = dc_opt.kernel_name_exclude;
    const char *mangled = name ? name : "";
    char dem[1024];
    dc_demangle(mangled, dem, sizeof dem);
    if (exc && *exc && matches(exc, mangled, dem)) {
        *why = "excluded by kernel_name_exclude";
        return 0;
    }
    if (inc && *inc && !matches(inc, mangled, dem)) {
        *why = "not selected by kernel_name";
        return 0;
    }
    return 1;
}
