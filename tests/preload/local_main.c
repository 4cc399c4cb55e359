/* Loads liblocal_twin.so RTLD_GLOBAL, then the CUDA library argv[2]
 * (libxlocal.so) as argv[1] says: `local` RTLD_LOCAL (dlopen's default),
 * `deepbind` RTLD_LOCAL|RTLD_DEEPBIND (a plugin that binds to its own
 * libcudart and libc first), `global` RTLD_GLOBAL; calls local_run(1) and
 * prints "local: <its value>" (700). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: local_main local|deepbind|global libxlocal.so liblocal_twin.so\n");
        return 2;
    }
    int mode = RTLD_NOW | RTLD_LOCAL;
    if (!strcmp(argv[1], "deepbind"))
        mode |= RTLD_DEEPBIND;
    else if (!strcmp(argv[1], "global"))
        mode = RTLD_NOW | RTLD_GLOBAL;
    if (!dlopen(argv[3], RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "local_main: %s\n", dlerror());
        return 2;
    }
    void *h = dlopen(argv[2], mode);
    int (*run)(int) = h ? (int (*)(int))dlsym(h, "local_run") : NULL;
    if (!run) {
        fprintf(stderr, "local_main: %s\n", dlerror());
        return 2;
    }
    printf("local: %d\n", run(1));
    return 0;
}
