/* contexts: the context events of both front ends: peer access, per
 * context pair, and the end of a context (destroyed, or a primary context
 * reset), which takes its memory and its peer links with it.  The caller
 * holds the guard. */
#include "core/contexts.h"
#include "core/base/cudacall.h"
#include "core/kernel/kernels.h"
#include "core/owner/ptrinfo.h"
#include "core/owner/registry.h"
#include "common/forklock.h"
#include "report/stack.h"

#include <pthread.h>
#include <string.h>

/* peer_lock guards the context-pair peer links (below); nothing else is
 * called while it is held. */
static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;

void dc_ctx_fork_prepare(void) { pthread_mutex_lock(&peer_lock); }
void dc_ctx_fork_parent(void) { pthread_mutex_unlock(&peer_lock); }
void dc_ctx_fork_child(void) { dc_mutex_fork_child(&peer_lock); }

/* Peer access is enabled per context pair (the current context may access the
 * peer context's memory); the registry keeps it per device pair.  The live
 * context pairs are kept here so that a destroyed context ends exactly its own
 * links: a device pair stays enabled while any context pair between the two
 * devices is.  Past MAX_PEER_LINKS pairs, links are no longer tracked and a
 * destroyed context leaves the device pairs as they are (a stale link can hide
 * a finding; it never makes one). */
#define MAX_PEER_LINKS 1024
struct peer_link {
    CUcontext from, to;
    int from_dev, to_dev;
};
static struct peer_link links[MAX_PEER_LINKS];     /* under peer_lock */
static unsigned nlinks;
static int links_overflow;

/* peer_lock held: is a context pair left between devices a -> b? */
static int pair_linked(int a, int b)
{
    for (unsigned i = 0; i < nlinks; i++)
        if (links[i].from_dev == a && links[i].to_dev == b)
            return 1;
    return 0;
}

void dc_ctx_peer_access(CUcontext peer, int enable)
{
    CUcontext from = NULL;
    int from_dev = dc_current_device();
    int to_dev = dc_ctx_device(peer);
    if (from_dev < 0 || to_dev < 0 || DC_CALL(cuCtxGetCurrent, &from) != CUDA_SUCCESS || !from)
        return;
    pthread_mutex_lock(&peer_lock);
    unsigned i = 0;
    while (i < nlinks && !(links[i].from == from && links[i].to == peer))
        i++;
    if (enable && i == nlinks) {
        if (nlinks < MAX_PEER_LINKS)
            links[nlinks++] = (struct peer_link){ from, peer, from_dev, to_dev };
        else
            links_overflow = 1;
    } else if (!enable && i < nlinks) {
        links[i] = links[--nlinks];
    }
    int on = enable || pair_linked(from_dev, to_dev);
    pthread_mutex_unlock(&peer_lock);
    if (enable && !dc_reg_peer_enabled(from_dev, to_dev))      /* who turned it on, for peer_access */
        dc_reg_set_peer_stack(from_dev, to_dev, dc_stack_capture(0));
    dc_reg_set_peer(from_dev, to_dev, on);
}

/* A destroyed or reset context takes with it the device, pool, IPC and
 * managed memory made in it and the peer links it took part in; other
 * contexts on the same device keep theirs.  VMM mappings and host memory
 * outlive contexts. */
void dc_ctx_destroyed(CUcontext ctx)
{
    if (!ctx)
        return;
    dc_ctx_current_changed();
    dc_ctx_gone_changed();
    dc_kernels_ctx_gone(ctx);
    (void)dc_reg_drop_ctx((uint64_t)(uintptr_t)ctx, (1u << DC_MEM_DEVICE) | (1u << DC_MEM_POOL) |
                                                    (1u << DC_MEM_IPC) | (1u << DC_MEM_MANAGED));
    dc_addr_forget();
    dc_devmask ended[DC_MAX_DEVICES];       /* ended[a] bit b: pair a -> b lost its last link */
    memset(ended, 0, sizeof ended);
    pthread_mutex_lock(&peer_lock);
    for (unsigned i = 0; i < nlinks;) {
        if (links[i].from == ctx || links[i].to == ctx) {
            if (links[i].from_dev < DC_MAX_DEVICES && links[i].to_dev < DC_MAX_DEVICES)
                ended[links[i].from_dev] |= DC_DEV_BIT(links[i].to_dev);
            links[i] = links[--nlinks];
        } else {
            i++;
        }
    }
    for (int a = 0; a < DC_MAX_DEVICES; a++)
        for (int b = 0; ended[a] && b < DC_MAX_DEVICES; b++)
            if ((ended[a] & DC_DEV_BIT(b)) && (links_overflow || pair_linked(a, b)))
                ended[a] &= ~DC_DEV_BIT(b);
    pthread_mutex_unlock(&peer_lock);
    for (int a = 0; a < DC_MAX_DEVICES; a++)
        for (int b = 0; ended[a] && b < DC_MAX_DEVICES; b++)
            if (ended[a] & DC_DEV_BIT(b))
                dc_reg_set_peer(a, b, 0);
}

/* The device's primary context if it is active (a retain would create an
 * inactive one), else NULL. */
CUcontext dc_primary_context(CUdevice dev)
{
    unsigned int flags = 0;
    int active = 0;
    CUcontext c = NULL;
    if (DC_CALL(cuDevicePrimaryCtxGetState, dev, &flags, &active) != CUDA_SUCCESS || !active ||
        DC_CALL(cuDevicePrimaryCtxRetain, &c, dev) != CUDA_SUCCESS)
        return NULL;
    (void)DC_CALL(cuDevicePrimaryCtxRelease_v2, dev);
    return c;
}
