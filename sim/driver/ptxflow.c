/* ptxflow: which .entry parameters a PTX body uses as addresses (see
 * ptxflow.h).  nvcc, NVRTC, numba (LLVM NVPTX) and Triton all load a pointer
 * parameter with `ld.param.u64` and then either convert it (cvta.to.global)
 * or address memory through it, possibly after adding an offset; that is
 * the evidence this pass looks for, statement by statement. */
#include "ptxflow.h"
#include "image.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKS  48            /* tokens of one statement looked at */
#define REG_SLOTS 8192          /* tracked registers (power of two) */

struct tok { const char *p; size_t n; };

/* register name -> parameter index + 1 (0: not derived from a parameter) */
struct regmap {
    struct tok key[REG_SLOTS];
    unsigned short val[REG_SLOTS];
    unsigned used;
};

static uint32_t hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static bool tok_eq(struct tok a, const char *s, size_t n) { return a.n == n && memcmp(a.p, s, n) == 0; }

/* Slot of register r, created when make is set (NULL: table full or absent). */
static unsigned short *reg_slot(struct regmap *m, struct tok r, bool make)
{
    for (uint32_t i = hash(r.p, r.n) & (REG_SLOTS - 1);; i = (i + 1) & (REG_SLOTS - 1)) {
        if (!m->key[i].p) {
            if (!make || m->used >= REG_SLOTS / 2) return NULL;
            m->key[i] = r;
            m->used++;
            return &m->val[i];
        }
        if (tok_eq(m->key[i], r.p, r.n)) return &m->val[i];
    }
}

static unsigned reg_get(struct regmap *m, struct tok r)
{
    if (!r.n || r.p[0] != '%') return 0;
    unsigned short *v = reg_slot(m, r, false);
    return v ? *v : 0;
}

static void reg_set(struct regmap *m, struct tok r, unsigned v)
{
    if (!r.n || r.p[0] != '%') return;
    unsigned short *s = reg_slot(m, r, v != 0);
    if (s) *s = (unsigned short)v;
}

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '$' || c == '%';
}

/* Splits one statement (up to `;`) into tokens; p advances past it. */
static unsigned statement(const char **pp, const char *end, struct tok *t)
{
    const char *p = *pp;
    unsigned n = 0;
    while (p < end && *p != ';') {
        char c = *p;
        if (c == '/' && p + 1 < end && p[1] == '/') {
            while (p < end && *p != '\n') p++;
            continue;
        }
        if (c == '/' && p + 1 < end && p[1] == '*') {
            p += 2;
            while (p + 1 < end && !(p[0] == '*' && p[1] == '/')) p++;
            p = p + 1 < end ? p + 2 : end;
            continue;
        }
        if (c == '{' || c == '}') {         /* a nested scope: its own statements */
            p++;
            if (n) break;
            continue;
        }
        if (ident_char(c)) {
            const char *s = p;
            while (p < end && ident_char(*p)) p++;
            if (p < end && *p == ':' && n == 0) {    /* a label */
                p++;
                continue;
            }
            if (n < MAX_TOKS) t[n++] = (struct tok){ s, (size_t)(p - s) };
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            p++;
            continue;
        }
        if (n < MAX_TOKS) t[n++] = (struct tok){ p, 1 };
        p++;
    }
    *pp = p < end ? p + 1 : end;
    return n;
}

static bool starts(struct tok t, const char *s)
{
    size_t n = strlen(s);
    return t.n >= n && memcmp(t.p, s, n) == 0;
}

/* The opcode names a state space whose addresses are no global memory. */
static bool non_global_space(struct tok op)
{
    static const char *const spaces[] = { ".param", ".shared", ".local", ".const" };
    for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++) {
        size_t n = strlen(spaces[i]);
        for (size_t k = 0; k + n <= op.n; k++)
            if (memcmp(op.p + k, spaces[i], n) == 0 && (k + n == op.n || op.p[k + n] == '.'))
                return true;
    }
    return false;
}

void sim_ptx_param_uses(const char *body, size_t len, const char *const *names, const size_t *nlens,
                        unsigned n, unsigned char *flags)
{
    if (!body || !names || !nlens || !flags || n == 0 || n > 65534) return;
    struct regmap *m = calloc(1, sizeof *m);
    if (!m) return;
    const char *p = body, *end = body + len;
    struct tok t[MAX_TOKS];
    while (p < end) {
        unsigned nt = statement(&p, end, t);
        unsigned i = 0;
        if (nt && tok_eq(t[0], "@", 1)) {   /* guard predicate: @%p or @!%p */
            i = 1;
            if (i < nt && tok_eq(t[i], "!", 1)) i++;
            i++;
        }
        if (i >= nt) continue;
        struct tok op = t[i++];
        if (op.p[0] == '.') continue;       /* .reg, .local, .pragma ... declarations */
        /* operands: [i, nt) */
        if (starts(op, "ld.param.") && !starts(op, "ld.param.v")) {
            /* ld.param.u64 %rd, [name] / [name+0] */
            if (nt - i >= 5 && tok_eq(t[i + 1], ",", 1) && tok_eq(t[i + 2], "[", 1)) {
                struct tok dst = t[i], nm = t[i + 3];
                bool plain = tok_eq(t[i + 4], "]", 1) ||
                             (nt - i >= 7 && tok_eq(t[i + 4], "+", 1) && tok_eq(t[i + 5], "0", 1) &&
                              tok_eq(t[i + 6], "]", 1));
                unsigned v = 0;
                for (unsigned k = 0; plain && k < n; k++)
                    if (names[k] && tok_eq(nm, names[k], nlens[k])) {
                        v = k + 1;
                        break;
                    }
                reg_set(m, dst, v);
            }
            continue;
        }
        bool mem = starts(op, "ld.") || starts(op, "ldu.") || starts(op, "st.") || starts(op, "atom.") ||
                   starts(op, "red.") || starts(op, "prefetch") || starts(op, "cp.async");
        if (mem) {
            if (!non_global_space(op))
                for (unsigned k = i; k + 1 < nt; k++)
                    if (tok_eq(t[k], "[", 1)) {
                        unsigned v = reg_get(m, t[k + 1]);
                        if (v) flags[v - 1] |= SIM_PARAM_PTR_USE;
                    }
            /* a load defines its destination: no longer a parameter's value */
            if ((starts(op, "ld.") || starts(op, "ldu.") || starts(op, "atom.")) && !tok_eq(t[i], "[", 1))
                reg_set(m, t[i], 0);
            continue;
        }
        if (nt - i < 3 || !tok_eq(t[i + 1], ",", 1)) continue;
        struct tok dst = t[i];
        unsigned v = 0;
        bool prop = starts(op, "mov.") || starts(op, "add.") || starts(op, "sub.") || starts(op, "mad.") ||
                    starts(op, "cvta.");
        if (prop)
            for (unsigned k = i + 2; k < nt && !v; k++)
                v = reg_get(m, t[k]);
        if (v && starts(op, "cvta.to.global"))
            flags[v - 1] |= SIM_PARAM_PTR_USE;
        reg_set(m, dst, v);
    }
    free(m);
}
