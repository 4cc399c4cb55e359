/* The linked-in demangler (report/demangle.c): names are readable in a
 * program that has no C++ runtime at all (this test is not linked with
 * libstdc++, as a Python process has none in its global scope), numba's ABI
 * tags are left out, bad input comes back unchanged, a short buffer is cut. */
#include "report/demangle.h"
#include "tests/unit/unit.h"

#include <dlfcn.h>
#include <string.h>

static void expect(const char *mangled, const char *want)
{
    char out[1024];
    int rc = dc_demangle(mangled, out, sizeof out);
    CHECK_EQ_LL(rc, 0);
    if (strcmp(out, want)) {
        unit_failures++;
        fprintf(stderr, "demangle %s:\n  got  %s\n  want %s\n", mangled, out, want);
    }
    unit_checks++;
}

int main(void)
{
    /* no C++ runtime in this process: the demangler is devcheck's own (a
     * sanitizer's runtime may bring libstdc++: UBSan's does) */
    void *san = dlopen("libubsan.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (san)
        dlclose(san);
    else
        CHECK(dlsym(RTLD_DEFAULT, "__cxa_demangle") == NULL);
    expect("_Z4vaddPKfS0_Pfi", "vadd(float const*, float const*, float*, int)");
    /* PyTorch's fill kernel, as its fatbin names it */
    expect("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
           "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >"
           "(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)");
    /* numba-cuda 0.30's name for `def add(a, b, out)` in __main__ */
    expect("_ZN8__main__3addB2v1B104cw51cXTLSUwv1sDUaKthqaNgoKmjgOR3W3Cw6igA9duC0hkwnNGiHEkYkrqQBFBTDEwCyQe21eqwcFW3UoDGjzpQ"
           "EsgzrtUEAA_3d_3dE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE",
           "__main__::add(Array<float, 1, C, mutable, aligned>, Array<float, 1, C, mutable, aligned>, "
           "Array<float, 1, C, mutable, aligned>)");
    expect("_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE5c_strEv",
           "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::c_str()");

    char out[64];
    CHECK_EQ_LL(dc_demangle("add_kernel", out, sizeof out), -1);     /* C name: unchanged */
    CHECK(!strcmp(out, "add_kernel"));
    CHECK_EQ_LL(dc_demangle("_Z4vaddPKfS0_Pfi_junk(", out, sizeof out), -1);
    CHECK(!strcmp(out, "_Z4vaddPKfS0_Pfi_junk("));
    CHECK_EQ_LL(dc_demangle("_Z", out, sizeof out), -1);
    CHECK_EQ_LL(dc_demangle(NULL, out, sizeof out), -1);
    CHECK(!strcmp(out, ""));
    /* issue 40: each parameter is A<previous, previous>: 40 of them print
     * 2^41 characters.  The printer stops at DC_DEMANGLE_OUT_MAX and the name
     * is shown mangled, with its length (before, this spun for hours). */
    char bomb[1024] = "_Z1f1AI1XS0_E";
    for (int i = 2; i < 42; i++) {
        char ref[8];
        snprintf(ref, sizeof ref, i < 37 ? "S%c_" : "S1%c_", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[(i - 1) % 36]);
        snprintf(bomb + strlen(bomb), sizeof bomb - strlen(bomb), "S_I%s%sE", ref, ref);
    }
    char big[2048];
    CHECK_EQ_LL(dc_demangle(bomb, big, sizeof big), -2);
    CHECK(!strncmp(big, bomb, strlen(bomb)));
    char tail[64];
    snprintf(tail, sizeof tail, " [%zu-byte name, demangled over %d bytes]", strlen(bomb), DC_DEMANGLE_OUT_MAX);
    CHECK(!strcmp(big + strlen(bomb), tail));
    /* a name that prints just under the budget is still demangled (cut) */
    CHECK_EQ_LL(dc_demangle("_Z1f1AI1XS0_ES_IS1_S1_ES_IS2_S2_ES_IS3_S3_E", big, sizeof big), 0);
    CHECK(!strncmp(big, "f(A<X, X>, A<A<X, X>, A<X, X> >", 31));

    char small[8];
    dc_demangle("_Z4vaddPKfS0_Pfi", small, sizeof small);               /* cut, terminated */
    CHECK(!strcmp(small, "vadd(fl"));
    return unit_done("test_demangle");
}
