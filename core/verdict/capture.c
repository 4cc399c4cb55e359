/* capture: the stream captures in progress (see capture.h).  A small table,
 * written at the begin and end of a capture (rare), read by the launch path
 * only while it is not empty. */
#include "core/verdict/capture.h"
#include "core/verdict/verdict.h"
#include "core/base/cudacall.h"
#include "common/forklock.h"

#include <pthread.h>

/* Past MAX_CAPTURES concurrent captures the extra ones are only counted
 * (overflow): each then counts as a GLOBAL capture of another thread. */
#define MAX_CAPTURES 256
struct capture {
    CUstream stream;            /* as begun; CU_STREAM_PER_THREAD for the per-thread stream */
    CUstreamCaptureMode mode;
    pthread_t thread;           /* the thread that began it */
};

/* cap_lock guards the table; nothing else is called while it is held. */
static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct capture caps[MAX_CAPTURES];
static unsigned ncaps, overflow;
static unsigned active;         /* ncaps + overflow, also read without the lock */

void dc_capture_fork_prepare(void) { pthread_mutex_lock(&cap_lock); }
void dc_capture_fork_parent(void) { pthread_mutex_unlock(&cap_lock); }
void dc_capture_fork_child(void)
{
    dc_mutex_fork_child(&cap_lock);
    ncaps = overflow = 0;
    __atomic_store_n(&active, 0, __ATOMIC_RELEASE);
}

/* The per-thread default stream is one stream per thread. */
static int same(const struct capture *c, CUstream s, pthread_t self)
{
    return c->stream == s && (s != CU_STREAM_PER_THREAD || pthread_equal(c->thread, self));
}

void dc_capture_begin(CUstream s, int mode)
{
    pthread_t self = pthread_self();
    pthread_mutex_lock(&cap_lock);
    unsigned i = 0;
    while (i < ncaps && !same(&caps[i], s, self))
        i++;
    if (i == ncaps) {
        if (ncaps < MAX_CAPTURES)
            ncaps++;
        else
            overflow++;
    }
    if (i < MAX_CAPTURES)
        caps[i] = (struct capture){ s, (CUstreamCaptureMode)mode, self };
    __atomic_store_n(&active, ncaps + overflow, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&cap_lock);
}

void dc_capture_end(CUstream s)
{
    /* A capture ended from the wrong thread, or not ended at all, goes on. */
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    if (DC_CALL(cuStreamIsCapturing, s, &st) == CUDA_SUCCESS && st != CU_STREAM_CAPTURE_STATUS_NONE)
        return;
    pthread_t self = pthread_self();
    pthread_mutex_lock(&cap_lock);
    unsigned i = 0;
    while (i < ncaps && !same(&caps[i], s, self))
        i++;
    if (i < ncaps)
        caps[i] = caps[--ncaps];
    else if (overflow)
        overflow--;
    __atomic_store_n(&active, ncaps + overflow, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&cap_lock);
}

/* This thread's capture interaction mode (GLOBAL when the driver cannot say):
 * exchanged out and back. */
static CUstreamCaptureMode thread_mode(void)
{
    CUstreamCaptureMode m = CU_STREAM_CAPTURE_MODE_RELAXED;
    if (DC_CALL(cuThreadExchangeStreamCaptureMode, &m) != CUDA_SUCCESS)
        return CU_STREAM_CAPTURE_MODE_GLOBAL;
    CUstreamCaptureMode back = m;
    (void)DC_CALL(cuThreadExchangeStreamCaptureMode, &back);
    return m;
}

const char *dc_capture_conflict(CUstream s, int migrate)
{
    if (__builtin_expect(!__atomic_load_n(&active, __ATOMIC_ACQUIRE), 1))
        return NULL;
    pthread_t self = pthread_self();
    int own = 0, global_other = 0, any = 0;
    pthread_mutex_lock(&cap_lock);
    for (unsigned i = 0; i < ncaps; i++) {
        int mine = pthread_equal(caps[i].thread, self);
        any = 1;
        own |= mine && caps[i].mode != CU_STREAM_CAPTURE_MODE_RELAXED;
        global_other |= !mine && caps[i].mode == CU_STREAM_CAPTURE_MODE_GLOBAL;
    }
    if (overflow)
        any = global_other = 1;
    pthread_mutex_unlock(&cap_lock);
    if (!any)
        return NULL;
    if (migrate)
        return "a stream of the process is capturing a CUDA graph: migrating now (allocation, synchronous copies "
               "on the legacy stream) would invalidate the capture";
    if (s == NULL || s == CU_STREAM_LEGACY)
        return "a stream of the process is capturing a CUDA graph: synchronising the legacy default stream would "
               "invalidate the capture";
    if (!own && !global_other)
        return NULL;
    CUstreamCaptureMode m = thread_mode();
    if (m == CU_STREAM_CAPTURE_MODE_RELAXED)
        return NULL;
    if (own)
        return "this thread is capturing a CUDA graph: synchronising now would invalidate the capture";
    if (m == CU_STREAM_CAPTURE_MODE_GLOBAL)
        return "another thread is capturing a CUDA graph in global mode: synchronising now would invalidate the "
               "capture";
    return NULL;
}

int dc_stream_captured(CUstream s)
{
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    if (!DC_HAS(cuStreamIsCapturing))
        return 0;
    if (DC_CALL(cuStreamIsCapturing, s, &st) != CUDA_SUCCESS)
        return 1;
    return st != CU_STREAM_CAPTURE_STATUS_NONE;
}
