package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"roundbench/go"
	"roundbench/go/internal/jsonlcount"
	"roundbench/go/internal/jsonlvec"
)

// The library variants of this build (go-sonic and go-fastjson, or
// go-jsonv2 under GOEXPERIMENT=jsonv2) against the shared vectors and
// against the rules (roundbench.JsonlClassify) on mutated log lines: each
// must agree exactly, bad lines included.

func libraryClassifiers(t *testing.T) map[string]jsonlcount.Classifier {
	t.Helper()
	if len(classifiers) == 0 {
		t.Fatal("this build of rb-go-jsonl registered no library variant")
	}
	out := map[string]jsonlcount.Classifier{}
	for name, newClassifier := range classifiers {
		c, err := newClassifier()
		if err != nil {
			t.Fatalf("%s cannot run here: %v", name, err)
		}
		out[name] = c
	}
	return out
}

// verdict is a line's class as the vectors write it: a status, "blank" or
// a reason.
func verdict(status int64, blank bool, reason string) string {
	switch {
	case blank:
		return "blank"
	case reason != "":
		return reason
	}
	return strconv.FormatInt(status, 10)
}

func TestLibraryLineVectors(t *testing.T) {
	for name, classify := range libraryClassifiers(t) {
		for _, v := range jsonlvec.Read(t, "line") {
			for _, suffix := range []string{"\n", "\r\n", ""} {
				data := append(append([]byte{}, v.Payload...), suffix...)
				r, err := jsonlcount.Count(bytes.NewReader(data), classify)
				if err != nil {
					t.Fatalf("%s(%q): %v", name, jsonlvec.Short(v.Text), err)
				}
				if len(data) == 0 {
					if r.Lines != 0 {
						t.Errorf("%s(empty) = %d lines; want 0", name, r.Lines)
					}
					continue
				}
				got := fmt.Sprintf("%+v", *r)
				switch {
				case r.Lines != 1:
				case r.Blank == 1:
					got = "blank"
				case r.Valid == 1 && len(r.Statuses) == 1:
					for s := range r.Statuses {
						got = strconv.FormatInt(s, 10)
					}
				case r.Invalid == 1 && len(r.Reported) == 1 && r.Reported[0].Line == 1:
					got = r.Reported[0].Reason
				}
				if got != v.Expect {
					t.Errorf("%s(%q + %q) = %s; want %s", name, jsonlvec.Short(v.Text), suffix, got, v.Expect)
				}
			}
		}
	}
}

func TestLibraryDocVectors(t *testing.T) {
	for name, classify := range libraryClassifiers(t) {
		for _, v := range jsonlvec.Read(t, "doc") {
			r, err := jsonlcount.Count(bytes.NewReader(v.Payload), classify)
			if err != nil {
				t.Fatalf("%s(%q): %v", name, v.Text, err)
			}
			if got := fmt.Sprintf("%d/%d/%d/%d", r.Lines, r.Blank, r.Valid, r.Invalid); got != v.Expect {
				t.Errorf("%s(%q) = %s; want %s", name, v.Text, got, v.Expect)
			}
		}
	}
}

// Seeded random mutations of log lines and of the short line vectors
// (bytes flipped, inserted, deleted, cut), as the Python test makes them:
// every library variant classifies every line as the rules do.
func TestLibraryMutatedLines(t *testing.T) {
	seeds := [][]byte{
		[]byte(`{"ts":1709251200,"method":"GET","path":"/a?q=1","status":200,"bytes":512,"ms":1.5e-3}`),
		[]byte(`{"a":[1,{"b":null},"\u00e9"],"status":-7,"c":{"d":[true,false]}}`),
		[]byte(`{"status":404,"ua":"Mozilla/5.0 (X11; Linux x86_64)","ms":0.25,"status":201}`),
		[]byte(`{"status":200}`),
		[]byte(`{"msg":"caf` + "\xc3\xa9" + ` \ud83d\ude00","st\u0061tus":200}`),
	}
	for _, v := range jsonlvec.Read(t, "line") {
		if len(v.Payload) < 200 {
			seeds = append(seeds, v.Payload)
		}
	}
	alphabet := []byte("{}[]:,\"\\ \t\r0123456789.-+eEtrufalsn\x00\x1f\x7f\x80\xbf\xc2\xe0\xed\xf0\xf4\xffu")
	rng := rand.New(rand.NewPCG(2026, 14))
	lines := make([][]byte, 20000)
	for i := range lines {
		b := append([]byte{}, seeds[rng.IntN(len(seeds))]...)
		for range 1 + rng.IntN(3) {
			at := rng.IntN(len(b) + 1)
			switch op := rng.Float64(); {
			case op < 0.4 && len(b) > 0:
				b[min(at, len(b)-1)] = alphabet[rng.IntN(len(alphabet))]
			case op < 0.7:
				b = append(b[:at], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[at:]...)...)
			case op < 0.9 && len(b) > 0:
				at = min(at, len(b)-1)
				b = append(b[:at], b[at+1:]...)
			default:
				b = b[:at]
			}
		}
		lines[i] = bytes.ReplaceAll(b, []byte("\n"), []byte(" "))
	}
	kinds := map[string]int{}
	for name, classify := range libraryClassifiers(t) {
		bad := 0
		for _, line := range lines {
			want := verdict(roundbench.JsonlClassify(line))
			kinds[want]++
			if got := verdict(classify(append(line, '\n'))); got != want {
				if bad++; bad <= 5 {
					t.Errorf("%s(%q) = %s; want %s", name, line, got, want)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d mutated lines misjudged", name, bad, len(lines))
		}
	}
	// The mutations make every kind of line, so the test cannot pass by
	// missing one.
	for _, k := range []string{"invalid-json", "not-object", "no-status", "200"} {
		if kinds[k] == 0 {
			t.Errorf("no mutated line is %s: %v", k, kinds)
		}
	}
}

// The rules' traps are in the vectors, so a library variant that dropped
// its own checks fails the tests above; each check here names the trap.
func TestTheTrapsAreInTheVectors(t *testing.T) {
	var all strings.Builder
	for _, v := range jsonlvec.Read(t, "line") {
		all.WriteString(v.Expect + " " + v.Text + "\n")
	}
	for _, trap := range []string{
		`invalid-json {"status":200,"a":"%FF"}`,      // invalid UTF-8, which libraries replace
		`invalid-json {"status":NaN}`,                // NaN, which lenient parsers take
		`invalid-json {"status":200,"a":"%01"}`,      // a raw control character in a string
		`200 {"status":"x","status":200}`,            // the last duplicate wins
		`no-status {"Status":200}`,                   // names match exactly
		`invalid-json %{513*[}%{513*]}`,              // deeper than 512
		`200 {"msg":"\ud800 \udfff","status":200}`,   // lone surrogate escapes are valid
		`invalid-json {"status":200} {"status":200}`, // two values on a line
	} {
		if !strings.Contains(all.String(), trap+"\n") {
			t.Errorf("the vectors lack %q", trap)
		}
	}
}
