// Package jsonlcount is round jsonl's counting engine: the tally of a JSON
// Lines log, the line reader around a classifier, and the rules' two
// helpers that the library variants share with the pure one. The package
// roundbench/go exposes the tally (JsonlResult) and the pure count; the Go
// child runner's library variants (go/cmd/rb-go/jsonl) count with their own
// classifiers through Count and CountFile, which are no part of that API.
package jsonlcount

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// The reasons a line is invalid, as every variant names them.
const (
	InvalidJSON = "invalid-json"
	NotObject   = "not-object"
	NoStatus    = "no-status"
)

// MaxDepth is the deepest nesting a valid line may have (RFC 8259 section 9
// lets a parser set one); MaxReported is how many invalid lines are
// reported. The core has the same (RB_JSONL_MAX_*).
const (
	MaxDepth    = 512
	MaxReported = 100
)

// Invalid is one reported invalid line: its 1-based number and reason.
type Invalid struct {
	Line   int64
	Reason string
}

// Result is the tally: Lines = Blank + Valid + Invalid; Statuses maps each
// status to its count; Reported holds the first MaxReported invalid lines.
type Result struct {
	Lines, Blank, Valid, Invalid, Bytes int64
	Statuses                            map[int64]int64
	Reported                            []Invalid
}

// Text is the result every variant prints: the counts, the statuses and an
// FNV-1a hash of the reported lines ("LINE:REASON\n" each), as
// roundbench/rounds/jsonl/genlog.py's result_text writes it.
func (r *Result) Text() string {
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

// Classifier judges one line (with or without its newline): the status and
// "" when it counts, blank=true when it is blank, or the reason it is
// invalid.
type Classifier func(line []byte) (status int64, blank bool, reason string)

// TooDeep reports whether line nests arrays and objects deeper than
// MaxDepth (encoding/json's own limit is 10000, and every library's is
// above 512, so each variant checks it before asking its library). Only
// lines longer than MaxDepth bytes can; callers check the length first.
func TooDeep(line []byte) bool {
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
			if depth > MaxDepth {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

// Int64 is the status a raw JSON value (as a library hands it over, valid
// JSON) stands for: an integer (no fraction or exponent) that fits in an
// int64. A string, a literal or nothing is no status.
func Int64(raw []byte) (int64, bool) {
	if len(raw) == 0 || bytes.ContainsAny(raw, ".eE") {
		return 0, false
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	return v, err == nil
}

// ReadError is a read that failed part way: the counts so far stand, and
// Offset says after how many bytes.
type ReadError struct {
	Offset int64
	Err    error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("read failed after %d bytes: %v", e.Offset, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// Count counts the lines of r, each judged by classify. Lines may be of any
// length (a bufio.Reader, not a Scanner with its 64 KiB token limit); a bad
// line never stops the count; a read error returns the counts so far and a
// *ReadError.
func Count(r io.Reader, classify Classifier) (*Result, error) {
	res := &Result{Statuses: map[int64]int64{}}
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
			return res, &ReadError{Offset: res.Bytes, Err: err}
		}
	}
}

// CountFile is Count over the file at path; an error opening it is the
// *os.PathError that os.Open returns.
func CountFile(path string, classify Classifier) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Count(f, classify)
}

func (res *Result) add(line []byte, classify Classifier) {
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
		if len(res.Reported) < MaxReported {
			res.Reported = append(res.Reported, Invalid{res.Lines, reason})
		}
	}
}
