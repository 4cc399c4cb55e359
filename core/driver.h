/* driver: devcheck's own CUDA calls (the table core/driver.def) and the
 * queries built on them.  Internal to the core; the front ends see the guard,
 * the binding and the few queries they need through core/core.h.
 *
 * Invariants:
 *  - Everything here calls CUDA and must run with the guard held, so that
 *    the hooks pass the calls through and the CUPTI callbacks ignore them.
 *  - A pointer is NULL when the entry point does not exist (an older driver,
 *    no runtime loaded); DC_CALL never calls a NULL pointer.
 *  - Driver pointers are set once, by dc_driver_bind, before any hook or
 *    callback does its work; runtime pointers on first use. */
#ifndef DEVCHECK_CORE_DRIVER_H
#define DEVCHECK_CORE_DRIVER_H
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "core/core.h"

#pragma GCC visibility push(hidden)

/* The pointers, typed from the header declarations: dc_aux_<name>. */
#define DC_AUX(name, req) extern __typeof__(&name) dc_aux_##name;
#define DC_RTAUX(name)    extern __typeof__(&name) dc_aux_##name[DC_NRT];
#include "core/driver.def"

/* Calls driver entry point `name`, or returns CUDA_ERROR_NOT_FOUND if the
 * driver lacks it. */
#define DC_CALL(name, ...) (dc_aux_##name ? dc_aux_##name(__VA_ARGS__) : CUDA_ERROR_NOT_FOUND)
/* The driver has entry point `name`. */
#define DC_HAS(name) (dc_aux_##name != NULL)

/* Entry point `name` of runtime rt (enum dc_rt), resolved on first use (NULL
 * while no runtime that has it is loaded). */
void *dc_driver_resolve_rt(int rt, const char *name);
#define DC_RT_AUX(rt, name) DC_LAZY_FN(dc_aux_##name[rt], dc_driver_resolve_rt, rt, #name)

/* --- queries ------------------------------------------------------------------- */
int dc_stream_device(CUstream s);            /* device of the stream's context, -1 */
int dc_pageable_ok(int device);              /* cached CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS */
int dc_ptr_device(CUdeviceptr p);            /* CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, -1 */
/* The driver's name for r ("CUDA_ERROR_ILLEGAL_ADDRESS"), "CUDA error" if none. */
const char *dc_err_name(CUresult r);

#pragma GCC visibility pop
#endif
