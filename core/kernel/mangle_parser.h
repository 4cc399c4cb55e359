/* mangle_parser: the parser state shared by the mangled-name parser's two
 * halves (mangle.c: names, template arguments, expressions; mangle_type.c:
 * types and encodings).  Private to them: nothing else includes it. */
#ifndef DEVCHECK_CORE_KERNEL_MANGLE_PARSER_H
#define DEVCHECK_CORE_KERNEL_MANGLE_PARSER_H
#include "core/kernel/mangle.h"

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

enum tk {
    TK_UNKNOWN = 0,
    TK_SCALAR,      /* builtin arithmetic type, nullptr_t, pointer to member */
    TK_VOID,
    TK_POINTER,     /* P, R, O */
    TK_CLASS,       /* class / enum / union / closure, and name prefixes */
    TK_FUNCTION,
    TK_ARRAY,
    TK_PACK,        /* a template argument pack: `first` chains its elements */
    TK_PACK_PTR,    /* a pointer (reference) applied to each element of a pack of n */
    TK_EXPAND,      /* Dp <type>: a pack expansion (child in `first`) */
    TK_LITERAL,     /* a non-type template argument */
};

/* What a class name is, as far as the check cares. */
enum nm {
    NM_ROOT = 0,        /* nothing parsed yet (no prefix) */
    NM_OTHER,
    NM_STD,             /* std::, std::__1:: */
    NM_STD_ARRAY,       /* std::array (the template) */
    NM_AT,
    NM_AT_DETAIL,
    NM_AT_ARRAY,        /* at::detail::Array */
    NM_NUMBA_ARRAY,     /* numba's Array (unscoped) */
    NM_ARRAY_INST,      /* std::array<T, n> / at::detail::Array<T, n>: elem, n */
    NM_NUMBA_INST,      /* numba Array<dtype, ndim, layout, mutable, aligned>: n = ndim */
};

struct ty {
    uint8_t kind;       /* enum tk */
    uint8_t size;       /* TK_SCALAR: bytes (0 unknown) */
    uint8_t name;       /* TK_CLASS: enum nm */
    uint8_t elem;       /* NM_ARRAY_INST: the element's kind */
    uint8_t lit_int;    /* TK_LITERAL: `n` holds an integer value */
    uint32_t n;         /* array elements, numba ndim, pack size, literal value */
    uint32_t first;     /* TK_PACK: pool index + 1 of its first element (0: empty); TK_EXPAND: the pattern */
    uint32_t next;      /* pool index + 1 of the next element of a list (0: end) */
};

#define MAX_SUBS 1024
#define MAX_POOL 3072
#define MAX_DEPTH 128

struct parser {
    const char *s;
    size_t i, n;
    int depth;
    unsigned nsubs, npool;
    /* nvcc's extended lambdas push substitution candidates by rules of
     * their own: entries from the first one on cannot be trusted, so a
     * reference to them is an unknown type (never a pointer). */
    unsigned nv_mark;
    uint32_t tparams;           /* pool index + 1 of the first template argument in scope */
    int ends_with_targs;        /* the encoding's name ended with template args */
    int ctor_dtor_conv;         /* ... or was a constructor, destructor or conversion */
    struct ty subs[MAX_SUBS];
    struct ty pool[MAX_POOL];
};

/* ---- characters ------------------------------------------------------------------------ */

static inline int look(const struct parser *p, size_t k)
{
    return p->i + k < p->n ? (unsigned char)p->s[p->i + k] : 0;
}

static inline int eat(struct parser *p, char c)
{
    if (look(p, 0) == (unsigned char)c) {
        p->i++;
        return 1;
    }
    return 0;
}

static inline int eat2(struct parser *p, const char *two)
{
    if (look(p, 0) == (unsigned char)two[0] && look(p, 1) == (unsigned char)two[1]) {
        p->i += 2;
        return 1;
    }
    return 0;
}

static inline int is_digit(int c) { return c >= '0' && c <= '9'; }

/* The grammar's productions used across the two halves (each returns 1
 * when it parsed its production, 0 when the name is not understood). */
int mg_number(struct parser *p, uint64_t *v, int allow_negative);
int mg_source_name(struct parser *p, const char **id, size_t *len);
int mg_push_sub(struct parser *p, const struct ty *t);
uint32_t mg_pool_add(struct parser *p, const struct ty *t);
void mg_set_class(struct ty *t, int nm);
int mg_template_param(struct parser *p, struct ty *out);
int mg_expression(struct parser *p);
int mg_template_args(struct parser *p, int tag, struct ty *args_head);
void mg_apply_targs(struct parser *p, struct ty *t, const struct ty *args);
int mg_unscoped_name(struct parser *p, int state, struct ty *out, int *is_subst);
int mg_name(struct parser *p, int state, struct ty *out);
int mg_type(struct parser *p, struct ty *out);
int mg_encoding(struct parser *p, struct dc_sig_param *params, int max, int *nparams);

#pragma GCC visibility pop
#endif
