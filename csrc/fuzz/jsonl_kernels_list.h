/* jsonl_kernels_list.h: the jsonl kernels this CPU and build run, for the
 * jsonl fuzz targets. */
#ifndef RB_FUZZ_JSONL_KERNELS_H
#define RB_FUZZ_JSONL_KERNELS_H

#include <stdio.h>

#include "roundbench.h"

static const char *const all_kernels[] = {"scan", "sse2", "avx2", "avx512"};
#define ALL_KERNELS 4

/* Fills run[] with the kernels rb_jsonl_set_kernel accepts here and says
 * on stderr, once, which it leaves out and why. Returns how many. */
static int kernels_here(const char *run[ALL_KERNELS], const char *target)
{
    int n = 0;
    for (int k = 0; k < ALL_KERNELS; k++) {
        rb_error err;
        if (rb_jsonl_set_kernel(all_kernels[k], &err) == RB_OK)
            run[n++] = all_kernels[k];
        else
            fprintf(stderr, "%s: kernel %s not run here: %s\n", target, all_kernels[k], err.msg);
    }
    fprintf(stderr, "%s: kernels run:", target);
    for (int k = 0; k < n; k++)
        fprintf(stderr, " %s", run[k]);
    fputc('\n', stderr);
    return n;
}

#endif
