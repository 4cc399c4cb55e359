/* See simdev.h. */
#include "simdev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int simdev_count(int quiet)
{
    const char *d = getenv("SIMCUDA_DEVICES");
    if (!d || !*d)
        return 4;
    char *end;
    long v = strtol(d, &end, 10);
    if (*end || v < 0 || v > SIMDEV_MAX) {
        if (!quiet)
            fprintf(stderr, "simcuda: SIMCUDA_DEVICES=%s: expected 0..%d\n", d, SIMDEV_MAX);
        return -1;
    }
    return (int)v;
}

size_t simdev_capacity(int quiet)
{
    size_t cap = (size_t)16 << 30;
    const char *m = getenv("SIMCUDA_MEM_MB");
    if (m && *m) {
        char *end;
        unsigned long long v = strtoull(m, &end, 10);
        if (!*end && v > 0 && v < (1ull << 24))
            cap = (size_t)v << 20;
        else if (!quiet)
            fprintf(stderr, "simcuda: SIMCUDA_MEM_MB=%s ignored\n", m);
    }
    return cap;
}

void simdev_peers(int n, unsigned char ok[SIMDEV_MAX][SIMDEV_MAX], int quiet)
{
    const char *p = getenv("SIMCUDA_PEER");
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            ok[a][b] = (a != b) && (!p || !strcmp(p, "all"));
    if (!p || !strcmp(p, "all") || !strcmp(p, "none"))
        return;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", p);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int a, b;
        if (sscanf(tok, "%d-%d", &a, &b) == 2 && a >= 0 && b >= 0 && a < n && b < n && a != b)
            ok[a][b] = ok[b][a] = 1;
        else if (!quiet)
            fprintf(stderr, "simcuda: SIMCUDA_PEER: ignoring '%s' (expected A-B pairs)\n", tok);
    }
}

int simdev_driver_version(int dflt, int quiet)
{
    const char *v = getenv("SIMCUDA_DRIVER_VERSION");
    if (!v || !*v)
        return dflt;
    char *end;
    long x = strtol(v, &end, 10);
    if (!*end && x >= 2000 && x <= 99990)
        return (int)x;
    if (!quiet)
        fprintf(stderr, "simcuda: SIMCUDA_DRIVER_VERSION=%s ignored (expected a CUDA_VERSION number such as 12020)\n", v);
    return dflt;
}

void simdev_name(int dev, char *buf, size_t n) { snprintf(buf, n, "SimCUDA GPU %d (simulated)", dev); }

void simdev_uuid(int dev, unsigned char uuid[16])
{
    static const unsigned char tmpl[16] = { 0x51, 0x5d, 0xc0, 0xda, 0x00, 0x00, 0x40, 0x00,
                                            0x80, 0x00, 0x73, 0x69, 0x6d, 0x63, 0x75, 0x00 };
    memcpy(uuid, tmpl, 16);
    uuid[15] = (unsigned char)dev;
}

void simdev_uuid_str(int dev, char *buf, size_t n)
{
    unsigned char b[16];
    simdev_uuid(dev, b);
    snprintf(buf, n, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

int simdev_pci_bus(int dev) { return 0x10 + dev; }

void simdev_pci_bus_id(int dev, char *buf, size_t n) { snprintf(buf, n, "00000000:%02X:00.0", simdev_pci_bus(dev)); }

void simdev_pci_bus_id_short(int dev, char *buf, size_t n) { snprintf(buf, n, "0000:%02X:00.0", simdev_pci_bus(dev)); }

/* One entry of CUDA_VISIBLE_DEVICES: the physical device, or -1. */
static int visible_entry(const char *tok, int nphys, int quiet)
{
    if (!strncmp(tok, "MIG-", 4)) {
        if (!quiet)
            fprintf(stderr, "simcuda: CUDA_VISIBLE_DEVICES: '%s': the sim has no MIG instances; "
                            "enumeration stops there\n", tok);
        return -1;
    }
    if (!strncmp(tok, "GPU-", 4)) {     /* a UUID or a prefix naming one device */
        int found = -1;
        size_t len = strlen(tok);
        for (int d = 0; d < nphys; d++) {
            char u[64];
            simdev_uuid_str(d, u, sizeof u);
            if (!strncasecmp(u, tok, len)) {
                if (found >= 0)
                    return -1;          /* the prefix names more than one */
                found = d;
            }
        }
        return found;
    }
    char *end;
    long v = strtol(tok, &end, 10);
    return end == tok || *end || v < 0 || v >= nphys ? -1 : (int)v;
}

int simdev_visible(int nphys, int map[SIMDEV_MAX], int quiet)
{
    const char *e = getenv("CUDA_VISIBLE_DEVICES");
    if (!e) {
        for (int i = 0; i < nphys; i++)
            map[i] = i;
        return nphys;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", e);
    int n = 0;
    char *rest = buf, *tok;
    while (n < nphys && (tok = strsep(&rest, ","))) {   /* an empty entry is an invalid one */
        int d = visible_entry(tok, nphys, quiet);
        for (int i = 0; i < n && d >= 0; i++)
            if (map[i] == d)
                d = -1;
        if (d < 0)
            break;
        map[n++] = d;
    }
    return n;
}
