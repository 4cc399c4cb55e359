/* DC_SYMVER_AS: one hooked name exported under one symbol version. */
#ifndef DC_PRELOAD_SYMVER_H
#define DC_PRELOAD_SYMVER_H

/* Exports `entry` as name<version> (version: "@@node" for the default,
 * "@node" for an older one): an alias label dc_<tag>_<name> of its own,
 * global, set to the entry.  ld drops a version-script version from a name
 * that also has a .symver version, so every version of a hooked name is set
 * this way (the plain names and the entries are then local, by the version
 * script's `local: *`).  Used by the runtime, CUPTI, NVRTC and library
 * hooks. */
#define DC_SYMVER_AS(name, entry, tag, version)                               \
    __asm__(".globl dc_" tag "_" #name "\n"                                 \
            ".set dc_" tag "_" #name ", " #entry "\n"                       \
            ".symver dc_" tag "_" #name ", " #name version "\n");

#endif
