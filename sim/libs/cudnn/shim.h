/* The sim's libcudnn.so.9 (gen_shim.py writes its forwarders): each
 * function finds its definition in a sub-library on its first call. */
#ifndef SIM_LIBS_CUDNN_SHIM_H
#define SIM_LIBS_CUDNN_SHIM_H

#define SHIM_EXPORT __attribute__((visibility("default")))

/* The definition of `name` in sub-library `lib` (a soname), cached in
 * *slot; NULL, after one line on stderr, when it cannot be loaded. */
void *simdnn_shim_fn(void **slot, const char *lib, const char *name) __attribute__((visibility("hidden")));

/* Writes line (a constant) to stderr the first time *said is set. */
#include <stdatomic.h>
void simdnn_shim_note(atomic_flag *said, const char *line) __attribute__((visibility("hidden")));
#endif
