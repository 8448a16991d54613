/* run_ffi.c: the C runner's glue for round ffi: c-direct and c-so.
 *
 * Both variants run this same code; they differ in how the binary is linked.
 * rb-c links the core statically, so rb_ffi_noop is a direct call; rb-c-so
 * links libroundbench.so, so the same call goes through the PLT into the
 * shared library, as a C program calling a system library does. */
#include <stdio.h>
#include <string.h>

#include "harness.h"

RBC_ROUND("ffi", run_ffi, {"c-direct", "ns/call", NULL}, {"c-so", "ns/call", NULL});

static uint64_t time_calls(void *ctx, int64_t count)
{
    (void)ctx;
    int64_t acc = 0;
    uint64_t t0 = rbc_now_ns();
    for (int64_t i = 0; i < count; i++) {
        acc += rb_ffi_noop(i);
        RBC_KEEP(acc);
    }
    uint64_t t1 = rbc_now_ns();
    RBC_KEEP(acc);
    return t1 - t0;
}

static uint64_t time_empty(void *ctx, int64_t count)
{
    (void)ctx;
    int64_t acc = 0;
    uint64_t t0 = rbc_now_ns();
    for (int64_t i = 0; i < count; i++) {
        acc += i + 1;
        RBC_KEEP(acc);
    }
    uint64_t t1 = rbc_now_ns();
    RBC_KEEP(acc);
    return t1 - t0;
}

static int run_ffi(const rbc_args *a)
{
    /* The callee must do its work: check it before trusting any timing. */
    rbc_check("rb_ffi_noop(41)", rb_ffi_noop(41), 42);
    int64_t count = 0;
    double ns = rbc_calibrated(time_calls, time_empty, NULL, &count);
    rbc_metric m[] = {{ns, "ns/call"}};
    rbc_result("noop(41)=42");
    rbc_emit(a, count, ns, m, 1);
    return RBC_EXIT_OK;
}
