/* The sim's NVML describes the sim driver's devices: count, names, UUIDs
 * (cuDeviceGetUuid's bytes), PCI bus ids, memory, peer topology (P2P
 * status = cuDeviceCanAccessPeer), compute capability and the CUDA driver
 * version all agree; handles by UUID and PCI bus id; calls before nvmlInit
 * and after nvmlShutdown fail; NVML does not initialise CUDA; an
 * unimplemented function returns NVML_ERROR_NOT_SUPPORTED (its one line is
 * checked by nvml_basic.sh).  Run with SIMCUDA_DEVICES=3 SIMCUDA_PEER=0-1. */
#include "drv_check.h"

#define NVML_NO_UNVERSIONED_FUNC_DEFS 1
#include <nvml.h>
#include <string.h>

#define NV(call, want) do { \
        nvmlReturn_t g_ = (call); \
        if (g_ != (want)) { \
            fprintf(stderr, "%s:%d: %s returned %s (%d), expected %d\n", __FILE__, __LINE__, #call, \
                    nvmlErrorString(g_), (int)g_, (int)(want)); \
            drv_failures++; \
        } \
    } while (0)

int main(void)
{
    unsigned n = 0;
    NV(nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
    NV(nvmlInit_v2(), NVML_SUCCESS);
    NV(nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
    EQ(n, 3);
    int cn = -1;
    EXPECT(cuDeviceGetCount(&cn), CUDA_ERROR_NOT_INITIALIZED);  /* NVML did not initialise CUDA */
    MUST(cuInit(0));
    MUST(cuDeviceGetCount(&cn));
    EQ(n, cn);
    int cv = 0, nv = 0;
    MUST(cuDriverGetVersion(&cv));
    NV(nvmlSystemGetCudaDriverVersion_v2(&nv), NVML_SUCCESS);
    EQ(nv, cv);
    char ver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    NV(nvmlSystemGetDriverVersion(ver, sizeof ver), NVML_SUCCESS);
    TRUE(!strcmp(ver, cv >= 13000 ? "580.65.06" : "535.261.03"));
    NV(nvmlSystemGetDriverVersion(ver, 3), NVML_ERROR_INSUFFICIENT_SIZE);

    nvmlDevice_t h[3];
    for (unsigned i = 0; i < n; i++)
        NV(nvmlDeviceGetHandleByIndex_v2(i, &h[i]), NVML_SUCCESS);
    for (unsigned i = 0; i < n; i++) {
        unsigned idx = 99;
        NV(nvmlDeviceGetIndex(h[i], &idx), NVML_SUCCESS);
        EQ(idx, i);
        CUdevice d;
        MUST(cuDeviceGet(&d, (int)i));
        char cname[128], name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
        MUST(cuDeviceGetName(cname, sizeof cname, d));
        NV(nvmlDeviceGetName(h[i], name, sizeof name), NVML_SUCCESS);
        TRUE(!strcmp(cname, name));
        CUuuid u;
        MUST(cuDeviceGetUuid(&u, d));
        char want[64], uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
        const unsigned char *b = (const unsigned char *)u.bytes;
        snprintf(want, sizeof want, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
        NV(nvmlDeviceGetUUID(h[i], uuid, sizeof uuid), NVML_SUCCESS);
        TRUE(!strcmp(uuid, want));
        nvmlDevice_t byu;
        NV(nvmlDeviceGetHandleByUUID(uuid, &byu), NVML_SUCCESS);
        TRUE(byu == h[i]);
        char bus[64];
        MUST(cuDeviceGetPCIBusId(bus, sizeof bus, d));
        nvmlPciInfo_t pci;
        NV(nvmlDeviceGetPciInfo_v3(h[i], &pci), NVML_SUCCESS);
        TRUE(!strcmp(pci.busIdLegacy, bus));  /* the driver's 4-digit domain (cuda.h: 13 characters) */
        int attr = -1;
        MUST(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d));
        EQ(pci.bus, attr);
        nvmlDevice_t byb;
        NV(nvmlDeviceGetHandleByPciBusId_v2(bus, &byb), NVML_SUCCESS);
        TRUE(byb == h[i]);
        size_t total;
        MUST(cuDeviceTotalMem(&total, d));
        nvmlMemory_t m;
        NV(nvmlDeviceGetMemoryInfo(h[i], &m), NVML_SUCCESS);
        EQ(m.total, total);
        nvmlMemory_v2_t m2;
        m2.version = nvmlMemory_v2;
        NV(nvmlDeviceGetMemoryInfo_v2(h[i], &m2), NVML_SUCCESS);
        EQ(m2.total, total);
        m2.version = 1;
        NV(nvmlDeviceGetMemoryInfo_v2(h[i], &m2), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        int ma, mi, cma, cmi;
        NV(nvmlDeviceGetCudaComputeCapability(h[i], &ma, &mi), NVML_SUCCESS);
        MUST(cuDeviceGetAttribute(&cma, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d));
        MUST(cuDeviceGetAttribute(&cmi, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d));
        EQ(ma, cma);
        EQ(mi, cmi);
        for (unsigned j = 0; j < n; j++) {
            if (j == i)
                continue;
            CUdevice e;
            int can = -1;
            MUST(cuDeviceGet(&e, (int)j));
            MUST(cuDeviceCanAccessPeer(&can, d, e));
            nvmlGpuP2PStatus_t st;
            NV(nvmlDeviceGetP2PStatus(h[i], h[j], NVML_P2P_CAPS_INDEX_READ, &st), NVML_SUCCESS);
            EQ(st == NVML_P2P_STATUS_OK, can);
        }
    }
    nvmlGpuP2PStatus_t st;
    NV(nvmlDeviceGetP2PStatus(h[0], h[1], NVML_P2P_CAPS_INDEX_READ, &st), NVML_SUCCESS);
    EQ(st, NVML_P2P_STATUS_OK);                 /* SIMCUDA_PEER=0-1 */
    NV(nvmlDeviceGetP2PStatus(h[0], h[2], NVML_P2P_CAPS_INDEX_READ, &st), NVML_SUCCESS);
    EQ(st, NVML_P2P_STATUS_NOT_SUPPORTED);
    nvmlDevice_t bad;
    NV(nvmlDeviceGetHandleByIndex_v2(3, &bad), NVML_ERROR_INVALID_ARGUMENT);
    NV(nvmlDeviceGetHandleByUUID("GPU-00000000-0000-0000-0000-000000000000", &bad), NVML_ERROR_NOT_FOUND);
    char name[8];
    NV(nvmlDeviceGetName((nvmlDevice_t)(void *)&n, name, sizeof name), NVML_ERROR_INVALID_ARGUMENT);
    /* not implemented: its line, once */
    unsigned t;
    NV(nvmlDeviceGetTemperature(h[0], NVML_TEMPERATURE_GPU, &t), NVML_ERROR_NOT_SUPPORTED);
    NV(nvmlDeviceGetTemperature(h[1], NVML_TEMPERATURE_GPU, &t), NVML_ERROR_NOT_SUPPORTED);
    TRUE(!strcmp(nvmlErrorString(NVML_ERROR_NOT_SUPPORTED), "Not Supported"));
    NV(nvmlInit_v2(), NVML_SUCCESS);            /* counted: two shutdowns */
    NV(nvmlShutdown(), NVML_SUCCESS);
    NV(nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
    NV(nvmlShutdown(), NVML_SUCCESS);
    NV(nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
    NV(nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
    return drv_done("nvml_basic");
}
