/* libfirst: the first launch of a repeated clean library call, expected
 * (core/verdict/libcall.h, dc_lib_expect), inline in the driver launch
 * hooks' expected_ entries (preload/hooks_launch.c). */
#ifndef DEVCHECK_CORE_VERDICT_LIBFIRST_H
#define DEVCHECK_CORE_VERDICT_LIBFIRST_H
#include <stdint.h>
#include "core/kernel/kernels.h"
#include "core/owner/registry.h"
#include "core/verdict/libcall.h"
#include "report/counts.h"

#pragma GCC visibility push(hidden)

static inline __attribute__((always_inline)) int dc_libcall_launch_expected(const void *key, uintptr_t stream, void *const *args)
{
    uint64_t id = dc_lib_expect;
    dc_lib_expect = 0;
    const struct dc_libfirst *x = &dc_libfirst;
    if (__builtin_expect(x->id != id || dc_libcover.id != id || dc_libcall_active != 1 || x->key != key ||
                         x->stream != stream || x->reg_gen != __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE) ||
                         x->kernels_gen != __atomic_load_n(&dc_kernels_gen, __ATOMIC_ACQUIRE), 0))
        return dc_libcall_launch_first(id, key, stream, args);
    struct dc_launch_counts *c = dc_counts();
    dc_counts_launch(c, 1, DC_PATH_INTERPOSE);
    dc_counts_clean(c, x->device, x->own, x->managed);
    return 1;
}

#pragma GCC visibility pop
#endif
