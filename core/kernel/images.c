/* images: kernel images and kernel handles seen by devcheck (see images.h;
 * the events are core/core.h's dc_image_*). */
#include "core/kernel/images.h"
#include "core/kernel/source.h"
#include "core/kernel/kernel.h"
#include "core/base/cudacall.h"
#include "core/owner/ptrinfo.h"
#include "core/kernel/origin.h"
#include "core/owner/registry.h"
#include "common/forklock.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) do { (void)(obj); } while (0)
#include <uthash.h>

/* Copies of images and files beyond this are not kept. */
#define MAX_COPY ((size_t)256 << 20)

struct image {
    const void *owner;          /* CUmodule, CUlibrary, or the runtime's fatbin handle */
    const unsigned char *data;  /* NULL: not kept (too big, unreadable), its origin only */
    size_t size;                /* 0: from the image's own headers */
    int owned;                  /* data is our copy */
    int origin;                 /* enum dc_origin: who made it (the object holding or loading it) */
    struct dc_img *parsed;      /* read on first need */
    int parse_tried;
    UT_hash_handle hh;
};

struct named {                  /* a kernel handle obtained by name */
    const void *key;
    const void *owner;
    char *name;
    UT_hash_handle hh;
};

struct alias {                  /* a module of a library (cuLibraryGetModule): the library's image */
    const void *key;
    const void *to;
    UT_hash_handle hh;
};

struct regfn {                  /* a kernel the runtime registered: name -> fatbin handle */
    char *name;
    const void *fatbin;
    UT_hash_handle hh;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Bumped (under lock) by every change of the names; each thread's last
 * kernel named the same again: a repeat costs no lock (the sim's cuBLASLt
 * looks its kernel up per matmul: -200 instructions, bench/libcalls.sh).
 * The caller's name pointer is compared: the same key and pointer with no
 * change since is the same name. */
static uint64_t names_gen = 1;
static __thread struct {
    const void *key, *owner;
    const char *name;
    uint64_t gen;
} named_last __attribute__((tls_model("initial-exec")));
static struct image *images;
static struct named *names;
static struct regfn *regfns;
static struct alias *aliases;

void dc_images_fork_prepare(void) { pthread_mutex_lock(&lock); }
void dc_images_fork_parent(void) { pthread_mutex_unlock(&lock); }
void dc_images_fork_child(void) { dc_mutex_fork_child(&lock); }

/* --- recording --------------------------------------------------------------------------- */

static void image_free(struct image *im)
{
    if (im->owned)
        free((void *)im->data);
    dc_img_free(im->parsed);
    free(im);
}

/* Is p inside a loaded object's mapping (a fatbin in its .nv_fatbin)?
 * Then it lives as long as the object and need not be copied; *origin is
 * the object's (an object the origin table does not name is the program's
 * own, or a library of its own: DC_ORIGIN_PROGRAM). */
static int in_loaded_object(const void *p, int *origin)
{
    Dl_info info;
    if (!p || !dladdr(p, &info) || !info.dli_fname || !info.dli_fbase)
        return 0;
    int o = dc_origin_of_object(info.dli_fname);
    *origin = o != DC_ORIGIN_UNKNOWN ? o : DC_ORIGIN_PROGRAM;
    return 1;
}

/* The origin of an image that lies in no loaded object (a JIT image on the
 * heap, a file): the object that called the load, when the front end knows
 * it (the hook's return address); one the table does not name made it while
 * the program ran (DC_ORIGIN_JIT).  No caller (CUPTI): unknown. */
static int origin_of_caller(const void *caller)
{
    Dl_info info;
    if (!caller)
        return DC_ORIGIN_UNKNOWN;
    int o = dladdr(caller, &info) && info.dli_fname ? dc_origin_of_object(info.dli_fname) : DC_ORIGIN_UNKNOWN;
    return o != DC_ORIGIN_UNKNOWN ? o : DC_ORIGIN_JIT;
}

static void add_image(const void *owner, const unsigned char *data, size_t size, int owned, int origin)
{
    struct image *im = calloc(1, sizeof *im);
    if (!im) {
        if (owned)
            free((void *)data);
        return;
    }
    im->owner = owner;
    im->data = data;
    im->size = size;
    im->owned = owned;
    im->origin = origin;
    im->parse_tried = !data;            /* no copy could be kept: its origin only */
    pthread_mutex_lock(&lock);
    struct image *old;
    HASH_FIND_PTR(images, &owner, old);
    if (old) {                          /* a reused handle: the new image replaces it */
        HASH_DEL(images, old);
        image_free(old);
    }
    HASH_ADD_PTR(images, owner, im);
    HASH_FIND_PTR(images, &owner, old);
    pthread_mutex_unlock(&lock);
    if (old != im)
        image_free(im);                 /* the table ran out of memory */
}

void dc_image_loaded(const void *owner, const void *image, const void *caller)
{
    if (!owner || !image)
        return;
    const void *fb;
    if (dc_img_is_wrapper(image, &fb))
        image = fb;
    int origin;
    if (in_loaded_object(image, &origin)) {
        add_image(owner, image, 0, 0, origin);
        return;
    }
    origin = origin_of_caller(caller);
    /* the caller may free it once the load returned: our copy (none: the
     * origin is still kept) */
    size_t size = dc_img_extent(image, MAX_COPY);
    unsigned char *copy = size && size <= MAX_COPY ? malloc(size + 1) : NULL;
    if (!copy) {
        add_image(owner, NULL, 0, 0, origin);
        return;
    }
    memcpy(copy, image, size);
    copy[size] = 0;
    add_image(owner, copy, size, 1, origin);
}

void dc_image_file_loaded(const void *owner, const char *path, const void *caller)
{
    if (!owner || !path)
        return;
    int origin = origin_of_caller(caller);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        add_image(owner, NULL, 0, 0, origin);
        return;
    }
    struct stat st;
    unsigned char *buf = NULL;
    size_t got = 0;
    if (fstat(fd, &st) == 0 && st.st_size > 0 && (size_t)st.st_size <= MAX_COPY &&
        (buf = malloc((size_t)st.st_size + 1)) != NULL) {
        while (got < (size_t)st.st_size) {
            ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        buf[got] = 0;
    }
    close(fd);
    if (buf && got) {
        add_image(owner, buf, got, 1, origin);
    } else {
        free(buf);
        add_image(owner, NULL, 0, 0, origin);
    }
}

void dc_image_unloaded(const void *owner)
{
    /* its __device__ variables go with it, without a free devcheck sees */
    (void)dc_reg_drop_from_driver();
    dc_addr_forget();
    pthread_mutex_lock(&lock);
    struct image *im;
    HASH_FIND_PTR(images, &owner, im);
    if (im)
        HASH_DEL(images, im);
    struct alias *a, *atmp;
    HASH_ITER(hh, aliases, a, atmp) {
        if (a->to == owner || a->key == owner) {
            HASH_DEL(aliases, a);
            free(a);
        }
    }
    struct named *n, *tmp;
    __atomic_store_n(&names_gen, names_gen + 1, __ATOMIC_RELEASE);
    HASH_ITER(hh, names, n, tmp) {
        if (n->owner == owner) {
            HASH_DEL(names, n);
            free(n->name);
            free(n);
        }
    }
    pthread_mutex_unlock(&lock);
    if (im)
        image_free(im);
}

void dc_image_fatbin_registered(const void *handle, const void *wrapper)
{
    const void *fb = wrapper;
    if (!handle || !wrapper)
        return;
    (void)dc_img_is_wrapper(wrapper, &fb);
    int origin = DC_ORIGIN_UNKNOWN;
    (void)in_loaded_object(fb, &origin);
    add_image(handle, fb, 0, 0, origin);        /* static data of the registering object */
}

void dc_image_function_registered(const void *handle, const char *device_name)
{
    if (!handle || !device_name)
        return;
    struct regfn *r = calloc(1, sizeof *r);
    if (!r || !(r->name = strdup(device_name))) {
        free(r);
        return;
    }
    r->fatbin = handle;
    pthread_mutex_lock(&lock);
    struct regfn *old;
    HASH_FIND_STR(regfns, r->name, old);
    if (!old) {
        HASH_ADD_KEYPTR(hh, regfns, r->name, strlen(r->name), r);
        HASH_FIND_STR(regfns, r->name, old);
    }
    pthread_mutex_unlock(&lock);
    if (old != r) {
        free(r->name);
        free(r);
    }
}

void dc_image_named(const void *key, const void *owner, const char *name)
{
    if (!key || !name)
        return;
    /* the same kernel named again (a library that looks its kernel up on
     * every call, as the sim's cuBLASLt does per matmul: cuLibraryGetKernel):
     * nothing to change, no allocation (-850 instructions per such call) */
    if (named_last.key == key && named_last.owner == owner && named_last.name == name &&
        named_last.gen == __atomic_load_n(&names_gen, __ATOMIC_ACQUIRE))
        return;                         /* this thread named it so, and no name changed since */
    struct named *had;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(names, &key, had);
    int same = had && had->owner == owner && !strcmp(had->name, name);
    if (same)
        named_last.key = key, named_last.owner = owner, named_last.name = name, named_last.gen = names_gen;
    pthread_mutex_unlock(&lock);
    if (same)
        return;
    struct named *n = calloc(1, sizeof *n);
    if (!n || !(n->name = strdup(name))) {
        free(n);
        return;
    }
    n->key = key;
    n->owner = owner;
    pthread_mutex_lock(&lock);
    struct named *old;
    HASH_FIND_PTR(names, &key, old);
    if (old) {
        HASH_DEL(names, old);
        free(old->name);
        free(old);
    }
    HASH_ADD_PTR(names, key, n);
    __atomic_store_n(&names_gen, names_gen + 1, __ATOMIC_RELEASE);
    HASH_FIND_PTR(names, &key, old);
    pthread_mutex_unlock(&lock);
    if (old != n) {
        free(n->name);
        free(n);
    }
}

void dc_image_alias(const void *key, const void *from)
{
    if (!key || !from)
        return;
    char *name = NULL;
    const void *owner = NULL;
    pthread_mutex_lock(&lock);
    struct named *n;
    HASH_FIND_PTR(names, &from, n);
    if (n) {
        name = strdup(n->name);
        owner = n->owner;
    }
    pthread_mutex_unlock(&lock);
    if (name) {
        dc_image_named(key, owner, name);       /* cuKernelGetFunction: the kernel's name and library */
        free(name);
        return;
    }
    /* cuLibraryGetModule: the module's image is the library's */
    struct alias *a = calloc(1, sizeof *a), *old;
    if (!a)
        return;
    a->key = key;
    a->to = from;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(aliases, &key, old);
    if (old) {
        HASH_DEL(aliases, old);
        free(old);
    }
    HASH_ADD_PTR(aliases, key, a);
    HASH_FIND_PTR(aliases, &key, old);
    pthread_mutex_unlock(&lock);
    if (old != a)
        free(a);
}

/* --- look-ups ------------------------------------------------------------------------------ */

char *dc_images_name(const void *key)
{
    char *name = NULL;
    pthread_mutex_lock(&lock);
    struct named *n;
    HASH_FIND_PTR(names, &key, n);
    if (n)
        name = strdup(n->name);
    pthread_mutex_unlock(&lock);
    return name;
}

/* The image record of owner, or of the library a module alias stands for
 * (lock held); NULL when none. */
static struct image *image_of_locked(const void *owner)
{
    struct image *im = NULL;
    if (!owner)
        return NULL;
    HASH_FIND_PTR(images, &owner, im);
    if (!im) {
        struct alias *a;
        HASH_FIND_PTR(aliases, &owner, a);
        if (a)
            HASH_FIND_PTR(images, &a->to, im);
    }
    return im;
}

/* The parsed image of owner (lock held), or NULL. */
static const struct dc_img *parsed_locked(const void *owner)
{
    struct image *im = image_of_locked(owner);
    if (!im)
        return NULL;
    if (!im->parse_tried) {
        im->parse_tried = 1;
        im->parsed = dc_img_parse(im->data, im->size);
        if (im->owned)                  /* a heap image: NVRTC's output? (core/kernel/source.h) */
            (void)dc_source_image(im->data, im->size, im->parsed);
    }
    return im->parsed;
}

static int copy_kernel(const struct dc_img_kernel *k, struct dc_img_kernel *out)
{
    *out = *k;
    out->name = strdup(k->name);
    out->params = k->nparams ? malloc(k->nparams * sizeof *k->params) : NULL;
    if (!out->name || (k->nparams && !out->params)) {
        free(out->name);
        free(out->params);
        return 0;
    }
    if (k->nparams)
        memcpy(out->params, k->params, k->nparams * sizeof *k->params);
    return 1;
}

static int same_layout(const struct dc_img_kernel *a, const struct dc_img_kernel *b)
{
    if (a->nparams != b->nparams || a->layout != b->layout)
        return 0;
    for (unsigned i = 0; i < a->nparams; i++)
        if (a->params[i].offset != b->params[i].offset || a->params[i].size != b->params[i].size ||
            a->params[i].ptr != b->params[i].ptr || a->params[i].kind != b->params[i].kind)
            return 0;
    return 1;
}

/* In the image of owner (lock held): the kernel `name`, or the only kernel
 * of the image when the name is unknown. */
static const struct dc_img_kernel *in_owner_locked(const void *owner, const char *name)
{
    const struct dc_img *img = owner ? parsed_locked(owner) : NULL;
    if (!img)
        return NULL;
    if (name)
        return dc_img_find(img, name);
    return dc_img_count(img) == 1 ? dc_img_at(img, 0) : NULL;
}

/* The handle's module or library as the driver knows it (guard held; no
 * lock), or NULL. */
static const void *driver_owner(const void *key, int is_kernel)
{
    if (!is_kernel) {
        CUmodule m = NULL;
        if (DC_CALL(cuFuncGetModule, &m, (CUfunction)(uintptr_t)key) == CUDA_SUCCESS)
            return m;
    } else {
        CUlibrary l = NULL;
        if (DC_CALL(cuKernelGetLibrary, &l, (CUkernel)(uintptr_t)key) == CUDA_SUCCESS)
            return l;
    }
    return NULL;
}

int dc_images_kernel(const void *key, int is_kernel, const char *name, struct dc_img_kernel *out)
{
    memset(out, 0, sizeof *out);
    const void *drv_owner = driver_owner(key, is_kernel);

    int found = 0;
    pthread_mutex_lock(&lock);
    const struct dc_img_kernel *k = NULL;
    struct named *n;
    HASH_FIND_PTR(names, &key, n);
    if (n) {
        if (!name)
            name = n->name;
        k = in_owner_locked(n->owner, name);
    }
    if (!k && drv_owner)
        k = in_owner_locked(drv_owner, name);
    if (!k && name) {
        struct regfn *r;
        HASH_FIND_STR(regfns, name, r);
        if (r)
            k = in_owner_locked(r->fatbin, name);
    }
    if (!k && name) {
        /* any image that defines it, when all that do agree */
        const struct dc_img_kernel *first = NULL;
        int conflict = 0;
        struct image *im, *tmp;
        HASH_ITER(hh, images, im, tmp) {
            const struct dc_img_kernel *c = in_owner_locked(im->owner, name);
            if (!c)
                continue;
            if (!first)
                first = c;
            else if (!same_layout(first, c))
                conflict = 1;
        }
        if (first && !conflict)
            k = first;
    }
    if (k)
        found = copy_kernel(k, out);
    pthread_mutex_unlock(&lock);
    return found;
}

int dc_images_origin(const void *key, int is_kernel, const char *name)
{
    const void *drv_owner = driver_owner(key, is_kernel);
    pthread_mutex_lock(&lock);
    const struct image *im = NULL;
    struct named *n;
    HASH_FIND_PTR(names, &key, n);
    if (n)
        im = image_of_locked(n->owner);
    if (!im)
        im = image_of_locked(drv_owner);
    if (!im && name) {
        struct regfn *r;
        HASH_FIND_STR(regfns, name, r);
        if (r)
            im = image_of_locked(r->fatbin);
    }
    int origin = im ? im->origin : DC_ORIGIN_UNKNOWN;
    pthread_mutex_unlock(&lock);
    return origin;
}

