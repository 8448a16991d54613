/* jsonl_simdjson.cc: round jsonl counted with simdjson, the C++ parser that
 * is the field's reference for speed (variant c-simdjson), held to the
 * round's rules (docs/rounds/jsonl.md).
 *
 * The file is read with read(2) in 256 KiB chunks, as the core reads it,
 * and its whole lines are parsed in batches of about 64 KiB with simdjson's
 * many-documents API (dom::parser::parse_many), one stream per batch: one
 * stage 1 (the structural index, UTF-8 and string checks) over the batch,
 * then one document at a time. That API splits a stream at whitespace, not
 * at newlines, so what it does not do for JSON Lines is done here:
 *
 * - Each document it yields is placed on its line: a line counts only when
 *   it holds exactly one document, an object with no newline inside it,
 *   and nothing else but spaces, tabs and CRs. Every byte between the
 *   accepted documents is looked at: a newline ends a line, anything but
 *   whitespace (a second value, a value that is no object, what a stream
 *   dropped) sends its line to the rules. So two objects on one line are
 *   one invalid line, and an object spread over two lines is two.
 * - A bad line ends its batch's stream. When stage 2 fails on a document,
 *   the lines before it stand, its line goes to the rules, and the batch
 *   is parsed again from the next line. When stage 1 fails (invalid UTF-8,
 *   a control character in a string, an unclosed string: the error has no
 *   position), the batch is split in two at a newline and each half is
 *   parsed on its own, down to the one line that fails, which goes to the
 *   rules: a bad line costs a few re-parsed half-batches, never the count.
 * - The rules are the core's (rb_jsonl_count_buffer on the one line), for
 *   the lines simdjson refuses or cannot judge: blank lines are just
 *   whitespace to it, and it refuses what the rules accept (lone surrogate
 *   escapes, integers past 64 bits, numbers past a double's range) as well
 *   as every bad line. A status it reads as a double goes to the rules too,
 *   which tell an integer from a fraction or an exponent by its text
 *   (simdjson's versions have differed on -0).
 * - Nesting deeper than the rules' 512 is refused by simdjson itself: the
 *   parser is made with that depth limit (its default is 1024).
 * - The last "status" of an object wins, as in the rules: the object's
 *   fields are walked in order (its at_key finds the first), the keys
 *   compared unescaped and whole.
 *
 * The library dispatches at run time to the widest kernel the CPU runs
 * (rbsj_info names it), as the core does.
 */
#include "jsonl_simdjson.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <simdjson.h>

namespace
{

/* As the core: small enough that the copy read(2) makes stays in L2. */
constexpr size_t kReadChunk = size_t{1} << 18;
/* A batch of whole lines parsed as one stream: a bad line costs a re-parse
 * of at most this much. */
constexpr size_t kBatch = size_t{1} << 16;
/* Statuses in [0, kSmallStatus) are tallied in a flat array. */
constexpr int64_t kSmallStatus = 1000;

rb_status fail(rb_error *err, rb_status code, const char *arg, int sys_errno, int64_t pos,
               const char *fmt, ...) __attribute__((format(printf, 6, 7)));

rb_status fail(rb_error *err, rb_status code, const char *arg, int sys_errno, int64_t pos,
               const char *fmt, ...)
{
    if (err) {
        err->code = code;
        err->arg = arg;
        err->pos = pos;
        err->sys_errno = sys_errno;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

inline bool is_ws(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

class Counter
{
  public:
    explicit Counter(rb_jsonl_result *res) : res_(res) {}

    /* Makes the parser: the rules' depth limit, room for one batch. */
    rb_status init(rb_error *err)
    {
        if (parser_.allocate(kBatch, RB_JSONL_MAX_DEPTH) != simdjson::SUCCESS)
            return fail(err, RB_ERR_NOMEM, nullptr, 0, -1, "out of memory for simdjson's parser");
#ifdef SIMDJSON_THREADS_ENABLED
        /* One thread, as every variant of the round: no stage 1 ahead. */
        parser_.threaded = false;
#endif
        return RB_OK;
    }

    /* Counts the lines of [p, end): whole lines, the last ending with
     * '\n', with SIMDJSON_PADDING readable bytes after end. */
    rb_status lines(const uint8_t *p, const uint8_t *end, rb_error *err)
    {
        while (p < end) {
            const uint8_t *stop = end;
            if (size_t(end - p) > kBatch) {
                auto nl = static_cast<const uint8_t *>(memrchr(p, '\n', kBatch));
                if (!nl) /* a line longer than a batch is a batch */
                    nl = static_cast<const uint8_t *>(memchr(p + kBatch, '\n', end - p - kBatch));
                stop = nl + 1;
            }
            rb_status st = batch(p, stop, err);
            if (st != RB_OK)
                return st;
            p = stop;
        }
        return RB_OK;
    }

    /* Adds the statuses tallied in the flat array to the result. */
    rb_status finish(rb_error *err)
    {
        for (int64_t s = 0; s < kSmallStatus; s++) {
            if (small_[s] && rb_jsonl_add_status(res_, s, small_[s], err) != RB_OK)
                return err ? err->code : RB_ERR_NOMEM;
            small_[s] = 0;
        }
        return RB_OK;
    }

  private:
    enum class Verdict { kCount, kNoStatus, kRules };

    rb_jsonl_result *res_;
    simdjson::dom::parser parser_;
    int64_t small_[kSmallStatus] = {};
    /* The line being read: where it starts, whether it holds anything
     * but accepted documents and whitespace, how many documents it holds
     * and the verdict of its one document. */
    const uint8_t *line_ = nullptr;
    bool content_ = false;
    int docs_ = 0;
    Verdict verdict_ = Verdict::kRules;
    int64_t status_ = 0;

    static bool starts_with_bom(const uint8_t *p, const uint8_t *end)
    {
        return end - p >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF;
    }

    /* Parses [p, end), whole lines, one stream at a time (see the top). */
    rb_status batch(const uint8_t *p, const uint8_t *end, rb_error *err)
    {
        while (p < end) {
            line_ = p;
            content_ = false;
            docs_ = 0;
            const uint8_t *first_nl = static_cast<const uint8_t *>(memchr(p, '\n', end - p));
            /* simdjson skips a byte order mark at the start of a stream,
             * which would shift every position it reports; on a line it is
             * invalid, and the rules say so. */
            if (starts_with_bom(p, end)) {
                rb_status st = rules(first_nl, err);
                if (st != RB_OK)
                    return st;
                p = first_nl + 1;
                continue;
            }
            size_t len = size_t(end - p);
            simdjson::dom::document_stream docs;
            auto error = parser_.parse_many(p, len, std::max(len, kBatch)).get(docs);
            if (error)
                return fail(err, RB_ERR_NOMEM, nullptr, 0, res_->bytes,
                            "simdjson cannot take a batch of %zu bytes: %s", len,
                            simdjson::error_message(error));
            const uint8_t *pos = p; /* the bytes before it are accounted for */
            bool yielded = false;
            const uint8_t *failed = nullptr;
            for (auto it = docs.begin(); it != docs.end(); ++it) {
                simdjson::dom::element doc;
                if ((*it).get(doc) != simdjson::SUCCESS) {
                    failed = p + it.current_index();
                    break;
                }
                yielded = true;
                const uint8_t *s = p + it.current_index();
                if (s < pos || *s != '{')
                    continue; /* not an object: its bytes are content */
                const uint8_t *e = s + it.source().size();
                if (!gap(pos, s, err))
                    return err ? err->code : RB_ERR_NOMEM;
                pos = s;
                if (content_ || docs_ || memchr(s, '\n', size_t(e - s))) {
                    content_ = true; /* not alone on its line */
                    continue;
                }
                verdict_ = judge(doc, &status_);
                if (verdict_ == Verdict::kRules)
                    content_ = true;
                docs_ = 1;
                pos = e;
            }
            if (!failed) {
                /* The stream ended: the rest is whitespace, or what it
                 * dropped, which the gap sends to the rules. */
                return gap(pos, end, err) ? RB_OK : (err ? err->code : RB_ERR_NOMEM);
            }
            if (!yielded || failed < pos || failed >= end) {
                /* Stage 1 failed, with no position: split the batch. */
                const uint8_t *last_nl =
                    static_cast<const uint8_t *>(memrchr(p, '\n', size_t(end - p - 1)));
                if (!last_nl) /* one line: simdjson refused it */
                    return rules(end - 1, err);
                const uint8_t *mid =
                    static_cast<const uint8_t *>(memrchr(p, '\n', size_t(end - p) / 2));
                if (!mid)
                    mid = first_nl;
                rb_status st = batch(p, mid + 1, err);
                if (st == RB_OK)
                    st = batch(mid + 1, end, err);
                return st;
            }
            /* Stage 2 failed on a document: the lines before it stand,
             * its line goes to the rules, and the batch goes on after it. */
            if (!gap(pos, failed, err))
                return err ? err->code : RB_ERR_NOMEM;
            const uint8_t *nl = static_cast<const uint8_t *>(memchr(failed, '\n', end - failed));
            rb_status st = rules(nl, err);
            if (st != RB_OK)
                return st;
            p = nl + 1;
        }
        return RB_OK;
    }

    /* What an object says: its last "status", an int64 to count, or none;
     * a double goes to the rules. */
    static Verdict judge(simdjson::dom::element doc, int64_t *status)
    {
        simdjson::dom::object obj;
        if (doc.get_object().get(obj) != simdjson::SUCCESS)
            return Verdict::kRules;
        simdjson::dom::element value;
        bool found = false;
        for (simdjson::dom::key_value_pair field : obj) {
            if (field.key == "status") {
                value = field.value;
                found = true;
            }
        }
        if (!found)
            return Verdict::kNoStatus;
        switch (value.type()) {
        case simdjson::dom::element_type::INT64:
            *status = value.get_int64().value_unsafe();
            return Verdict::kCount;
        case simdjson::dom::element_type::DOUBLE: return Verdict::kRules;
        default: return Verdict::kNoStatus; /* above int64, a string, null ... */
        }
    }

    /* Accounts for the bytes [from, to) between documents: a newline ends
     * the line, anything but whitespace is content. False when out of
     * memory (err set). */
    bool gap(const uint8_t *from, const uint8_t *to, rb_error *err)
    {
        for (; from < to; from++) {
            if (*from == '\n') {
                if (end_line(from, err) != RB_OK)
                    return false;
            } else if (!is_ws(*from)) {
                content_ = true;
            }
        }
        return true;
    }

    /* Ends the line at its newline nl with its verdict. */
    rb_status end_line(const uint8_t *nl, rb_error *err)
    {
        if (content_ || docs_ > 1)
            return rules(nl, err);
        res_->lines++;
        if (docs_ == 0) {
            res_->blank++;
        } else if (verdict_ == Verdict::kCount) {
            res_->valid++;
            if (status_ >= 0 && status_ < kSmallStatus) {
                small_[status_]++;
            } else if (rb_jsonl_add_status(res_, status_, 1, err) != RB_OK) {
                return err ? err->code : RB_ERR_NOMEM;
            }
        } else {
            res_->invalid++;
            if (res_->nreported < RB_JSONL_MAX_REPORTED)
                res_->reported[res_->nreported++] = {res_->lines, RB_JSONL_NO_STATUS};
        }
        next_line(nl);
        return RB_OK;
    }

    /* Ends the line at nl by the core's rules, which count it into the
     * result under the next line number (their byte count is ours). */
    rb_status rules(const uint8_t *nl, rb_error *err)
    {
        int64_t bytes = res_->bytes;
        rb_status st = rb_jsonl_count_buffer(line_, size_t(nl - line_) + 1, res_, err);
        res_->bytes = bytes;
        next_line(nl);
        return st;
    }

    void next_line(const uint8_t *nl)
    {
        line_ = nl + 1;
        content_ = false;
        docs_ = 0;
    }
};

} // namespace

extern "C" rb_status rbsj_count_file(const char *path, rb_jsonl_result *res, rb_error *err)
{
    if (!path)
        return fail(err, RB_ERR_ARG, "path", 0, -1, "must not be NULL");
    if (!res)
        return fail(err, RB_ERR_ARG, "res", 0, -1, "must not be NULL");
    Counter *counter = new (std::nothrow) Counter(res);
    if (!counter)
        return fail(err, RB_ERR_NOMEM, nullptr, 0, -1, "out of memory");
    rb_status st = counter->init(err);
    uint8_t *buf = nullptr;
    int fd = -1;
    /* One spare byte for the newline a last line without one gets, then
     * the padding simdjson reads past the end of what it parses. */
    size_t cap = kReadChunk, have = 0;
    if (st != RB_OK)
        goto done;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        st = fail(err, RB_ERR_IO, "path", errno, 0, "cannot open %s", path);
        goto done;
    }
    buf = static_cast<uint8_t *>(calloc(1, cap + 1 + simdjson::SIMDJSON_PADDING));
    if (!buf) {
        st = fail(err, RB_ERR_NOMEM, nullptr, 0, -1, "out of memory for the read buffer");
        goto done;
    }
    for (;;) {
        ssize_t n = read(fd, buf + have, cap - have);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            st = fail(err, RB_ERR_IO, "path", errno, res->bytes, "cannot read %s after %lld bytes",
                      path, (long long)res->bytes);
            goto done;
        }
        if (n == 0) {
            if (have) {
                buf[have] = '\n';
                st = counter->lines(buf, buf + have + 1, err);
                if (st == RB_OK)
                    res->bytes += int64_t(have);
            }
            goto done;
        }
        have += size_t(n);
        auto last = static_cast<const uint8_t *>(memrchr(buf, '\n', have));
        if (!last) {
            if (have == cap) {
                /* A line longer than the buffer: grow it, lines have no limit. */
                uint8_t *bigger = cap > SIZE_MAX / 4
                                      ? nullptr
                                      : static_cast<uint8_t *>(
                                            realloc(buf, cap * 2 + 1 + simdjson::SIMDJSON_PADDING));
                if (!bigger) {
                    st = fail(err, RB_ERR_NOMEM, nullptr, 0, res->bytes,
                              "out of memory for a long line");
                    goto done;
                }
                buf = bigger;
                cap *= 2;
            }
            continue;
        }
        size_t head = size_t(last - buf) + 1;
        st = counter->lines(buf, buf + head, err);
        if (st != RB_OK)
            goto done;
        res->bytes += int64_t(head);
        memmove(buf, buf + head, have - head);
        have -= head;
    }
done:
    if (st == RB_OK)
        st = counter->finish(err);
    else
        counter->finish(nullptr);
    if (fd >= 0)
        close(fd);
    free(buf);
    delete counter;
    return st;
}

extern "C" const char *rbsj_info(void)
{
    static std::string info;
    if (info.empty()) {
        const simdjson::implementation *impl = simdjson::get_active_implementation();
        info = std::string("simdjson ") + std::to_string(simdjson::SIMDJSON_VERSION_MAJOR) + "." +
               std::to_string(simdjson::SIMDJSON_VERSION_MINOR) + "." +
               std::to_string(simdjson::SIMDJSON_VERSION_REVISION) + ", kernel " + impl->name() +
               " (" + impl->description() +
               "), chosen at run time; parse_many (DOM) in batches of " +
               std::to_string(kBatch >> 10) + " KiB";
    }
    return info.c_str();
}
