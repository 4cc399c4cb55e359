/* frontends: starts the front ends registered with DC_FRONTEND (core.h).
 * Its own file: only the start-up links it, and the section it walks exists
 * only where a front end registered itself (libdevcheck.so). */
#include "core/core.h"
#include "core/base/options.h"

/* The linker's bounds of section dc_frontends (DC_FRONTEND records). */
extern const struct dc_frontend __start_dc_frontends[] __attribute__((visibility("hidden")));
extern const struct dc_frontend __stop_dc_frontends[] __attribute__((visibility("hidden")));

int dc_core_start_frontends(void)
{
    int seen = 0;
    if (dc_opt.backend == DC_BACKEND_INTERPOSE)     /* the interposer alone */
        return 0;
    for (const struct dc_frontend *f = __start_dc_frontends; f < __stop_dc_frontends; f++)
        seen += f->start(dc_opt.backend == DC_BACKEND_BOTH) == 1;
    return seen;
}

int dc_core_yield_cupti(void)
{
    int gave = 0;
    for (const struct dc_frontend *f = __start_dc_frontends; f < __stop_dc_frontends; f++)
        if (f->yield_cupti)
            gave += f->yield_cupti() == 1;
    return gave;
}
