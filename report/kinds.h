/* kinds: the one description of each finding kind (report/kinds.def) and
 * what every merged sink says of a finding record from it: its headline
 * (SARIF's message, JUnit's message, the HTML finding's title, the first
 * line of `devcheck report`'s block) and its details (the lines under it).
 * A sink that writes a finding takes both from here, never its own
 * per-kind code. */
#ifndef DEVCHECK_REPORT_KINDS_H
#define DEVCHECK_REPORT_KINDS_H
#include "common/format.h"
#include "common/json.h"
#include "report/finding.h"

#pragma GCC visibility push(hidden)

/* Which fields of a record describe a kind (kinds.def's SHAPE). */
enum dc_kind_shape { DC_SHAPE_OPERAND, DC_SHAPE_STREAM, DC_SHAPE_UNCHECKED, DC_SHAPE_ASYNC, DC_SHAPE_FRAMEWORK,
                     DC_SHAPE_REFUSED };

struct dc_kind_desc {
    enum dc_finding_kind kind;
    const char *id;             /* "device_mismatch": records' "kind", SARIF's ruleId */
    const char *name;           /* "DeviceMismatch": SARIF's rule name */
    const char *level;          /* SARIF's default level */
    enum dc_kind_shape shape;
    const char *short_text, *full_text, *help;
};

/* The description of kind k; NULL outside the enum. */
const struct dc_kind_desc *dc_kind_desc(enum dc_finding_kind k);
/* The description a record's "kind" names; NULL for a kind this build does
 * not know (a newer writer's record: the sinks then say what they can). */
const struct dc_kind_desc *dc_kind_by_id(const char *id);

/* One line saying what the finding record r is, by its kind's shape:
 * "device_mismatch: kernel K launched on cuda:0: param 1 (word +0) is device
 * memory owned by cuda:1 (...)", "framework_device_error: torch refused an op
 * over devices: Expected all tensors ...", "pointer_refused: triton refused a
 * pointer of cuda:1 with cuda:0 current (parameter 0): Pointer argument ...". */
void dc_kind_headline(const struct dc_json *r, struct dc_sbuf *out);
/* The lines under the headline that only its shape has, each indented by
 * four spaces and ending in a newline (a framework error's tensors with the
 * lines that allocated or made them; an async error's operands); files shown
 * through show(ctx, file, buf, len) (the model's source root), or as recorded
 * when show is NULL. */
void dc_kind_details(const struct dc_json *r, struct dc_sbuf *out,
                     const char *(*show)(void *ctx, const char *file, char *buf, size_t len), void *ctx);
/* A framework error's tensor's site: its "alloc_at" when the user's code
 * allocated it, else its "made_at"; NULL when neither has a file.  *what:
 * "allocated" or "made". */
const struct dc_json *dc_kind_tensor_site(const struct dc_json *tensor, const char **what);

#pragma GCC visibility pop
#endif
