/* testname: the current test's name (see testname.h). */
#include "report/testname.h"

#include <stdio.h>

static char name_buf[512];

void dc_test_name_set(const char *name)
{
    snprintf(name_buf, sizeof name_buf, "%s", name ? name : "");
}

const char *dc_test_name(void)
{
    return name_buf[0] ? name_buf : NULL;
}
