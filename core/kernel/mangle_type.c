/* mangle_type: the types and encodings of the mangled-name parser, and its
 * entry point dc_sig_params (see mangle.h; the names, template arguments and
 * expressions are in mangle.c). */
#include "core/kernel/mangle_parser.h"

#include <stdlib.h>
#include <string.h>

/* ---- types --------------------------------------------------------------------------------- */

static int builtin(struct parser *p, struct ty *out)
{
    static const struct {
        char c;
        uint8_t size;
    } one[] = {
        { 'w', 4 }, { 'b', 1 }, { 'c', 1 }, { 'a', 1 }, { 'h', 1 }, { 's', 2 }, { 't', 2 }, { 'i', 4 },
        { 'j', 4 }, { 'l', 8 }, { 'm', 8 }, { 'x', 8 }, { 'y', 8 }, { 'n', 16 }, { 'o', 16 }, { 'f', 4 },
        { 'd', 8 }, { 'e', 16 }, { 'g', 16 },
    };
    memset(out, 0, sizeof *out);
    int c = look(p, 0);
    if (c == 'v') {
        p->i++;
        out->kind = TK_VOID;
        return 1;
    }
    if (c == 'z') {
        p->i++;
        out->kind = TK_UNKNOWN;         /* ellipsis */
        return 1;
    }
    for (size_t k = 0; k < sizeof one / sizeof one[0]; k++)
        if (c == one[k].c) {
            p->i++;
            out->kind = TK_SCALAR;
            out->size = one[k].size;
            return 1;
        }
    if (c != 'D')
        return 0;
    static const struct {
        char c;
        uint8_t size;
    } two[] = {
        { 'd', 8 }, { 'e', 16 }, { 'f', 4 }, { 'h', 2 }, { 'i', 4 }, { 's', 2 }, { 'u', 1 }, { 'n', 8 },
    };
    int c1 = look(p, 1);
    for (size_t k = 0; k < sizeof two / sizeof two[0]; k++)
        if (c1 == two[k].c) {
            p->i += 2;
            out->kind = TK_SCALAR;
            out->size = two[k].size;
            return 1;
        }
    if (c1 == 'F') {                    /* DF <bits> _ | DF16b | DF <bits> x */
        p->i += 2;
        uint64_t bits = 0;
        if (!mg_number(p, &bits, 0))
            return 0;
        if (!(eat(p, '_') || eat(p, 'b') || eat(p, 'x')))
            return 0;
        out->kind = TK_SCALAR;
        out->size = bits % 8 == 0 && bits <= 128 ? (uint8_t)(bits / 8) : 0;
        return 1;
    }
    return 0;
}

static int is_builtin_start(const struct parser *p)
{
    int c = look(p, 0);
    if (c && strchr("vwbcahstijlmxynofdegz", c))
        return 1;
    if (c == 'D') {
        int c1 = look(p, 1);
        return c1 && strchr("defhisunF", c1);
    }
    return 0;
}

/* <function-type> ::= [<CV-qualifiers>] [Dx] F [Y] <bare-function-type> [<ref-qualifier>] E */
static int function_type(struct parser *p, struct ty *out)
{
    while (eat(p, 'r') || eat(p, 'V') || eat(p, 'K'))
        ;
    if (eat2(p, "Do")) {
    } else if (eat2(p, "DO")) {
        if (!mg_expression(p) || !eat(p, 'E'))
            return 0;
    } else if (eat2(p, "Dw")) {
        while (!eat(p, 'E')) {
            struct ty t;
            if (!look(p, 0) || !mg_type(p, &t))
                return 0;
        }
    }
    eat2(p, "Dx");
    if (!eat(p, 'F'))
        return 0;
    eat(p, 'Y');
    struct ty t;
    if (!mg_type(p, &t))                   /* return type */
        return 0;
    for (;;) {
        if (eat(p, 'E'))
            break;
        if (look(p, 0) == 'v' && look(p, 1) == 'E') {
            p->i += 2;
            break;
        }
        if ((look(p, 0) == 'R' || look(p, 0) == 'O') && look(p, 1) == 'E') {
            p->i += 2;
            break;
        }
        if (!look(p, 0) || !mg_type(p, &t))
            return 0;
    }
    memset(out, 0, sizeof *out);
    out->kind = TK_FUNCTION;
    return 1;
}

/* After U or u: <source-name> [<template-args>], what a vendor qualifier or
 * a vendor extended type is named by; 0 if malformed. */
static int vendor_name(struct parser *p)
{
    const char *id;
    size_t len;
    if (!mg_source_name(p, &id, &len))
        return 0;
    struct ty args;
    return look(p, 0) != 'I' || mg_template_args(p, 0, &args);
}

int mg_type(struct parser *p, struct ty *out)
{
    if (++p->depth > MAX_DEPTH)
        return 0;
    memset(out, 0, sizeof *out);
    int c = look(p, 0), ok = 0;
    struct ty child;
    if (!c) {
        p->depth--;
        return 0;
    }
    if (is_builtin_start(p) && !(c == 'D' && (look(p, 1) == 'p' || look(p, 1) == 'v' || look(p, 1) == 't' ||
                                              look(p, 1) == 'T'))) {
        ok = builtin(p, out);
        p->depth--;
        return ok;                      /* builtins are no substitution candidates */
    }
    switch (c) {
    case 'r':
    case 'V':
    case 'K': {
        size_t k = 0;
        if (look(p, k) == 'r') k++;
        if (look(p, k) == 'V') k++;
        if (look(p, k) == 'K') k++;
        if (look(p, k) == 'F' || (look(p, k) == 'D' && strchr("oOwx", look(p, k + 1) ? look(p, k + 1) : '!'))) {
            ok = function_type(p, out);
            break;
        }
        while (eat(p, 'r') || eat(p, 'V') || eat(p, 'K'))
            ;
        ok = mg_type(p, out);              /* qualifiers do not change what it is */
        break;
    }
    case 'U': {                         /* vendor qualifier: U <source-name> [<template-args>] <type> */
        p->i++;
        if (!vendor_name(p))
            break;
        while (eat(p, 'r') || eat(p, 'V') || eat(p, 'K'))
            ;
        ok = mg_type(p, out);
        break;
    }
    case 'u': {                         /* vendor extended type: a candidate, unlike builtins */
        p->i++;
        if (!vendor_name(p))
            break;
        out->kind = TK_UNKNOWN;
        ok = 1;
        break;
    }
    case 'D':
        if (eat2(p, "Dp")) {
            if (!mg_type(p, &child))
                break;
            uint32_t at = mg_pool_add(p, &child);
            if (!at)
                break;
            out->kind = TK_EXPAND;
            out->first = at;
            ok = 1;
        } else if (eat2(p, "Dv")) {     /* vector: Dv <number> _ <type> */
            uint64_t v;
            if (!mg_number(p, &v, 0) || !eat(p, '_') || !mg_type(p, &child))
                break;
            out->kind = child.kind == TK_SCALAR ? TK_SCALAR : TK_UNKNOWN;
            out->size = 0;
            ok = 1;
        } else if (look(p, 1) == 'o' || look(p, 1) == 'O' || look(p, 1) == 'w' || look(p, 1) == 'x') {
            ok = function_type(p, out);
        }
        break;                          /* decltype and the rest: not understood */
    case 'F':
        ok = function_type(p, out);
        break;
    case 'A': {                         /* A <number> _ <type> | A _ <type> | A <expr> _ <type> */
        p->i++;
        uint64_t v = 0;
        if (is_digit(look(p, 0))) {
            if (!mg_number(p, &v, 0) || !eat(p, '_'))
                break;
        } else if (!eat(p, '_')) {
            if (!mg_expression(p) || !eat(p, '_'))
                break;
        }
        if (!mg_type(p, &child))
            break;
        out->kind = TK_ARRAY;
        out->elem = child.kind;
        out->n = v > 0xffffffffu ? 0xffffffffu : (uint32_t)v;
        ok = 1;
        break;
    }
    case 'M': {                         /* pointer to member: an offset or a member function, never a data pointer */
        struct ty cls;
        p->i++;
        if (!mg_type(p, &cls) || !mg_type(p, &child))
            break;
        out->kind = TK_SCALAR;
        out->size = child.kind == TK_FUNCTION ? 16 : 8;
        ok = 1;
        break;
    }
    case 'T':
        if (look(p, 1) == 's' || look(p, 1) == 'u' || look(p, 1) == 'e') {
            p->i += 2;
            ok = mg_name(p, 0, out);
            if (ok && out->kind != TK_CLASS)
                mg_set_class(out, NM_OTHER);
            break;
        }
        if (!mg_template_param(p, out))
            break;
        if (look(p, 0) == 'I') {        /* <template-template-param> <template-args> */
            if (!mg_push_sub(p, out))
                break;
            struct ty args;
            if (!mg_template_args(p, 0, &args))
                break;
            mg_set_class(out, NM_OTHER);
        }
        ok = 1;
        break;
    case 'P':
    case 'R':
    case 'O':
        p->i++;
        if (!mg_type(p, &child))
            break;
        if (child.kind == TK_PACK) {
            out->kind = TK_PACK_PTR;
            out->n = child.n;
        } else if (child.kind == TK_FUNCTION) {
            out->kind = TK_UNKNOWN;     /* a code address, not data */
        } else {
            out->kind = TK_POINTER;
            out->size = c != 'P';       /* a reference: never a kernel parameter */
        }
        ok = 1;
        break;
    case 'C':
    case 'G':
        p->i++;
        if (!mg_type(p, &child))
            break;
        out->kind = TK_SCALAR;          /* complex / imaginary */
        out->size = 0;
        ok = 1;
        break;
    case 'S':
        if (look(p, 1) != 't') {
            int is_subst = 0;
            if (!mg_unscoped_name(p, 0, out, &is_subst))
                break;
            if (look(p, 0) == 'I') {
                if (!is_subst && !mg_push_sub(p, out))
                    break;
                struct ty args;
                if (!mg_template_args(p, 0, &args))
                    break;
                if (out->kind == TK_CLASS)
                    mg_apply_targs(p, out, &args);
                else
                    mg_set_class(out, NM_OTHER);
                ok = 1;
                break;
            }
            ok = 1;
            if (is_subst) {
                p->depth--;
                return 1;               /* a plain substitution is not pushed again */
            }
            break;
        }
        /* St... is a class-enum type */
        __attribute__((fallthrough));
    default:                            /* <class-enum-type> ::= <name> */
        ok = mg_name(p, 0, out);
        if (ok && out->kind != TK_CLASS)
            mg_set_class(out, NM_OTHER);
        break;
    }
    if (ok && !mg_push_sub(p, out))
        ok = 0;
    p->depth--;
    return ok;
}

/* ---- encodings ------------------------------------------------------------------------------ */

static int end_after(const struct parser *p, size_t k)
{
    int c = look(p, k);
    return !c || c == 'E' || c == '.' || c == '_';
}

static int end_of_encoding(const struct parser *p) { return end_after(p, 0); }

/* Appends the parameter(s) a top-level parameter type stands for. */
static int add_param(struct parser *p, const struct ty *t, struct dc_sig_param *out, int max, int *np,
                     int *numba_arrays, int *other_classes)
{
    struct dc_sig_param sp;
    memset(&sp, 0, sizeof sp);
    switch (t->kind) {
    case TK_POINTER:
        sp.kind = t->size ? DC_SIG_UNKNOWN : DC_SIG_POINTER;
        break;
    case TK_SCALAR:
        sp.kind = DC_SIG_SCALAR;
        sp.size = t->size;
        break;
    case TK_CLASS:
        if (t->name == NM_ARRAY_INST && t->elem == TK_POINTER) {
            sp.kind = DC_SIG_PTR_ARRAY;
            sp.n = t->n;
        } else if (t->name == NM_ARRAY_INST && t->elem == TK_SCALAR) {
            sp.kind = DC_SIG_SCALAR_ARRAY;
            sp.n = t->n;
        } else if (t->name == NM_NUMBA_INST) {
            /* meminfo, parent, nitems, itemsize, data, shape[ndim], strides[ndim] */
            unsigned total = 5 + 2 * t->n;
            (*numba_arrays)++;
            for (unsigned k = 0; k < total; k++) {
                memset(&sp, 0, sizeof sp);
                sp.numba = (uint16_t)(k + 1);
                if (k == 4)
                    sp.kind = DC_SIG_POINTER;
                else if (k >= 2) {
                    sp.kind = DC_SIG_SCALAR;
                    sp.size = 8;
                } else {
                    sp.kind = DC_SIG_UNKNOWN;   /* meminfo, parent: host-side objects, passed as 0 */
                }
                if (*np < max && out)
                    out[*np] = sp;
                (*np)++;
            }
            return 1;
        } else {
            sp.kind = DC_SIG_AGGREGATE;
            (*other_classes)++;
        }
        break;
    case TK_EXPAND: {
        const struct ty *pat = &p->pool[t->first - 1];
        if (pat->kind == TK_PACK) {
            for (uint32_t at = pat->first; at; at = p->pool[at - 1].next) {
                const struct ty *e = &p->pool[at - 1];
                if (e->kind == TK_PACK || e->kind == TK_EXPAND || e->kind == TK_LITERAL)
                    return 0;
                if (!add_param(p, e, out, max, np, numba_arrays, other_classes))
                    return 0;
            }
            return 1;
        }
        if (pat->kind == TK_PACK_PTR) {
            for (uint32_t k = 0; k < pat->n; k++) {
                memset(&sp, 0, sizeof sp);
                sp.kind = DC_SIG_POINTER;
                if (*np < max && out)
                    out[*np] = sp;
                (*np)++;
            }
            return 1;
        }
        return 0;                       /* an expansion whose size is unknown */
    }
    case TK_PACK:
    case TK_PACK_PTR:
    case TK_LITERAL:
    case TK_VOID:
        return 0;
    default:
        sp.kind = DC_SIG_UNKNOWN;
        break;
    }
    if (*np < max && out)
        out[*np] = sp;
    (*np)++;
    return 1;
}

/* <encoding> ::= <name> <bare-function-type>; params != NULL: the top level,
 * whose parameters are wanted. */
int mg_encoding(struct parser *p, struct dc_sig_param *params, int max, int *nparams)
{
    if (++p->depth > MAX_DEPTH)
        return 0;
    if (look(p, 0) == 'G' || look(p, 0) == 'T')
        return 0;                       /* special names */
    uint32_t saved_tparams = p->tparams;
    int saved_ends = p->ends_with_targs, saved_cdc = p->ctor_dtor_conv;
    p->ends_with_targs = p->ctor_dtor_conv = 0;
    struct ty nm;
    int ok = mg_name(p, 1, &nm);
    int with_return = p->ends_with_targs && !p->ctor_dtor_conv;
    *nparams = 0;
    int numba_arrays = 0, other_classes = 0;
    if (ok && !end_of_encoding(p)) {
        struct ty t;
        if (with_return && !mg_type(p, &t))
            ok = 0;
        if (ok && look(p, 0) == 'v' && end_after(p, 1)) {
            p->i++;                     /* (void): no parameters */
        } else {
            while (ok && !end_of_encoding(p)) {
                if (!mg_type(p, &t)) {
                    ok = 0;
                    break;
                }
                if (params && !add_param(p, &t, params, max, nparams, &numba_arrays, &other_classes))
                    ok = 0;
            }
        }
    } else if (ok && params) {
        ok = 0;                         /* a data name, not a function */
    }
    /* numba flattens its records and tuples into several parameters: a
     * numba signature is understood only when made of arrays and scalars */
    if (ok && params && numba_arrays && other_classes)
        ok = 0;
    p->tparams = saved_tparams;
    p->ends_with_targs = saved_ends;
    p->ctor_dtor_conv = saved_cdc;
    p->depth--;
    return ok;
}

int dc_sig_params(const char *s, struct dc_sig_param *out, int max)
{
    if (!s || s[0] != '_' || s[1] != 'Z')
        return -1;
    struct parser *p = malloc(sizeof *p);
    if (!p)
        return -1;
    p->s = s;
    p->n = strnlen(s, 1 << 16);
    p->i = 2;
    p->depth = 0;
    p->nsubs = p->npool = 0;
    p->nv_mark = MAX_SUBS;
    p->tparams = 0;
    p->ends_with_targs = p->ctor_dtor_conv = 0;
    int np = 0;
    int ok = mg_encoding(p, out, max, &np);
    /* nothing may follow but a clone suffix (".constprop.0") */
    if (ok && p->i < p->n && p->s[p->i] != '.')
        ok = 0;
    free(p);
    return ok ? np : -1;
}
