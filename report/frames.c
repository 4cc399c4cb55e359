/* frames: see frames.h. */
#include "report/frames.h"
#include "report/pystack.h"

#include <stdlib.h>
#include <string.h>

/* PyTorch's caching allocator turned off (PYTORCH_NO_CUDA_MEMORY_CACHING=1,
 * the wrapper's default): its frames are still there, calling cudaMalloc
 * once per tensor. */
static int torch_caching_off(void)
{
    const char *v = getenv("PYTORCH_NO_CUDA_MEMORY_CACHING");
    return v && *v && strcmp(v, "0") != 0;
}

size_t dc_frames_native(const struct dc_frame *fr, size_t n)
{
    size_t k = 0;
    while (k < n && !fr[k].python)
        k++;
    return k;
}

const struct dc_frame *dc_frames_user(const struct dc_frame *fr, size_t n)
{
    size_t k = dc_frames_native(fr, n);
    if (k >= n)
        return NULL;
    for (size_t i = k; i < n; i++)
        if (dc_py_user_file(fr[i].file))
            return &fr[i];
    return &fr[k];
}

int dc_frames_segment(const struct dc_frame *fr, size_t n)
{
    static const char *const allocators[] = {
        "CachingAllocator",         /* c10::cuda::CUDACachingAllocator (caching on) */
        "ExpandableSegment",        /* PyTorch's expandable segments (VMM) */
        "BFCAllocator",             /* XLA, TensorFlow */
        "pool_memory_resource",     /* RMM */
        "arena_memory_resource",
    };
    for (size_t i = 0; i < n && !fr[i].python; i++)
        for (size_t j = 0; j < sizeof allocators / sizeof allocators[0]; j++)
            if (strstr(fr[i].function, allocators[j]) && !(j == 0 && torch_caching_off()))
                return 1;
    return 0;
}
