/* The exported dlsym of aarch64: dlsym@@GLIBC_2.34 and dlsym@GLIBC_2.17
 * (preload/arch.h), one entry for both.  It asks dc_dlsym_subst
 * (preload/door.c) for a wrapper to hand back; when there is none it branches
 * to the real dlsym with the caller's arguments and the caller's own return
 * address in x30: glibc's dlsym resolves RTLD_NEXT relative to its return
 * address, which must stay our caller's.  Assembly, so that the fall-through
 * is a true tail jump whatever the compiler and its options. */
#include "preload/arch.h"

    .text
    .p2align 4
    .globl dc_dlsym_v2_34
    .type dc_dlsym_v2_34, %function
    .globl dc_dlsym_base
    .type dc_dlsym_base, %function
dc_dlsym_v2_34:
dc_dlsym_base:
    .cfi_startproc
    hint 34                             /* bti c: a valid indirect-call target */
    stp x29, x30, [sp, #-32]!
    .cfi_def_cfa_offset 32
    .cfi_offset 29, -32
    .cfi_offset 30, -24
    mov x29, sp
    stp x0, x1, [sp, #16]
    bl dc_dlsym_subst
    mov x9, x0
    ldp x0, x1, [sp, #16]
    ldp x29, x30, [sp], #32             /* the caller's return address again */
    .cfi_restore 29
    .cfi_restore 30
    .cfi_def_cfa_offset 0
    cbnz x9, 1f                         /* our wrapper */
    adrp x16, dc_real_dlsym
    add x16, x16, :lo12:dc_real_dlsym
    ldar x16, [x16]
    cbz x16, 1f                         /* no real dlsym: NULL (x9) */
    br x16                              /* x16: a valid branch to a `bti c` */
1:  cmp x9, #1                          /* DC_DLSYM_NULL (door.c): NULL */
    csel x0, xzr, x9, eq
    ret
    .cfi_endproc
    .size dc_dlsym_v2_34, .-dc_dlsym_v2_34
    .size dc_dlsym_base, .-dc_dlsym_base

    .symver dc_dlsym_v2_34, dlsym@@GLIBC_2.34
    .symver dc_dlsym_base, dlsym@DC_GLIBC_BASE_NODE

    .section .note.GNU-stack, "", %progbits
