/* demangle: Itanium C++ names made readable in every process (libiberty's
 * demangler, linked in: see demangle.c).  No allocation; thread-safe. */
#ifndef DEVCHECK_REPORT_DEMANGLE_H
#define DEVCHECK_REPORT_DEMANGLE_H
#include <stddef.h>

/* At most this many bytes of demangled output are produced for one name. */
#define DC_DEMANGLE_OUT_MAX 65536

/* Writes the demangled name, or `name` unchanged, to out (cut to len); 0 if
 * demangled, -1 otherwise; -2 when the demangled form would exceed
 * DC_DEMANGLE_OUT_MAX (out: the mangled name with its length).  ABI tags are
 * left out of the result. */
int dc_demangle(const char *name, char *out, size_t len);
#endif
