// A C++ library a C program (or Python) loads late, with dlopen: its
// exception is the first of the process, so _Unwind_RaiseException is bound
// when it is thrown, to whichever unwinder comes first in the global scope
// (unwind.sh: libgcc_s's, never one devcheck brought).
#include <stdexcept>

__attribute__((noinline)) static int depth(int n)
{
    if (n == 0)
        throw std::runtime_error("bottom");
    return depth(n - 1) + 1;
}

extern "C" int throw_through(int n)
{
    try {
        return depth(n);
    } catch (const std::runtime_error &) {
        return 100 * n;
    }
}
