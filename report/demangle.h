/* demangle: Itanium C++ names made readable in every process (libiberty's
 * demangler, linked in: see demangle.c).  No allocation; thread-safe. */
#ifndef DEVCHECK_REPORT_DEMANGLE_H
#define DEVCHECK_REPORT_DEMANGLE_H
#include <stddef.h>

/* Writes the demangled name, or `name` unchanged, to out (cut to len); 0 if
 * demangled, -1 otherwise.  ABI tags are left out of the result. */
int dc_demangle(const char *name, char *out, size_t len);
#endif
