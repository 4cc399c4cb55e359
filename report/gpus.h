/* gpus: the process's devices as the machine knows them.  An ordinal is the
 * process's own (CUDA_VISIBLE_DEVICES, Ray's per-actor devices and Slurm's
 * binding renumber devices per process, so cuda:0 of two ranks can be two
 * GPUs); each ordinal's UUID (nvidia-smi's "GPU-..." form) and PCI bus id
 * ("0000:41:00.0", cuDeviceGetPCIBusId's) name the GPU itself.  The core
 * reads them once, through its own driver calls, when the report first asks
 * (dc_gpus_refresh: before a finding's record and the summary); the JSON
 * records carry them ("gpus", report/FORMAT.md) and the merge groups devices
 * by host and UUID (report/merge.h).
 * Set once per ordinal, read without a lock. */
#ifndef DEVCHECK_REPORT_GPUS_H
#define DEVCHECK_REPORT_GPUS_H
#include "common/format.h"
#include "report/finding.h"

#pragma GCC visibility push(hidden)

#define DC_GPUS_MAX 64          /* ordinals 0..63 (the schema's device range) */

/* Who reads the devices: the core's dc_devices_identify, which calls
 * dc_gpus_set for each device it can name (NULL: nobody; the replay). */
void dc_gpus_set_reader(void (*reader)(void));
/* Asks the reader, unless every device is known already.  Not from a signal
 * handler (the reader calls the driver). */
void dc_gpus_refresh(void);
/* Ordinal dev is uuid ("GPU-...", "" unknown) at pci ("" unknown); the first
 * call for an ordinal wins. */
void dc_gpus_set(int dev, const char *uuid, const char *pci);
/* The reader has named every device there is (the refresh stops asking). */
void dc_gpus_complete(void);
/* 1 with the strings when dev is known, else 0. */
int dc_gpus_get(int dev, const char **uuid, const char **pci);
/* ,"gpus":[{"device":N,"uuid":...,"pci_bus_id":...},...] of the known ones
 * among devs[0..n) (each once, in order), or of every known device when devs
 * is NULL; nothing when none is known. */
void dc_gpus_json(struct dc_buf *b, const int *devs, int n);

/* The devices finding f names (launch, current, owner and migration
 * devices, a framework error's tensors' cuda:N), at most max, into devs;
 * returns how many (repeats possible). */
int dc_gpus_of_finding(const struct dc_finding *f, int *devs, int max);
/* The console's line naming f's GPUs, "    GPUs: cuda:1 (GPU-515dc0da...3702,
 * 0000:11:00.0), ...\n", only where it helps: when CUDA_VISIBLE_DEVICES
 * (read when the reader is set) renumbers this process's devices and the
 * driver named them; nothing otherwise. */
void dc_gpus_text(struct dc_buf *b, const struct dc_finding *f);

#pragma GCC visibility pop
#endif
