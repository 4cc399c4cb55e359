/* images: where kernel images reach devcheck, and which image and name
 * belong to a kernel handle.  The front ends describe (core/core.h):
 *  - a module or library loaded from an image (cuModuleLoadData(Ex),
 *    cuModuleLoadFatBinary, cuModuleLoad, cuLibraryLoadData,
 *    cuLibraryLoadFromFile; CUPTI's MODULE_LOADED), and unloaded;
 *  - a fatbin registered by the runtime (__cudaRegisterFatBinary) and the
 *    kernels registered from it (__cudaRegisterFunction: their names);
 *  - a kernel handle obtained by name (cuModuleGetFunction,
 *    cuLibraryGetKernel) or from another handle (cuKernelGetFunction,
 *    cuLibraryGetModule).
 * The core's kernel cache (core/kernel/kernels.c) asks, once per kernel, for its
 * name (when the driver cannot give it: cuFuncGetName needs 12.3) and for
 * what its image says of its parameters (core/kernel/cubin.c reads the image the
 * first time a kernel of it is asked for).
 *
 * Contract: thread-safe (one mutex; never taken on a launch's hot path, only
 * at loads, handle look-ups and a kernel's first launch); never calls CUDA
 * but the driver queries named below (guard held); an image the caller may
 * free after the call (a buffer passed to cuModuleLoadData) is copied, one in
 * a loaded object's mapped file (a fatbin in .nv_fatbin) is kept by pointer;
 * nothing here fails the program: what cannot be recorded is dropped. */
#ifndef DEVCHECK_CORE_IMAGES_H
#define DEVCHECK_CORE_IMAGES_H
#include <stddef.h>
#include "core/kernel/cubin.h"

#pragma GCC visibility push(hidden)

/* The name of a kernel handle recorded by the hooks (malloc'd copy), or NULL. */
char *dc_images_name(const void *key);
/* What the kernel's image says (a malloc'd copy in *out: free out->name and
 * out->params), found through, in order: the handle's own module or
 * library (recorded, or cuFuncGetModule / cuKernelGetLibrary), the fatbin
 * the runtime registered it from, then every image seen that defines a
 * kernel of that name, if they agree.  1 when found, 0 otherwise. */
int dc_images_kernel(const void *key, int is_kernel, const char *name, struct dc_img_kernel *out);
/* Who made the kernel's image (enum dc_origin, core/kernel/origin.h): the origin
 * recorded with the image of its module or library (the handle's, or the
 * driver's answer) or of the fatbin the runtime registered it from.  The
 * origin of an image is decided when it is recorded: one in a loaded
 * object is that object's (dladdr on the image; an object the origin table
 * does not name is the program's); any other (a JIT image on the heap, a
 * file) is that of the object that called the load, when the front end
 * passes its return address (one the table does not name: DC_ORIGIN_JIT),
 * else unknown.  DC_ORIGIN_UNKNOWN when no image is recorded. */
int dc_images_origin(const void *key, int is_kernel, const char *name);
/* fork handlers (core/lifecycle.c) */
void dc_images_fork_prepare(void);
void dc_images_fork_parent(void);
void dc_images_fork_child(void);

#pragma GCC visibility pop
#endif
