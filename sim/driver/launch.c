/* Modules, libraries, functions and kernels; launches through host twins,
 * faulting where a real GPU would (operands.c, guard.c); occupancy queries. */
#include "internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ENTER(code) do { CUresult e__ = sim_enter(__func__, (code)); if (e__ != CUDA_SUCCESS) return e__; } while (0)
#define LOCKED(expr) __extension__({ sim_lock(); CUresult r__ = (expr); sim_unlock(); r__; })

#define DEFAULT_DYN_SMEM 49152
#define MAX_DYN_SMEM     232448
#define NUM_SM           132

/* Freed function objects are handed out again, the most recently freed
 * first: a driver's allocator may give a new function the address of one that
 * died with its context or module, and a program (or a tool) that keeps
 * information by handle must see that.  At most FREE_FUNCS are kept. */
#define FREE_FUNCS 64
static struct sim_func *free_funcs[FREE_FUNCS];     /* lock held */
static unsigned nfree_funcs;

static struct sim_func *func_new(const struct sim_kernel_info *ki, int is_kernel)
{
    struct sim_func *f = nfree_funcs ? free_funcs[--nfree_funcs] : malloc(sizeof *f);
    if (!f)
        return NULL;
    memset(f, 0, sizeof *f);
    f->ki = ki;
    f->is_kernel = is_kernel;
    f->max_dyn_smem = DEFAULT_DYN_SMEM;
    f->carveout = -1;
    sim_obj_add(f, T_FUNC);
    return f;
}

static void func_free(struct sim_func *f)
{
    if (!f)
        return;
    sim_obj_del(f);
    if (nfree_funcs < FREE_FUNCS)
        free_funcs[nfree_funcs++] = f;
    else
        free(f);
}

/* A library's per-context functions of one kernel. */
static void func_chain_free(struct sim_func *f)
{
    while (f) {
        struct sim_func *next = f->next;
        func_free(f);
        f = next;
    }
}

/* CUfunction or CUkernel */
static struct sim_func *func_get(const void *h)
{
    return sim_obj_get(h, T_FUNC);
}

/* ---------------- modules ---------------- */
static uint32_t g_module_ids;   /* CUPTI module ids (lock held) */

/* CUPTI MODULE_LOADED for a module or library just loaded from image */
static void module_loaded_note(CUcontext ctx, uint32_t id, const void *image, size_t size)
{
    if (!sim_cb_wanted(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED))
        return;
    sim_cb_module(CUPTI_CBID_RESOURCE_MODULE_LOADED, ctx, id, image, size ? size : sim_image_extent(image));
}

static CUresult module_from_image(CUmodule *out, const void *image, size_t size)
{
    if (!out || !image)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    struct sim_module *m = calloc(1, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (sim_image_parse(image, size, &m->img) != 0) {
        free(m);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    m->owns_img = 1;
    m->ctx = c;
    m->funcs = calloc(m->img.nkernels + 1, sizeof *m->funcs);
    if (!m->funcs) {
        sim_image_free(&m->img);
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->cb_id = ++g_module_ids;
    sim_obj_add(m, T_MODULE);
    *out = (CUmodule)m;
    return CUDA_SUCCESS;
}

/* module_from_image, then MODULE_LOADED (without the lock) */
static CUresult module_load_note(CUmodule *out, const void *image, size_t size)
{
    sim_lock();
    CUresult r = module_from_image(out, image, size);
    struct sim_module *m = r == CUDA_SUCCESS ? (struct sim_module *)*out : NULL;
    CUcontext ctx = m ? (CUcontext)m->ctx : NULL;
    uint32_t id = m ? m->cb_id : 0;
    sim_unlock();
    if (r == CUDA_SUCCESS)
        module_loaded_note(ctx, id, image, size);
    return r;
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
    ENTER(CUDA_ERROR_INVALID_IMAGE);
    return module_load_note(module, image, 0);
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions, CUjit_option *options, void **optionValues)
{
    ENTER(CUDA_ERROR_INVALID_IMAGE);
    if (numOptions && (!options || !optionValues))
        return CUDA_ERROR_INVALID_VALUE;
    return module_load_note(module, image, 0);
}

CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    ENTER(CUDA_ERROR_INVALID_IMAGE);
    return module_load_note(module, fatCubin, 0);
}

static void *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        char *nb = realloc(buf, cap * 2 + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    if (buf)
        buf[n] = 0;   /* PTX text must be NUL-terminated */
    *len = n;
    return buf;
}

CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname)
{
    ENTER(CUDA_ERROR_FILE_NOT_FOUND);
    if (!module || !fname)
        return CUDA_ERROR_INVALID_VALUE;
    size_t len;
    void *buf = read_file(fname, &len);
    if (!buf)
        return CUDA_ERROR_FILE_NOT_FOUND;
    CUresult r = module_load_note(module, buf, len);
    free(buf);
    return r;
}

static void module_free(struct sim_module *m)
{
    sim_globals_drop(m);
    for (unsigned i = 0; i < m->img.nkernels; i++)
        func_free(m->funcs[i]);
    free(m->funcs);
    if (m->owns_img)
        sim_image_free(&m->img);
    sim_obj_del(m);
    free(m);
}

static CUresult module_unload(CUmodule h)
{
    struct sim_module *m = sim_obj_get(h, T_MODULE);
    if (!m || !m->owns_img)
        return CUDA_ERROR_INVALID_HANDLE;
    module_free(m);
    return CUDA_SUCCESS;
}
static CUresult library_unload(CUlibrary h);

/* MODULE_UNLOAD_STARTING (module or library h, without the lock; pCubin NULL:
 * the image may be gone), then unload */
static CUresult unload_note(const void *h, int type)
{
    if (sim_cb_wanted(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING)) {
        sim_lock();
        struct sim_module *m = type == T_MODULE ? sim_obj_get(h, T_MODULE) : NULL;
        struct sim_library *l = type == T_LIBRARY ? sim_obj_get(h, T_LIBRARY) : NULL;
        int found = (m && m->owns_img) || l;
        CUcontext ctx = m ? (CUcontext)m->ctx : (CUcontext)sim_cur_ctx();
        uint32_t id = m ? m->cb_id : l ? l->cb_id : 0;
        sim_unlock();
        if (found)
            sim_cb_module(CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING, ctx, id, NULL, 0);
    }
    return type == T_MODULE ? LOCKED(module_unload((CUmodule)h)) : LOCKED(library_unload((CUlibrary)h));
}
CUresult CUDAAPI cuModuleUnload(CUmodule hmod) { ENTER(CUDA_ERROR_INVALID_HANDLE); return unload_note(hmod, T_MODULE); }

static int kernel_index(const struct sim_image *img, const char *name)
{
    const struct sim_kernel_info *ki = sim_image_find(img, name);
    return ki ? (int)(ki - img->kernels) : -1;
}

static CUresult module_get_function(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    if (!hfunc || !name)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_module *m = sim_obj_get(hmod, T_MODULE);
    if (!m)
        return CUDA_ERROR_INVALID_HANDLE;
    int i = kernel_index(&m->img, name);
    if (i < 0)
        return CUDA_ERROR_NOT_FOUND;
    if (!m->funcs[i]) {
        m->funcs[i] = func_new(&m->img.kernels[i], 0);
        if (!m->funcs[i])
            return CUDA_ERROR_OUT_OF_MEMORY;
        m->funcs[i]->mod = m;
    }
    *hfunc = (CUfunction)m->funcs[i];
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) { ENTER(CUDA_ERROR_NOT_FOUND); return LOCKED(module_get_function(hfunc, hmod, name)); }

static CUresult module_count(unsigned *count, CUmodule hmod)
{
    struct sim_module *m = sim_obj_get(hmod, T_MODULE);
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    if (!m)
        return CUDA_ERROR_INVALID_HANDLE;
    *count = m->img.nkernels;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleGetFunctionCount(unsigned int *count, CUmodule mod) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(module_count(count, mod)); }

/* A context goes (destroyed, or a primary context reset): as with a real
 * driver, the modules loaded in it are unloaded with it (their handles and
 * their functions' handles become invalid), and the functions
 * cuKernelGetFunction gave in it go; a library stays loaded, and gives a new
 * function in the next context.  Freed function handles are reused
 * (func_new), so a handle may come back naming another kernel.  Lock held. */
static struct {
    struct sim_ctx *ctx;
    void **v;
    size_t n, cap;
} g_gone_mods;

static void collect_ctx_modules(const void *nodep, VISIT which, int depth)
{
    (void)depth;
    if (which != postorder && which != leaf)
        return;
    struct sim_obj *o = *(struct sim_obj *const *)nodep;
    int mine = (o->type == T_MODULE && ((struct sim_module *)o)->owns_img &&
                ((struct sim_module *)o)->ctx == g_gone_mods.ctx) || o->type == T_LIBRARY;
    if (mine && g_gone_mods.n < g_gone_mods.cap)
        g_gone_mods.v[g_gone_mods.n++] = o;
}

void sim_modules_ctx_gone(struct sim_ctx *ctx)
{
    for (;;) {
        g_gone_mods.ctx = ctx;
        g_gone_mods.n = 0;
        g_gone_mods.cap = 4096;
        g_gone_mods.v = malloc(g_gone_mods.cap * sizeof(void *));
        if (!g_gone_mods.v)
            return;
        sim_objects_walk(collect_ctx_modules);
        size_t n = g_gone_mods.n, modules = 0;
        for (size_t i = 0; i < n; i++) {
            struct sim_obj *o = g_gone_mods.v[i];
            if (o->type == T_MODULE) {
                module_free((struct sim_module *)o);
                modules++;
                continue;
            }
            struct sim_library *l = (struct sim_library *)o;
            for (unsigned k = 0; k < l->img.nkernels; k++) {
                struct sim_func **pf = &l->funcs[k];
                while (*pf) {
                    struct sim_func *f = *pf;
                    if (f->ctx == ctx) {
                        *pf = f->next;
                        func_free(f);
                    } else {
                        pf = &f->next;
                    }
                }
            }
        }
        free(g_gone_mods.v);
        /* a full collection may have left modules behind: walk again */
        if (n < g_gone_mods.cap || !modules)
            return;
    }
}

/* ---------------- libraries and kernels ---------------- */
static CUresult library_from_image(CUlibrary *out, const void *code, size_t size)
{
    if (!out || !code)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_library *l = calloc(1, sizeof *l);
    if (!l)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (sim_image_parse(code, size, &l->img) != 0) {
        free(l);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    l->kernels = calloc(l->img.nkernels + 1, sizeof *l->kernels);
    l->funcs = calloc(l->img.nkernels + 1, sizeof *l->funcs);
    if (!l->kernels || !l->funcs) {
        free(l->kernels);
        free(l->funcs);
        sim_image_free(&l->img);
        free(l);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    l->cb_id = ++g_module_ids;
    sim_obj_add(l, T_LIBRARY);
    *out = (CUlibrary)l;
    return CUDA_SUCCESS;
}

/* library_from_image, then MODULE_LOADED in the current context (a
 * library belongs to none; the sim loads it into every one at once) */
static CUresult library_load_note(CUlibrary *out, const void *code, size_t size)
{
    sim_lock();
    CUresult r = library_from_image(out, code, size);
    uint32_t id = r == CUDA_SUCCESS ? ((struct sim_library *)*out)->cb_id : 0;
    CUcontext ctx = (CUcontext)sim_cur_ctx();
    sim_unlock();
    if (r == CUDA_SUCCESS)
        module_loaded_note(ctx, id, code, size);
    return r;
}

CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions, void **jitOptionsValues, unsigned int numJitOptions,
                                   CUlibraryOption *libraryOptions, void **libraryOptionValues, unsigned int numLibraryOptions)
{
    ENTER(CUDA_ERROR_INVALID_IMAGE);
    (void)jitOptions; (void)jitOptionsValues; (void)numJitOptions;
    (void)libraryOptions; (void)libraryOptionValues; (void)numLibraryOptions;
    return library_load_note(library, code, 0);
}

CUresult CUDAAPI cuLibraryLoadFromFile(CUlibrary *library, const char *fileName, CUjit_option *jitOptions, void **jitOptionsValues, unsigned int numJitOptions,
                                       CUlibraryOption *libraryOptions, void **libraryOptionValues, unsigned int numLibraryOptions)
{
    ENTER(CUDA_ERROR_FILE_NOT_FOUND);
    (void)jitOptions; (void)jitOptionsValues; (void)numJitOptions;
    (void)libraryOptions; (void)libraryOptionValues; (void)numLibraryOptions;
    if (!library || !fileName)
        return CUDA_ERROR_INVALID_VALUE;
    size_t len;
    void *buf = read_file(fileName, &len);
    if (!buf)
        return CUDA_ERROR_FILE_NOT_FOUND;
    CUresult r = library_load_note(library, buf, len);
    free(buf);
    return r;
}

static CUresult library_unload(CUlibrary h)
{
    struct sim_library *l = sim_obj_get(h, T_LIBRARY);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    sim_globals_drop(l);
    for (unsigned i = 0; i < l->img.nkernels; i++) {
        func_free(l->kernels[i]);
        func_chain_free(l->funcs[i]);
    }
    if (l->mod) {
        for (unsigned i = 0; i < l->img.nkernels; i++)
            func_free(l->mod->funcs[i]);
        free(l->mod->funcs);
        sim_obj_del(l->mod);
        free(l->mod);
    }
    free(l->kernels);
    free(l->funcs);
    sim_image_free(&l->img);
    sim_obj_del(l);
    free(l);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLibraryUnload(CUlibrary library) { ENTER(CUDA_ERROR_INVALID_HANDLE); return unload_note(library, T_LIBRARY); }

static CUresult lib_kernel(struct sim_library *l, int i, struct sim_func **out)
{
    if (!l->kernels[i]) {
        l->kernels[i] = func_new(&l->img.kernels[i], 1);
        if (!l->kernels[i])
            return CUDA_ERROR_OUT_OF_MEMORY;
        l->kernels[i]->lib = l;
    }
    *out = l->kernels[i];
    return CUDA_SUCCESS;
}

static CUresult library_get_kernel(CUkernel *pk, CUlibrary h, const char *name)
{
    if (!pk || !name)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_library *l = sim_obj_get(h, T_LIBRARY);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    int i = kernel_index(&l->img, name);
    if (i < 0)
        return CUDA_ERROR_NOT_FOUND;
    struct sim_func *k;
    CUresult r = lib_kernel(l, i, &k);
    if (r == CUDA_SUCCESS)
        *pk = (CUkernel)k;
    return r;
}
CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name) { ENTER(CUDA_ERROR_NOT_FOUND); return LOCKED(library_get_kernel(pKernel, library, name)); }

static CUresult library_kernel_count(unsigned *count, CUlibrary h)
{
    struct sim_library *l = sim_obj_get(h, T_LIBRARY);
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    *count = l->img.nkernels;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(library_kernel_count(count, lib)); }

static CUresult library_enum(CUkernel *kernels, unsigned n, CUlibrary h)
{
    struct sim_library *l = sim_obj_get(h, T_LIBRARY);
    if (!kernels)
        return CUDA_ERROR_INVALID_VALUE;
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    for (unsigned i = 0; i < n && i < l->img.nkernels; i++) {
        struct sim_func *k;
        CUresult r = lib_kernel(l, (int)i, &k);
        if (r != CUDA_SUCCESS)
            return r;
        kernels[i] = (CUkernel)k;
    }
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int numKernels, CUlibrary lib) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(library_enum(kernels, numKernels, lib)); }

static CUresult library_get_module(CUmodule *pMod, CUlibrary h)
{
    if (!pMod)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_library *l = sim_obj_get(h, T_LIBRARY);
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!l->mod) {
        struct sim_module *m = calloc(1, sizeof *m);
        if (!m)
            return CUDA_ERROR_OUT_OF_MEMORY;
        m->img = l->img;
        m->owns_img = 0;
        m->lib = l;
        m->ctx = c;
        m->funcs = calloc(l->img.nkernels + 1, sizeof *m->funcs);
        if (!m->funcs) {
            free(m);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        sim_obj_add(m, T_MODULE);
        l->mod = m;
    }
    *pMod = (CUmodule)l->mod;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLibraryGetModule(CUmodule *pMod, CUlibrary library) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(library_get_module(pMod, library)); }

CUresult CUDAAPI cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name)
{
    ENTER(CUDA_ERROR_NOT_FOUND);
    (void)dptr; (void)bytes;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_library *l = sim_obj_get(library, T_LIBRARY);
    sim_unlock();
    return l ? CUDA_ERROR_NOT_FOUND : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult kernel_get_function(CUfunction *pFunc, CUkernel kernel)
{
    if (!pFunc)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_func *k = func_get(kernel);
    if (!k || !k->is_kernel)
        return CUDA_ERROR_INVALID_HANDLE;
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    struct sim_library *l = k->lib;
    int i = (int)(k->ki - l->img.kernels);
    struct sim_func *f = l->funcs[i];
    while (f && f->ctx != c)
        f = f->next;
    if (!f) {                   /* one function per context, as a real driver */
        if (!(f = func_new(k->ki, 0)))
            return CUDA_ERROR_OUT_OF_MEMORY;
        f->lib = l;
        f->ctx = c;
        f->max_dyn_smem = k->max_dyn_smem;
        f->next = l->funcs[i];
        l->funcs[i] = f;
    }
    *pFunc = (CUfunction)f;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(kernel_get_function(pFunc, kernel)); }

static CUresult kernel_get_library(CUlibrary *pLib, CUkernel kernel)
{
    struct sim_func *k = func_get(kernel);
    if (!pLib)
        return CUDA_ERROR_INVALID_VALUE;
    if (!k || !k->is_kernel)
        return CUDA_ERROR_INVALID_HANDLE;
    *pLib = (CUlibrary)k->lib;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(kernel_get_library(pLib, kernel)); }

static CUresult get_name(const char **name, const void *h, int want_kernel)
{
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_func *f = func_get(h);
    if (!f || (want_kernel && !f->is_kernel))
        return CUDA_ERROR_INVALID_HANDLE;
    *name = f->ki->name;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction hfunc) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(get_name(name, hfunc, 0)); }
CUresult CUDAAPI cuKernelGetName(const char **name, CUkernel hfunc) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(get_name(name, hfunc, 1)); }

static CUresult param_info(const void *h, size_t i, size_t *off, size_t *size, int want_kernel)
{
    struct sim_func *f = func_get(h);
    if (!f || (want_kernel && !f->is_kernel))
        return CUDA_ERROR_INVALID_HANDLE;
    if (i >= f->ki->nparams || (!off && !size))
        return CUDA_ERROR_INVALID_VALUE;
    if (off)
        *off = f->ki->params[i].offset;
    if (size)
        *size = f->ki->params[i].size;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset, size_t *paramSize) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(param_info(func, paramIndex, paramOffset, paramSize, 0)); }
CUresult CUDAAPI cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset, size_t *paramSize) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(param_info(kernel, paramIndex, paramOffset, paramSize, 1)); }

static CUresult func_attr(int *pi, CUfunction_attribute a, struct sim_func *f)
{
    switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = 32; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = 90; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = 90; break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = f->max_dyn_smem; break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = f->carveout; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *pi = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

static CUresult func_get_attr(int *pi, CUfunction_attribute a, const void *h, int want_kernel, CUdevice dev)
{
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_func *f = func_get(h);
    if (!f || (want_kernel && !f->is_kernel))
        return CUDA_ERROR_INVALID_HANDLE;
    if (want_kernel && (dev < 0 || dev >= sim_g.ndev))
        return CUDA_ERROR_INVALID_DEVICE;
    return func_attr(pi, a, f);
}
CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(func_get_attr(pi, attrib, hfunc, 0, 0)); }
CUresult CUDAAPI cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(func_get_attr(pi, attrib, kernel, 1, dev)); }

static CUresult func_set_attr(const void *h, CUfunction_attribute a, int v, int want_kernel)
{
    struct sim_func *f = func_get(h);
    if (!f || (want_kernel && !f->is_kernel))
        return CUDA_ERROR_INVALID_HANDLE;
    switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        if (v < 0 || v > MAX_DYN_SMEM)
            return CUDA_ERROR_INVALID_VALUE;
        f->max_dyn_smem = v;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        if (v < -1 || v > 100)
            return CUDA_ERROR_INVALID_VALUE;
        f->carveout = v;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}
CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(func_set_attr(hfunc, attrib, value, 0)); }
CUresult CUDAAPI cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (dev < 0 || dev >= sim_g.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    return LOCKED(func_set_attr(kernel, attrib, val, 1));
}

static CUresult func_cache(const void *h, CUfunc_cache c)
{
    struct sim_func *f = func_get(h);
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    f->cache_config = (int)c;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(func_cache(hfunc, config)); }
CUresult CUDAAPI cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev) { ENTER(CUDA_ERROR_INVALID_VALUE); (void)dev; return LOCKED(func_cache(kernel, config)); }

static CUresult func_module(CUmodule *hmod, CUfunction h)
{
    struct sim_func *f = func_get(h);
    if (!hmod)
        return CUDA_ERROR_INVALID_VALUE;
    if (!f || f->is_kernel)
        return CUDA_ERROR_INVALID_HANDLE;
    *hmod = (CUmodule)f->mod;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncGetModule(CUmodule *hmod, CUfunction hfunc) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(func_module(hmod, hfunc)); }

static CUresult func_loaded(CUfunctionLoadingState *state, CUfunction h)
{
    if (!state)
        return CUDA_ERROR_INVALID_VALUE;
    if (!func_get(h))
        return CUDA_ERROR_INVALID_HANDLE;
    *state = CU_FUNCTION_LOADING_STATE_LOADED;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction function) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(func_loaded(state, function)); }
CUresult CUDAAPI cuFuncLoad(CUfunction function) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(func_get(function) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE); }

/* ---------------- occupancy ---------------- */
static int blocks_per_sm(int block, size_t smem)
{
    if (block <= 0 || block > 1024)
        return 0;
    int warps = (block + 31) / 32;
    int by_threads = 64 / warps;                         /* 2048 threads = 64 warps */
    int by_regs = 65536 / (warps * 32 * 32);             /* 32 regs per thread */
    int by_smem = smem ? (int)(233472 / (smem + 1024)) : 32;
    int n = by_threads < by_regs ? by_threads : by_regs;
    n = n < by_smem ? n : by_smem;
    return n < 32 ? n : 32;
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!numBlocks)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_func *f = func_get(func);
    sim_unlock();
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    *numBlocks = blocks_per_sm(blockSize, dynamicSMemSize);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!numBlocks || (flags & ~(unsigned)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_func *f = func_get(func);
    sim_unlock();
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    *numBlocks = blocks_per_sm(blockSize, dynamicSMemSize);
    return CUDA_SUCCESS;
}

static CUresult max_potential(int *minGrid, int *blockSize, CUfunction func, CUoccupancyB2DSize b2s, size_t dyn, int limit)
{
    if (!minGrid || !blockSize)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_func *f = func_get(func);
    sim_unlock();
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    if (limit <= 0 || limit > 1024)
        limit = 1024;
    int best = 0, best_occ = -1;
    for (int b = limit / 32 * 32; b >= 32; b -= 32) {
        size_t s = b2s ? b2s(b) : dyn;
        int occ = blocks_per_sm(b, s) * b;
        if (occ > best_occ) {
            best_occ = occ;
            best = b;
        }
    }
    if (best == 0) {
        best = limit;
        best_occ = blocks_per_sm(best, b2s ? b2s(best) : dyn) * best;
    }
    *blockSize = best;
    *minGrid = (best_occ / best) * NUM_SM;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func, CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    return max_potential(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit);
}
CUresult CUDAAPI cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, CUfunction func, CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit, unsigned int flags)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    (void)flags;
    return max_potential(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit);
}

CUresult CUDAAPI cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, CUfunction func, int numBlocks, int blockSize)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_func *f = func_get(func);
    sim_unlock();
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    size_t per = 233472 / (size_t)numBlocks;
    per = per > 1024 ? per - 1024 : 0;
    *dynamicSmemSize = per < MAX_DYN_SMEM ? per : MAX_DYN_SMEM;
    return CUDA_SUCCESS;
}

/* ---------------- launches ---------------- */
struct launch {
    const void *f;
    unsigned grid[3], block[3];
    unsigned smem;
    CUstream stream;
    void **params;
    void **extra;
    int cooperative;
};

typedef void (*twin_fn)(void **, const unsigned[3], const unsigned[3]);

/* The twin's symbol name, "simcuda_twin_<base>"; 0 when the name fits. */
static int twin_symbol(const struct sim_func *f, char *sym, size_t len)
{
    char base[256];
    const char *b = f->ki->base;
    if (!b || !*b) {
        if (sim_twin_base(f->ki->name, base, sizeof base) != 0)
            return -1;
        b = base;
    }
    int n = snprintf(sym, len, "simcuda_twin_%s", b);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

#define MAX_PARAMS 1024

/* Host ranges a launch reads (the kernelParams array and each parameter)
 * must be mapped; they mostly share one or two stack pages, so pages already
 * checked in this launch are not asked about again. */
struct page_cache { uintptr_t page[8]; int n; };

static int page_cached(const struct page_cache *pc, uintptr_t page)
{
    for (int i = 0; i < pc->n; i++)
        if (pc->page[i] == page)
            return 1;
    return 0;
}

static void page_remember(struct page_cache *pc, uintptr_t page)
{
    if (pc->n < 8 && !page_cached(pc, page))
        pc->page[pc->n++] = page;
}

/* The calling thread's stack above this frame: mapped. */
static __thread uintptr_t t_stack_top;
static int on_live_stack(uintptr_t p, size_t n)
{
    if (!t_stack_top) {
        pthread_attr_t a;
        void *lo;
        size_t size;
        t_stack_top = 1;
        if (pthread_getattr_np(pthread_self(), &a) == 0) {
            if (pthread_attr_getstack(&a, &lo, &size) == 0)
                t_stack_top = (uintptr_t)lo + size;
            pthread_attr_destroy(&a);
        }
    }
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    return p >= here && p + n <= t_stack_top;
}

/* A range on one page or two (an argument straddling a page boundary: how
 * the stack falls must not change what a launch costs) is asked once;
 * arguments on the caller's live stack (most are) are not asked. */
static int range_ok(struct page_cache *pc, const void *ptr, size_t n)
{
    if (n == 0)
        return 1;
    uintptr_t p = (uintptr_t)ptr, ps = 4096;
    uintptr_t first = p & ~(ps - 1), last = (p + n - 1) & ~(ps - 1);
    if (p + n < p)
        return 0;
    if (on_live_stack(p, n))
        return 1;
    int small = last - first <= ps;
    if (small && page_cached(pc, first) && page_cached(pc, last))
        return 1;
    if (!sim_host_range_mapped(p, n))
        return 0;
    if (small) {
        page_remember(pc, first);
        page_remember(pc, last);
    }
    return 1;
}

static CUresult do_launch(const struct launch *L)
{
    void *argv_local[64];
    void **args = NULL;
    twin_fn twin = NULL;
    unsigned long long gen = 0;
    char kname[512] = "";   /* for guard.c's message: the module may go meanwhile */
    char sym[300];
    int need_sym = 0;
    struct page_cache pages = { .n = 0 };
    sim_lock();
    CUresult r = CUDA_SUCCESS;
    struct sim_func *f = func_get(L->f);
    struct sim_ctx *c = NULL;
    struct sim_stream *s = NULL;
    if (!f) {
        r = CUDA_ERROR_INVALID_HANDLE;
        goto out;
    }
    if ((r = sim_stream_resolve(L->stream, &c, &s)) != CUDA_SUCCESS)
        goto out;
    if ((r = sim_ctx_check(c)) != CUDA_SUCCESS)
        goto out;
    /* Programming Guide: a kernel launch into a stream of another device
     * fails.  A context-less CUkernel takes its context from the stream
     * (cuda.h, cuLaunchKernel), so it may go to any device's stream; the
     * runtime makes its own check. */
    struct sim_ctx *cur = sim_cur_ctx();
    if (s && cur && cur->dev != c->dev && !f->is_kernel) {
        r = CUDA_ERROR_INVALID_HANDLE;
        goto out;
    }
    /* A module function belongs to its module's context. */
    if (!f->is_kernel && f->mod && f->mod->ctx != c && f->mod->ctx->dev != c->dev) {
        r = CUDA_ERROR_INVALID_HANDLE;
        goto out;
    }
    for (int i = 0; i < 3; i++)
        if (L->grid[i] == 0 || L->block[i] == 0) {
            r = CUDA_ERROR_INVALID_VALUE;
            goto out;
        }
    unsigned long long threads = (unsigned long long)L->block[0] * L->block[1] * L->block[2];
    if (threads > 1024 || L->block[0] > 1024 || L->block[1] > 1024 || L->block[2] > 64 ||
        L->grid[1] > 65535 || L->grid[2] > 65535 || L->grid[0] > 2147483647u) {
        r = CUDA_ERROR_INVALID_VALUE;
        goto out;
    }
    if ((int)L->smem > f->max_dyn_smem && L->smem > DEFAULT_DYN_SMEM) {
        r = CUDA_ERROR_INVALID_VALUE;
        goto out;
    }
    if (L->cooperative) {
        unsigned long long blocks = (unsigned long long)L->grid[0] * L->grid[1] * L->grid[2];
        if (blocks > (unsigned long long)blocks_per_sm((int)threads, L->smem) * NUM_SM) {
            r = CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
            goto out;
        }
    }
    const struct sim_kernel_info *ki = f->ki;
    unsigned np = ki->nparams;
    if (np > MAX_PARAMS) {
        r = CUDA_ERROR_INVALID_VALUE;
        goto out;
    }
    if (L->params && L->extra) {
        r = CUDA_ERROR_INVALID_VALUE;
        goto out;
    }
    if (L->extra) {
        char *buf = NULL;
        size_t *bsize = NULL;
        for (void **e = L->extra; *e && *e != CU_LAUNCH_PARAM_END; e += 2) {
            if (*e == CU_LAUNCH_PARAM_BUFFER_POINTER)
                buf = e[1];
            else if (*e == CU_LAUNCH_PARAM_BUFFER_SIZE)
                bsize = e[1];
            else {
                r = CUDA_ERROR_INVALID_VALUE;
                goto out;
            }
        }
        if (np && (!buf || !bsize)) {
            r = CUDA_ERROR_INVALID_VALUE;
            goto out;
        }
        args = np <= 64 ? argv_local : malloc(np * sizeof *args);
        if (!args) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
            goto out;
        }
        for (unsigned i = 0; i < np; i++) {
            if ((size_t)ki->params[i].offset + ki->params[i].size > *bsize) {
                r = CUDA_ERROR_INVALID_VALUE;
                goto out;
            }
            args[i] = buf + ki->params[i].offset;
        }
    } else {
        if (np && (!L->params || !range_ok(&pages, L->params, np * sizeof(void *)))) {
            r = CUDA_ERROR_INVALID_VALUE;
            goto out;
        }
        args = L->params;
    }
    /* A capturing stream records the launch instead of running it. */
    if (sim_stream_capture(s)) {
        r = sim_capture_kernel(s, L->f, L->grid, L->block, L->smem, args);
        goto out;
    }
    /* After a fault the context is dead: nothing runs any more. */
    if (c->fault_pending)
        goto out;
    /* Every parameter is readable host memory. */
    for (unsigned i = 0; i < np; i++)
        if (!args[i] || !range_ok(&pages, args[i], ki->params[i].size)) {
            r = CUDA_ERROR_INVALID_VALUE;
            goto out;
        }
    /* The fault check, as the kernel's code reads: the parameters it
     * dereferences (operands.c) must point where the device may go. */
    const unsigned char *deref = sim_kernel_derefs(ki);
    for (unsigned i = 0; deref && i < np; i++) {
        uint64_t w;
        if (!deref[i])
            continue;
        memcpy(&w, args[i], 8);
        if (!sim_mem_deref_ok((uintptr_t)w, c->dev, c)) {
            c->fault_pending = 1;
            if (sim_g.verbose) {
                char what[160], line[768];
                sim_mem_describe((uintptr_t)w, what, sizeof what);
                int len = snprintf(line, sizeof line,
                                   "simcuda: %s on device %d: pointer parameter %u = 0x%llx (%s) is not accessible "
                                   "from this device: CUDA_ERROR_ILLEGAL_ADDRESS at the next synchronization\n",
                                   ki->name, c->dev, i, (unsigned long long)w, what);
                if (len > 0)
                    (void)!write(2, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
            }
            goto out;
        }
    }
    /* The twin is looked up with our lock released: dlsym takes the
     * loader's lock, which a thread running a library constructor that
     * calls CUDA may hold while it waits for ours.  None found: asked again
     * once the process has loaded another object (a ctypes.CDLL after the
     * first launch). */
    int resolved = __atomic_load_n(&f->twin_resolved, __ATOMIC_ACQUIRE);
    if (resolved) {
        twin = f->twin;
        if (twin)
            sim_mem_twin_writes(ki, args);
    } else
        need_sym = twin_symbol(f, sym, sizeof sym) == 0;
    if (!resolved && !need_sym)
        __atomic_store_n(&f->twin_resolved, 1, __ATOMIC_RELEASE);
    gen = f->twin_gen;
    if (sim_g.verbose)
        snprintf(kname, sizeof kname, "%s", ki->name);
out:
    sim_unlock();
    if (r == CUDA_SUCCESS && need_sym) {
        unsigned long long now = sim_objects_loaded();
        if (now != gen)
            twin = sim_twin_lookup(sym);
        sim_lock();
        if (sim_obj_get(f, T_FUNC) && !f->twin_resolved) {
            f->twin = twin;
            f->twin_gen = now;
            if (twin)
                __atomic_store_n(&f->twin_resolved, 1, __ATOMIC_RELEASE);
        }
        if (twin && sim_obj_get(f, T_FUNC))
            sim_mem_twin_writes(f->ki, args);
        sim_unlock();
    }
    if (r == CUDA_SUCCESS && twin)
        sim_twin_run(twin, args, L->grid, L->block, c, kname);
    if (args && args != argv_local && args != L->params)
        free(args);
    return r;
}

CUresult sim_launch(const void *f, const unsigned grid[3], const unsigned block[3], unsigned smem,
                    CUstream hs, void **params, void **extra)
{
    struct launch L = { f, { grid[0], grid[1], grid[2] }, { block[0], block[1], block[2] }, smem, hs, params, extra, 0 };
    return do_launch(&L);
}

const struct sim_kernel_info *sim_func_info(const void *h)
{
    struct sim_func *f = func_get(h);
    return f ? f->ki : NULL;
}

static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                       unsigned smem, CUstream h, void **params, void **extra, int coop)
{
    struct launch L = { f, { gx, gy, gz }, { bx, by, bz }, smem, h, params, extra, coop };
    return do_launch(&L);
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
{
    ENTER(CUDA_ERROR_LAUNCH_FAILED);
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra, 0);
}
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
{
    ENTER(CUDA_ERROR_LAUNCH_FAILED);
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra, 0);
}
CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams)
{
    ENTER(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, NULL, 1);
}
CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams)
{
    ENTER(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, NULL, 1);
}

static CUresult launch_ex(const CUlaunchConfig *cfg, CUfunction f, void **params, void **extra)
{
    if (!cfg || (cfg->numAttrs && !cfg->attrs))
        return CUDA_ERROR_INVALID_VALUE;
    int coop = 0;
    for (unsigned i = 0; i < cfg->numAttrs; i++)
        if (cfg->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
            coop = cfg->attrs[i].value.cooperative != 0;
    return launch(f, cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ, cfg->blockDimX, cfg->blockDimY, cfg->blockDimZ,
                  cfg->sharedMemBytes, cfg->hStream, params, extra, coop);
}
CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
{
    ENTER(CUDA_ERROR_LAUNCH_FAILED);
    return launch_ex(config, f, kernelParams, extra);
}
CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
{
    ENTER(CUDA_ERROR_LAUNCH_FAILED);
    return launch_ex(config, f, kernelParams, extra);
}

const char *sim_func_name(const void *f)
{
    /* the thread's last answer while no handle has gone since: a launch
     * loop's callbacks name the kernel without the lock */
    static __thread struct { const void *f; const char *name; unsigned long gone; } memo;
    unsigned long g = sim_objs_gone();
    if (f && f == memo.f && g == memo.gone)
        return memo.name;
    sim_lock();
    const struct sim_kernel_info *ki = sim_func_info(f);
    const char *name = ki ? ki->name : NULL;
    sim_unlock();
    if (name) {                         /* a found one: a non-handle may become one later */
        memo.f = f;
        memo.name = name;
        memo.gone = g;
    }
    return name;
}
