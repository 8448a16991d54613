//go:build goexperiment.jsonv2 && go1.25

// The experiment is Go 1.25's; the release tag says so to the builds with
// older toolchains (roundbench.runtimes.gotoolchains), which have no such experiment.

package main

import (
	"roundbench/go"
	"roundbench/go/internal/jsonlcount"
)

// go-jsonv2: encoding/json/v2 (GOEXPERIMENT=jsonv2, in its own program,
// rb-go-jsonl-v2), into a struct with the status as raw JSON. Its defaults
// are the rules' on UTF-8 (invalid UTF-8 is an error), on the grammar and on
// names (matched case-sensitively, unlike v1); duplicate names, which v2
// refuses by default, are allowed with the last one winning, as the rules
// and the core have it (jsontext.AllowDuplicateNames(true)). What it still
// refuses goes to the rules: lone surrogate escapes (valid JSON by RFC
// 8259's grammar), blank lines, and every bad line. Nesting deeper than the
// rules' 512 (v2's limit is 10000) is checked first.
func init() { registerClassifier("go-jsonv2", newJsonv2Classifier) }

type jsonv2Record struct {
	Status v2Value `json:"status"`
}

func newJsonv2Classifier() (jsonlcount.Classifier, error) {
	opts := v2AllowDuplicateNames(true)
	return func(line []byte) (int64, bool, string) {
		if len(line) > roundbench.JsonlMaxDepth && jsonlcount.TooDeep(line) {
			return 0, false, roundbench.JsonlInvalidJSON
		}
		var rec jsonv2Record
		if err := v2Unmarshal(line, &rec, opts); err != nil {
			return roundbench.JsonlClassify(line) // refused: the rules decide
		}
		// null decodes into a struct without an error.
		if t := skipSpace(line); len(t) == 0 || t[0] != '{' {
			return 0, false, roundbench.JsonlNotObject
		}
		if s, ok := jsonlcount.Int64(rec.Status); ok {
			return s, false, ""
		}
		return 0, false, roundbench.JsonlNoStatus
	}, nil
}
