/* common.c: the error record and build information shared by every round. */
#include "roundbench.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

void rb_error_clear(rb_error *err)
{
    if (err) {
        err->code = RB_OK;
        err->arg = NULL;
        err->pos = -1;
        err->sys_errno = 0;
        err->msg[0] = '\0';
    }
}

const char *rb_status_name(rb_status code)
{
    switch (code) {
    case RB_OK: return "ok";
    case RB_ERR_ARG: return "argument out of range";
    case RB_ERR_OVERFLOW: return "overflow";
    case RB_ERR_NOMEM: return "out of memory";
    case RB_ERR_IO: return "input/output error";
    case RB_ERR_TYPE: return "wrong type";
    case RB_ERR_INTERRUPTED: return "interrupted";
    }
    return "unknown status";
}

static void set(rb_error *err, rb_status code, const char *arg, int64_t pos, int sys_errno)
{
    err->code = code;
    err->arg = arg;
    err->pos = pos;
    err->sys_errno = sys_errno;
}

rb_status rb_fail(rb_error *err, rb_status code, const char *arg, const char *msg, int64_t pos)
{
    if (err) {
        set(err, code, arg, pos, 0);
        snprintf(err->msg, sizeof err->msg, "%s", msg ? msg : "");
    }
    return code;
}

rb_status rb_failf(rb_error *err, rb_status code, const char *arg, int64_t pos, const char *fmt,
                   ...)
{
    if (err) {
        set(err, code, arg, pos, 0);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

rb_status rb_fail_sys(rb_error *err, int sys_errno, const char *arg, int64_t pos, const char *fmt,
                      ...)
{
    if (err) {
        set(err, RB_ERR_IO, arg, pos, sys_errno);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return RB_ERR_IO;
}

#ifndef RB_CFLAGS
#ifdef RB_CGO
/* cgo passes CGO_CFLAGS (default -O2 -g) before the package's own -O2. */
#define RB_CFLAGS "cgo: -O2 -std=gnu11 (and CGO_CFLAGS)"
#else
#define RB_CFLAGS "unknown"
#endif
#endif

const char *rb_build_info(void)
{
#if defined(__clang__)
    return "clang " __clang_version__ "; flags: " RB_CFLAGS;
#elif defined(__GNUC__)
    return "gcc " __VERSION__ "; flags: " RB_CFLAGS;
#else
    return "unknown compiler; flags: " RB_CFLAGS;
#endif
}
