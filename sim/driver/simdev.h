/* The simulated machine's devices as the environment describes them
 * (SIMCUDA_DEVICES, SIMCUDA_MEM_MB, SIMCUDA_PEER, SIMCUDA_DRIVER_VERSION), with their names, UUIDs
 * and PCI bus ids: one source for libcuda.so.1 (core.c) and
 * libnvidia-ml.so.1 (sim/nvml/), so that both describe the same devices.
 * Each library compiles simdev.c in with its symbols hidden. */
#ifndef SIMCUDA_SIMDEV_H
#define SIMCUDA_SIMDEV_H
#include <stddef.h>

#define SIMDEV_MAX 16
#define SIMDEV_HIDDEN __attribute__((visibility("hidden")))

/* SIMCUDA_DEVICES: 0..SIMDEV_MAX (default 4), -1 when invalid (said on
 * stderr unless quiet). */
SIMDEV_HIDDEN int simdev_count(int quiet);
/* SIMCUDA_MEM_MB in bytes (default 16 GiB). */
SIMDEV_HIDDEN size_t simdev_capacity(int quiet);
/* SIMCUDA_PEER for n devices: ok[a][b] = a and b can peer. */
SIMDEV_HIDDEN void simdev_peers(int n, unsigned char ok[SIMDEV_MAX][SIMDEV_MAX], int quiet);
/* SIMCUDA_DRIVER_VERSION (a CUDA_VERSION number), or dflt. */
SIMDEV_HIDDEN int simdev_driver_version(int dflt, int quiet);
SIMDEV_HIDDEN void simdev_name(int dev, char *buf, size_t n);
SIMDEV_HIDDEN void simdev_uuid(int dev, unsigned char uuid[16]);
/* The UUID as nvidia-smi and NVML write it: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx". */
SIMDEV_HIDDEN void simdev_uuid_str(int dev, char *buf, size_t n);
/* PCI bus number (domain 0, device 0, function 0); NVML's busId string
 * "00000000:BB:00.0" (8-digit domain, nvml.h's NVML_DEVICE_PCI_BUS_ID_FMT) and
 * the driver's "0000:BB:00.0" (cuda.h, cuDeviceGetPCIBusId: "[domain]:[bus]:
 * [device].[function]", 13 characters with the NUL; NVML's busIdLegacy). */
SIMDEV_HIDDEN int simdev_pci_bus(int dev);
SIMDEV_HIDDEN void simdev_pci_bus_id(int dev, char *buf, size_t n);
SIMDEV_HIDDEN void simdev_pci_bus_id_short(int dev, char *buf, size_t n);
/* CUDA_VISIBLE_DEVICES over nphys physical devices, as the CUDA C Programming
 * Guide's "CUDA Environment Variables" says: a comma-separated list of
 * ordinals or UUIDs ("GPU-..." as nvidia-smi writes them, or a prefix of one
 * that names a single device), enumerated in the list's order from 0; the
 * first invalid entry ends the list.  Fills map[visible] = physical and
 * returns the number of visible devices (nphys when unset).  A repeated
 * device ends the list too (the guide does not say; the sim's choice); a
 * "MIG-" entry ends it with one line on stderr (no MIG in the sim). */
SIMDEV_HIDDEN int simdev_visible(int nphys, int map[SIMDEV_MAX], int quiet);
#endif
