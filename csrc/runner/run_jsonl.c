/* run_jsonl.c: the C runner's glue for round jsonl (variant c): the core
 * reads the file itself (read(2), 256 KiB chunks); jsonl_protocol.c runs the
 * round's protocol around it. */
#include "jsonl_protocol.h"

RBC_ROUND("jsonl", run_jsonl, {"c", "MB/s invalid-lines", NULL});

static int run_jsonl(const rbc_args *a)
{
    return rbc_jsonl_protocol(a, rb_jsonl_count_file, "rb_jsonl_count_file");
}
