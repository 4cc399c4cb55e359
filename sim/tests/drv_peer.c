/* Peer topology from SIMCUDA_PEER (run with SIMCUDA_PEER=0-1,2-3): only the
 * listed pairs can peer; the others report no access and refuse to enable. */
#include "drv_check.h"

int main(void)
{
    MUST(cuInit(0));
    int v;
    OK(cuDeviceCanAccessPeer(&v, 0, 1)); EQ(v, 1);
    OK(cuDeviceCanAccessPeer(&v, 1, 0)); EQ(v, 1);
    OK(cuDeviceCanAccessPeer(&v, 2, 3)); EQ(v, 1);
    OK(cuDeviceCanAccessPeer(&v, 0, 2)); EQ(v, 0);
    OK(cuDeviceCanAccessPeer(&v, 3, 1)); EQ(v, 0);
    OK(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 1, 2)); EQ(v, 0);
    CUcontext c[4];
    for (int i = 0; i < 4; i++)
        MUST(cuDevicePrimaryCtxRetain(&c[i], i));
    MUST(cuCtxSetCurrent(c[0]));
    OK(cuCtxEnablePeerAccess(c[1], 0));
    EXPECT(cuCtxEnablePeerAccess(c[2], 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
    MUST(cuCtxSetCurrent(c[3]));
    OK(cuCtxEnablePeerAccess(c[2], 0));
    EXPECT(cuCtxEnablePeerAccess(c[0], 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
    /* pool access follows the same topology */
    CUmemoryPool pool;
    MUST(cuDeviceGetDefaultMemPool(&pool, 0));
    CUmemAccessDesc d3 = { { CU_MEM_LOCATION_TYPE_DEVICE, 3 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    EXPECT(cuMemPoolSetAccess(pool, &d3, 1), CUDA_ERROR_INVALID_DEVICE);
    CUmemAccessDesc d1 = { { CU_MEM_LOCATION_TYPE_DEVICE, 1 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    OK(cuMemPoolSetAccess(pool, &d1, 1));
    return drv_done("drv_peer");
}
