/* CUDA_VISIBLE_DEVICES on the sim: one line per visible ordinal, what the
 * driver says of it (UUID, PCI bus id, the ordinal cuDeviceGetByPCIBusId
 * finds back, the attribute's bus number, which ordinals it can peer with),
 * for drv_visible.sh to compare; or "init <error name>" when cuInit fails. */
#include "drv_check.h"
#include <string.h>

int main(void)
{
    CUresult r = cuInit(0);
    if (r != CUDA_SUCCESS) {
        printf("init %s\n", drv_errname(r));
        return 0;
    }
    int n = -1;
    MUST(cuDeviceGetCount(&n));
    printf("count %d\n", n);
    for (int d = 0; d < n; d++) {
        CUuuid u, u2;
        MUST(cuDeviceGetUuid(&u, d));
        MUST(cuDeviceGetUuid_v2(&u2, d));
        TRUE(!memcmp(u.bytes, u2.bytes, sizeof u.bytes));
        const unsigned char *b = (const unsigned char *)u.bytes;
        char bus[13];           /* cuda.h: "13 characters including the NULL-terminator" */
        MUST(cuDeviceGetPCIBusId(bus, (int)sizeof bus, d));
        CUdevice back = -1;
        OK(cuDeviceGetByPCIBusId(&back, bus));
        int busno = -1;
        OK(cuDeviceGetAttribute(&busno, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d));
        printf("%d GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x %s back=%d bus=%02X peers=",
               d, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15],
               bus, (int)back, busno);
        for (int p = 0; p < n; p++) {
            int can = 0;
            if (p != d)
                OK(cuDeviceCanAccessPeer(&can, d, p));
            if (can)
                printf("%d", p);
        }
        printf("\n");
    }
    EXPECT(cuDeviceGetByPCIBusId(&(CUdevice){ 0 }, "0000:7f:00.0"), CUDA_ERROR_INVALID_DEVICE);
    return drv_done("drv_visible");
}
