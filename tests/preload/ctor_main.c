/* Links libctor.so, whose constructor calls CUDA; checks it ran. */
#include <stdio.h>
extern int ctor_lib_status;
int main(void)
{
    printf("ctor: %d\n", ctor_lib_status);
    return ctor_lib_status == 0 ? 0 : 1;
}
