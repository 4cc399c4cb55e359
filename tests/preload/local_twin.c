/* The host twins of local_lib.cu's and local_nvrtc.c's kernels (the sim runs
 * them for the launch), in a library of its own that the tests load
 * RTLD_GLOBAL: the twin is found whatever scope the kernel's library was
 * loaded in. */
void simcuda_twin_local_scale(void **args, const unsigned grid[3], const unsigned block[3]);
void simcuda_twin_local_scale(void **args, const unsigned grid[3], const unsigned block[3])
{
    int *out = *(int **)args[0];
    const int *in = *(const int **)args[1];
    int n = *(const int *)args[2];
    (void)grid;
    for (unsigned i = 0; i < block[0] && (int)i < n; i++)
        out[i] = 7 * in[i];
}

void simcuda_twin_nvrtc_scale(void **args, const unsigned grid[3], const unsigned block[3]);
void simcuda_twin_nvrtc_scale(void **args, const unsigned grid[3], const unsigned block[3])
{
    simcuda_twin_local_scale(args, grid, block);
}
