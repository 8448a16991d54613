//go:build (!goexperiment.jsonv2 || go1.27) && !goexperiment.cgocheck2 && go1.20

// Not under GOEXPERIMENT=cgocheck2 (make test-go runs the Go tests so, for
// the core's cgo code): sonic's loader links each function it compiles into
// the runtime's list of modules, a write of a Go pointer that cgocheck2
// takes for one into C memory and stops the program at start-up. From Go
// 1.20: a module sonic needs (github.com/klauspost/cpuid/v2) declares it.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"unicode/utf8"

	"github.com/bytedance/sonic"

	"roundbench/go"
	"roundbench/go/internal/jsonlcount"
)

// go-sonic: github.com/bytedance/sonic (its JIT decoder) into a struct with
// the status as raw JSON, held to the rules: ValidateString (a raw control
// character in a string is an error; by default sonic lets it through),
// CaseSensitive (names match exactly; by default they match as in
// encoding/json, "Status" too), skipped values validated (its default), and
// a UTF-8 check per line (sonic replaces invalid UTF-8 instead of refusing
// it). On a platform or Go version its JIT does not support, sonic silently
// becomes encoding/json (sonic.APIKind says which): that is not this
// variant, and it says it cannot run here.
func init() { registerClassifier("go-sonic", newSonicClassifier) }

type sonicRecord struct {
	Status json.RawMessage `json:"status"`
}

func newSonicClassifier() (jsonlcount.Classifier, error) {
	if sonic.APIKind != sonic.UseSonicJSON {
		return nil, fmt.Errorf("not possible here: sonic fell back to encoding/json on %s/%s with %s (sonic.APIKind = %d, not UseSonicJSON)",
			runtime.GOOS, runtime.GOARCH, runtime.Version(), sonic.APIKind)
	}
	api := sonic.Config{ValidateString: true, CaseSensitive: true}.Froze()
	return func(line []byte) (int64, bool, string) {
		if !utf8.Valid(line) || (len(line) > roundbench.JsonlMaxDepth && jsonlcount.TooDeep(line)) {
			return 0, false, roundbench.JsonlInvalidJSON
		}
		// What it skips it does not check as strictly as what it decodes:
		// a bad escape sequence in a skipped string passes. Lines with a
		// backslash, rare in a log (an escaped character), go to the
		// rules.
		if bytes.IndexByte(line, '\\') >= 0 {
			return roundbench.JsonlClassify(line)
		}
		var rec sonicRecord
		if err := api.Unmarshal(line, &rec); err != nil {
			return roundbench.JsonlClassify(line) // blank, or refused: the rules decide
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
