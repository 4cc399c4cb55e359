/* The exported dlsym of x86-64: dlsym@@GLIBC_2.34 and dlsym@GLIBC_2.2.5
 * (preload/arch.h), one entry for both.  It asks dc_dlsym_subst
 * (preload/door.c) for a wrapper to hand back (DC_DLSYM_NULL, 1: hand back
 * NULL); when there is none it jumps to
 * the real dlsym with the caller's arguments and the caller's own return
 * address still on the stack: glibc's dlsym resolves RTLD_NEXT relative to
 * its return address, which must stay our caller's.  Assembly, so that the
 * fall-through is a true tail jump whatever the compiler and its options. */
#include "preload/arch.h"

    .text
    .p2align 4
    .globl dc_dlsym_v2_34
    .type dc_dlsym_v2_34, @function
    .globl dc_dlsym_base
    .type dc_dlsym_base, @function
dc_dlsym_v2_34:
dc_dlsym_base:
    .cfi_startproc
    pushq %rdi
    .cfi_adjust_cfa_offset 8
    pushq %rsi
    .cfi_adjust_cfa_offset 8
    subq $8, %rsp                       /* the call's stack alignment */
    .cfi_adjust_cfa_offset 8
    call dc_dlsym_subst
    addq $8, %rsp
    .cfi_adjust_cfa_offset -8
    popq %rsi
    .cfi_adjust_cfa_offset -8
    popq %rdi
    .cfi_adjust_cfa_offset -8
    testq %rax, %rax
    jnz 1f                              /* our wrapper */
    movq dc_real_dlsym(%rip), %rax
    testq %rax, %rax
    jz 1f                               /* no real dlsym: NULL */
    jmp *%rax
1:  cmpq $1, %rax                       /* DC_DLSYM_NULL (door.c): NULL */
    jne 2f
    xorl %eax, %eax
2:  ret
    .cfi_endproc
    .size dc_dlsym_v2_34, .-dc_dlsym_v2_34
    .size dc_dlsym_base, .-dc_dlsym_base

    .symver dc_dlsym_v2_34, dlsym@@GLIBC_2.34
    .symver dc_dlsym_base, dlsym@DC_GLIBC_BASE_NODE

    .section .note.GNU-stack, "", @progbits
