//go:build (!goexperiment.jsonv2 || go1.27) && go1.24

// From Go 1.24, which fastjson's go.mod declares.

package main

import (
	"unicode/utf8"

	"github.com/valyala/fastjson"

	"roundbench/go"
	"roundbench/go/internal/jsonlcount"
)

// go-fastjson: github.com/valyala/fastjson, as its users run it on
// untrusted input: fastjson.ValidateBytes first (its parser alone takes NaN,
// Infinity and more that JSON does not), then its Parser, reused across
// lines, to read the status. The validator is strict on the grammar but
// not on UTF-8, which is checked here, nor on raw control characters in
// every string (see below); nesting deeper than its parser's limit of 300 is refused by it and
// decided by the rules, nesting deeper than the rules' 512 is checked
// first.
func init() { registerClassifier("go-fastjson", newFastjsonClassifier) }

func newFastjsonClassifier() (jsonlcount.Classifier, error) {
	var p fastjson.Parser
	var raw []byte // the status number's text, reused
	return func(line []byte) (int64, bool, string) {
		if !utf8.Valid(line) || (len(line) > roundbench.JsonlMaxDepth && jsonlcount.TooDeep(line)) {
			return 0, false, roundbench.JsonlInvalidJSON
		}
		// Its validator misses a raw control character in a string that
		// also holds an escape: such lines, rare in a log (a CRLF ending,
		// a tab), go to the rules.
		if hasControl(line) || fastjson.ValidateBytes(line) != nil {
			return roundbench.JsonlClassify(line) // blank, or refused: the rules decide
		}
		v, err := p.ParseBytes(line)
		if err != nil {
			return roundbench.JsonlClassify(line)
		}
		o, err := v.Object()
		if err != nil {
			return 0, false, roundbench.JsonlNotObject
		}
		// Object.Get returns the first of duplicate keys; the rules take
		// the last (keys come unescaped).
		var status *fastjson.Value
		o.Visit(func(key []byte, val *fastjson.Value) {
			if string(key) == "status" {
				status = val
			}
		})
		if status == nil || status.Type() != fastjson.TypeNumber {
			return 0, false, roundbench.JsonlNoStatus
		}
		raw = status.MarshalTo(raw[:0])
		if s, ok := jsonlcount.Int64(raw); ok {
			return s, false, ""
		}
		return 0, false, roundbench.JsonlNoStatus
	}, nil
}
