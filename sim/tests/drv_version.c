/* The sim as an older driver (SIMCUDA_DRIVER_VERSION) or without chosen
 * entry points (SIMCUDA_HIDE).  Run by drv_version.sh in three set-ups:
 *   drv_version full      the toolkit's version, every entry point
 *   drv_version 12020     SIMCUDA_DRIVER_VERSION=12020
 *   drv_version hide      SIMCUDA_HIDE=cuFuncGetParamInfo,cuKernelGetParamInfo
 * cuGetProcAddress answers as that driver would (CUDA_ERROR_NOT_FOUND with
 * CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND for a symbol it never had, the newest
 * variant it has otherwise), dlsym finds no absent symbol, and a call bound
 * before the sim hid it (this program is linked with -z now) returns
 * CUDA_ERROR_NOT_SUPPORTED; cuLogsRegisterCallback delivers the sim's line
 * about it. */
#include "drv_check.h"

#include <dlfcn.h>
#include <string.h>

static int logged;
static char last[256];
static void CUDA_CB on_log(void *data, CUlogLevel level, char *message, size_t length)
{
    (void)level;
    (*(int *)data)++;
    snprintf(last, sizeof last, "%.*s", (int)length, message);
}

static void *proc(const char *name, int ver, CUdriverProcAddressQueryResult *st, CUresult *r)
{
    void *p = (void *)1;
    *r = cuGetProcAddress_v2(name, &p, ver, CU_GET_PROC_ADDRESS_DEFAULT, st);
    return p;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "full";
    int old = !strcmp(mode, "12020"), hide = !strcmp(mode, "hide");
    void *self = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    TRUE(self != NULL);
    MUST(cuInit(0));
    int v = 0;
    OK(cuDriverGetVersion(&v));
    EQ(v, old ? 12020 : CUDA_VERSION);

    CUdriverProcAddressQueryResult st;
    CUresult r;
    /* cuFuncGetParamInfo arrived in 12.4 */
    void *p = proc("cuFuncGetParamInfo", 13000, &st, &r);
    if (old || hide) {
        EXPECT(r, CUDA_ERROR_NOT_FOUND);
        EQ(st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
        TRUE(p == NULL);
        TRUE(dlsym(self, "cuFuncGetParamInfo") == NULL);
        TRUE(dlsym(RTLD_DEFAULT, "cuFuncGetParamInfo") == NULL);
    } else {
        OK(r);
        EQ(st, CU_GET_PROC_ADDRESS_SUCCESS);
        TRUE(p != NULL && p == dlsym(self, "cuFuncGetParamInfo"));
    }
    /* asked with an older version than its first: not sufficient, if the driver has it */
    p = proc("cuFuncGetParamInfo", 12000, &st, &r);
    EXPECT(r, CUDA_ERROR_NOT_FOUND);
    EQ(st, old || hide ? CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND : CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    /* cuStreamGetCaptureInfo: _v2 (11.3) and _v3 (12.3); a 12.2 driver has _v2 only */
    p = proc("cuStreamGetCaptureInfo", 12030, &st, &r);
    OK(r);
    EQ(st, CU_GET_PROC_ADDRESS_SUCCESS);
    TRUE(p == dlsym(self, old ? "cuStreamGetCaptureInfo_v2" : "cuStreamGetCaptureInfo_v3"));
    TRUE((dlsym(self, "cuStreamGetCaptureInfo_v3") == NULL) == old);
    /* cuKernelGetParamInfo (12.4) */
    p = proc("cuKernelGetParamInfo", 12040, &st, &r);
    EXPECT(r, old || hide ? CUDA_ERROR_NOT_FOUND : CUDA_SUCCESS);
    TRUE((dlsym(self, "cuKernelGetParamInfo") == NULL) == (old || hide));
    /* old entry points stay */
    p = proc("cuMemAlloc", 3020, &st, &r);
    OK(r);
    TRUE(p == dlsym(self, "cuMemAlloc_v2") && p != NULL);
    TRUE(dlsym(self, "cuLaunchKernel") != NULL);

    /* cuLogs* arrived in 12.9: not in a 12.2 driver */
    CUlogsCallbackHandle lh = NULL;
    if (old) {
        EXPECT(cuLogsRegisterCallback(on_log, &logged, &lh), CUDA_ERROR_NOT_SUPPORTED);
        TRUE(dlsym(self, "cuLogsRegisterCallback") == NULL);
    } else
        OK(cuLogsRegisterCallback(on_log, &logged, &lh));

    /* a reference bound at load time (-z now) reaches the sim, which refuses */
    CUfunction f = (CUfunction)(void *)&logged;     /* never dereferenced when absent */
    size_t off, size;
    if (old || hide) {
        EXPECT(cuFuncGetParamInfo(f, 0, &off, &size), CUDA_ERROR_NOT_SUPPORTED);
        EXPECT(cuFuncGetParamInfo(f, 0, &off, &size), CUDA_ERROR_NOT_SUPPORTED);
    } else
        EXPECT(cuFuncGetParamInfo(f, 0, &off, &size), CUDA_ERROR_INVALID_HANDLE);
    if (hide) {
        EQ(logged, 1);      /* the one line, once, delivered to the log callback */
        TRUE(strstr(last, "cuFuncGetParamInfo is hidden (SIMCUDA_HIDE)") != NULL);
        char buf[1024];
        size_t n = sizeof buf;
        CUlogIterator it = 0;
        OK(cuLogsDumpToMemory(&it, buf, &n, 0));
        TRUE(n > 0 && strstr(buf, "cuFuncGetParamInfo is hidden") != NULL);
        EQ(n, strlen(buf));
        n = sizeof buf;
        OK(cuLogsDumpToMemory(&it, buf, &n, 0));     /* the iterator moved past it */
        EQ(n, 0);
        n = 8;
        it = 0;
        EXPECT(cuLogsDumpToMemory(&it, buf, &n, 0), CUDA_ERROR_INVALID_VALUE);
        EQ(n, 0);
    }
    if (!old) {
        OK(cuLogsUnregisterCallback(lh));
        EXPECT(cuLogsUnregisterCallback(lh), CUDA_ERROR_INVALID_VALUE);
        EXPECT(cuLogsRegisterCallback(NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
        CUlogIterator it;
        EXPECT(cuLogsCurrent(&it, 1), CUDA_ERROR_INVALID_VALUE);
        OK(cuLogsCurrent(&it, 0));
    }
    return drv_done(old ? "drv_version 12020" : hide ? "drv_version hide" : "drv_version");
}
