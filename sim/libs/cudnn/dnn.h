/* What the sim's cuDNN libraries share (sim/libs/cudnn/README.md): the
 * version they report, the last-error text of the calling thread and the
 * element sizes.  dnn.c is linked, hidden, into the libraries that use it
 * (libcudnn_graph.so.9, libcudnn_ops.so.9). */
#ifndef SIM_LIBS_CUDNN_DNN_H
#define SIM_LIBS_CUDNN_DNN_H

#include <cudnn_graph.h>

#include "simlib.h"

#if CUDNN_MAJOR != 9
#error "the sim's cuDNN implements cuDNN 9's API"
/* The size in bytes of an element of type t; 0 for a type a backend tensor
 * may not hold (9.26's finalize; ops.c narrows it for legacy tensors). */
size_t simdnn_dtype_size(cudnnDataType_t t) SIMLIB_HIDDEN;
#endif

/* The version the sim's cuDNN reports: the release whose CPU-only parts its
 * descriptor behaviour was checked against (nvidia-cudnn-cu13 9.26.0.51,
 * tests/clients/requirements.txt; sim/tests/dnn_diff.sh), not the toolkit
 * headers' (9.19 here): PyTorch 2.15 is built against 9.26 and refuses a
 * cuDNN whose minor version is older than the one it was built with
 * (torch/backends/cudnn/__init__.py). */
#define SIMDNN_MAJOR 9
#define SIMDNN_MINOR 26
#define SIMDNN_PATCH 0
#define SIMDNN_VERSION (SIMDNN_MAJOR * 10000 + SIMDNN_MINOR * 100 + SIMDNN_PATCH)

/* Records `text` as the calling thread's last error (what
 * cudnnGetLastErrorString returns) and returns s. */
cudnnStatus_t simdnn_fail(cudnnStatus_t s, const char *text) SIMLIB_HIDDEN;
/* The same with a printf format. */
cudnnStatus_t simdnn_failf(cudnnStatus_t s, const char *fmt, ...) SIMLIB_HIDDEN __attribute__((format(printf, 2, 3)));
/* Copies the calling thread's last error into buf (n bytes) and clears it. */
void simdnn_last_error(char *buf, size_t n) SIMLIB_HIDDEN;
/* The size in bytes of an element of type t; 0 for a type a backend tensor
 * may not hold (9.26's finalize; ops.c narrows it for legacy tensors). */
size_t simdnn_dtype_size(cudnnDataType_t t) SIMLIB_HIDDEN;
#endif
