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
/* PCI bus number (domain 0, device 0, function 0) and its "0000:BB:00.0" string */
SIMDEV_HIDDEN int simdev_pci_bus(int dev);
SIMDEV_HIDDEN void simdev_pci_bus_id(int dev, char *buf, size_t n);
#endif
