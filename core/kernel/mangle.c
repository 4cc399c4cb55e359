/* mangle: the parameter types of an Itanium-mangled kernel name (see
 * mangle.h).
 *
 * A recursive-descent parser of the Itanium C++ ABI's <mangled-name> that
 * keeps, for every type, only what the launch check needs: pointer, builtin
 * scalar (and its size), class (with the name when it is std::array,
 * at::detail::Array or numba's Array), or unknown.  The substitution table
 * (S_, S0_, ...) and the template parameters (T_, T0_, ...) follow the ABI's
 * rules exactly as LLVM's ItaniumDemangle applies them (which candidates are
 * pushed, the last nested-name prefix popped, a function's template
 * arguments scoped to its encoding), because one wrong entry would shift a
 * later S<n>_ onto the wrong type.  Expressions are understood only in their
 * simple forms (literals, template parameters, operators); anything else
 * ends the parse with "not understood". */
#include "core/kernel/mangle.h"

#include <stdlib.h>
#include <string.h>

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

static int type(struct parser *p, struct ty *out);
static int name(struct parser *p, int state, struct ty *out);
static int encoding(struct parser *p, struct dc_sig_param *params, int max, int *nparams);
static int template_args(struct parser *p, int tag, struct ty *args_head);
static int arg_list(struct parser *p, struct ty *head, int tag);
static int expression(struct parser *p);
static int nv_lambda(struct parser *p);

/* ---- characters ------------------------------------------------------------------------ */

static int look(const struct parser *p, size_t k)
{
    return p->i + k < p->n ? (unsigned char)p->s[p->i + k] : 0;
}

static int eat(struct parser *p, char c)
{
    if (look(p, 0) == (unsigned char)c) {
        p->i++;
        return 1;
    }
    return 0;
}

static int eat2(struct parser *p, const char *two)
{
    if (look(p, 0) == (unsigned char)two[0] && look(p, 1) == (unsigned char)two[1]) {
        p->i += 2;
        return 1;
    }
    return 0;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* <number> ::= [n] <decimal>; *v gets the value (saturated), 0 if none. */
static int number(struct parser *p, uint64_t *v, int allow_negative)
{
    uint64_t x = 0;
    if (allow_negative)
        eat(p, 'n');
    if (!is_digit(look(p, 0)))
        return 0;
    while (is_digit(look(p, 0))) {
        unsigned d = (unsigned)(look(p, 0) - '0');
        x = x > (UINT64_MAX - d) / 10 ? UINT64_MAX : x * 10 + d;
        p->i++;
    }
    if (v)
        *v = x;
    return 1;
}

/* <source-name> ::= <positive length number> <identifier> */
static int source_name(struct parser *p, const char **id, size_t *len)
{
    uint64_t l;
    if (!is_digit(look(p, 0)) || look(p, 0) == '0' || !number(p, &l, 0))
        return 0;
    if (l > p->n - p->i)
        return 0;
    *id = p->s + p->i;
    *len = (size_t)l;
    p->i += (size_t)l;
    return 1;
}

static int id_is(const char *id, size_t len, const char *want)
{
    return strlen(want) == len && !memcmp(id, want, len);
}

/* ---- tables ---------------------------------------------------------------------------- */

static int push_sub(struct parser *p, const struct ty *t)
{
    if (p->nsubs >= MAX_SUBS)
        return 0;
    p->subs[p->nsubs] = *t;
    p->subs[p->nsubs].next = 0;
    p->nsubs++;
    return 1;
}

/* A copy of t in the pool; its index + 1, or 0 when the pool is full. */
static uint32_t pool_add(struct parser *p, const struct ty *t)
{
    if (p->npool >= MAX_POOL)
        return 0;
    p->pool[p->npool] = *t;
    p->pool[p->npool].next = 0;
    return ++p->npool;
}

static void set_class(struct ty *t, int nm)
{
    memset(t, 0, sizeof *t);
    t->kind = TK_CLASS;
    t->name = (uint8_t)nm;
}

/* What a name becomes with one more unqualified component `id`. */
static int name_step(int prefix, const char *id, size_t len)
{
    switch (prefix) {
    case NM_ROOT:
        if (id_is(id, len, "at"))
            return NM_AT;
        if (id_is(id, len, "Array"))
            return NM_NUMBA_ARRAY;
        return NM_OTHER;
    case NM_STD:
        if (id_is(id, len, "__1") || id_is(id, len, "__cxx11"))
            return NM_STD;
        if (id_is(id, len, "array"))
            return NM_STD_ARRAY;
        return NM_OTHER;
    case NM_AT:
        return id_is(id, len, "detail") ? NM_AT_DETAIL : NM_OTHER;
    case NM_AT_DETAIL:
        return id_is(id, len, "Array") ? NM_AT_ARRAY : NM_OTHER;
    default:
        return NM_OTHER;
    }
}

/* ---- substitutions and template parameters -------------------------------------------- */

/* <substitution> ::= S_ | S <seq-id> _ | Sa | Sb | Ss | Si | So | Sd
 * (St is the caller's: it is a prefix, not a substitution). */
static int substitution(struct parser *p, struct ty *out)
{
    if (!eat(p, 'S'))
        return 0;
    int c = look(p, 0);
    if (c == 'a' || c == 'b' || c == 's' || c == 'i' || c == 'o' || c == 'd') {
        p->i++;
        set_class(out, NM_OTHER);       /* std::allocator, std::basic_string, std::string, streams */
        return 1;
    }
    uint64_t idx = 0;
    if (eat(p, '_')) {
        idx = 0;
    } else {
        uint64_t v = 0;
        int any = 0;
        while ((c = look(p, 0)) && ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z'))) {
            v = v * 36 + (uint64_t)(c <= '9' ? c - '0' : c - 'A' + 10);
            if (v > MAX_SUBS)
                return 0;
            p->i++;
            any = 1;
        }
        if (!any || !eat(p, '_'))
            return 0;
        idx = v + 1;
    }
    if (idx >= p->nsubs)
        return 0;
    if (idx >= p->nv_mark) {
        set_class(out, NM_OTHER);       /* after an nvcc lambda: which entry it is, is not known */
        out->kind = TK_UNKNOWN;
        return 1;
    }
    *out = p->subs[idx];
    out->next = 0;
    return 1;
}

/* <template-param> ::= T_ | T <number> _ */
static int template_param(struct parser *p, struct ty *out)
{
    if (!eat(p, 'T'))
        return 0;
    uint64_t idx = 0;
    if (!eat(p, '_')) {
        if (!number(p, &idx, 0) || !eat(p, '_'))
            return 0;
        idx++;
    }
    memset(out, 0, sizeof *out);
    uint32_t at = p->tparams;
    for (uint64_t k = 0; at && k < idx; k++)
        at = p->pool[at - 1].next;
    if (!at) {
        out->kind = TK_UNKNOWN;        /* a forward reference or out of scope */
        return 1;
    }
    *out = p->pool[at - 1];
    out->next = 0;
    return 1;
}

/* ---- expressions (simple forms only) --------------------------------------------------- */

/* <expr-primary> after its L: L <type> <value> E | L <type> E | L _Z <encoding> E */
static int literal(struct parser *p, struct ty *out)
{
    memset(out, 0, sizeof *out);
    out->kind = TK_LITERAL;
    if (eat2(p, "_Z") || (look(p, 0) == 'Z' && (p->i++, 1))) {
        int np = 0;
        if (!encoding(p, NULL, 0, &np))
            return 0;
        return eat(p, 'E');
    }
    struct ty t;
    if (!type(p, &t))
        return 0;
    int neg = eat(p, 'n');
    if (is_digit(look(p, 0))) {
        size_t start = p->i;
        uint64_t v = 0;
        while (is_digit(look(p, 0)))
            p->i++;
        if (look(p, 0) == 'E' && !neg && t.kind == TK_SCALAR) {
            for (size_t k = start; k < p->i && v < 0xffffffffu; k++)
                v = v * 10 + (uint64_t)(p->s[k] - '0');
            out->lit_int = 1;
            out->n = v > 0xffffffffu ? 0xffffffffu : (uint32_t)v;
        }
    }
    /* the rest of a value (hex digits of a float) */
    while (look(p, 0) && look(p, 0) != 'E' && ((look(p, 0) >= 'a' && look(p, 0) <= 'z') || is_digit(look(p, 0))))
        p->i++;
    return eat(p, 'E');
}

static const char *const unary_ops[] = { "ps", "ng", "ad", "de", "co", "nt", "pp", "mm", "sz", "az", NULL };
static const char *const binary_ops[] = { "pl", "mi", "ml", "dv", "rm", "an", "or", "eo", "aS", "pL", "mI", "mL",
                                          "dV", "rM", "aN", "oR", "eO", "ls", "rs", "lS", "rS", "eq", "ne", "lt",
                                          "gt", "le", "ge", "ss", "aa", "oo", "cm", "pm", "ds", NULL };

static int in_table(const struct parser *p, const char *const *t)
{
    for (; *t; t++)
        if (look(p, 0) == (unsigned char)(*t)[0] && look(p, 1) == (unsigned char)(*t)[1])
            return 1;
    return 0;
}

static int expression(struct parser *p)
{
    if (++p->depth > MAX_DEPTH)
        return 0;
    int ok = 0;
    struct ty t;
    if (eat(p, 'L')) {
        ok = literal(p, &t);
    } else if (look(p, 0) == 'T') {
        ok = template_param(p, &t);
    } else if (eat2(p, "fp")) {
        while (eat(p, 'r') || eat(p, 'V') || eat(p, 'K'))
            ;
        uint64_t v;
        (void)number(p, &v, 0);
        ok = eat(p, '_');
    } else if (eat2(p, "st") || eat2(p, "at")) {
        ok = type(p, &t);
    } else if (eat2(p, "cv")) {
        ok = type(p, &t) && expression(p);
    } else if (in_table(p, unary_ops)) {
        p->i += 2;
        eat(p, '_');                    /* pp_ / mm_: the prefix forms */
        ok = expression(p);
    } else if (in_table(p, binary_ops)) {
        p->i += 2;
        ok = expression(p) && expression(p);
    } else if (eat2(p, "qu")) {
        ok = expression(p) && expression(p) && expression(p);
    }
    p->depth--;
    return ok;
}

/* ---- template arguments ----------------------------------------------------------------- */

/* <template-arg> ::= <type> | X <expression> E | <expr-primary> | J <template-arg>* E */
static int template_arg(struct parser *p, struct ty *out)
{
    memset(out, 0, sizeof *out);
    if (eat(p, 'X')) {
        out->kind = TK_LITERAL;
        return expression(p) && eat(p, 'E');
    }
    if (eat(p, 'L'))
        return literal(p, out);
    if (eat(p, 'J')) {
        out->kind = TK_PACK;
        return arg_list(p, out, 0);
    }
    return type(p, out);
}

/* Template arguments up to their E, appended to the list head->first (pool
 * indices), head->n of them.  tag: each is in scope as a T_ at once (an
 * argument may name an earlier one). */
static int arg_list(struct parser *p, struct ty *head, int tag)
{
    uint32_t last = 0;
    while (!eat(p, 'E')) {
        struct ty a;
        if (!look(p, 0) || !template_arg(p, &a))
            return 0;
        uint32_t at = pool_add(p, &a);
        if (!at)
            return 0;
        if (last)
            p->pool[last - 1].next = at;
        else
            head->first = at;
        last = at;
        head->n++;
        if (tag)
            p->tparams = head->first;
    }
    return 1;
}

/* <template-args> ::= I <template-arg>+ E.  tag: these become the template
 * parameters in scope (the name of an encoding).  *args_head: the list. */
static int template_args(struct parser *p, int tag, struct ty *args_head)
{
    if (!eat(p, 'I'))
        return 0;
    if (++p->depth > MAX_DEPTH)
        return 0;
    memset(args_head, 0, sizeof *args_head);
    if (tag)
        p->tparams = 0;                 /* T_ names the innermost arguments */
    if (!arg_list(p, args_head, tag) || !args_head->n)
        return 0;
    p->depth--;
    return 1;
}

/* A class name with template arguments: what it becomes. */
static void apply_targs(struct parser *p, struct ty *t, const struct ty *args)
{
    int nm = t->name;
    set_class(t, NM_OTHER);
    const struct ty *a0 = args->first ? &p->pool[args->first - 1] : NULL;
    const struct ty *a1 = a0 && a0->next ? &p->pool[a0->next - 1] : NULL;
    if ((nm == NM_STD_ARRAY || nm == NM_AT_ARRAY) && args->n == 2 && a1 && a1->kind == TK_LITERAL && a1->lit_int) {
        t->name = NM_ARRAY_INST;
        t->elem = a0->kind;
        t->n = a1->n;
    } else if (nm == NM_NUMBA_ARRAY && args->n == 5 && a1 && a1->kind == TK_LITERAL && a1->lit_int &&
               a1->n <= 32) {
        t->name = NM_NUMBA_INST;
        t->n = a1->n;
    }
}

/* ---- names ------------------------------------------------------------------------------ */

/* nvcc's extended lambdas (__device__ and __host__ __device__ lambdas passed
 * to kernels from host code), a vendor extension of <unnamed-type-name>:
 *   Unvdl  <ncap> _ <type> <name> <id> _ <capture type>{ncap}
 *   Unvdtl <ncap> _ <type> <name> <return type> <id> _ <capture type>{ncap}
 *   Unvhdl <n> _ <n> _ <n> _ <ncap> _ <type> <name> <id> _ <type>+ E <capture type>{ncap}
 * (<type>: the enclosing function's pointer type, <name>: the enclosing
 * function, <type>+: the lambda's signature).  Read from nvcc's output; the
 * tests check it against the host stubs' parameter lists. */
static int nv_lambda(struct parser *p)
{
    uint64_t v, ncap = 0;
    struct ty t;
    int hd = 0, trailing = 0;
    if (p->nsubs < p->nv_mark)
        p->nv_mark = p->nsubs;
    if (eat2(p, "Un") && eat(p, 'v')) {
        if (eat2(p, "hd") && eat(p, 'l')) {
            hd = 1;
        } else if (eat2(p, "dt") && eat(p, 'l')) {
            trailing = 1;
        } else if (!eat2(p, "dl")) {
            return 0;
        }
    } else {
        return 0;
    }
    for (int k = 0; k < (hd ? 4 : 1); k++)
        if (!number(p, &ncap, 0) || !eat(p, '_'))
            return 0;
    if (ncap > 64)
        return 0;
    if (!type(p, &t) || !name(p, 0, &t))
        return 0;
    if (trailing && !type(p, &t))
        return 0;
    if (!number(p, &v, 0) || !eat(p, '_'))
        return 0;
    if (hd) {
        do {
            if (!type(p, &t))
                return 0;
        } while (look(p, 0) && look(p, 0) != 'E');
        if (!eat(p, 'E'))
            return 0;
    }
    for (uint64_t k = 0; k < ncap; k++)
        if (!type(p, &t))
            return 0;
    return 1;
}

/* <unnamed-type-name> ::= Ut [<number>] _ | Ul <lambda-sig> E [<number>] _ | Ub [<number>] _ */
static int unnamed_type_name(struct parser *p, int state, struct ty *out)
{
    if (state)
        p->tparams = 0;
    uint64_t v;
    set_class(out, NM_OTHER);
    if (eat2(p, "Ut") || eat2(p, "Ub")) {
        (void)number(p, &v, 0);
        return eat(p, '_');
    }
    if (look(p, 0) == 'U' && look(p, 1) == 'n' && look(p, 2) == 'v')
        return nv_lambda(p);
    if (!eat2(p, "Ul"))
        return 0;
    if (look(p, 0) == 'T' && (look(p, 1) == 'y' || look(p, 1) == 'n' || look(p, 1) == 't' || look(p, 1) == 'p' ||
                              look(p, 1) == 'k'))
        return 0;                       /* template parameter declarations: not understood */
    if (!eat(p, 'v')) {
        do {
            struct ty t;
            if (!type(p, &t))
                return 0;
        } while (look(p, 0) && look(p, 0) != 'E');
    }
    if (!eat(p, 'E'))
        return 0;
    (void)number(p, &v, 0);
    return eat(p, '_');
}

static const char *const operators[] = {
    "nw", "na", "dl", "da", "ps", "ng", "ad", "de", "co", "pl", "mi", "ml", "dv", "rm", "an", "or", "eo", "aS",
    "pL", "mI", "mL", "dV", "rM", "aN", "oR", "eO", "ls", "rs", "lS", "rS", "eq", "ne", "lt", "gt", "le", "ge",
    "ss", "nt", "aa", "oo", "pp", "mm", "cm", "pm", "pt", "cl", "ix", "qu", "aw", NULL,
};

/* <unqualified-name> with its prefix's name state; *out gets the new state. */
static int unqualified_name(struct parser *p, int state, int prefix, struct ty *out)
{
    eat(p, 'L');                        /* internal linkage */
    int c = look(p, 0);
    if (c >= '1' && c <= '9') {
        const char *id;
        size_t len;
        if (!source_name(p, &id, &len))
            return 0;
        set_class(out, name_step(prefix, id, len));
    } else if (c == 'U') {
        if (!unnamed_type_name(p, state, out))
            return 0;
    } else if (eat2(p, "DC")) {
        const char *id;
        size_t len;
        do {
            if (!source_name(p, &id, &len))
                return 0;
        } while (!eat(p, 'E'));
        set_class(out, NM_OTHER);
    } else if (c == 'C' || c == 'D') {
        if (prefix == NM_ROOT)
            return 0;
        if (eat2(p, "CI")) {
            if (!(eat(p, '1') || eat(p, '2')))
                return 0;
            struct ty t;
            if (!type(p, &t))
                return 0;
        } else if (eat(p, 'C')) {
            if (look(p, 0) < '1' || look(p, 0) > '5')
                return 0;
            p->i++;
        } else if (eat(p, 'D')) {
            if (look(p, 0) < '0' || look(p, 0) > '5')
                return 0;
            p->i++;
        }
        if (state)
            p->ctor_dtor_conv = 1;
        set_class(out, NM_OTHER);
    } else if (eat2(p, "cv")) {
        struct ty t;
        if (!type(p, &t))
            return 0;
        if (state)
            p->ctor_dtor_conv = 1;
        set_class(out, NM_OTHER);
    } else if (eat2(p, "li")) {
        const char *id;
        size_t len;
        if (!source_name(p, &id, &len))
            return 0;
        set_class(out, NM_OTHER);
    } else if (c == 'v' && is_digit(look(p, 1))) {
        p->i += 2;
        const char *id;
        size_t len;
        if (!source_name(p, &id, &len))
            return 0;
        set_class(out, NM_OTHER);
    } else if (in_table(p, operators)) {
        p->i += 2;
        set_class(out, NM_OTHER);
    } else {
        return 0;
    }
    while (eat(p, 'B')) {               /* <abi-tags> */
        const char *id;
        size_t len;
        if (!source_name(p, &id, &len))
            return 0;
    }
    return 1;
}

/* <nested-name> ::= N [<CV-qualifiers>] [<ref-qualifier>] <prefix> <unqualified-name> E
 * Every prefix is a substitution candidate; the complete name is not. */
static int nested_name(struct parser *p, int state, struct ty *out)
{
    if (!eat(p, 'N'))
        return 0;
    while (eat(p, 'r') || eat(p, 'V') || eat(p, 'K'))
        ;
    if (!eat(p, 'O') && !eat(p, 'R'))
        eat(p, 'H');
    struct ty so_far;
    int have = 0;
    int pushed = 0;
    while (!eat(p, 'E')) {
        if (!look(p, 0))
            return 0;
        if (state) {
            p->ends_with_targs = 0;
            p->ctor_dtor_conv = 0;
        }
        if (look(p, 0) == 'T') {
            if (have)
                return 0;
            if (!template_param(p, &so_far))
                return 0;
            if (so_far.kind != TK_CLASS)
                set_class(&so_far, NM_OTHER);
        } else if (look(p, 0) == 'I') {
            if (!have)
                return 0;
            struct ty args;
            if (!template_args(p, state, &args))
                return 0;
            apply_targs(p, &so_far, &args);
            if (state)
                p->ends_with_targs = 1;
        } else if (look(p, 0) == 'D' && (look(p, 1) == 't' || look(p, 1) == 'T')) {
            return 0;                   /* decltype: not understood */
        } else {
            if (look(p, 0) == 'S') {
                if (have)
                    return 0;
                if (eat2(p, "St")) {
                    set_class(&so_far, NM_STD);
                } else if (!substitution(p, &so_far)) {
                    return 0;
                }
                have = 1;
                continue;               /* not a new candidate */
            }
            struct ty next;
            if (!unqualified_name(p, state, have ? so_far.name : NM_ROOT, &next))
                return 0;
            so_far = next;
        }
        have = 1;
        if (!push_sub(p, &so_far))
            return 0;
        pushed++;
        eat(p, 'M');
    }
    if (!have || !pushed)
        return 0;
    p->nsubs--;                         /* the complete name is no candidate */
    *out = so_far;
    return 1;
}

static void discriminator(struct parser *p)
{
    if (look(p, 0) == '_') {
        if (is_digit(look(p, 1))) {
            p->i += 2;
        } else if (look(p, 1) == '_') {
            size_t k = 2;
            while (is_digit(look(p, k)))
                k++;
            if (look(p, k) == '_')
                p->i += k + 1;
        }
    } else if (is_digit(look(p, 0))) {
        size_t k = 1;
        while (is_digit(look(p, k)))
            k++;
        if (p->i + k >= p->n)
            p->i += k;
    }
}

/* <local-name> ::= Z <function encoding> E <entity name> [<discriminator>]
 *              ::= Z <function encoding> E s [<discriminator>]
 *              ::= Z <function encoding> E d [<number>] _ <entity name> */
static int local_name(struct parser *p, int state, struct ty *out)
{
    if (!eat(p, 'Z'))
        return 0;
    int np = 0;
    if (!encoding(p, NULL, 0, &np) || !eat(p, 'E'))
        return 0;
    if (eat(p, 's')) {
        discriminator(p);
        set_class(out, NM_OTHER);
        return 1;
    }
    if (eat(p, 'd')) {
        uint64_t v;
        (void)number(p, &v, 1);
        if (!eat(p, '_'))
            return 0;
        if (!name(p, state, out))
            return 0;
        set_class(out, NM_OTHER);
        return 1;
    }
    if (!name(p, state, out))
        return 0;
    discriminator(p);
    set_class(out, NM_OTHER);
    return 1;
}

/* <unscoped-name> ::= [St] <unqualified-name> | <substitution> (*is_subst) */
static int unscoped_name(struct parser *p, int state, struct ty *out, int *is_subst)
{
    *is_subst = 0;
    int prefix = NM_ROOT;
    if (eat2(p, "St")) {
        prefix = NM_STD;
    } else if (look(p, 0) == 'S') {
        if (!substitution(p, out))
            return 0;
        *is_subst = 1;
        return 1;
    }
    return unqualified_name(p, state, prefix, out);
}

/* <name> ::= <nested-name> | <local-name> | <unscoped-name> | <unscoped-template-name> <template-args>
 * state: the name of an encoding (its template args are the ones in scope). */
static int name(struct parser *p, int state, struct ty *out)
{
    if (++p->depth > MAX_DEPTH)
        return 0;
    int ok;
    if (look(p, 0) == 'N') {
        ok = nested_name(p, state, out);
    } else if (look(p, 0) == 'Z') {
        ok = local_name(p, state, out);
    } else {
        int is_subst;
        ok = unscoped_name(p, state, out, &is_subst);
        if (ok && look(p, 0) == 'I') {
            if (!is_subst && !push_sub(p, out))
                return 0;
            struct ty args;
            if (!template_args(p, state, &args))
                return 0;
            apply_targs(p, out, &args);
            if (state)
                p->ends_with_targs = 1;
        } else if (ok && is_subst) {
            ok = 0;                     /* a substitution must be followed by template args here */
        } else if (ok && state) {
            p->ends_with_targs = 0;
        }
    }
    p->depth--;
    return ok;
}

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
        if (!number(p, &bits, 0))
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
        if (!expression(p) || !eat(p, 'E'))
            return 0;
    } else if (eat2(p, "Dw")) {
        while (!eat(p, 'E')) {
            struct ty t;
            if (!look(p, 0) || !type(p, &t))
                return 0;
        }
    }
    eat2(p, "Dx");
    if (!eat(p, 'F'))
        return 0;
    eat(p, 'Y');
    struct ty t;
    if (!type(p, &t))                   /* return type */
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
        if (!look(p, 0) || !type(p, &t))
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
    if (!source_name(p, &id, &len))
        return 0;
    struct ty args;
    return look(p, 0) != 'I' || template_args(p, 0, &args);
}

static int type(struct parser *p, struct ty *out)
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
        ok = type(p, out);              /* qualifiers do not change what it is */
        break;
    }
    case 'U': {                         /* vendor qualifier: U <source-name> [<template-args>] <type> */
        p->i++;
        if (!vendor_name(p))
            break;
        while (eat(p, 'r') || eat(p, 'V') || eat(p, 'K'))
            ;
        ok = type(p, out);
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
            if (!type(p, &child))
                break;
            uint32_t at = pool_add(p, &child);
            if (!at)
                break;
            out->kind = TK_EXPAND;
            out->first = at;
            ok = 1;
        } else if (eat2(p, "Dv")) {     /* vector: Dv <number> _ <type> */
            uint64_t v;
            if (!number(p, &v, 0) || !eat(p, '_') || !type(p, &child))
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
            if (!number(p, &v, 0) || !eat(p, '_'))
                break;
        } else if (!eat(p, '_')) {
            if (!expression(p) || !eat(p, '_'))
                break;
        }
        if (!type(p, &child))
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
        if (!type(p, &cls) || !type(p, &child))
            break;
        out->kind = TK_SCALAR;
        out->size = child.kind == TK_FUNCTION ? 16 : 8;
        ok = 1;
        break;
    }
    case 'T':
        if (look(p, 1) == 's' || look(p, 1) == 'u' || look(p, 1) == 'e') {
            p->i += 2;
            ok = name(p, 0, out);
            if (ok && out->kind != TK_CLASS)
                set_class(out, NM_OTHER);
            break;
        }
        if (!template_param(p, out))
            break;
        if (look(p, 0) == 'I') {        /* <template-template-param> <template-args> */
            if (!push_sub(p, out))
                break;
            struct ty args;
            if (!template_args(p, 0, &args))
                break;
            set_class(out, NM_OTHER);
        }
        ok = 1;
        break;
    case 'P':
    case 'R':
    case 'O':
        p->i++;
        if (!type(p, &child))
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
        if (!type(p, &child))
            break;
        out->kind = TK_SCALAR;          /* complex / imaginary */
        out->size = 0;
        ok = 1;
        break;
    case 'S':
        if (look(p, 1) != 't') {
            int is_subst = 0;
            if (!unscoped_name(p, 0, out, &is_subst))
                break;
            if (look(p, 0) == 'I') {
                if (!is_subst && !push_sub(p, out))
                    break;
                struct ty args;
                if (!template_args(p, 0, &args))
                    break;
                if (out->kind == TK_CLASS)
                    apply_targs(p, out, &args);
                else
                    set_class(out, NM_OTHER);
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
        ok = name(p, 0, out);
        if (ok && out->kind != TK_CLASS)
            set_class(out, NM_OTHER);
        break;
    }
    if (ok && !push_sub(p, out))
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
static int encoding(struct parser *p, struct dc_sig_param *params, int max, int *nparams)
{
    if (++p->depth > MAX_DEPTH)
        return 0;
    if (look(p, 0) == 'G' || look(p, 0) == 'T')
        return 0;                       /* special names */
    uint32_t saved_tparams = p->tparams;
    int saved_ends = p->ends_with_targs, saved_cdc = p->ctor_dtor_conv;
    p->ends_with_targs = p->ctor_dtor_conv = 0;
    struct ty nm;
    int ok = name(p, 1, &nm);
    int with_return = p->ends_with_targs && !p->ctor_dtor_conv;
    *nparams = 0;
    int numba_arrays = 0, other_classes = 0;
    if (ok && !end_of_encoding(p)) {
        struct ty t;
        if (with_return && !type(p, &t))
            ok = 0;
        if (ok && look(p, 0) == 'v' && end_after(p, 1)) {
            p->i++;                     /* (void): no parameters */
        } else {
            while (ok && !end_of_encoding(p)) {
                if (!type(p, &t)) {
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
    int ok = encoding(p, out, max, &np);
    /* nothing may follow but a clone suffix (".constprop.0") */
    if (ok && p->i < p->n && p->s[p->i] != '.')
        ok = 0;
    free(p);
    return ok ? np : -1;
}
