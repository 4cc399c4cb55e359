/* A host twin in a shared object the test loads RTLD_LOCAL (drv_guard.c). */
void simcuda_twin_fill(void **args, const unsigned grid[3], const unsigned block[3]);
void simcuda_twin_fill(void **args, const unsigned grid[3], const unsigned block[3])
{
    float *x = *(float **)args[0];
    float v = *(float *)args[1];
    int n = *(int *)args[2];
    long total = (long)grid[0] * block[0];
    for (long i = 0; i < total && i < n; i++)
        x[i] = v;
}
