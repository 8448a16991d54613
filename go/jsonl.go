package roundbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"syscall"
	"unicode/utf8"

	"roundbench/go/internal/jsonlcount"
)

// Round jsonl: count the top-level "status" of every line of a JSON Lines
// log. docs/rounds/jsonl.md has the rules; testdata/jsonl_vectors.txt
// encodes them.

// The reasons a line is invalid, as every variant names them.
const (
	JsonlInvalidJSON = jsonlcount.InvalidJSON
	JsonlNotObject   = jsonlcount.NotObject
	JsonlNoStatus    = jsonlcount.NoStatus
)

// JsonlMaxDepth is the deepest nesting a valid line may have (RFC 8259
// section 9 lets a parser set one); JsonlMaxReported is how many invalid
// lines are reported. The core has the same (RB_JSONL_MAX_*).
const (
	JsonlMaxDepth    = jsonlcount.MaxDepth
	JsonlMaxReported = jsonlcount.MaxReported
)

// JsonlInvalid is one reported invalid line: its 1-based number and reason.
type JsonlInvalid = jsonlcount.Invalid

// JsonlResult is the tally: Lines = Blank + Valid + Invalid; Statuses maps
// each status to its count; Reported holds the first JsonlMaxReported
// invalid lines. Its Text is the result every variant prints: the counts,
// the statuses and an FNV-1a hash of the reported lines ("LINE:REASON\n"
// each), as roundbench/rounds/jsonl/genlog.py's result_text writes it.
type JsonlResult = jsonlcount.Result

// jsonlRecord takes the status as raw JSON: encoding/json gives the last of
// duplicate keys to a RawMessage (the rules' last-one-wins), and any value,
// so the type is checked here rather than by a failed decode that would
// hide a later, integer "status".
type jsonlRecord struct {
	Status json.RawMessage `json:"status"`
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

// JsonlClassify returns the status of one line (with or without its
// newline) and "" when it is valid, blank=true when it is blank, or the
// reason it is invalid.
func JsonlClassify(line []byte) (status int64, blank bool, reason string) {
	trimmed := bytes.TrimLeft(line, " \t\r\n")
	if len(trimmed) == 0 {
		return 0, true, ""
	}
	// encoding/json replaces invalid UTF-8 instead of refusing it.
	if !utf8.Valid(line) || (len(line) > JsonlMaxDepth && jsonlcount.TooDeep(line)) {
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
	if s, ok := jsonlcount.Int64(rec.Status); ok {
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
	if s, ok := jsonlcount.Int64(m["status"]); ok {
		return s, false, ""
	}
	return 0, false, JsonlNoStatus
}

// PureJsonlCount counts the lines of r in Go alone (JsonlClassify).
func PureJsonlCount(r io.Reader) (*JsonlResult, error) {
	return jsonlCount("PureJsonlCount", r, JsonlClassify)
}

// jsonlCount counts r's lines by classify; fn names the exported function
// in errors.
func jsonlCount(fn string, r io.Reader, classify jsonlcount.Classifier) (*JsonlResult, error) {
	res, err := jsonlcount.Count(r, classify)
	var rerr *jsonlcount.ReadError
	if errors.As(err, &rerr) {
		return res, &Error{Func: fn, Msg: rerr.Error(), Pos: rerr.Offset, Kind: ErrIO}
	}
	return res, err
}

// PureJsonlCountFile is PureJsonlCount over the file at path.
func PureJsonlCountFile(path string) (*JsonlResult, error) {
	return jsonlCountFile("PureJsonlCountFile", path, JsonlClassify)
}

func jsonlCountFile(fn, path string, classify jsonlcount.Classifier) (*JsonlResult, error) {
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
