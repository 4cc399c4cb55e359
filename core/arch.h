/* Per-architecture facts of the core: definitions only.
 *
 * The end of user space.  A kernel parameter word is host memory only if the
 * kernel says the page is mapped (mincore(), which fails beyond the
 * process's address space); dc_may_be_user_address is the cheap test before
 * that syscall, for words that cannot be a user address on this
 * architecture.  It must never turn away a real one, so its bound is the
 * highest user space the architecture allows, not the usual one:
 *   x86-64   2^47 with 4-level paging, 2^56 with 5-level paging (LA57) for a
 *            process that asks for addresses above 2^47 with an mmap hint;
 *   aarch64  2^48 by default (48-bit VA, and there the loader, libraries,
 *            mmap() memory and stacks sit just below 2^48: above x86-64's
 *            2^47), 2^52 on a 52-bit VA kernel for a process that asks with
 *            a hint; 2^39 or 2^42 on smaller configurations.
 * Words between the usual end and this bound cost a failing mincore(), not a
 * wrong answer.  Not handled: aarch64 pointers with a tag in their top byte
 * (HWASan, MTE), which mincore() refuses: such a word is not seen as host
 * memory. */
#ifndef DEVCHECK_CORE_ARCH_H
#define DEVCHECK_CORE_ARCH_H
#include <stdint.h>

#if defined(__x86_64__)
#define DC_USER_VA_END ((uintptr_t)1 << 56)
#elif defined(__aarch64__)
#define DC_USER_VA_END ((uintptr_t)1 << 52)
#else
#error "devcheck supports x86-64 and aarch64"
#endif

/* 0 when v cannot be a user-space address, or is below 64 KiB: small
 * integers, where Linux maps nothing (vm.mmap_min_addr, 64 KiB on most
 * configurations). */
static inline int dc_may_be_user_address(uintptr_t v)
{
    return v >= 0x10000 && v < DC_USER_VA_END;
}
#endif
