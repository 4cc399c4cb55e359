/* finding: what check.c hands to report.c (internal to the core). */
#ifndef DEVCHECK_FINDING_H
#define DEVCHECK_FINDING_H
#include <stdint.h>
#include "core/registry.h"
#include "core/check.h"

enum dc_severity { DC_SEV_ERROR = 0, DC_SEV_WARNING, DC_SEV_INFO };
/* What devcheck did about a finding (JSON "action"). */
enum dc_action { DC_ACT_REPORTED = 0, DC_ACT_MIGRATED, DC_ACT_NOT_MIGRATED };

/* One operand of an async_error's launch. */
struct dc_opnd {
    int param;
    uint32_t word_offset;
    uintptr_t address;
    int alloc_known;            /* 0: pageable host memory */
    int accessible;             /* the launch device may access it */
    struct dc_alloc alloc;
};
#define DC_ASYNC_OPERANDS_MAX 16

struct dc_finding {
    enum dc_finding_kind kind;
    enum dc_severity severity;
    const struct dc_launch *launch;
    uint32_t launch_stack;      /* dc_stack id, 0 if none */
    int launch_stack_in_key;    /* 0: once per kernel (unchecked_kernel) */
    /* operand findings (device_mismatch, peer_access, host_memory): */
    int has_operand;
    int param;                  /* parameter index; -1 when the layout is unknown */
    uint32_t word_offset;       /* byte offset of the word in the parameter (buffer if param == -1) */
    uintptr_t address;          /* the word's value */
    int alloc_known;            /* 0: pageable host memory, not in the registry */
    struct dc_alloc alloc;      /* when alloc_known */
    const char *access;         /* short access state, e.g. "peer access not enabled" */
    /* mode=migrate */
    enum dc_action action;
    int to_device;              /* DC_ACT_MIGRATED: the copy's device */
    uint64_t moved_bytes;       /* DC_ACT_MIGRATED: bytes copied for it (0: shared a copy) */
    const char *reason;         /* DC_ACT_NOT_MIGRATED: why */
    /* async_error */
    const char *error;          /* the driver's error name */
    const struct dc_opnd *ops;  /* the launch's operands */
    unsigned nops;
};

/* Records one finding: deduplicates it, and on its first occurrence prints
 * the report block (print_limit permitting) and writes its JSON line. */
void dc_report_finding(const struct dc_finding *f);
/* Counts a launch for the summary: checked (1) or unchecked (0), seen by
 * detection path `path` (enum dc_path). */
void dc_report_count_launch(int checked, enum dc_path path);
/* Adds to the summary's bytes_migrated. */
void dc_report_count_migrated(uint64_t bytes);
const char *dc_severity_name(enum dc_severity s);   /* "error", "warning", "info" */
/* fork handlers of check.c's kernel cache (report.c registers them). */
void dc_check_fork_prepare(void);
void dc_check_fork_parent(void);
void dc_check_fork_child(void);
#endif
