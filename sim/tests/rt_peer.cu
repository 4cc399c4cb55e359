// Copies between devices (cudaMemcpyPeer, cudaMemcpyPeerAsync, cudaMemcpy
// with cudaMemcpyDefault, 2D) with correct bytes; peer access queries,
// enable/disable and their errors.
#include "rt_check.h"

int main()
{
    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    EXPECT(n == 4);
    const size_t N = 1 << 16;
    void *buf[4];
    unsigned char *h = (unsigned char *)malloc(N), *back = (unsigned char *)malloc(N);
    for (size_t i = 0; i < N; i++)
        h[i] = (unsigned char)(i * 31 + 7);
    for (int d = 0; d < n; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMalloc(&buf[d], N));
        CHECK(cudaMemset(buf[d], 0, N));
    }
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpy(buf[0], h, N, cudaMemcpyHostToDevice));
    // 0 -> 1 by cudaMemcpyPeer, 1 -> 2 by cudaMemcpy(Default), 2 -> 3 async.
    CHECK(cudaMemcpyPeer(buf[1], 1, buf[0], 0, N));
    CHECK(cudaMemcpy(buf[2], buf[1], N, cudaMemcpyDefault));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemcpyPeerAsync(buf[3], 3, buf[2], 2, N, s));
    CHECK(cudaStreamSynchronize(s));
    for (int d = 0; d < n; d++) {
        memset(back, 0, N);
        CHECK(cudaMemcpy(back, buf[d], N, cudaMemcpyDefault));
        EXPECT(memcmp(back, h, N) == 0);
    }
    // A copy into another device's memory through this device's stream
    // succeeds (Programming Guide, "Stream and Event Behavior").
    CHECK(cudaMemsetAsync(buf[3], 0, N, s));
    CHECK(cudaMemcpyAsync(buf[3], buf[0], N, cudaMemcpyDeviceToDevice, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(back, buf[3], N, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(back, h, N) == 0);

    // 2D: a 64x16 window, pitches 256 (device 1) and 64 (host).
    CHECK(cudaMemcpy2D(buf[1], 256, h, 64, 64, 16, cudaMemcpyHostToDevice));
    memset(back, 0, N);
    CHECK(cudaMemcpy2D(back, 64, buf[1], 256, 64, 16, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(back, h, 64 * 16) == 0);
    CHECK(cudaMemcpy2DAsync(back + 4096, 64, buf[1], 256, 64, 16, cudaMemcpyDefault, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(memcmp(back + 4096, h, 64 * 16) == 0);

    // 3D: a 40x6x3 box from the host into device 2, across to device 3,
    // back to the host.
    {
        const size_t W = 40, H = 6, D = 3;
        cudaExtent ext = make_cudaExtent(W, H, D);
        cudaPitchedPtr p2, p3;
        CHECK(cudaSetDevice(2));
        CHECK(cudaMalloc3D(&p2, ext));
        CHECK(cudaMemset3D(p2, 0, ext));
        CHECK(cudaSetDevice(3));
        CHECK(cudaMalloc3D(&p3, ext));
        EXPECT(p2.pitch >= W && p3.pitch >= W && p2.ysize == H);
        cudaMemcpy3DParms m = {};
        m.srcPtr = make_cudaPitchedPtr(h, W, W, H);
        m.dstPtr = p2;
        m.extent = ext;
        m.kind = cudaMemcpyHostToDevice;
        CHECK(cudaMemcpy3D(&m));
        cudaMemcpy3DParms m2 = {};
        m2.srcPtr = p2;
        m2.dstPtr = p3;
        m2.extent = ext;
        m2.kind = cudaMemcpyDefault;
        CHECK(cudaMemcpy3DAsync(&m2, 0));
        cudaMemcpy3DParms m3 = {};
        memset(back, 0, N);
        m3.srcPtr = p3;
        m3.dstPtr = make_cudaPitchedPtr(back, W, W, H);
        m3.extent = ext;
        m3.kind = cudaMemcpyDeviceToHost;
        CHECK(cudaMemcpy3D(&m3));
        EXPECT(memcmp(back, h, W * H * D) == 0);
        CHECK(cudaFree(p2.ptr));
        CHECK(cudaFree(p3.ptr));
        CHECK(cudaSetDevice(0));
    }

    // Peer access: every pair can (default topology); enable once.
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            if (a == b)
                continue;
            int can = 0;
            CHECK(cudaDeviceCanAccessPeer(&can, a, b));
            EXPECT(can == 1);
            int v = -1;
            CHECK(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, a, b));
            EXPECT(v == 1);
        }
    CHECK(cudaDeviceEnablePeerAccess(1, 0));
    EXPECT_ERR(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
    EXPECT_ERR(cudaGetLastError(), cudaErrorPeerAccessAlreadyEnabled);
    CHECK(cudaDeviceDisablePeerAccess(1));
    EXPECT_ERR(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
    EXPECT_ERR(cudaDeviceEnablePeerAccess(7, 0), cudaErrorInvalidDevice);
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice ? cudaSuccess : cudaErrorUnknown);
    // Programming Guide, "Stream and Event Behavior": cudaEventRecord fails
    // when event and stream belong to different devices; cudaStreamWaitEvent
    // across devices succeeds.
    cudaEvent_t ev0;
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventCreate(&ev0));
    CHECK(cudaEventRecord(ev0, s));
    CHECK(cudaSetDevice(2));
    cudaStream_t s2;
    CHECK(cudaStreamCreate(&s2));
    EXPECT(cudaEventRecord(ev0, s2) != cudaSuccess);
    cudaGetLastError();
    CHECK(cudaStreamWaitEvent(s2, ev0, 0));
    CHECK(cudaStreamSynchronize(s2));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventDestroy(ev0));
    CHECK(cudaStreamDestroy(s));
    for (int d = 0; d < n; d++)
        CHECK(cudaFree(buf[d]));
    free(h);
    free(back);
    printf("ok\n");
    return 0;
}
