// An entry point the sim does not implement returns cudaErrorNotSupported
// (recorded as the last error) and is named on stderr once, however many
// threads call it.
#include <pthread.h>
#include "rt_check.h"

static void *call(void *)
{
    for (int i = 0; i < 100; i++) {
        cudaUserObject_t o;
        EXPECT_ERR(cudaUserObjectCreate(&o, NULL, NULL, 1, 0), cudaErrorNotSupported);
    }
    return NULL;
}

int main()
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        EXPECT(pthread_create(&t[i], NULL, call, NULL) == 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    int n = 0;
    CHECK(cudaGetDeviceCount(&n)); // the runtime still works
    EXPECT(n == 4);
    printf("ok\n");
    return 0;
}
