/* ptxflow: which parameters of a PTX .entry its body uses as addresses.
 *
 * A parameter whose loaded value (`ld.param.u64 %rd, [name]`, offset 0: the
 * parameter itself, not a field of an aggregate) reaches `cvta.to.global`,
 * or the address operand of a ld/st/atom/red/prefetch outside the param,
 * shared, local and const spaces, directly or through mov/add/sub/mad/cvta,
 * gets SIM_PARAM_PTR_USE in flags[i].  One linear pass, no control flow:
 * a register is tracked from its last definition in program order.
 *
 * Contract: reads body[0..len) only (no NUL needed), never fails; names[i]
 * (nlens[i] bytes) are the parameters' names; flags has n entries and only
 * gains bits.  Thread-safe, no global state. */
#ifndef SIMCUDA_PTXFLOW_H
#define SIMCUDA_PTXFLOW_H
#include <stddef.h>

void sim_ptx_param_uses(const char *body, size_t len, const char *const *names, const size_t *nlens,
                        unsigned n, unsigned char *flags);
#endif
