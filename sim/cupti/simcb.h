/* simcb.h: the sim-private channel between the sim's libcupti.so.13, its
 * libcuda.so.1 and its libcudart.so.13.  Not installed; shared by sim/ only.
 *
 * The driver owns the callback state (one subscriber, the enable bits, the
 * correlation counter) and hands out this table from cuGetExportTable with
 * SIMCB_UUID, the way NVIDIA's libcupti reaches its driver through private
 * export tables.  libcupti uses it for cuptiSubscribe and friends; the
 * runtime uses it to issue runtime-domain callbacks.  A driver that does not
 * know the UUID (NVIDIA's, or none) leaves the sim's libcupti unable to
 * subscribe (CUPTI_ERROR_NOT_INITIALIZED) and the runtime silent.
 *
 * Contract of the table:
 *   - size is sizeof(struct simcb_table) of the driver; a caller checks that
 *     it is at least its own and version == SIMCB_VERSION.
 *   - *active is nonzero while a subscriber holds the channel (the hot path
 *     of every wrapper reads only this).
 *   - api_enter issues the ENTER callback if a subscriber exists, the
 *     (domain, cbid) is enabled and the thread is not inside a callback; it
 *     records that in *c so api_exit issues the matching EXIT (same
 *     correlation id) or nothing.  c lives on the caller's stack for the
 *     whole call. */
#ifndef SIMCB_H
#define SIMCB_H

/* Not <cupti.h>: its stand-ins for the obsolete _v1 types clash with cuda.h
 * as the sim is built (__CUDA_API_VERSION_INTERNAL declares the real ones). */
#include <cupti_result.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#ifndef _CUPTI_H_                /* cupti.h includes it; it has no guard */
#include <cupti_nvtx_cbid.h>
#endif
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* "simcuda-cupti-v1" */
#define SIMCB_UUID_BYTES { 0x73, 0x69, 0x6d, 0x63, 0x75, 0x64, 0x61, 0x2d, \
                           0x63, 0x75, 0x70, 0x74, 0x69, 0x2d, 0x76, 0x31 }
#define SIMCB_VERSION 1
/* cbid argument of enable(): every callback of the domain */
#define SIMCB_ALL ((CUpti_CallbackId)~0u)
/* The enable bits: bits[domain][cbid / 64] >> cbid % 64 & 1. */
#define SIMCB_MAX_CBID 1024
#define SIMCB_WORDS (SIMCB_MAX_CBID / 64)
/* Is (domain, cbid) enabled at all?  A wrapper's first and only check when
 * it is not: the cost of an API call nobody listens to (a set bit still
 * goes through api_enter, which checks the subscriber and the thread). */
#define SIMCB_ENABLED(bits, domain, cbid) \
    ((atomic_load_explicit(&(bits)[domain][(cbid) / 64], memory_order_relaxed) >> ((cbid) % 64)) & 1)

/* One API call in flight: enter and exit share it. */
struct simcb_call {
    CUpti_CallbackData data;
    uint64_t corr_data;            /* what data.correlationData points to */
    CUpti_CallbackDomain domain;
    CUpti_CallbackId cbid;
    int delivered;                 /* ENTER was issued: EXIT will be (2: and it counts in the
                                      driver's depth of runtime calls, callbacks.c) */
};

struct simcb_table {
    size_t size;
    unsigned version;
    const atomic_uint *active;
    /* subscription (libcupti): 0, or -1 when held (then the holder's name,
     * possibly empty, is copied to held_by, NUL-terminated, truncated). */
    int (*subscribe)(CUpti_CallbackFunc fn, void *userdata, const char *name,
                     char *held_by, size_t held_by_size);
    void (*unsubscribe)(void);
    /* 0, or -1 for a domain / cbid out of the header's range */
    int (*enable)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, int on);
    int (*get_enabled)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, uint32_t *on);
    /* context queries: CUDA_SUCCESS or CUDA_ERROR_INVALID_CONTEXT; ctx NULL
     * means the calling thread's current context */
    CUresult (*ctx_info)(CUcontext ctx, uint32_t *device, uint32_t *uid);
    /* CUDA_SUCCESS or CUDA_ERROR_INVALID_HANDLE (unknown stream, or not of
     * ctx when ctx is not NULL); NULL / legacy / per-thread streams are
     * those of the current context */
    CUresult (*stream_info)(CUcontext ctx, CUstream stream, int per_thread, uint32_t *id);
    /* API callbacks (the runtime's wrappers) */
    void (*api_enter)(struct simcb_call *c, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                      const char *name, const void *params, void *retval, const char *symbol);
    void (*api_exit)(struct simcb_call *c);
    /* the enable bits (SIMCB_ENABLED), read by the runtime's wrappers */
    const _Atomic uint64_t (*bits)[SIMCB_WORDS];
};

#endif
