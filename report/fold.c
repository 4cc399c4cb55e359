/* fold: which frames of a stack a text report shows (see fold.h). */
#include "report/fold.h"
#include "report/pystack.h"

#include <string.h>

int dc_frame_library(const struct dc_frame *f)
{
    if (f->python)
        return !dc_py_user_file(f->file);
    return !f->file[0] || !strncmp(f->file, "/usr/", 5) || strstr(f->file, "/cuda/include/") ||
           strstr(f->file, "-packages/") || dc_py_library_rule(f->file, NULL);
}

int dc_frames_any_user(const struct dc_frame *fr, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!dc_frame_library(&fr[i]))
            return 1;
    return 0;
}

size_t dc_frames_run(const struct dc_frame *fr, size_t n, size_t i, int user)
{
    size_t run = 0;
    while ((i || user) && i + run < n && dc_frame_library(&fr[i + run]))
        run++;
    return run;
}
