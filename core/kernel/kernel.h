/* kernel: what each parameter of a kernel is -- the kernel descriptions
 * (core/kernel/kernels.h) built from the driver's answers, the kernels'
 * images (core/kernel/images.h, the cubin reader core/kernel/cubin.h), the
 * host stubs' debug information (core/kernel/hostdwarf.h), the mangled names
 * (core/kernel/mangle.h), NVRTC's sources (core/kernel/source.h) and the
 * kernels' origins (core/kernel/origin.h); the events below feed them.  Uses
 * the base and the owner rooms. */
#ifndef DEVCHECK_CORE_KERNEL_H
#define DEVCHECK_CORE_KERNEL_H
#include <cuda.h>
#include "core/base/base.h"
/* What a front end answering the process queries (base.h) fills in, and
 * reads back: the kernel descriptions, their origins, what the host
 * stub's debug information, the image and an NVRTC source say. */
#include "core/kernel/kernels.h"
#include "core/kernel/origin.h"
#include "core/kernel/hostdwarf.h"
#include "core/kernel/cubin.h"
#include "core/kernel/source.h"
#include "core/kernel/pnames.h"

#pragma GCC visibility push(hidden)

/* --- kernel events (core/kernel/kernels.c) --------------------------------------------- */

/* A module or library was unloaded: its function handles may be reused, so
 * every cached kernel description is retired. */
void dc_kernels_unloaded(void);


/* --- kernel image events (core/kernel/images.c) ------------------------------------------ *
 * Where kernel images reach devcheck, so that its own reader (core/kernel/cubin.c)
 * can tell a kernel's parameters where the driver cannot, and which name and
 * image belong to a kernel handle.  After the real call succeeded; no CUDA is
 * called (the registrations come from constructors, before devcheck starts:
 * they may be described without the guard). */
/* A module (CUmodule) or library (CUlibrary) `owner` was loaded from image
 * (a fatbin, its wrapper, a cubin or PTX text; copied unless it lies in a
 * loaded object), or from the file at path.  caller: an address in the code
 * that called the load (the hook's return address), NULL when the front end
 * cannot tell (CUPTI); it decides the origin of an image that lies in no
 * loaded object (core/kernel/images.h, dc_images_origin). */
void dc_image_loaded(const void *owner, const void *image, const void *caller);
void dc_image_file_loaded(const void *owner, const char *path, const void *caller);
/* owner was unloaded: its image and handle names are forgotten. */
void dc_image_unloaded(const void *owner);
/* The runtime registered a fatbin (__cudaRegisterFatBinary: its handle and
 * the wrapper), and a kernel of it by device name (__cudaRegisterFunction). */
void dc_image_fatbin_registered(const void *handle, const void *wrapper);
void dc_image_function_registered(const void *handle, const char *device_name);
/* key (a CUfunction or CUkernel) is the kernel `name` of owner
 * (cuModuleGetFunction, cuLibraryGetKernel). */
void dc_image_named(const void *key, const void *owner, const char *name);
/* key is another handle of what `from` is (cuKernelGetFunction: a function
 * of a kernel; cuLibraryGetModule: the module of a library). */
void dc_image_alias(const void *key, const void *from);

#pragma GCC visibility pop
#endif
