/* hint: what the user should do about a finding (see hint.h). */
#include "report/hint.h"

#include <string.h>

/* device_mismatch in the client's words: where the data lives, how that
 * client moves it or launches where it is. */
static int client_hint(struct dc_buf *b, const struct dc_finding *f, enum dc_client client)
{
    int d = f->launch->device, o = f->alloc_known ? f->alloc.owner : -1;
    if (o < 0)
        return 0;
    switch (client) {
    case DC_CLIENT_TORCH:
        dc_bput(b, "the tensor lives on cuda:%d: move it to the launch device (tensor.to(\"cuda:%d\")), or launch "
                   "the kernel where its data is (with torch.cuda.device(\"cuda:%d\"):)", o, d, o);
        return 1;
    case DC_CLIENT_NUMBA:
        dc_bput(b, "the array lives on cuda:%d: make it on the launch device (with cuda.gpus[%d]: "
                   "cuda.to_device(...)), or launch the kernel under cuda.gpus[%d]", o, d, o);
        return 1;
    case DC_CLIENT_CUDA_CORE:
        dc_bput(b, "the buffer lives on cuda:%d: copy it into a buffer of Device(%d) (Buffer.copy_to(dst, "
                   "stream=...)), or launch on a stream of Device(%d)", o, d, o);
        return 1;
    default:
        return 0;
    }
}

/* The fix hint, one sentence (also the JSON "hint"), in the words of the
 * client that launched (report/frames.h). */
void dc_hint(struct dc_buf *b, const struct dc_finding *f, enum dc_client client)
{
    const struct dc_finding_launch *l = f->launch;
    int d = l->device;
    if (f->weak && dc_finding_shape_only(f)) {
        dc_bput(b, "if param %d is a pointer, hand the kernel memory cuda:%d may access (cudaMemcpy, "
                   "tensor.to(\"cuda:%d\")); devcheck has no type for it: compile with -G or through NVRTC "
                   "under devcheck to say what it is", f->param, d, d);
        return;
    }
    if (f->weak) {
        dc_bput(b, "check the library call that launched it: its device pointers must be memory cuda:%d may access "
                   "(cudaMemcpyPeer, or enable peer access); its scalars may be host pointers it never reads", d);
        return;
    }
    if (f->argument && f->kind == DC_F_DEVICE_MISMATCH && f->alloc_known && f->alloc.owner >= 0) {
        if (client == DC_CLIENT_TORCH)
            dc_bput(b, "%s runs on cuda:%d but %s lives on cuda:%d: move it (tensor.to(\"cuda:%d\")) before the "
                       "call, or make the call on cuda:%d (with torch.cuda.device(%d):)",
                    l->api, d, f->argument, f->alloc.owner, d, f->alloc.owner, f->alloc.owner);
        else
            dc_bput(b, "%s runs on cuda:%d (its handle, stream or communicator) but %s lives on cuda:%d: copy it "
                       "to cuda:%d first (cudaMemcpyPeerAsync), or make the call with a handle/stream of cuda:%d",
                    l->api, d, f->argument, f->alloc.owner, d, f->alloc.owner);
        return;
    }
    if (f->argument && f->kind == DC_F_HOST_MEMORY && !f->alloc_known) {
        dc_bput(b, "%s takes %s in device memory: copy it to cuda:%d first (cudaMemcpy, tensor.to(\"cuda:%d\")); "
                   "only scalars in host pointer mode may be host pointers",
                l->api, f->argument, d, d);
        return;
    }
    if ((f->kind == DC_F_DEVICE_MISMATCH || f->kind == DC_F_ASYNC_ERROR) && f->action == DC_ACT_REPORTED &&
        client_hint(b, f, client))
        return;
    if (f->action != DC_ACT_REPORTED && f->kind == DC_F_HOST_MEMORY) {
        dc_bput(b, "move the operand to cuda:%d before the launch (cudaMemcpy, tensor.to(\"cuda:%d\")), or allocate it with cudaMallocHost / cudaMallocManaged", d, d);
        return;
    }
    switch (f->kind) {
    case DC_F_DEVICE_MISMATCH:
        if (client == DC_CLIENT_PYTHON)
            dc_bput(b, "move the operand to cuda:%d before the launch (cuMemcpyPeer / cudaMemcpyPeer of "
                       "cuda.bindings), or ", d);
        else
            dc_bput(b, "move the operand to cuda:%d before the launch (cudaMemcpyPeer), or ", d);
        if (f->alloc.kind == DC_MEM_VMM)
            dc_bput(b, "grant cuda:%d access with cuMemSetAccess", d);
        else if (f->alloc.kind == DC_MEM_POOL)
            dc_bput(b, "grant cuda:%d access to the pool with cudaMemPoolSetAccess", d);
        else
            dc_bput(b, "enable peer access (cudaDeviceEnablePeerAccess)");
        break;
    case DC_F_PEER_ACCESS:
        if (client == DC_CLIENT_TORCH && f->alloc_known && f->alloc.owner >= 0) {
            dc_bput(b, "the kernel runs on cuda:%d but the tensor lives on cuda:%d: launch it where its data is "
                       "(with torch.cuda.device(\"cuda:%d\"): around the launch), or move the tensor to cuda:%d "
                       "(tensor.to(\"cuda:%d\")); legal as it is, but every access crosses NVLink/PCIe "
                       "(peer=ignore silences this)", d, f->alloc.owner, f->alloc.owner, d, d);
            break;
        }
        dc_bput(b, "legal, but every access crosses NVLink/PCIe; copy the data to cuda:%d once if the kernel reads it repeatedly (peer=ignore silences this)", d);
        break;
    case DC_F_HOST_MEMORY:
        if (f->alloc_known)
            dc_bput(b, "legal but slow: the kernel reads host memory over PCIe; copy it to cuda:%d first (cudaMemcpyAsync, tensor.to(\"cuda:%d\")) (host_memory=auto, the default, counts it without a report)", d, d);
        else
            dc_bput(b, "copy the data to cuda:%d (cudaMemcpy, tensor.to(\"cuda:%d\")) or allocate it with cudaMallocHost / cudaMallocManaged", d, d);
        break;
    case DC_F_STREAM_MISMATCH:
        if (f->argument) {      /* a library call's stream */
            dc_bput(b, "%s runs on cuda:%d (its communicator or handle): pass a stream created on cuda:%d, or make "
                       "the call with a communicator of cuda:%d", l->api, l->current_device, l->current_device, d);
            break;
        }
        dc_bput(b, "call cudaSetDevice(%d) before launching into a stream of cuda:%d, or launch into a stream created on cuda:%d",
             d, d, l->current_device);
        break;
    case DC_F_ASYNC_ERROR:
        if (f->argument) {
            dc_bput(b, "%s failed on the device (found by sync=1); an argument cuda:%d may not access is the usual "
                       "cause: move it to cuda:%d before the call", l->api, d, d);
            break;
        }
        dc_bput(b, "this launch failed on the device (found by sync=1); an operand cuda:%d may not access is the usual cause: move it to cuda:%d before the launch", d, d);
        break;
    case DC_F_UNCHECKED_KERNEL:
        dc_bput(b, "no parameter layout: %s; its launches are counted as unchecked",
                f->reason ? f->reason : "the driver gave none");
        break;
    default:
        break;
    }
}
