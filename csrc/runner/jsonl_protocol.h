/* jsonl_protocol.h: round jsonl's side of the C measurement protocol, for every C
 * program with a jsonl variant: rb-c's c (run_jsonl.c) and rb-c-simdjson's
 * c-simdjson (csrc/simdjson/). */
#ifndef RBC_JSONL_RUN_H
#define RBC_JSONL_RUN_H

#include "harness.h"

/* Counts the file at `path` into `res` (initialised by the caller), as
 * rb_jsonl_count_file does. */
typedef rb_status (*rbc_jsonl_counter)(const char *path, rb_jsonl_result *res, rb_error *err);

/* Formats the result as every variant prints it and FILE.expect holds
 * (roundbench/rounds/jsonl/genlog.py, result_text): counts, statuses, and an FNV-1a
 * hash of the reported invalid lines. Returns a malloc'd string, or NULL
 * when out of memory. */
char *rbc_jsonl_result_text(const rb_jsonl_result *r);

/* Reads the result the generator expects of the log at `path`: the first
 * line of PATH.expect, without its newline, into want (`size` bytes).
 * Returns 0; or -1, having said on stderr, after `who`, which file it could
 * not read. */
int rbc_jsonl_expected(const char *who, const char *path, char *want, size_t size);

/* The child's `lines` parameter (the log's size, which names the log the
 * parent generates): its default and largest value, as in the Go and
 * Python children (protocol.txt, protocol-limit). */
#define RBC_JSONL_DEFAULT_LINES 1000000
#define RBC_JSONL_MAX_LINES 100000000

/* Runs one jsonl variant: checks its `lines` parameter, reads the log named
 * by $ROUNDBENCH_JSONL_FILE and the result the generator expects (in the
 * file $ROUNDBENCH_JSONL_EXPECT names, FILE.expect when it is unset; none
 * when it is set empty: a user's own log, whose result is printed
 * unchecked, rbc_result_unchecked), warms up (counts the small log of
 * $ROUNDBENCH_JSONL_WARMUP_FILE, checked too, then reads the log into the
 * page cache), times one count, checks it and prints the result line.
 * `what` names the counter in error messages. Returns the child's exit
 * status. */
int rbc_jsonl_protocol(const rbc_args *a, rbc_jsonl_counter count, const char *what);

#endif
