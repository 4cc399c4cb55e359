/* operands_unit: which parameters the sim calls dereferenced
 * (sim_kernel_derefs, sim/driver/operands.c), from fabricated kernel
 * descriptions: mangled signatures with substitutions, template parameters,
 * by-value structs and closures; image evidence; size and count checks. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

/* sizes: parameter sizes; ptr: image evidence or NULL; want: expected flags
 * ("1" dereferenced, "0" not), NULL for "none at all". */
static void check(const char *name, unsigned n, const unsigned *sizes, const unsigned char *ptr, const char *want)
{
    struct sim_kernel_info ki;
    memset(&ki, 0, sizeof ki);
    ki.name = (char *)name;
    ki.nparams = n;
    ki.params = calloc(n + 1, sizeof *ki.params);
    for (unsigned i = 0, off = 0; i < n; off += sizes[i], i++)
        ki.params[i] = (struct sim_param){ off, sizes[i] };
    ki.ptr = (unsigned char *)ptr;
    for (int round = 0; round < 2; round++) {       /* computed, then cached */
        const unsigned char *d = sim_kernel_derefs(&ki);
        char got[64] = "";
        for (unsigned i = 0; d && i < n; i++)
            got[i] = d[i] ? '1' : '0';
        if ((want == NULL) != (d == NULL) || (want && strcmp(got, want) != 0)) {
            fprintf(stderr, "FAIL %s: got %s, expected %s\n", name, d ? got : "(none)", want ? want : "(none)");
            failures++;
        }
    }
    free(ki.params);
    free(ki.deref);
}

int main(void)
{
    /* vadd(const float*, const float*, float*, int): S0_ is PKf */
    check("_Z4vaddPKfS0_Pfi", 4, (const unsigned[]){ 8, 8, 8, 4 }, NULL, "1110");
    /* by-value struct and double */
    check("_Z5mixedPfi8drv_paird", 4, (const unsigned[]){ 8, 4, 16, 8 }, NULL, "1000");
    /* a template parameter that is a pointer: k<float*>(T) */
    check("_Z1kIPfEvT_", 1, (const unsigned[]){ 8 }, NULL, "1");
    /* ns::kernel<float>(T*) */
    check("_ZN2ns6kernelIfEEvPT_", 1, (const unsigned[]){ 8 }, NULL, "1");
    /* PyTorch: vectorized_elementwise_kernel<4, FillFunctor<float>, Array<char*,1>>(int, F, A):
     * the closure and the array of pointers are passed by value */
    check("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_",
          3, (const unsigned[]){ 4, 4, 8 }, NULL, NULL);
    /* an 8-byte integer is data */
    check("_Z1fPfx", 2, (const unsigned[]){ 8, 8 }, NULL, "10");
    /* nvcc's static kernels */
    check("__nv_static_21_some_tu_cu_ab12cd34__Z6kernelPiS_", 2, (const unsigned[]){ 8, 8 }, NULL, "11");
    /* the image's evidence where the name has none (extern "C", Triton) */
    check("add_kernel", 4, (const unsigned[]){ 8, 8, 8, 4 },
          (const unsigned char[]){ SIM_PARAM_PTR_DECL, SIM_PARAM_PTR_USE, 0, 0 }, "1100");
    check("plain", 2, (const unsigned[]){ 8, 4 }, NULL, NULL);
    /* a count that does not match the image: the name is not used */
    check("_Z4vaddPKfS0_Pfi", 3, (const unsigned[]){ 8, 8, 8 }, NULL, NULL);
    /* a "pointer" that is not 8 bytes is not one */
    check("_Z1gPi", 1, (const unsigned[]){ 4 }, NULL, NULL);
    /* not a function name: no evidence, no crash */
    check("_Zgarbage(", 1, (const unsigned[]){ 8 }, NULL, NULL);
    check("_Z", 1, (const unsigned[]){ 8 }, NULL, NULL);
    if (failures) {
        fprintf(stderr, "operands_unit: %d check(s) failed\n", failures);
        return 1;
    }
    printf("operands_unit: all checks passed\n");
    return 0;
}
