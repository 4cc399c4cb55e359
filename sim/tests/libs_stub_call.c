/* libs_stub_call LIB NAME: calls NAME of the sim library LIB twice, with
 * no arguments (a generated stub reads none: sim/gen_stubs.py), and prints
 * what it returned (sim/tests/libs_exports.sh). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void *p = h ? dlsym(h, argv[2]) : NULL;
    if (!p) {
        fprintf(stderr, "libs_stub_call: %s\n", dlerror());
        return 2;
    }
    int (*f)(void);
    memcpy(&f, &p, sizeof f);
    int a = f(), b = f();
    printf("%s returned %d, %d\n", argv[2], a, b);
    return 0;
}
