/* jsonl_reference.h: a second, plain implementation of round jsonl's rules
 * for one line (docs/rounds/jsonl.md), kept for the jsonl_line fuzz target.
 * It shares no code with csrc/jsonl.c: a recursive-descent parser over a
 * byte string, written for clarity, not speed. */
#ifndef RB_JSONL_REFERENCE_H
#define RB_JSONL_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

typedef enum ref_class {
    REF_BLANK,
    REF_VALID,
    REF_INVALID_JSON,
    REF_NOT_OBJECT,
    REF_NO_STATUS
} ref_class;

/* Classifies line[0, len), which holds no '\n'; *status gets a valid
 * line's status. */
ref_class ref_classify(const uint8_t *line, size_t len, int64_t *status);

#endif
