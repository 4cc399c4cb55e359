/* A library asking the driver for a private export table (drv_export.c). */
#include <cuda.h>

int drv_export_ask(void);
int drv_export_ask(void)
{
    static const CUuuid other = { { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 } };
    const void *t = 0;
    return (int)cuGetExportTable(&t, &other);
}
