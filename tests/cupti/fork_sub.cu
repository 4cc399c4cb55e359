// A fork while another thread holds devcheck's CUPTI lock.  Thread A
// subscribes to CUPTI, as a profiler starting mid-run does: devcheck gives
// its own subscription up under that lock, and the stand-in libcupti
// (fake_cupti.c, FAKE_CUPTI_HOLD) keeps A inside, in cuptiUnsubscribe.  The
// main thread forks then, and the child subscribes too: its subscription
// must return, since the thread that held the lock is not in the child.
// Prints "child: subscribe returned" (from the child, which an alarm ends
// after 10 s otherwise), then "child: exit 0" and "parent: subscribe=0".
#include <cupti.h>
#include <cuda_runtime.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void CUPTIAPI none(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}

static CUptiResult subscribe(const char *name)
{
    CUpti_SubscriberHandle sub = NULL;
    CUpti_SubscriberParams p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    p.subscriberName = name;
    return cuptiSubscribe_v2(&sub, none, NULL, &p);
}

static CUptiResult a_result = CUPTI_ERROR_UNKNOWN;

static void *thread_a(void *)
{
    a_result = subscribe("profiler");
    return NULL;
}

int main()
{
    int note[2], go[2];
    char hold[32];
    if (pipe(note) || pipe(go)) {
        perror("fork_sub: pipe");
        return 2;
    }
    snprintf(hold, sizeof hold, "%d:%d", note[1], go[0]);
    setenv("FAKE_CUPTI_HOLD", hold, 1);
    float *a = NULL;
    if (cudaMalloc(&a, 256) != cudaSuccess) {       // devcheck has started here
        fprintf(stderr, "fork_sub: cudaMalloc failed\n");
        return 2;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, thread_a, NULL)) {
        fprintf(stderr, "fork_sub: pthread_create failed\n");
        return 2;
    }
    struct pollfd pfd = { note[0], POLLIN, 0 };
    if (poll(&pfd, 1, 20000) != 1) {
        fprintf(stderr, "fork_sub: thread A was not held in cuptiUnsubscribe (no devcheck, or no stand-in)\n");
        return 2;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(10);
        subscribe("child");
        static const char msg[] = "child: subscribe returned\n";
        _exit(write(1, msg, sizeof msg - 1) == (ssize_t)(sizeof msg - 1) ? 0 : 3);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) {
        perror("fork_sub: fork/waitpid");
        return 2;
    }
    char c = 'g';
    if (write(go[1], &c, 1) != 1) {
        perror("fork_sub: write");
        return 2;
    }
    pthread_join(t, NULL);
    if (WIFEXITED(st))
        printf("child: exit %d\n", WEXITSTATUS(st));
    else
        printf("child: signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : -1);
    printf("parent: subscribe=%d\n", (int)a_result);
    cudaFree(a);
    return 0;
}
