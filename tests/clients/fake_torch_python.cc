// A stand-in for PyTorch's libtorch_python.so (tests/clients/raise_versions.sh),
// so devcheck's raise-time hook can be driven from every CPython, with no
// torch: it defines torch::translate_exception_to_python(std::exception_ptr
// const&) as PyTorch does (its own call goes through its PLT: a preloaded
// definition wins), setting a RuntimeError with the C++ error's message,
// and fake_op(message), which throws that message and translates it inside
// its catch, as HANDLE_TH_ERRORS does.  Called with ctypes.PyDLL: the GIL
// held, and the pending Python error raised when fake_op returns.  The
// interpreter's functions are found in the process (no Python headers).
#include <dlfcn.h>
#include <exception>
#include <stdexcept>

namespace torch {
void translate_exception_to_python(const std::exception_ptr &e);
}

void torch::translate_exception_to_python(const std::exception_ptr &e)
{
    auto set = reinterpret_cast<void (*)(void *, const char *)>(dlsym(RTLD_DEFAULT, "PyErr_SetString"));
    auto type = static_cast<void **>(dlsym(RTLD_DEFAULT, "PyExc_RuntimeError"));
    try {
        std::rethrow_exception(e);
    } catch (const std::exception &x) {
        if (set && type)
            set(*type, x.what());
    }
}

extern "C" int fake_op(const char *message)
{
    try {
        throw std::runtime_error(message);
    } catch (...) {
        torch::translate_exception_to_python(std::current_exception());
        return -1;
    }
}
