/* drv_export: cuGetExportTable with a UUID the sim does not know (NVIDIA's
 * private tables) returns CUDA_ERROR_NOT_SUPPORTED and a NULL table, and the
 * sim says so once per calling library (drv_export.sh counts the lines);
 * the sim's own CUPTI table is still handed out. */
#include "drv_check.h"

#include <dlfcn.h>
#include <string.h>

#ifndef KDIR
#error KDIR must name the directory holding libdrv_export.so
#endif

/* NVIDIA's runtime asks for this one first (seen from libcudart.so.13) */
static const CUuuid nvidia = { { (char)0x6b, (char)0xd5, (char)0xfb, (char)0x6c, (char)0x5b, (char)0xf4, (char)0xe7, (char)0x4a,
                                 (char)0x89, (char)0x87, (char)0xd9, (char)0x39, (char)0x12, (char)0xfd, (char)0x9d, (char)0xf9 } };

int main(void)
{
    MUST(cuInit(0));
    const void *t = (const void *)1;
    EXPECT(cuGetExportTable(&t, &nvidia), CUDA_ERROR_NOT_SUPPORTED);
    TRUE(t == NULL);
    EXPECT(cuGetExportTable(&t, &nvidia), CUDA_ERROR_NOT_SUPPORTED);      /* told once */
    EXPECT(cuGetExportTable(NULL, &nvidia), CUDA_ERROR_INVALID_VALUE);
    void *lib = dlopen(KDIR "/libdrv_export.so", RTLD_NOW | RTLD_LOCAL);
    TRUE(lib != NULL);
    if (lib) {
        int (*ask)(void) = (int (*)(void))dlsym(lib, "drv_export_ask");
        TRUE(ask != NULL);
        if (ask) {
            EQ(ask(), CUDA_ERROR_NOT_SUPPORTED);
            EQ(ask(), CUDA_ERROR_NOT_SUPPORTED);
        }
    }
    return drv_done("drv_export");
}
