/* The simulated NVML (libnvidia-ml.so.1): the machine's devices as the sim's
 * driver describes them (sim/driver/simdev.c: the same count, names, UUIDs,
 * PCI bus ids and peer topology from SIMCUDA_DEVICES, SIMCUDA_PEER,
 * SIMCUDA_MEM_MB, SIMCUDA_DRIVER_VERSION), without loading or initialising
 * the sim's libcuda (NVML never initialises CUDA: PyTorch counts devices
 * with it before a fork).
 *
 * Implemented: init / shutdown, device count, handles by index, UUID and
 * PCI bus id, name, UUID, index and minor number, PCI info (and Ext), memory info
 * (the device's capacity, all of it free: NVML would see every process's
 * allocations, the sim sees none of another process's), P2P status (every
 * capability index answers the SIMCUDA_PEER topology), compute capability,
 * driver version and branch, CUDA driver and NVML versions, error strings.  Every other entry
 * point of nvml.h is a stub (gen_stubs.py --api nvml): one line naming it,
 * once, and NVML_ERROR_NOT_SUPPORTED. */
#define NVML_NO_UNVERSIONED_FUNC_DEFS 1
#pragma GCC visibility push(default)
#include <nvml.h>
#pragma GCC visibility pop

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "simdev.h"

#define API __attribute__((visibility("default")))
#define TOOLKIT_CUDA 13000

/* The device handles: nvmlDevice_t points into this array. */
static struct { int index; } g_devs[SIMDEV_MAX];
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned g_inits;            /* nvmlInit count not yet shut down */
static int g_ndev;
static unsigned char g_peer[SIMDEV_MAX][SIMDEV_MAX];
static size_t g_capacity;

static nvmlReturn_t init(void)
{
    pthread_mutex_lock(&g_lock);
    nvmlReturn_t r = NVML_SUCCESS;
    if (g_inits == 0) {
        int n = simdev_count(1);
        if (n < 0)
            r = NVML_ERROR_UNKNOWN;     /* the driver says why when it starts */
        else {
            g_ndev = n;
            g_capacity = simdev_capacity(1);
            simdev_peers(n, g_peer, 1);
            for (int i = 0; i < n; i++)
                g_devs[i].index = i;
        }
    }
    if (r == NVML_SUCCESS)      /* publishes the devices to ready()'s readers */
        __atomic_add_fetch(&g_inits, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_lock);
    return r;
}
API nvmlReturn_t nvmlInit_v2(void) { return init(); }
API nvmlReturn_t nvmlInit(void) { return init(); }
API nvmlReturn_t nvmlInitWithFlags(unsigned int flags) { (void)flags; return init(); }

API nvmlReturn_t nvmlShutdown(void)
{
    pthread_mutex_lock(&g_lock);
    nvmlReturn_t r = g_inits ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
    if (g_inits)
        __atomic_sub_fetch(&g_inits, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_lock);
    return r;
}

static int ready(void) { return __atomic_load_n(&g_inits, __ATOMIC_ACQUIRE) != 0; }

/* The device index of handle d, or -1. */
static int index_of(nvmlDevice_t d)
{
    const char *p = (const char *)d, *base = (const char *)g_devs;
    if (!d || p < base || p >= base + g_ndev * sizeof g_devs[0] || (size_t)(p - base) % sizeof g_devs[0])
        return -1;
    return ((const int *)p)[0];
}

#define DEVICE(d, i) \
    int i = index_of(d); \
    if (!ready()) \
        return NVML_ERROR_UNINITIALIZED; \
    if (i < 0) \
        return NVML_ERROR_INVALID_ARGUMENT

static nvmlReturn_t count(unsigned int *n)
{
    if (!ready())
        return NVML_ERROR_UNINITIALIZED;
    if (!n)
        return NVML_ERROR_INVALID_ARGUMENT;
    *n = (unsigned)g_ndev;
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount) { return count(deviceCount); }
API nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount) { return count(deviceCount); }

static nvmlReturn_t by_index(unsigned int i, nvmlDevice_t *d)
{
    if (!ready())
        return NVML_ERROR_UNINITIALIZED;
    if (!d || i >= (unsigned)g_ndev)
        return NVML_ERROR_INVALID_ARGUMENT;
    *d = (nvmlDevice_t)(void *)&g_devs[i];
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) { return by_index(index, device); }
API nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device) { return by_index(index, device); }

/* "GPU-515dc0da-0000-4000-8000-73696d637500": cuDeviceGetUuid's bytes */
static void uuid_string(int dev, char *out, size_t n)
{
    unsigned char u[16];
    simdev_uuid(dev, u);
    snprintf(out, n, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
             u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
    if (!ready())
        return NVML_ERROR_UNINITIALIZED;
    if (!uuid || !device)
        return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < g_ndev; i++) {
        char s[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
        uuid_string(i, s, sizeof s);
        if (!strcasecmp(s, uuid))
            return by_index((unsigned)i, device);
    }
    return NVML_ERROR_NOT_FOUND;
}

static nvmlReturn_t by_bus_id(const char *id, nvmlDevice_t *device)
{
    if (!ready())
        return NVML_ERROR_UNINITIALIZED;
    if (!id || !device)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned dom, bus, dv, fn;
    if (sscanf(id, "%x:%x:%x.%x", &dom, &bus, &dv, &fn) != 4)
        return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < g_ndev; i++)
        if (dom == 0 && bus == (unsigned)simdev_pci_bus(i) && dv == 0 && fn == 0)
            return by_index((unsigned)i, device);
    return NVML_ERROR_NOT_FOUND;
}
API nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device) { return by_bus_id(pciBusId, device); }
API nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device) { return by_bus_id(pciBusId, device); }

/* Copies s into buf of length len: NVML_ERROR_INSUFFICIENT_SIZE if it does not fit. */
static nvmlReturn_t put(char *buf, unsigned len, const char *s)
{
    if (!buf)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (strlen(s) + 1 > len)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(buf, s, strlen(s) + 1);
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    DEVICE(device, i);
    char s[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    simdev_name(i, s, sizeof s);
    return put(name, length, s);
}

API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    DEVICE(device, i);
    char s[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    uuid_string(i, s, sizeof s);
    return put(uuid, length, s);
}

API nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
    DEVICE(device, i);
    if (!index)
        return NVML_ERROR_INVALID_ARGUMENT;
    *index = (unsigned)i;
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber)
{
    return nvmlDeviceGetIndex(device, minorNumber);     /* /dev/nvidia<i> */
}

static nvmlReturn_t pci_info(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    DEVICE(device, i);
    if (!pci)
        return NVML_ERROR_INVALID_ARGUMENT;
    memset(pci, 0, sizeof *pci);
    pci->domain = 0;
    pci->bus = (unsigned)simdev_pci_bus(i);
    pci->device = 0;
    pci->pciDeviceId = 0x233010DE;      /* an H100's device id, NVIDIA's vendor id */
    pci->pciSubSystemId = 0x16C110DE;
    simdev_pci_bus_id(i, pci->busId, sizeof pci->busId);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:%02X:00.0", pci->bus);
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) { return pci_info(device, pci); }
API nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci) { return pci_info(device, pci); }
API nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci) { return pci_info(device, pci); }

API nvmlReturn_t nvmlDeviceGetPciInfoExt(nvmlDevice_t device, nvmlPciInfoExt_t *pci)
{
    nvmlPciInfo_t p;
    if (!pci)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (pci->version != nvmlPciInfoExt_v1)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    nvmlReturn_t r = pci_info(device, &p);
    if (r != NVML_SUCCESS)
        return r;
    pci->domain = p.domain;
    pci->bus = p.bus;
    pci->device = p.device;
    pci->pciDeviceId = p.pciDeviceId;
    pci->pciSubSystemId = p.pciSubSystemId;
    pci->baseClass = 0x03;              /* display controller, 3D */
    pci->subClass = 0x02;
    memcpy(pci->busId, p.busId, sizeof pci->busId);
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    DEVICE(device, i);
    (void)i;
    if (!memory)
        return NVML_ERROR_INVALID_ARGUMENT;
    memory->total = memory->free = g_capacity;
    memory->used = 0;
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
    DEVICE(device, i);
    (void)i;
    if (!memory)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (memory->version != nvmlMemory_v2)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    memory->total = memory->free = g_capacity;
    memory->reserved = memory->used = 0;
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2, nvmlGpuP2PCapsIndex_t p2pIndex,
                                        nvmlGpuP2PStatus_t *p2pStatus)
{
    DEVICE(device1, a);
    int b = index_of(device2);
    if (b < 0 || !p2pStatus || (unsigned)p2pIndex >= (unsigned)NVML_P2P_CAPS_INDEX_UNKNOWN)
        return NVML_ERROR_INVALID_ARGUMENT;
    *p2pStatus = a == b || g_peer[a][b] ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{
    DEVICE(device, i);
    (void)i;
    if (!major || !minor)
        return NVML_ERROR_INVALID_ARGUMENT;
    *major = 9;                         /* as cuDeviceComputeCapability */
    *minor = 0;
    return NVML_SUCCESS;
}

/* A display driver of the branch that shipped CUDA version v. */
static const char *driver_of(int v)
{
    return v >= 13000 ? "580.65.06" : v >= 12080 ? "570.124.06" : v >= 12040 ? "550.54.14" :
           v >= 12020 ? "535.261.03" : v >= 12000 ? "525.60.13" : "470.256.02";
}

API nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    if (!ready())
        return NVML_ERROR_UNINITIALIZED;
    return put(version, length, driver_of(simdev_driver_version(TOOLKIT_CUDA, 1)));
}

API nvmlReturn_t nvmlSystemGetDriverBranch(nvmlSystemDriverBranchInfo_t *branchInfo, unsigned int length)
{
    if (!ready())
        return NVML_ERROR_UNINITIALIZED;
    if (!branchInfo)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (branchInfo->version != nvmlSystemDriverBranchInfo_v1)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    char b[8];
    snprintf(b, sizeof b, "%.3s", driver_of(simdev_driver_version(TOOLKIT_CUDA, 1)));
    if (length > sizeof branchInfo->branch)
        length = sizeof branchInfo->branch;
    return put(branchInfo->branch, length, b);
}

API nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
    int v = simdev_driver_version(TOOLKIT_CUDA, 1);
    char s[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE];
    snprintf(s, sizeof s, "%d.%s", v / 1000, driver_of(v));
    return put(version, length, s);
}

static nvmlReturn_t cuda_version(int *v)
{
    if (!v)
        return NVML_ERROR_INVALID_ARGUMENT;
    *v = simdev_driver_version(TOOLKIT_CUDA, 1);
    return NVML_SUCCESS;
}
API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion) { return cuda_version(cudaDriverVersion); }
API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion) { return cuda_version(cudaDriverVersion); }

API const char *nvmlErrorString(nvmlReturn_t result)
{
    switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_ALREADY_INITIALIZED: return "Already Initialized";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT: return "Timeout";
    case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML Shared Library Not Found";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "Argument Version Mismatch";
    default: return "Unknown Error";
    }
}
