/* stats: devcheck's own cost (see stats.h). */
#include "report/stats.h"

#include <string.h>

int dc_stats_on;

static uint64_t part_ns[DC_T_COUNT], part_n[DC_T_COUNT];      /* atomics */
static uint64_t start_ns;
static uint64_t libcalls;                               /* atomic */
static uint64_t outside_ns;             /* atomic: symbolization outside every check */
__thread unsigned dc_stats_nest __attribute__((tls_model("initial-exec")));

void dc_stats_count_libcall(void) { __atomic_fetch_add(&libcalls, 1, __ATOMIC_RELAXED); }

#define TABLES_MAX 12
static struct {
    const char *name;
    size_t bytes;
} tables[TABLES_MAX];
static unsigned ntables;

static const char *const part_key[DC_T_COUNT] = { "launch_checks", "library_calls", "reports", "symbolization",
                                                  "python_frames" };

void dc_stats_add(enum dc_stat_part part, uint64_t ns)
{
    if ((unsigned)part >= DC_T_COUNT)
        return;
    __atomic_fetch_add(&part_ns[part], ns, __ATOMIC_RELAXED);
    __atomic_fetch_add(&part_n[part], 1, __ATOMIC_RELAXED);
    if (part == DC_T_SYMBOLIZE && !dc_stats_nest)
        __atomic_fetch_add(&outside_ns, ns, __ATOMIC_RELAXED);
}

void dc_stats_enable(int on) { __atomic_store_n(&dc_stats_on, on != 0, __ATOMIC_RELAXED); }
void dc_stats_set_start(uint64_t ns) { __atomic_store_n(&start_ns, ns, __ATOMIC_RELAXED); }

void dc_stats_table(const char *name, size_t bytes)
{
    for (unsigned i = 0; i < ntables; i++)
        if (!strcmp(tables[i].name, name)) {
            tables[i].bytes = bytes;
            return;
        }
    if (ntables < TABLES_MAX)
        tables[ntables++] = (typeof(tables[0])){ name, bytes };
}

void dc_stats_reset(void)
{
    for (int i = 0; i < DC_T_COUNT; i++) {
        __atomic_store_n(&part_ns[i], 0, __ATOMIC_RELAXED);
        __atomic_store_n(&part_n[i], 0, __ATOMIC_RELAXED);
    }
    ntables = 0;
    __atomic_store_n(&libcalls, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&outside_ns, 0, __ATOMIC_RELAXED);
}

struct snap {
    uint64_t ns[DC_T_COUNT], n[DC_T_COUNT];
    uint64_t start, total, per_launch, outside;
    size_t bytes;
    unsigned order[TABLES_MAX];         /* tables, largest first */
};

static void snap(struct snap *s)
{
    for (int i = 0; i < DC_T_COUNT; i++) {
        s->ns[i] = __atomic_load_n(&part_ns[i], __ATOMIC_RELAXED);
        s->n[i] = __atomic_load_n(&part_n[i], __ATOMIC_RELAXED);
    }
    s->start = __atomic_load_n(&start_ns, __ATOMIC_RELAXED);
    /* reports, symbolization and Python frames are parts of the checks,
     * except the symbolization the sinks do outside them */
    s->outside = __atomic_load_n(&outside_ns, __ATOMIC_RELAXED);
    s->total = s->start + s->ns[DC_T_LAUNCH] + s->ns[DC_T_LIBCALL] + s->outside;
    s->per_launch = s->n[DC_T_LAUNCH] ? s->ns[DC_T_LAUNCH] / s->n[DC_T_LAUNCH] : 0;
    s->bytes = 0;
    for (unsigned i = 0; i < ntables; i++) {
        s->bytes += tables[i].bytes;
        unsigned j = i;
        while (j > 0 && tables[s->order[j - 1]].bytes < tables[i].bytes) {
            s->order[j] = s->order[j - 1];
            j--;
        }
        s->order[j] = i;
    }
}

static double ms(uint64_t ns) { return (double)ns / 1e6; }

void dc_stats_text(struct dc_buf *b, const struct dc_report_stats *c)
{
    struct snap s;
    snap(&s);
    dc_bput(b, "devcheck: STATS: devcheck's own cost in this process\n");
    dc_bput(b, "devcheck: stats:   launches checked        %llu (%llu unchecked)\n", (unsigned long long)c->launches_checked,
            (unsigned long long)c->launches_unchecked);
    dc_bput(b, "devcheck: stats:   library calls checked   %llu\n", (unsigned long long)__atomic_load_n(&libcalls, __ATOMIC_RELAXED));
    dc_bput(b, "devcheck: stats:   findings                %llu new, %llu repeated, %llu suppressed\n",
            (unsigned long long)c->findings, (unsigned long long)c->repeated, (unsigned long long)c->suppressed);
    dc_bput(b, "devcheck: stats:   CPU time                %.3f ms total: start-up %.3f ms, launch checks %.3f ms "
               "(%.0f ns per launch), library calls %.3f ms, symbolization outside them %.3f ms\n",
            ms(s.total), ms(s.start), ms(s.ns[DC_T_LAUNCH]), (double)s.per_launch, ms(s.ns[DC_T_LIBCALL]),
            ms(s.outside));
    dc_bput(b, "devcheck: stats:     of which              new findings' reports %.3f ms (%llu), symbolization "
               "%.3f ms (%llu stacks), Python frame reading %.3f ms (%llu reads)\n",
            ms(s.ns[DC_T_REPORT]), (unsigned long long)s.n[DC_T_REPORT], ms(s.ns[DC_T_SYMBOLIZE]),
            (unsigned long long)s.n[DC_T_SYMBOLIZE], ms(s.ns[DC_T_PYFRAMES]), (unsigned long long)s.n[DC_T_PYFRAMES]);
    dc_bput(b, "devcheck: stats:   bytes held by tables    %zu", s.bytes);
    for (unsigned i = 0; i < ntables && i < 3; i++)
        dc_bput(b, "%s%s %zu", i ? ", " : " (largest: ", tables[s.order[i]].name, tables[s.order[i]].bytes);
    dc_bput(b, "%s\n", ntables ? ")" : "");
}

void dc_stats_json(struct dc_buf *b, const struct dc_report_stats *c)
{
    struct snap s;
    snap(&s);
    dc_bput(b, "\"stats\":{\"launches_checked\":%llu,\"launches_unchecked\":%llu,\"library_calls_checked\":%llu,"
               "\"findings_new\":%llu,\"findings_repeated\":%llu,\"findings_suppressed\":%llu,"
               "\"cpu_ns\":{\"total\":%llu,\"start\":%llu,\"per_launch\":%llu,\"symbolization_outside\":%llu",
            (unsigned long long)c->launches_checked, (unsigned long long)c->launches_unchecked, (unsigned long long)__atomic_load_n(&libcalls, __ATOMIC_RELAXED),
            (unsigned long long)c->findings, (unsigned long long)c->repeated, (unsigned long long)c->suppressed,
            (unsigned long long)s.total, (unsigned long long)s.start, (unsigned long long)s.per_launch,
            (unsigned long long)s.outside);
    for (int i = 0; i < DC_T_COUNT; i++)
        dc_bput(b, ",\"%s\":%llu", part_key[i], (unsigned long long)s.ns[i]);
    dc_bput(b, "},\"timed\":{");
    for (int i = 0; i < DC_T_COUNT; i++)
        dc_bput(b, "%s\"%s\":%llu", i ? "," : "", part_key[i], (unsigned long long)s.n[i]);
    dc_bput(b, "},\"table_bytes\":{\"total\":%zu", s.bytes);
    for (unsigned i = 0; i < ntables; i++) {
        dc_bput(b, ",");
        dc_bjson_str(b, tables[s.order[i]].name);
        dc_bput(b, ":%zu", tables[s.order[i]].bytes);
    }
    dc_bput(b, "}}");
}
