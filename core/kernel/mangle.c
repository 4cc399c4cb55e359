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
 * ends the parse with "not understood".  This file holds the names,
 * template arguments and expressions; mangle_type.c the types, encodings
 * and the entry point; mangle_parser.h the state both share. */
#include "core/kernel/mangle_parser.h"

#include <stdlib.h>
#include <string.h>

static int arg_list(struct parser *p, struct ty *head, int tag);
static int nv_lambda(struct parser *p);

/* <number> ::= [n] <decimal>; *v gets the value (saturated), 0 if none. */
int mg_number(struct parser *p, uint64_t *v, int allow_negative)
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
int mg_source_name(struct parser *p, const char **id, size_t *len)
{
    uint64_t l;
    if (!is_digit(look(p, 0)) || look(p, 0) == '0' || !mg_number(p, &l, 0))
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

int mg_push_sub(struct parser *p, const struct ty *t)
{
    if (p->nsubs >= MAX_SUBS)
        return 0;
    p->subs[p->nsubs] = *t;
    p->subs[p->nsubs].next = 0;
    p->nsubs++;
    return 1;
}

/* A copy of t in the pool; its index + 1, or 0 when the pool is full. */
uint32_t mg_pool_add(struct parser *p, const struct ty *t)
{
    if (p->npool >= MAX_POOL)
        return 0;
    p->pool[p->npool] = *t;
    p->pool[p->npool].next = 0;
    return ++p->npool;
}

void mg_set_class(struct ty *t, int nm)
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
        mg_set_class(out, NM_OTHER);       /* std::allocator, std::basic_string, std::string, streams */
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
        mg_set_class(out, NM_OTHER);       /* after an nvcc lambda: which entry it is, is not known */
        out->kind = TK_UNKNOWN;
        return 1;
    }
    *out = p->subs[idx];
    out->next = 0;
    return 1;
}

/* <template-param> ::= T_ | T <number> _ */
int mg_template_param(struct parser *p, struct ty *out)
{
    if (!eat(p, 'T'))
        return 0;
    uint64_t idx = 0;
    if (!eat(p, '_')) {
        if (!mg_number(p, &idx, 0) || !eat(p, '_'))
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
        if (!mg_encoding(p, NULL, 0, &np))
            return 0;
        return eat(p, 'E');
    }
    struct ty t;
    if (!mg_type(p, &t))
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

int mg_expression(struct parser *p)
{
    if (++p->depth > MAX_DEPTH)
        return 0;
    int ok = 0;
    struct ty t;
    if (eat(p, 'L')) {
        ok = literal(p, &t);
    } else if (look(p, 0) == 'T') {
        ok = mg_template_param(p, &t);
    } else if (eat2(p, "fp")) {
        while (eat(p, 'r') || eat(p, 'V') || eat(p, 'K'))
            ;
        uint64_t v;
        (void)mg_number(p, &v, 0);
        ok = eat(p, '_');
    } else if (eat2(p, "st") || eat2(p, "at")) {
        ok = mg_type(p, &t);
    } else if (eat2(p, "cv")) {
        ok = mg_type(p, &t) && mg_expression(p);
    } else if (in_table(p, unary_ops)) {
        p->i += 2;
        eat(p, '_');                    /* pp_ / mm_: the prefix forms */
        ok = mg_expression(p);
    } else if (in_table(p, binary_ops)) {
        p->i += 2;
        ok = mg_expression(p) && mg_expression(p);
    } else if (eat2(p, "qu")) {
        ok = mg_expression(p) && mg_expression(p) && mg_expression(p);
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
        return mg_expression(p) && eat(p, 'E');
    }
    if (eat(p, 'L'))
        return literal(p, out);
    if (eat(p, 'J')) {
        out->kind = TK_PACK;
        return arg_list(p, out, 0);
    }
    return mg_type(p, out);
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
        uint32_t at = mg_pool_add(p, &a);
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
int mg_template_args(struct parser *p, int tag, struct ty *args_head)
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
void mg_apply_targs(struct parser *p, struct ty *t, const struct ty *args)
{
    int nm = t->name;
    mg_set_class(t, NM_OTHER);
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
        if (!mg_number(p, &ncap, 0) || !eat(p, '_'))
            return 0;
    if (ncap > 64)
        return 0;
    if (!mg_type(p, &t) || !mg_name(p, 0, &t))
        return 0;
    if (trailing && !mg_type(p, &t))
        return 0;
    if (!mg_number(p, &v, 0) || !eat(p, '_'))
        return 0;
    if (hd) {
        do {
            if (!mg_type(p, &t))
                return 0;
        } while (look(p, 0) && look(p, 0) != 'E');
        if (!eat(p, 'E'))
            return 0;
    }
    for (uint64_t k = 0; k < ncap; k++)
        if (!mg_type(p, &t))
            return 0;
    return 1;
}

/* <unnamed-type-name> ::= Ut [<number>] _ | Ul <lambda-sig> E [<number>] _ | Ub [<number>] _ */
static int unnamed_type_name(struct parser *p, int state, struct ty *out)
{
    if (state)
        p->tparams = 0;
    uint64_t v;
    mg_set_class(out, NM_OTHER);
    if (eat2(p, "Ut") || eat2(p, "Ub")) {
        (void)mg_number(p, &v, 0);
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
            if (!mg_type(p, &t))
                return 0;
        } while (look(p, 0) && look(p, 0) != 'E');
    }
    if (!eat(p, 'E'))
        return 0;
    (void)mg_number(p, &v, 0);
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
        if (!mg_source_name(p, &id, &len))
            return 0;
        mg_set_class(out, name_step(prefix, id, len));
    } else if (c == 'U') {
        if (!unnamed_type_name(p, state, out))
            return 0;
    } else if (eat2(p, "DC")) {
        const char *id;
        size_t len;
        do {
            if (!mg_source_name(p, &id, &len))
                return 0;
        } while (!eat(p, 'E'));
        mg_set_class(out, NM_OTHER);
    } else if (c == 'C' || c == 'D') {
        if (prefix == NM_ROOT)
            return 0;
        if (eat2(p, "CI")) {
            if (!(eat(p, '1') || eat(p, '2')))
                return 0;
            struct ty t;
            if (!mg_type(p, &t))
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
        mg_set_class(out, NM_OTHER);
    } else if (eat2(p, "cv")) {
        struct ty t;
        if (!mg_type(p, &t))
            return 0;
        if (state)
            p->ctor_dtor_conv = 1;
        mg_set_class(out, NM_OTHER);
    } else if (eat2(p, "li")) {
        const char *id;
        size_t len;
        if (!mg_source_name(p, &id, &len))
            return 0;
        mg_set_class(out, NM_OTHER);
    } else if (c == 'v' && is_digit(look(p, 1))) {
        p->i += 2;
        const char *id;
        size_t len;
        if (!mg_source_name(p, &id, &len))
            return 0;
        mg_set_class(out, NM_OTHER);
    } else if (in_table(p, operators)) {
        p->i += 2;
        mg_set_class(out, NM_OTHER);
    } else {
        return 0;
    }
    while (eat(p, 'B')) {               /* <abi-tags> */
        const char *id;
        size_t len;
        if (!mg_source_name(p, &id, &len))
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
            if (!mg_template_param(p, &so_far))
                return 0;
            if (so_far.kind != TK_CLASS)
                mg_set_class(&so_far, NM_OTHER);
        } else if (look(p, 0) == 'I') {
            if (!have)
                return 0;
            struct ty args;
            if (!mg_template_args(p, state, &args))
                return 0;
            mg_apply_targs(p, &so_far, &args);
            if (state)
                p->ends_with_targs = 1;
        } else if (look(p, 0) == 'D' && (look(p, 1) == 't' || look(p, 1) == 'T')) {
            return 0;                   /* decltype: not understood */
        } else {
            if (look(p, 0) == 'S') {
                if (have)
                    return 0;
                if (eat2(p, "St")) {
                    mg_set_class(&so_far, NM_STD);
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
        if (!mg_push_sub(p, &so_far))
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
    if (!mg_encoding(p, NULL, 0, &np) || !eat(p, 'E'))
        return 0;
    if (eat(p, 's')) {
        discriminator(p);
        mg_set_class(out, NM_OTHER);
        return 1;
    }
    if (eat(p, 'd')) {
        uint64_t v;
        (void)mg_number(p, &v, 1);
        if (!eat(p, '_'))
            return 0;
        if (!mg_name(p, state, out))
            return 0;
        mg_set_class(out, NM_OTHER);
        return 1;
    }
    if (!mg_name(p, state, out))
        return 0;
    discriminator(p);
    mg_set_class(out, NM_OTHER);
    return 1;
}

/* <unscoped-name> ::= [St] <unqualified-name> | <substitution> (*is_subst) */
int mg_unscoped_name(struct parser *p, int state, struct ty *out, int *is_subst)
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
int mg_name(struct parser *p, int state, struct ty *out)
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
        ok = mg_unscoped_name(p, state, out, &is_subst);
        if (ok && look(p, 0) == 'I') {
            if (!is_subst && !mg_push_sub(p, out))
                return 0;
            struct ty args;
            if (!mg_template_args(p, state, &args))
                return 0;
            mg_apply_targs(p, out, &args);
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
