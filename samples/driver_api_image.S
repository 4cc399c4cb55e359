/* Embeds driver_api_kernel.fatbin (built by samples.mk; found through the
 * assembler's include path, -Wa,-I$(BUILD)/samples) as driver_api_fatbin. */
        .section .rodata
        .balign 16
        .globl  driver_api_fatbin
driver_api_fatbin:
        .incbin "driver_api_kernel.fatbin"
        .section .note.GNU-stack,"",@progbits
