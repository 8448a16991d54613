package roundbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Round jsonl: count the top-level "status" of every line of a JSON Lines
// log. docs/rounds/jsonl.md has the rules; testdata/jsonl_vectors.txt
// encodes them.

// The reasons a line is invalid, as every variant names them.
const (
	JsonlInvalidJSON = "invalid-json"
	JsonlNotObject   = "not-object"
	JsonlNoStatus    = "no-status"
)

// JsonlMaxDepth is the deepest nesting a valid line may have (RFC 8259
// section 9 lets a parser set one); JsonlMaxReported is how many invalid
// lines are reported. The core has the same (RB_JSONL_MAX_*).
const (
	JsonlMaxDepth    = 512
	JsonlMaxReported = 100
)

// JsonlInvalid is one reported invalid line: its 1-based number and reason.
type JsonlInvalid struct {
	Line   int64
	Reason string
}

// JsonlResult is the tally: Lines = Blank + Valid + Invalid; Statuses maps
// each status to its count; Reported holds the first JsonlMaxReported
// invalid lines.
type JsonlResult struct {
	Lines, Blank, Valid, Invalid, Bytes int64
	Statuses                            map[int64]int64
	Reported                            []JsonlInvalid
}

// Text is the result every variant prints: the counts, the statuses and an
// FNV-1a hash of the reported lines ("LINE:REASON\n" each), as
// roundbench/rounds/jsonl/genlog.py's result_text writes it.
func (r *JsonlResult) Text() string {
	h := fnv.New64a()
	for _, inv := range r.Reported {
		fmt.Fprintf(h, "%d:%s\n", inv.Line, inv.Reason)
	}
	keys := make([]int64, 0, len(r.Statuses))
	for k := range r.Statuses {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	var st strings.Builder
	for i, k := range keys {
		if i > 0 {
			st.WriteByte(',')
		}
		fmt.Fprintf(&st, "%d:%d", k, r.Statuses[k])
	}
	return fmt.Sprintf("lines=%d blank=%d valid=%d invalid=%d statuses=%s reported=%d:%016x",
		r.Lines, r.Blank, r.Valid, r.Invalid, st.String(), len(r.Reported), h.Sum64())
}

// jsonlRecord takes the status as raw JSON: encoding/json gives the last of
// duplicate keys to a RawMessage (the rules' last-one-wins), and any value,
// so the type is checked here rather than by a failed decode that would
// hide a later, integer "status".
type jsonlRecord struct {
	Status json.RawMessage `json:"status"`
}

// JsonlTooDeep reports whether line nests arrays and objects deeper than
// JsonlMaxDepth (encoding/json's own limit is 10000, and every library's is
// above 512, so each variant checks it before asking its library). Only
// lines longer than JsonlMaxDepth bytes can; callers check the length
// first.
func JsonlTooDeep(line []byte) bool {
	depth, inString := 0, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if depth > JsonlMaxDepth {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

// jsonlStatusOnlyExact reports whether every key of line that
// encoding/json could take for "status" is exactly "status": encoding/json
// matches keys case-insensitively ("Status", "STATUS", and "ſtatus" with a
// long s), which the rules do not. Keys with escapes or a long s are left
// to jsonlObject, which compares exactly.
func jsonlStatusOnlyExact(line []byte) bool {
	if bytes.IndexByte(line, '\\') >= 0 || bytes.Contains(line, []byte("ſ")) {
		return false
	}
	for i := bytes.IndexByte(line, '"'); i >= 0 && i+8 <= len(line); {
		if line[i+7] == '"' && bytes.EqualFold(line[i+1:i+7], []byte("status")) &&
			string(line[i+1:i+7]) != "status" {
			return false
		}
		j := bytes.IndexByte(line[i+1:], '"')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return true
}

// JsonlInt64 is the status a raw JSON value (as a library hands it over,
// valid JSON) stands for: an integer (no fraction or exponent) that fits in
// an int64. A string, a literal or nothing is no status.
func JsonlInt64(raw []byte) (int64, bool) {
	if len(raw) == 0 || bytes.ContainsAny(raw, ".eE") {
		return 0, false
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	return v, err == nil
}

// JsonlClassify returns the status of one line (with or without its
// newline) and "" when it is valid, blank=true when it is blank, or the
// reason it is invalid.
func JsonlClassify(line []byte) (status int64, blank bool, reason string) {
	trimmed := bytes.TrimLeft(line, " \t\r\n")
	if len(trimmed) == 0 {
		return 0, true, ""
	}
	// encoding/json replaces invalid UTF-8 instead of refusing it.
	if !utf8.Valid(line) || (len(line) > JsonlMaxDepth && JsonlTooDeep(line)) {
		return 0, false, JsonlInvalidJSON
	}
	if !jsonlStatusOnlyExact(line) {
		return jsonlObject(line, trimmed[0] == '{')
	}
	var rec jsonlRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) { // valid JSON, but not an object
			return 0, false, JsonlNotObject
		}
		return 0, false, JsonlInvalidJSON
	}
	if trimmed[0] != '{' { // null decodes into a struct without an error
		return 0, false, JsonlNotObject
	}
	if s, ok := JsonlInt64(rec.Status); ok {
		return s, false, ""
	}
	return 0, false, JsonlNoStatus
}

// jsonlObject classifies a line whose keys need exact comparison: a map
// keeps every key as written (decoded), the last duplicate winning.
func jsonlObject(line []byte, object bool) (int64, bool, string) {
	if !json.Valid(line) {
		return 0, false, JsonlInvalidJSON
	}
	if !object {
		return 0, false, JsonlNotObject
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return 0, false, JsonlInvalidJSON
	}
	if s, ok := JsonlInt64(m["status"]); ok {
		return s, false, ""
	}
	return 0, false, JsonlNoStatus
}

// JsonlClassifier judges one line (with or without its newline) as
// JsonlClassify does: the status and "" when it counts, blank=true when it
// is blank, or the reason it is invalid. The library variants are
// classifiers that ask their library first and hand the lines it refuses or
// cannot judge to JsonlClassify, which holds the rules.
type JsonlClassifier func(line []byte) (status int64, blank bool, reason string)

// PureJsonlCount counts the lines of r in Go alone (JsonlClassify).
func PureJsonlCount(r io.Reader) (*JsonlResult, error) {
	return jsonlCount("PureJsonlCount", r, JsonlClassify)
}

// JsonlCountWith counts the lines of r, each judged by classify. Lines may
// be of any length (a bufio.Reader, not a Scanner with its 64 KiB token
// limit); a bad line never stops the count; a read error returns the
// counts so far and an error saying after how many bytes.
func JsonlCountWith(r io.Reader, classify JsonlClassifier) (*JsonlResult, error) {
	return jsonlCount("JsonlCountWith", r, classify)
}

// jsonlCount is JsonlCountWith; fn names the exported function in errors.
func jsonlCount(fn string, r io.Reader, classify JsonlClassifier) (*JsonlResult, error) {
	res := &JsonlResult{Statuses: map[int64]int64{}}
	br := bufio.NewReaderSize(r, 1<<16)
	var long []byte // a line longer than the reader's buffer, gathered
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, line...)
			continue
		}
		if long != nil {
			line = append(long, line...)
		}
		if len(line) > 0 {
			res.add(line, classify)
		}
		long = nil
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return res, &Error{Func: fn, Msg: fmt.Sprintf("read failed after %d bytes: %v", res.Bytes, err), Pos: res.Bytes, Kind: ErrIO}
		}
	}
}

func (res *JsonlResult) add(line []byte, classify JsonlClassifier) {
	res.Lines++
	res.Bytes += int64(len(line))
	status, blank, reason := classify(line)
	switch {
	case blank:
		res.Blank++
	case reason == "":
		res.Valid++
		res.Statuses[status]++
	default:
		res.Invalid++
		if len(res.Reported) < JsonlMaxReported {
			res.Reported = append(res.Reported, JsonlInvalid{res.Lines, reason})
		}
	}
}

// PureJsonlCountFile is PureJsonlCount over the file at path.
func PureJsonlCountFile(path string) (*JsonlResult, error) {
	return jsonlCountFile("PureJsonlCountFile", path, JsonlClassify)
}

// JsonlCountFileWith is JsonlCountWith over the file at path.
func JsonlCountFileWith(path string, classify JsonlClassifier) (*JsonlResult, error) {
	return jsonlCountFile("JsonlCountFileWith", path, classify)
}

func jsonlCountFile(fn, path string, classify JsonlClassifier) (*JsonlResult, error) {
	f, err := os.Open(path)
	if err != nil {
		// As the core says it: the message names the file, the errno is
		// kept, so errors.Is(err, fs.ErrNotExist) holds for both.
		var errno syscall.Errno
		errors.As(err, &errno)
		return nil, &Error{Func: fn, Arg: "path", Msg: "cannot open " + path, Pos: 0, Kind: ErrIO, Errno: errno}
	}
	defer f.Close()
	return jsonlCount(fn, f, classify)
}
