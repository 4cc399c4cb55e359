/* dlsym(RTLD_NEXT) from a library: must find the next definition after this
 * library (next_b.c), not this one and not what follows libdevcheck.so. */
#include <dlfcn.h>
int dc_next_target(void);
int dc_next_target(void) { return 1; }
int dc_next_probe(void);
int dc_next_probe(void)
{
    int (*f)(void) = (int (*)(void))dlsym(RTLD_NEXT, "dc_next_target");
    return f ? f() : -1;
}
