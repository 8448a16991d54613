/* jsonl_line.c: libFuzzer target of round jsonl's rules for one line: the
 * core (rb_jsonl_count_buffer, every kernel this CPU runs) against an
 * independent plain implementation of the rules (jsonl_reference.c).
 *
 * Input: the line (cut at its first '\n'). It is counted three ways, as
 * "LINE\n", "LINE\r\n" (a CR before the newline is white space, so it is
 * classified as "LINE\r") and "LINE" (a last line without its newline);
 * each way the core's one line must have the reference's class and, when
 * valid, its status; when invalid, the reported line 1 with that reason. */
#include <string.h>

#include "fuzz.h"
#include "jsonl_kernels_list.h"
#include "jsonl_reference.h"
#include "roundbench.h"

static const char *kernels[ALL_KERNELS];
static int nkernels;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    nkernels = kernels_here(kernels, "jsonl_line");
    return 0;
}

static const char *class_name(ref_class c)
{
    static const char *const names[] = {"blank", "valid", "invalid-json", "not-object",
                                        "no-status"};
    return names[c];
}

/* Counts text[0, n) (one line) with kernel k and checks it against want. */
static void check(const uint8_t *text, size_t n, const char *kernel, ref_class want,
                  int64_t want_status, const char *form)
{
    uint8_t *buf = fuzz_exact_copy(text, n, 0);
    rb_jsonl_result res;
    rb_jsonl_result_init(&res);
    rb_error err;
    rb_status st = rb_jsonl_count_buffer(buf, n, &res, &err);
    FUZZ_CHECK(st == RB_OK, "%s, kernel %s: status %d: %s", form, kernel, st, err.msg);
    FUZZ_CHECK(res.lines == (n ? 1 : 0) && res.bytes == (int64_t)n,
               "%s, kernel %s: %lld lines, %lld bytes", form, kernel, (long long)res.lines,
               (long long)res.bytes);
    if (n) {
        ref_class got = res.blank ? REF_BLANK : res.valid ? REF_VALID : REF_INVALID_JSON;
        if (res.invalid) {
            FUZZ_CHECK(res.nreported == 1 && res.reported[0].line == 1,
                       "%s, kernel %s: an invalid line not reported", form, kernel);
            got = res.reported[0].reason == RB_JSONL_INVALID_JSON ? REF_INVALID_JSON
                  : res.reported[0].reason == RB_JSONL_NOT_OBJECT ? REF_NOT_OBJECT
                                                                  : REF_NO_STATUS;
        }
        FUZZ_CHECK(res.blank + res.valid + res.invalid == 1, "%s, kernel %s: counts %lld/%lld/%lld",
                   form, kernel, (long long)res.blank, (long long)res.valid,
                   (long long)res.invalid);
        FUZZ_CHECK(got == want, "%s, kernel %s: the core says %s, the reference %s", form, kernel,
                   class_name(got), class_name(want));
        if (want == REF_VALID)
            FUZZ_CHECK(res.nstatuses == 1 && res.statuses[0].status == want_status &&
                           res.statuses[0].count == 1,
                       "%s, kernel %s: status %lld, the reference %lld", form, kernel,
                       res.nstatuses ? (long long)res.statuses[0].status : -1LL,
                       (long long)want_status);
        else
            FUZZ_CHECK(res.nstatuses == 0, "%s, kernel %s: a status counted for a %s line", form,
                       kernel, class_name(want));
    }
    rb_jsonl_result_free(&res);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t n = nl ? (size_t)(nl - data) : size;
    uint8_t *text = malloc(n + 2);
    if (!text)
        abort();
    memcpy(text, data, n);
    int64_t status = 0, status_cr = 0;
    ref_class want = ref_classify(text, n, &status);
    text[n] = '\r';
    ref_class want_cr = ref_classify(text, n + 1, &status_cr);
    for (int k = 0; k < nkernels; k++) {
        rb_error err;
        FUZZ_CHECK(rb_jsonl_set_kernel(kernels[k], &err) == RB_OK, "kernel %s: %s", kernels[k],
                   err.msg);
        text[n] = '\n';
        check(text, n + 1, kernels[k], want, status, "LINE\\n");
        check(text, n, kernels[k], want, status, "LINE");
        text[n] = '\r';
        text[n + 1] = '\n';
        check(text, n + 2, kernels[k], want_cr, status_cr, "LINE\\r\\n");
    }
    free(text);
    return 0;
}
