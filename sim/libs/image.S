/* A sim library's code image (sim/libs/libs.mk): the fatbin nvcc made from
 * <dir>/<stem>.cu, embedded as the hidden symbol <stem>_image (libs.mk
 * defines SIMLIB_IMAGE_SYM and SIMLIB_IMAGE_FILE), aligned as
 * cuLibraryLoadData wants, followed by a NUL byte. */
    .section .rodata
    .balign 64
    .globl SIMLIB_IMAGE_SYM
    .hidden SIMLIB_IMAGE_SYM
    .type SIMLIB_IMAGE_SYM, %object
SIMLIB_IMAGE_SYM:
    .incbin SIMLIB_IMAGE_FILE
    .byte 0
    .size SIMLIB_IMAGE_SYM, . - SIMLIB_IMAGE_SYM
    .section .note.GNU-stack,"",%progbits
