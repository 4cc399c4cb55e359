/* testname: the current test's name (see testname.h). */
#include "report/testname.h"

#include <stdio.h>
#include <string.h>

static char name_buf[512];
static char expect_buf[512];
static int expect_on;

void dc_test_name_set(const char *name)
{
    snprintf(name_buf, sizeof name_buf, "%s", name ? name : "");
    expect_on = 0;
}

void dc_test_expect_set(const char *kinds)
{
    snprintf(expect_buf, sizeof expect_buf, "%s", kinds ? kinds : "");
    expect_on = kinds != NULL;
}

int dc_test_expects(const char *kind)
{
    if (!expect_on || !name_buf[0] || !kind)
        return 0;
    if (!expect_buf[0])
        return 1;
    size_t n = strlen(kind);
    for (const char *p = expect_buf; *p; p += strcspn(p, ","), p += *p == ',') {
        if (strcspn(p, ",") == n && !strncmp(p, kind, n))
            return 1;
    }
    return 0;
}

const char *dc_test_name(void)
{
    return name_buf[0] ? name_buf : NULL;
}
