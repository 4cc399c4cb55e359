/* Unit test of core/arch.h: dc_may_be_user_address turns away no address
 * this process has mapped (every line of /proc/self/maps: on aarch64 the
 * libraries and the stack sit above 2^47), nor the top of the architecture's
 * largest user space (x86-64: 2^56 with 5-level paging; aarch64: 2^48 by
 * default, 2^52 with 52-bit VA), and does turn away what lies beyond it. */
#include "core/arch.h"
#include "tests/unit/unit.h"

#include <inttypes.h>
#include <stdio.h>

static void test_own_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        uintptr_t lo, hi;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &lo, &hi) != 2 || strstr(line, "[vsyscall]"))
            continue;           /* x86-64's legacy page in kernel space */
        n++;
        if (!dc_may_be_user_address(lo) || !dc_may_be_user_address(hi - 1))
            fprintf(stderr, "turned away: %s", line);
        CHECK(dc_may_be_user_address(lo) && dc_may_be_user_address(hi - 1));
    }
    fclose(f);
    CHECK(n > 0);
}

static void test_bounds(void)
{
    CHECK(!dc_may_be_user_address(0));
    CHECK(!dc_may_be_user_address(0xffff));
    CHECK(dc_may_be_user_address(0x10000));
    CHECK(dc_may_be_user_address((uintptr_t)0x00007ffffffff000));       /* top of 47 bits */
#if defined(__x86_64__)
    CHECK(dc_may_be_user_address((uintptr_t)0x00fffffffffff000));       /* top of 56 bits (LA57) */
    CHECK(!dc_may_be_user_address((uintptr_t)0x0100000000000000));
    CHECK(!dc_may_be_user_address((uintptr_t)0xffff800000000000));      /* kernel space */
#elif defined(__aarch64__)
    CHECK(dc_may_be_user_address((uintptr_t)0x0000fffff7ff0000));       /* a 48-bit VA library */
    CHECK(dc_may_be_user_address((uintptr_t)0x000ffffffffff000));       /* top of 52 bits */
    CHECK(!dc_may_be_user_address((uintptr_t)0x0010000000000000));
    CHECK(!dc_may_be_user_address((uintptr_t)0xffff000000000000));      /* kernel space */
#endif
}

int main(void)
{
    test_own_mappings();
    test_bounds();
    return unit_done("test_arch");
}
