/* modmap: the process's loaded objects and the one holding an address,
 * for report/symbolize.c, without dladdr (which also looks for the nearest
 * dynamic symbol, over every symbol of the object).  Under the
 * symbolizer's lock. */
#ifndef DC_MODMAP_H
#define DC_MODMAP_H
#include <stdint.h>

/* A loaded object. */
struct dc_modobj {
    uintptr_t base;
    uintptr_t bias;             /* dlpi_addr: the file's addresses + bias = the process's */
    char *name;
};

/* The objects listed again if one was loaded or unloaded since. */
void dc_modmap_refresh(void);
/* The object holding pc, NULL if none. */
const struct dc_modobj *dc_modmap_of(uintptr_t pc);
/* o is the program (the first object listed). */
int dc_modmap_is_main(const struct dc_modobj *o);
#endif
