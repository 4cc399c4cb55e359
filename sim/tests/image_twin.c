/* image_twin: sim_twin_base() finds a kernel's unqualified function name in
 * Itanium-mangled names (the twin is simcuda_twin_<base>).  The expected
 * names were checked with c++filt; most mangled names are nvcc's own. */
#include "image.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void expect(const char *mangled, const char *base)
{
    char buf[256];
    memset(buf, 'x', sizeof buf);
    int rc = sim_twin_base(mangled, buf, sizeof buf);
    if (base == NULL) {
        if (rc != -1) {
            fprintf(stderr, "FAIL %s: got '%s', want an error\n", mangled, buf);
            failures++;
        }
        return;
    }
    if (rc != 0 || strcmp(buf, base) != 0) {
        fprintf(stderr, "FAIL %s: rc %d '%s', want '%s'\n", mangled, rc, rc ? "" : buf, base);
        failures++;
    }
}

int main(void)
{
    expect("_Z4vaddPKfS0_Pfi", "vadd");                      /* vadd(const float*, const float*, float*, int) */
    expect("_ZN2ns6kernelIfEEvPT_", "kernel");               /* void ns::kernel<float>(float*) */
    expect("_ZN3foo3barEv", "bar");                          /* foo::bar() */
    expect("_ZL6kernelPf", "kernel");                        /* static kernel(float*) */
    expect("vadd", "vadd");                                  /* extern "C" */
    expect("_Z6kernelIfEvPT_", "kernel");                    /* void kernel<float>(float*) */
    expect("_Z5applyIZ1lPiEUlfE_EvT_Pf", "apply");           /* apply<l(int*)::{lambda(float)#1}> */
    expect("_Z3varIJiPfN1a1BEEEvDpT_", "var");               /* var<int, float*, a::B>(...) */
    expect("_Z2tkIfLi3ELN1a1EE1EEvPT_NS0_1SIXT0_EEE", "tk"); /* tk<float, 3, (a::E)1> */
    expect("_ZN34_GLOBAL__N__6af2997d_4_m_cu__Z1lPi4anonEPi", "anon"); /* (anonymous)::anon */
    expect("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEE"
           "St5arrayIPcLm1EEEEviT0_T1_", "vectorized_elementwise_kernel");
    expect("_ZN7cutlass7Kernel2ILi1EXadL_ZN1a1bEvEEEEvv", "Kernel2");
    expect("_ZN2ns1AIXplLi1ELi2EEE1fEv", "f");
    expect("_Z3fooB5cxx11v", "foo");                         /* abi tag */
    expect("_ZNSt6vectorIiE4sizeEv", "size");
    expect("_ZSt4swapv", "swap");
    expect("_ZNK1A1fEv", "f");                               /* const member */
    expect("_ZN2ns3fooIiEEDTfp_EPi", "foo");
    expect("_Z1fIfLi3EEvv", "f");
    expect("_Z1fILDnEEvv", "f");
    expect("_ZZ4mainE1k", "k");                              /* local entity */
    /* nvcc's names for static kernels under -rdc */
    expect("__nv_static_34__e5fe8bba_12_image_rdc_cu_f47540bc__Z10rdc_staticPil", "rdc_static");
    expect("__nv_static_3_abc_cfunc", "cfunc");
    expect("__nv_static_99_x", "__nv_static_99_x");          /* not the pattern: unchanged */
    /* malformed mangled names */
    expect("_Z", NULL);
    expect("_Z3ab", NULL);
    expect("_ZN3foo", NULL);
    expect("_Z999999999999999999999a", NULL);
    expect("_ZN2ns6kernelIfEvPT_", NULL);                    /* unclosed template args */
    expect("_ZTV3Foo", NULL);                                /* vtable: no function */

    /* deeply nested local names and literals: refused, not a stack overflow */
    static char deep[200000];
    memcpy(deep, "_Z", 2);
    memset(deep + 2, 'Z', sizeof deep - 3);
    expect(deep, NULL);
    memcpy(deep, "_Z1fI", 5);
    for (size_t i = 5; i + 2 < sizeof deep; i += 2) memcpy(deep + i, "LN", 2);
    expect(deep, NULL);

    char small[4];
    if (sim_twin_base("_Z4vaddPKfS0_Pfi", small, sizeof small) != -1 || small[0] != '\0') {
        fprintf(stderr, "FAIL: a name that does not fit was accepted\n");
        failures++;
    }
    char fit[5];
    if (sim_twin_base("_Z4vaddPKfS0_Pfi", fit, sizeof fit) != 0 || strcmp(fit, "vadd") != 0) {
        fprintf(stderr, "FAIL: a name that just fits was refused\n");
        failures++;
    }
    if (sim_twin_base(NULL, fit, sizeof fit) != -1 || sim_twin_base("a", NULL, 4) != -1 ||
        sim_twin_base("a", fit, 0) != -1) {
        fprintf(stderr, "FAIL: NULL or empty arguments accepted\n");
        failures++;
    }
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("image_twin: all checks passed\n");
    return 0;
}
