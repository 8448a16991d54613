/* run_jsonl_simdjson.c: rb-c-simdjson, round jsonl's c-simdjson variant: the
 * C runner's main.c, harness.c and jsonl protocol (csrc/runner/) around a
 * counter written against simdjson (jsonl_simdjson.cc). A program of its
 * own, so that the C++ library weighs on no other C child (the peak RSS
 * columns compare like with like); the Makefile builds it where Debian's
 * libsimdjson-dev is installed. `rb-c-simdjson jsonl simdjson-info` prints
 * the library's version and the kernel it chose (the round's provenance). */
#include <stdio.h>
#include <string.h>

#include "jsonl_protocol.h"
#include "jsonl_simdjson.h"

RBC_ROUND("jsonl", run_jsonl_simdjson, {"c-simdjson", "MB/s invalid-lines", NULL},
          RBC_TOOL("simdjson-info"));

static int run_jsonl_simdjson(const rbc_args *a)
{
    if (strcmp(a->impl, "simdjson-info") == 0) {
        printf("%s\n", rbsj_info());
        return RBC_EXIT_OK;
    }
    return rbc_jsonl_protocol(a, rbsj_count_file, "rbsj_count_file");
}
