/* cores.c: round cores, the loop round's work split across POSIX threads. */
#include "roundbench.h"

#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

void rb_cores_share(int64_t n, int64_t workers, int64_t w, int64_t *lo, int64_t *hi)
{
    int64_t base = n / workers, rem = n % workers;
    *lo = w * base + (w < rem ? w : rem);
    *hi = *lo + base + (w < rem ? 1 : 0);
}

typedef struct {
    int64_t lo, hi, sum;
    rb_status st;
    rb_error err;
} cores_share;

static void *cores_worker(void *arg)
{
    cores_share *s = arg;
    s->st = rb_loop_range(s->lo, s->hi, &s->sum, &s->err);
    return NULL;
}

rb_status rb_loop_parallel(int64_t n, int64_t workers, int64_t *out, rb_error *err)
{
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "must not be NULL", -1);
    rb_status st = rb_loop_check(n, err);
    if (st != RB_OK)
        return st;
    if (workers < 1 || workers > RB_CORES_MAX_WORKERS)
        return rb_failf(err, RB_ERR_ARG, "workers", workers, "must be in [1, %d], not %lld",
                        RB_CORES_MAX_WORKERS, (long long)workers);
    int64_t started = 0;
    cores_share *shares = calloc((size_t)workers, sizeof *shares);
    pthread_t *tids = calloc((size_t)workers, sizeof *tids);
    if (!shares || !tids) {
        st = rb_fail(err, RB_ERR_NOMEM, NULL, "cannot allocate the workers", -1);
        goto done;
    }
    for (int64_t w = 0; w < workers; w++)
        rb_cores_share(n, workers, w, &shares[w].lo, &shares[w].hi);
    /* The calling thread does worker 0's share instead of idling in
     * pthread_join: T busy threads either way, one fewer to create. */
    for (; started < workers - 1; started++) {
        int rc = pthread_create(&tids[started], NULL, cores_worker, &shares[started + 1]);
        if (rc != 0) {
            st = rb_fail_sys(err, rc, "workers", started, "cannot start thread %lld of %lld",
                             (long long)started + 2, (long long)workers);
            break;
        }
    }
    cores_worker(&shares[0]);
    for (int64_t i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    if (st != RB_OK)
        goto done;
    int64_t total = 0;
    for (int64_t w = 0; w < workers; w++) {
        if (shares[w].st != RB_OK) {
            st = shares[w].st;
            if (err)
                *err = shares[w].err;
            goto done;
        }
        total += shares[w].sum;
    }
    *out = total;
done:
    free(shares);
    free(tids);
    return st;
}
