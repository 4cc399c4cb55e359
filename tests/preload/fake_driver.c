/* A minimal stand-in for an old libcuda.so.1, generated from the hook table
 * and the core's own driver calls (preload/hooks.def, core/base/cudacall.def): it
 * has every entry point devcheck requires (DC_REQUIRED) and none of the
 * optional ones.  Each returns 999, a value no real entry point returns, so a
 * test sees that a call reached the driver.  A test stub, not a driver: the
 * functions ignore their arguments and are deliberately declared without the
 * toolkit's prototypes (this file includes no CUDA header). */
#define DEF_DC_REQUIRED(name) int name(void); int name(void) { return 999; }
#define DEF_DC_OPTIONAL(name)
#define DEF_DC_HOOKED(name)         /* hooks.def's, defined from there */
#define DC_DRV(name, req) DEF_##req(name)
#include "preload/hooks.def"
#define DC_AUX(name, req) DEF_##req(name)
#include "core/base/cudacall.def"
