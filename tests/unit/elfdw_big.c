/* A library whose symbol table is too large to walk once per address
 * (report/elfdw.c: over 16,384 symbols, named in passes), built without
 * DWARF: 17,000 sized global functions of 4 bytes, 300 locals, weak aliases
 * and labels without size among them.  tests/unit/elfdw_libs.sh has
 * test_elfdw compare its frames with libdw's, as built, stripped to its
 * .dynsym, and with a .gnu_debuglink to a debug file beside it. */
__asm__(".pushsection .text\n"
        ".macro eb_global\n"
        ".globl eb_g\\@\n .type eb_g\\@, @function\n"
        "eb_g\\@: .byte 0x90, 0x90, 0x90, 0xc3\n .size eb_g\\@, 4\n"
        ".endm\n"
        ".macro eb_local\n"
        ".type eb_l\\@, @function\n"
        "eb_l\\@: .byte 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xc3\n .size eb_l\\@, 8\n"
        ".endm\n"
        ".macro eb_weak\n"
        ".globl eb_w\\@\n .type eb_w\\@, @function\n .weak eb_ww\\@\n .type eb_ww\\@, @function\n"
        "eb_w\\@: eb_ww\\@: .byte 0x90, 0x90, 0x90, 0xc3\n .size eb_w\\@, 4\n .size eb_ww\\@, 4\n"
        ".endm\n"
        ".rept 8500\n eb_global\n .endr\n"
        ".rept 300\n eb_local\n .endr\n"
        ".rept 50\n eb_weak\n .endr\n"
        ".globl eb_label\n eb_label: .fill 16, 1, 0x90\n"
        ".rept 8500\n eb_global\n .endr\n"
        ".popsection\n");

int eb_entry(void) { return 17000; }
