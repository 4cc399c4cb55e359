/* verdict: the checks and what follows them -- the launch description and
 * check (core/verdict/launch.h, check.h), the filters, mode=migrate,
 * sync=1, stream captures, the launch record, the library-call checks
 * (core/verdict/libcall.h) and the frameworks' errors; the events below
 * feed them.  Uses every room below it (base, owner, kernel). */
#ifndef DEVCHECK_CORE_VERDICT_H
#define DEVCHECK_CORE_VERDICT_H
#include <cuda.h>
#include "core/base/base.h"
#include "core/verdict/launch.h"
#include "core/verdict/libcall.h"   /* library calls checked at their API (preload/hooks_lib.h) */

#pragma GCC visibility push(hidden)

/* --- stream capture events (core/verdict/capture.c) ------------------------------------- */

/* Stream s began capturing in `mode` (a CUstreamCaptureMode) on this thread:
 * after the real call succeeded.  NULL / CU_STREAM_PER_THREAD as the call
 * meant it (a _ptsz entry point's NULL is CU_STREAM_PER_THREAD).  While any
 * capture is in progress, sync=1 and mode=migrate leave alone what their
 * synchronisations would invalidate (core/verdict/capture.h). */
void dc_capture_begin(CUstream s, int mode);
/* The program ended the capture of s (after the real call, whatever it
 * returned: the driver is asked whether s still captures). */
void dc_capture_end(CUstream s);
/* --- launch events (core/verdict/launch.c) ---------------------------------------------- *
 * The interposer's launches: begin describes the launch and checks it, and
 * under mode=migrate moves what must be moved (then L->args / L->extra are
 * the rewritten arguments: pass those to the real launch); end, after the
 * real launch (launched: it returned success), copies migrated operands back
 * and under sync=1 synchronises and attributes an asynchronous error to the
 * launch.  Always pair them; L lives on the hook's stack. */
/* A driver launch of function f (cuLaunchKernel and friends): the launch
 * device is the stream's. */
void dc_launch_begin(struct dc_launch_state *L, const char *api, CUfunction f, CUstream stream, void **args,
                     void **extra);
/* A runtime launch of a CUkernel (CUDA 13's __cudaLaunchKernel) through
 * runtime rt (enum dc_rt, whose cudaGetDevice is asked): the launch device is
 * the stream's, the thread's current device for the NULL, legacy and
 * per-thread streams; a launch into another device's stream is a
 * stream_mismatch. */
void dc_launch_begin_kernel(struct dc_launch_state *L, int rt, const char *api, CUkernel kernel, CUstream stream,
                            void **args);
/* A runtime launch of host stub `func` (cudaLaunchKernel and friends; NULL:
 * nothing to check): as dc_launch_begin_kernel, its function found with
 * runtime rt's cudaGetFuncBySymbol (counted unchecked if none). */
void dc_launch_begin_stub(struct dc_launch_state *L, int rt, const char *api, const void *func, CUstream stream,
                          void **args);
void dc_launch_end(struct dc_launch_state *L, int launched);

/* Launches that are checked only, never rewritten nor synchronised (the
 * CUPTI path, whose parameters are read-only: under mode=migrate the check
 * reports its operands not migrated; graph nodes, which run later), with
 * `path` the detection path (enum dc_path).
 *   key      a CUfunction (DC_KEY_FUNCTION), a CUkernel (DC_KEY_KERNEL), or
 *            a host stub no function could be found for (DC_KEY_OPAQUE: the
 *            launch is counted unchecked), or a launch whose parameters the
 *            path could not read (DC_KEY_UNREAD: key is the kernel's name,
 *            or api itself when none is known; counted unchecked too)
 *   device   the launch device; < 0: the device of the stream's context
 *   current_device  runtime launches: the thread's current device (a launch
 *            into another device's stream is a stream_mismatch); -1 otherwise
 *   args / extra    kernelParams, or cuLaunchKernel's packed `extra` */
void dc_launch_check(int path, const char *api, const void *key, int kind, int device, int current_device,
                     CUstream stream, void **args, void **extra);
/* A runtime launch of host stub `func`: the function is found with runtime
 * rt's cudaGetFuncBySymbol (DC_KEY_OPAQUE if none), the launch device is the
 * stream's (current_device for the NULL, legacy and per-thread streams). */
void dc_launch_check_stub(int path, int rt, const char *api, const void *func, int current_device, CUstream stream,
                          void **args);
/* A graph kernel node, checked when it is created or changed (the generic
 * node API: only kernel nodes); the launch device is the node context's for
 * a CUkernel, the current context's otherwise.  NULL p: nothing. */
void dc_launch_check_node(int path, const char *api, const CUDA_KERNEL_NODE_PARAMS *p);
void dc_launch_check_generic_node(int path, const char *api, const CUgraphNodeParams *p);


/* --- framework errors (core/verdict/framework.c) ------------------------------------------ *
 * A framework refused an op over devices (PyTorch's "Expected all tensors to
 * be on the same device"), as the interpreter side saw it: its message, the
 * op's Python stack (frames[0..nframes), innermost first, each with its
 * statement's source line) and the op's tensors, named as the user's code
 * names them.  The interpreter side only collects; the core looks each
 * tensor's memory up, chooses the device the op belongs on and the fix,
 * reports a framework_device_error (repeats counted, as any finding) and
 * writes the note the interpreter attaches to the exception (note[0..len),
 * "" when none).  Guard held.  Returns 0, or -1 on bad arguments (nothing
 * reported, note ""). */
struct dc_fw_frame {
    const char *file, *function;
    const char *source;         /* the statement's first line, stripped; NULL unknown */
    int line;
};
struct dc_fw_tensor {
    const char *expr;           /* "input_ids", "model.embed_tokens.weight", "model[0].weight" */
    const char *device;         /* "cuda:1", "cpu" */
    const char *module;         /* the user's module holding it ("model"), NULL */
    const char *made_file, *made_function;  /* memory with no record (a CPU tensor): the user's */
    uintptr_t ptr;              /* data pointer of a GPU tensor, 0 for none */
    int flags;                  /* DC_TENSOR_* */
    int made_line;              /* statement that last assigned it, 0 unknown */
};
#define DC_TENSOR_PARAM 1           /* a module's parameter or buffer: where the model was put */
#define DC_TENSOR_MODULE_DEVICE 2   /* module.device names this tensor's device (a Hugging Face model) */
int dc_framework_error(const char *framework, const char *message, unsigned nframes, const struct dc_fw_frame *frames,
                       unsigned ntensors, const struct dc_fw_tensor *tensors, char *note, size_t note_len);
/* 1 when message is one of the frameworks' device-mismatch errors (PyTorch's
 * "Expected all tensors to be on the same device", ...): the cheap test made
 * before any interpreter work. */
int dc_framework_device_message(const char *message);


/* --- pointer refusals (core/verdict/framework.c) -------------------------------------------- *
 * A framework asks the driver for a pointer's device address in the current
 * context before it launches (Triton's launcher: cuPointerGetAttribute(
 * CU_POINTER_ATTRIBUTE_DEVICE_POINTER) for every tensor) and raises its own
 * error on CUDA_ERROR_INVALID_VALUE ("Pointer argument cannot be accessed
 * from Triton (cpu tensor?)"): no kernel runs.
 * dc_pointer_refused: the hook saw that refusal (guard held).  When devcheck
 * knows the memory and it is another device's (the query would succeed with
 * that device current), the thread remembers it: the pointer, its owner and
 * the current device; the process remembers it too, with the query's stack,
 * for dc_pointer_refusal_at_exit (a rare, error path); nothing is reported.
 * A program that handles the refusal itself (a probe) never hears of it.
 * dc_pointer_refusal_pending: the thread's remembered refused pointer, 0 none.
 * dc_pointer_refused_error: the framework raised (the interpreter side saw it
 * at raise time): reports a pointer_refused ERROR -- the refused tensor's
 * owner and the current device, the kernel parameter index `param` (-1
 * unknown), the allocation, the call's Python stack (frames, innermost
 * first), the fix -- and writes the note for the exception.  tensors: the
 * call's tensor arguments, the refused one among them.  Returns 0 reported,
 * -1 when no refusal is pending on the thread (nothing reported, note "").
 * Takes the pending refusal. */
void dc_pointer_refused(uintptr_t ptr);
/* The same query answered for ptr (peer access enabled since, its device
 * current): a refusal remembered for ptr is forgotten. */
void dc_pointer_accepted(uintptr_t ptr);
uintptr_t dc_pointer_refusal_pending(void);
int dc_pointer_refused_error(const char *framework, const char *message, int param, unsigned nframes,
                             const struct dc_fw_frame *frames, unsigned ntensors, const struct dc_fw_tensor *tensors,
                             char *note, size_t note_len);
/* The program is exiting with program_status (-1 unknown).  A refusal of
 * another device's memory that no framework explained and that the driver
 * did not answer since (the process's last, any thread) is reported as a
 * pointer_refused ERROR (framework "driver", the query's stack, the
 * allocation, the fix) when the status is an error (> 0) and no kernel was
 * launched since the refusal: the program checked the answer and gave up
 * without raising or launching.  A status of 0, or a launch since, is a
 * program that survived the refusal (a probe): nothing. */
void dc_pointer_refusal_at_exit(int program_status);

#pragma GCC visibility pop
#endif
