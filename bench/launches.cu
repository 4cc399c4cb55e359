// The workload of `make bench` (bench/run.sh): kernel launches and
// allocations, each measured section run `n` times and reported as the CPU
// time per operation; under callgrind (--instr-atstart=no) only the measured
// sections are instrumented, each dumped under its own name, so the dumps
// count the instructions of those loops alone.
//
// Usage: launches SECTIONS N [LIVE...]
//   SECTIONS  comma-separated: ptr8 (a kernel with 8 pointer parameters),
//             struct64 (one 64-byte struct of 8 pointers passed by value),
//             alloc0 / alloc40 (cudaMalloc + cudaFree of 256 bytes, 0 or 40
//             extra frames deep), mem (bytes per live allocation),
//             repeat (a launch like ptr8's whose last operand is device 1's
//             memory, peer access enabled: a peer_access warning, reported at
//             its first launch and repeated by every measured one; 8 kernels
//             in turn, 8 findings, 40 frames deeper than the section),
//             suppressed (the same, findings that bench/run.sh's suppression
//             file matches), block (a PyTorch caching allocator's block
//             handed out and taken back: its two calls of
//             c10::reportMemoryUsageToProfiler, bench/c10_stub.c standing for
//             libc10.so, 512 bytes of a cudaMalloc'ed segment),
//             libclean, librepeat, libpeer, libsuppressed (a stripped
//             library's launches, bench/steady_lib.cu: clean; a repeated
//             host_memory warning over pinned memory under host_memory=warn;
//             legal peer traffic; the same suppressed; 40 frames deeper than
//             the section),
//             first (the first launch of a new kernel, clean: firstclean;
//             the first launch of another that reads device 1's memory: a new
//             peer_access finding, the process's first report: first; then
//             a third kernel's new finding, the second report: second; N is
//             ignored, each is one launch; ns= is the CPU time of the whole
//             process, every thread, across the launch)
//   N         iterations of each measured loop
//   LIVE      the launch sections run once at each of these counts of live
//             allocations of mixed sizes (64 B .. 64 KiB, every device), made
//             before the section; default 10
// Prints one line per section: `NAME@LIVE ns=<CPU ns per op>`, and for mem
// `mem@LIVE heap=<bytes> rss=<bytes>` (the growth of malloc's heap and of
// the resident set while the live allocations were made, per allocation).
// Every launch's operands of ptr8 and struct64 are on the launch device:
// devcheck finds nothing there.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <malloc.h>
#include <vector>
#include <cuda_runtime.h>
#include <valgrind/callgrind.h>

struct ptr8_args {
    const float *p[8];
};

__global__ void k_ptr8(float *a, const float *b, const float *c, const float *d, const float *e,
                       const float *f, const float *g, const float *h)
{
    int i = threadIdx.x;
    a[i] += b[i] + c[i] + d[i] + e[i] + f[i] + g[i] + h[i];
}

// The repeated and the suppressed findings' kernels: ptr8's body under 8
// names each, one per finding (more than a thread's cache of recent stacks
// holds, as in a training step with several findings).
template <int I>
__global__ void k_repeat(float *a, const float *b, const float *c, const float *d, const float *e,
                         const float *f, const float *g, const float *h)
{
    int i = threadIdx.x;
    a[i] += b[i] + c[i] + d[i] + e[i] + f[i] + g[i] + h[i];
}

template <int I>
__global__ void k_suppressed(float *a, const float *b, const float *c, const float *d, const float *e,
                             const float *f, const float *g, const float *h)
{
    int i = threadIdx.x;
    a[i] += b[i] + c[i] + d[i] + e[i] + f[i] + g[i] + h[i];
}

__global__ void k_struct64(ptr8_args s)
{
    int i = threadIdx.x;
    ((float *)s.p[0])[i] += s.p[1][i] + s.p[7][i];
}

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));         \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

static double cpu_now(void)
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static long rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, res = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2)
            res = 0;
        fclose(f);
    }
    return res * 4096;
}

// One measured section: instrumented under callgrind, dumped as `name`.
struct section {
    const char *name;
    long live;
    double t0;
    section(const char *n, long l) : name(n), live(l)
    {
        CALLGRIND_START_INSTRUMENTATION;
        CALLGRIND_ZERO_STATS;
        t0 = cpu_now();
    }
    void end(long n)
    {
        double t1 = cpu_now();
        char label[64];
        snprintf(label, sizeof label, "%s@%ld", name, live);
        CALLGRIND_DUMP_STATS_AT(label);
        CALLGRIND_STOP_INSTRUMENTATION;
        printf("%s ns=%.1f\n", label, (t1 - t0) / (double)n);
        fflush(stdout);
    }
};

static float *buf[8];

static void run_ptr8(long n, long live)
{
    for (int i = 0; i < 100; i++)      // warm-up: the kernel's first launch is decided once
        k_ptr8<<<1, 32>>>((float *)buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[6], buf[7]);
    section s("ptr8", live);
    for (long i = 0; i < n; i++)
        k_ptr8<<<1, 32>>>((float *)buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[6], buf[7]);
    s.end(n);
}

static float *peer_buf;      // on device 1, peer access from device 0 enabled

// The repeat and suppressed sections: each launch repeats a finding of the
// warm-up (same kernel, operand and stack), 40 frames deeper than the
// section (a program's launches come from deep stacks; a clean launch costs
// the same at any depth).
#define PEER_DEPTH 40
#define PEER_ARGS (float *)buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[6], peer_buf
// Launch i of the repeat or the suppressed section: one of 8 kernels in turn.
template <template <int> class K> static void launch_peer(long i)
{
    switch (i & 7) {
    case 0: K<0>::launch(); break;
    case 1: K<1>::launch(); break;
    case 2: K<2>::launch(); break;
    case 3: K<3>::launch(); break;
    case 4: K<4>::launch(); break;
    case 5: K<5>::launch(); break;
    case 6: K<6>::launch(); break;
    default: K<7>::launch(); break;
    }
}
// The lib* sections (issue 38): bench/steady_lib.cu, a stripped library,
// launches its kernel over 7 of buf and a last operand: libclean buf[7]
// (clean), librepeat pinned host memory (host_memory=warn in bench/run.sh's
// run: a host_memory warning repeated, keyed by its stack), libpeer
// peer_buf (legal peer traffic), libsuppressed peer_buf in a kernel the
// suppression matches; 40 frames deeper than the section, as repeat's.
extern "C" void steady_lib_launch(float *const *p, int suppressed);
static float *pinned_buf;   // cudaMallocHost
static float *lib_args[4][8];
static void lib_clean(long) { steady_lib_launch(lib_args[0], 0); }
static void lib_repeat(long) { steady_lib_launch(lib_args[1], 0); }
static void lib_peer(long) { steady_lib_launch(lib_args[2], 0); }
static void lib_suppressed(long) { steady_lib_launch(lib_args[3], 1); }

template <int I> struct repeat_k {
    static void launch() { k_repeat<I><<<1, 32>>>(PEER_ARGS); }
};
template <int I> struct suppressed_k {
    static void launch() { k_suppressed<I><<<1, 32>>>(PEER_ARGS); }
};

__attribute__((noinline)) static void peer_deep(int depth, const char *name, void (*launch)(long), long n, long live)
{
    if (depth > 0) {
        peer_deep(depth - 1, name, launch, n, live);
        __asm__ volatile("" ::: "memory");      // not a tail call: the frame stays
        return;
    }
    section *s = nullptr;
    for (long i = -104; i < n; i++) {
        if (i == 0)
            s = new section(name, live);
        launch(i);
    }
    s->end(n);
    delete s;
}

// The first section: one launch each, timed alone (n = 1).
template <int I> static void first_launch(const char *name, long live, float *last)
{
    section s(name, live);
    k_repeat<I><<<1, 32>>>((float *)buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[6], last);
    s.end(1);
}

static void run_struct64(long n, long live)
{
    ptr8_args a;
    for (int i = 0; i < 8; i++)
        a.p[i] = buf[i];
    for (int i = 0; i < 100; i++)
        k_struct64<<<1, 32>>>(a);
    section s("struct64", live);
    for (long i = 0; i < n; i++)
        k_struct64<<<1, 32>>>(a);
    s.end(n);
}

// WARM operations, then the section's n, from the same call site: the
// warm-up makes the stack one devcheck has seen (a program allocates from
// the same places again and again), so the section measures the steady
// cost per allocation, not a new stack's first captures spread over n (a
// warm-up at another call site left those inside the section: ~94,000
// instructions for a 40-frame stack, +1880 per allocation at n = 50).
#define WARM 100
static void alloc_loop(long n, const char *name, long live)
{
    section *s = nullptr;
    for (long i = -WARM; i < n; i++) {
        if (i == 0)
            s = new section(name, live);
        void *p;
        CHECK(cudaMalloc(&p, 256));
        CHECK(cudaFree(p));
    }
    s->end(n);
    delete s;
}

// `depth` more frames, then the loop.
__attribute__((noinline)) static void alloc_deep(int depth, long n, long live, const char *name)
{
    if (depth > 0) {
        alloc_deep(depth - 1, n, live, name);
        __asm__ volatile("" ::: "memory");      // not a tail call: the frame stays
        return;
    }
    alloc_loop(n, name, live);
}

// PyTorch's declaration (c10/core/Allocator.h, c10/core/Device.h): libc10.so's
// function, bench/c10_stub.c here.
namespace c10 {
struct Device {
    signed char type, index;
};
void reportMemoryUsageToProfiler(void *ptr, int64_t alloc_size, size_t total_allocated, size_t total_reserved,
                                 Device device);
}

// The block section: what PyTorch's allocator reports for a tensor's block,
// handed out (+size) and taken back (-size), in a segment devcheck knows.
static void block_loop(char *seg, long n, long live)
{
    const c10::Device d = { 1, 0 };        // (DeviceType::CUDA, 0)
    section *s = nullptr;
    for (long i = -WARM; i < n; i++) {     // the warm-up at the same call site, as alloc_loop's
        if (i == 0)
            s = new section("block", live);
        char *p = seg + ((i + WARM) % 1024) * 512;
        c10::reportMemoryUsageToProfiler(p, 512, 0, 0, d);
        c10::reportMemoryUsageToProfiler(p, -512, 0, 0, d);
    }
    s->end(n);
    delete s;
}

static void run_block(long n, long live)
{
    char *seg;
    CHECK(cudaMalloc((void **)&seg, 1024 * 512));
    block_loop(seg, n, live);
    CHECK(cudaFree(seg));
}

static std::vector<void *> live_allocs;
static int ndev = 1;

// Grows the live set to `count` allocations of mixed sizes on every device.
static void grow_live(long count)
{
    while ((long)live_allocs.size() < count) {
        long i = (long)live_allocs.size();
        void *p;
        CHECK(cudaSetDevice((int)(i % ndev)));
        CHECK(cudaMalloc(&p, (size_t)64 << (i % 11)));
        live_allocs.push_back(p);
    }
    CHECK(cudaSetDevice(0));
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s SECTIONS N [LIVE...]\n", argv[0]);
        return 2;
    }
    const char *sections = argv[1];
    long n = atol(argv[2]);
    std::vector<long> lives;
    for (int i = 3; i < argc; i++)
        lives.push_back(atol(argv[i]));
    if (lives.empty())
        lives.push_back(10);
    auto want = [&](const char *s) {
        size_t len = strlen(s);
        for (const char *p = sections; (p = strstr(p, s)) != nullptr; p += len)
            if ((p == sections || p[-1] == ',') && (p[len] == ',' || p[len] == 0))
                return true;
        return false;
    };

    CHECK(cudaGetDeviceCount(&ndev));
    CHECK(cudaSetDevice(0));
    for (int i = 0; i < 8; i++)
        CHECK(cudaMalloc(&buf[i], 32 * sizeof(float)));
    const bool lib = want("libclean") || want("librepeat") || want("libpeer") || want("libsuppressed");
    if (want("repeat") || want("suppressed") || want("first") || lib) {
        if (ndev < 2) {
            fprintf(stderr, "repeat, suppressed, first, lib*: need 2 devices\n");
            return 2;
        }
        CHECK(cudaSetDevice(1));
        CHECK(cudaMalloc(&peer_buf, 32 * sizeof(float)));
        CHECK(cudaSetDevice(0));
        CHECK(cudaDeviceEnablePeerAccess(1, 0));
    }
    if (lib) {
        CHECK(cudaMallocHost(&pinned_buf, 32 * sizeof(float)));
        float *last[4] = { buf[7], pinned_buf, peer_buf, peer_buf };
        for (int k = 0; k < 4; k++) {
            for (int i = 0; i < 7; i++)
                lib_args[k][i] = buf[i];
            lib_args[k][7] = last[k];
        }
    }
    live_allocs.reserve((size_t)lives.back() + 16);
    for (long live : lives) {
        long before_rss = rss_bytes();
        struct mallinfo2 before = mallinfo2();
        long had = (long)live_allocs.size();
        grow_live(live);
        if (want("mem") && live > had) {
            struct mallinfo2 after = mallinfo2();
            long made = live - had;
            double heap = ((double)(after.uordblks + after.hblkhd) - (double)(before.uordblks + before.hblkhd)) / made;
            printf("mem@%ld heap=%.1f rss=%.1f\n", live, heap, (double)(rss_bytes() - before_rss) / made);
        }
        if (want("ptr8"))
            run_ptr8(n, live);
        if (want("struct64"))
            run_struct64(n, live);
        if (want("repeat"))
            peer_deep(PEER_DEPTH, "repeat", launch_peer<repeat_k>, n, live);
        if (want("suppressed"))
            peer_deep(PEER_DEPTH, "suppressed", launch_peer<suppressed_k>, n, live);
        if (want("libclean"))
            peer_deep(PEER_DEPTH, "libclean", lib_clean, n, live);
        if (want("librepeat"))
            peer_deep(PEER_DEPTH, "librepeat", lib_repeat, n, live);
        if (want("libpeer"))
            peer_deep(PEER_DEPTH, "libpeer", lib_peer, n, live);
        if (want("libsuppressed"))
            peer_deep(PEER_DEPTH, "libsuppressed", lib_suppressed, n, live);
        if (want("first") && live == lives.front()) {
            for (int i = 0; i < 10; i++)        // the process's first launches (the runtime's own start) before
                k_ptr8<<<1, 32>>>((float *)buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[6], buf[7]);
            CHECK(cudaDeviceSynchronize());
            first_launch<8>("firstclean", live, buf[7]);
            first_launch<9>("first", live, peer_buf);
            first_launch<10>("second", live, peer_buf);
        }
        if (want("alloc0"))
            alloc_deep(0, n, live, "alloc0");
        if (want("alloc40"))
            alloc_deep(40, n, live, "alloc40");
        if (want("block"))
            run_block(n, live);
    }
    CHECK(cudaDeviceSynchronize());
    for (void *q : live_allocs)
        CHECK(cudaFree(q));
    for (int i = 0; i < 8; i++)
        CHECK(cudaFree(buf[i]));
    if (peer_buf)
        CHECK(cudaFree(peer_buf));
    if (pinned_buf)
        CHECK(cudaFreeHost(pinned_buf));
    return 0;
}
