/* forklock: a fork child's fresh copy of a rwlock (or mutex) that the
 * fork-prepare handler had locked (report/ and core/: report/ is the bottom
 * layer both may include).
 *
 * Unlocking in the child is wrong with glibc: the write owner is recorded by
 * thread id, the child's thread has a new one, and the unlock would be taken
 * for a reader's.  So the child initialises the lock again; ThreadSanitizer,
 * which tracks the lock itself, is first told that it was released (else it
 * takes the lock for held in the child and reports any later lock as an
 * inversion). */
#ifndef DEVCHECK_FORKLOCK_H
#define DEVCHECK_FORKLOCK_H
#include <pthread.h>

#if defined(__SANITIZE_THREAD__)
void __tsan_mutex_pre_unlock(void *addr, unsigned flags);
int __tsan_mutex_post_unlock(void *addr, unsigned flags);
#endif

static inline void dc_rwlock_fork_child(pthread_rwlock_t *l, int prefer_writer)
{
#if defined(__SANITIZE_THREAD__)
    __tsan_mutex_pre_unlock(l, 0);
    __tsan_mutex_post_unlock(l, 0);
#endif
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    if (prefer_writer)
        pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(l, &attr);
    pthread_rwlockattr_destroy(&attr);
}

static inline void dc_mutex_fork_child(pthread_mutex_t *m)
{
#if defined(__SANITIZE_THREAD__)
    __tsan_mutex_pre_unlock(m, 0);
    __tsan_mutex_post_unlock(m, 0);
#endif
    pthread_mutex_init(m, NULL);
}
#endif
