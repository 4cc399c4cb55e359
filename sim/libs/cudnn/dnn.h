/* What the sim's cuDNN libraries share (sim/libs/cudnn/README.md): the
 * version they report and the last-error text of the calling thread.
 * Each library (libcudnn_graph.so.9, libcudnn_ops.so.9, libcudnn_cnn.so.9,
 * libcudnn_adv.so.9) compiles dnn.c in, hidden. */
#ifndef SIM_LIBS_CUDNN_DNN_H
#define SIM_LIBS_CUDNN_DNN_H

#include <cudnn_graph.h>

#include "simlib.h"

#if CUDNN_MAJOR != 9
#error "the sim's cuDNN implements cuDNN 9's API"
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
#endif
