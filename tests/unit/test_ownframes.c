/* Frames inside the shared object that holds the core (libdevcheck.so in
 * real use) are left out of the reports: the stacks start in the program. */
#include "tests/unit/unit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

uint32_t ownframes_alloc(uintptr_t base, int owner);
int ownframes_launch(void **args, int device);
int ownframes_init(const char *opts);
void ownframes_finish(void);

/* Inlined into its caller: the report shows both, as addr2line -i would. */
static inline __attribute__((always_inline)) void inlined_alloc(void)
{
    ownframes_alloc(0x520000000000ull, 1);
}

__attribute__((noipa)) static void allocate_here(void)
{
    inlined_alloc();
    __asm__ volatile("" ::: "memory");
}

__attribute__((noipa)) static int launch_here(void)
{
    uintptr_t p = 0x520000000010ull;
    void *args[] = { &p };
    int e = ownframes_launch(args, 0);
    __asm__ volatile("" ::: "memory");
    return e;
}

int main(int argc, char **argv)
{
    char opts[4200], log[4096];
    snprintf(log, sizeof log, "%s/ownframes.log", unit_outdir("test_ownframes", argc > 1 ? argv[1] : NULL));
    snprintf(opts, sizeof opts, "log_path=%s", log);
    CHECK_EQ_LL(ownframes_init(opts), 0);
    allocate_here();
    CHECK_EQ_LL(launch_here(), 1);
    ownframes_finish();
    FILE *f = fopen(log, "r");
    static char buf[65536];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    CHECK_STR_CONTAINS(buf, "    launch stack:\n      #0 launch_here at tests/unit/test_ownframes.c:");
    CHECK_STR_CONTAINS(buf, "    allocated at:\n      #0 inlined_alloc at tests/unit/test_ownframes.c:17 ");
    CHECK_STR_CONTAINS(buf, "\n      #1 allocate_here at tests/unit/test_ownframes.c:22 ");
    CHECK_STR_CONTAINS(buf, "(test_ownframes+0x");
    CHECK(strstr(buf, "libownframes") == NULL);
    CHECK(strstr(buf, "dc_check_launch") == NULL);
    CHECK(strstr(buf, "ownframes_launch") == NULL);
    return unit_done("test_ownframes");
}
