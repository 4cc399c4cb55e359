/* export: how a hook is exported from libdevcheck.so (definitions only).
 *
 * The library is built with -fvisibility=hidden and a version script that
 * ends in `local: *` (preload/exports.map.in): a hook is exported by
 * DC_EXPORT and the version script (name@@DEVCHECK_1), or under its
 * library's symbol versions by DC_SYMVER_AS.  Every hook starts the same
 * way (preload/startup.h, dc_enter); these only say how its name leaves the
 * library. */
#ifndef DC_PRELOAD_EXPORT_H
#define DC_PRELOAD_EXPORT_H

#define DC_EXPORT __attribute__((visibility("default")))

/* (a, b) -> a, b: a parenthesised argument list passed on. */
#define DC_UNPAREN(...) __VA_ARGS__

/* Exports `entry` as name<version> (version: "@@node" for the default,
 * "@node" for an older one): an alias label dc_<tag>_<name> of its own,
 * global, set to the entry.  ld drops a version-script version from a name
 * that also has a .symver version, so every version of a hooked name is set
 * this way (the plain names and the entries are then local, by the version
 * script's `local: *`).  Used by the runtime, CUPTI, NVRTC and library
 * hooks, in the translation unit that defines the entry. */
#define DC_SYMVER_AS(name, entry, tag, version)                               \
    __asm__(".globl dc_" tag "_" #name "\n"                                 \
            ".set dc_" tag "_" #name ", " #entry "\n"                       \
            ".symver dc_" tag "_" #name ", " #name version "\n");

/* A runtime hook (hooks.def's DC_RT, DC_RT_DOOR): one body,
 * body_<name>(rt, args...), inlined into one thin entry per libcudart
 * version node: the plain name is name@@libcudart.so.13, and for entry
 * points older toolkits have, rt12_<name> and rt11_<name> become
 * name@libcudart.so.12 and name@libcudart.so.11.0 (DC_RT_SYMVER, set in the
 * translation unit that defines them).  An entry of a version the hook is
 * not exported under stays a local function nobody calls. */
#define DC_RT_ENTRIES(name, params, args) DC_RT_ENTRIES_OF(cudaError_t, name, params, args)
/* The same for a hook returning `ret` (nvcc's registration calls). */
#define DC_RT_ENTRIES_OF(ret, name, params, args)                                         \
    DC_EXPORT ret CUDARTAPI name params { return body_##name(DC_RT13, DC_UNPAREN args); } \
    __attribute__((used)) static ret CUDARTAPI rt12_##name params                         \
    {                                                                                     \
        return body_##name(DC_RT12, DC_UNPAREN args);                                     \
    }                                                                                     \
    __attribute__((used)) static ret CUDARTAPI rt11_##name params                         \
    {                                                                                     \
        return body_##name(DC_RT11, DC_UNPAREN args);                                     \
    }
/* The symbol versions of runtime hook `name` exported since `since`
 * (hooks.def: DC_CUDA13, DC_CUDA12, DC_CUDA11). */
#define DC_RT_SYMVER(name, since) DC_RT_SYMVER_##since(name)
#define DC_RT_SYMVER_DC_CUDA13(name) DC_SYMVER_AS(name, name, "v13", "@@libcudart.so.13")
#define DC_RT_SYMVER_DC_CUDA12(name) \
    DC_RT_SYMVER_DC_CUDA13(name) DC_SYMVER_AS(name, rt12_##name, "v12", "@libcudart.so.12")
#define DC_RT_SYMVER_DC_CUDA11(name) \
    DC_RT_SYMVER_DC_CUDA12(name) DC_SYMVER_AS(name, rt11_##name, "v11", "@libcudart.so.11.0")

#endif
