/* symrank: libdw's choice among the ELF symbols that cover an address
 * (dwfl_module_addrinfo: the closest start, then the stronger binding, then
 * the smaller size), shared by report/symindex.c (the index of a large
 * module) and report/elfdw.c (a frame read without libdw), which must
 * answer as libdw does. */
#ifndef DEVCHECK_REPORT_SYMRANK_H
#define DEVCHECK_REPORT_SYMRANK_H
#include <elf.h>
#include <stdint.h>

/* libdw's binding order: higher is better. */
static inline int dc_sym_binding(unsigned char info)
{
    switch (ELF64_ST_BIND(info)) {
    case STB_GLOBAL: return 3;
    case STB_WEAK: return 2;
    case STB_LOCAL: return 1;
    default: return 0;
    }
}

/* Nonzero: a candidate (value v, size, info) beats the best so far (bv,
 * bsize, binfo; have: there is one). */
static inline int dc_sym_better(int have, uint64_t bv, uint64_t bsize, unsigned char binfo, uint64_t v, uint64_t size,
                                unsigned char info)
{
    int bb = dc_sym_binding(binfo), b = dc_sym_binding(info);
    return !have || bv < v || bb < b || (bv == v && ((bsize > size && bb <= b) || (bsize >= size && bb < b)));
}

#endif
