/* cgmark: callgrind's instrumentation switched on and off from a program
 * that cannot issue valgrind's client requests itself (bench/torch_loops.py,
 * through ctypes): each measured section is one dump named after it.
 * Outside valgrind the requests do nothing. */
#include <valgrind/callgrind.h>

__attribute__((visibility("default"))) void cgmark_start(void)
{
    CALLGRIND_ZERO_STATS;
    CALLGRIND_START_INSTRUMENTATION;
}

__attribute__((visibility("default"))) void cgmark_stop(const char *section)
{
    CALLGRIND_DUMP_STATS_AT(section);
    CALLGRIND_STOP_INSTRUMENTATION;
}
