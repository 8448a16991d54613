/* jsonl_simdjson.h: round jsonl's c-simdjson counter (jsonl_simdjson.cc),
 * C++ against simdjson, called from the C runner glue beside it. */
#ifndef RBSJ_JSONL_SIMDJSON_H
#define RBSJ_JSONL_SIMDJSON_H

#include "roundbench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Counts the file at `path` into `res` (initialised by the caller) by the
 * round's rules, as rb_jsonl_count_file does: read(2) in 256 KiB chunks,
 * lines of any length, a bad line never stops the count.
 * @return RB_OK; RB_ERR_IO (sys_errno set; err->pos and res->bytes say how
 *         many bytes were counted); RB_ERR_NOMEM. */
rb_status rbsj_count_file(const char *path, rb_jsonl_result *res, rb_error *err);

/* A constant line about the library: its version and the kernel it chose
 * for this CPU at run time. */
const char *rbsj_info(void);

#ifdef __cplusplus
}
#endif

#endif
