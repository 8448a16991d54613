package roundbench

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"roundbench/go/internal/jsonlvec"
	"roundbench/go/internal/vectors"
)

// jsonlCounters are the Go-side variants, each over bytes; jsonl_cgo_test.go
// adds go-c, and go-c once more with each kernel of the core this CPU runs
// ("go-c/scan" ...). jsonlFileCounters are the same over a file.
var (
	jsonlCounters = map[string]func(b []byte) (*JsonlResult, error){
		"go": func(b []byte) (*JsonlResult, error) { return PureJsonlCount(bytes.NewReader(b)) },
	}
	jsonlFileCounters = map[string]func(string) (*JsonlResult, error){"PureJsonlCountFile": PureJsonlCountFile}
)

func TestJsonlLineVectors(t *testing.T) {
	for _, v := range jsonlvec.Read(t, "line") {
		for _, suffix := range []string{"\n", "\r\n", ""} {
			data := append(append([]byte{}, v.Payload...), suffix...)
			for name, count := range jsonlCounters {
				r, err := count(data)
				if err != nil {
					t.Fatalf("%s(%q): %v", name, jsonlvec.Short(v.Text), err)
				}
				if len(data) == 0 {
					if r.Lines != 0 {
						t.Errorf("%s(empty) = %d lines; want 0", name, r.Lines)
					}
					continue
				}
				var ok bool
				switch {
				case v.Expect == "blank":
					ok = r.Lines == 1 && r.Blank == 1 && r.Valid == 0 && r.Invalid == 0
				case strings.HasPrefix(v.Expect, "invalid") || strings.HasPrefix(v.Expect, "no") || strings.HasPrefix(v.Expect, "not"):
					ok = r.Invalid == 1 && len(r.Reported) == 1 && r.Reported[0] == JsonlInvalid{Line: 1, Reason: v.Expect}
				default:
					want, _ := strconv.ParseInt(v.Expect, 10, 64)
					ok = r.Valid == 1 && len(r.Statuses) == 1 && r.Statuses[want] == 1
				}
				if !ok {
					t.Errorf("%s(%q + %q) = %+v; want %s", name, jsonlvec.Short(v.Text), suffix, *r, v.Expect)
				}
			}
		}
	}
}

func TestJsonlDocVectors(t *testing.T) {
	for _, v := range jsonlvec.Read(t, "doc") {
		for name, count := range jsonlCounters {
			r, err := count(v.Payload)
			if err != nil {
				t.Fatalf("%s(%q): %v", name, v.Text, err)
			}
			if got := fmt.Sprintf("%d/%d/%d/%d", r.Lines, r.Blank, r.Valid, r.Invalid); got != v.Expect {
				t.Errorf("%s(%q) = %s; want %s", name, v.Text, got, v.Expect)
			}
		}
	}
}

// All line vectors, twice, in one file: the variants agree on everything,
// including the first 100 invalid lines; file and bytes agree.
func TestJsonlAllVectorsAgree(t *testing.T) {
	var data []byte
	for _, v := range jsonlvec.Read(t, "line") {
		data = append(append(data, v.Payload...), '\n')
	}
	data = append(data, data...)
	path := filepath.Join(t.TempDir(), "all.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := jsonlCounters["go"](data)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Reported) != JsonlMaxReported || want.Invalid <= JsonlMaxReported || want.Bytes != int64(len(data)) {
		t.Fatalf("go(all) = %d reported of %d invalid, %d bytes", len(want.Reported), want.Invalid, want.Bytes)
	}
	check := func(name string, got *JsonlResult, err error) {
		if err != nil {
			t.Errorf("%s(all): %v", name, err)
		} else if got.Text() != want.Text() {
			t.Errorf("%s(all) = %s; want %s", name, got.Text(), want.Text())
		}
	}
	for name, count := range jsonlCounters {
		got, err := count(data)
		check(name, got, err)
	}
	for name, count := range jsonlFileCounters {
		got, err := count(path)
		check(name, got, err)
	}
}

func TestJsonlMissingFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.jsonl")
	for name, count := range jsonlFileCounters {
		_, err := count(missing)
		var e *Error
		// One contract for the core's and the pure Go's: the kind, the
		// errno (so fs.ErrNotExist), the argument and the file named.
		if !errors.Is(err, ErrIO) || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &e) || e.Arg != "path" ||
			e.Errno != syscall.ENOENT || !strings.Contains(err.Error(), "cannot open "+missing+": no such file") {
			t.Errorf("%s(missing) error = %#v (%v); want ErrIO, fs.ErrNotExist, ENOENT, naming path and the file",
				name, err, err)
		}
	}
}

// The result text every variant prints and FILE.expect holds, and the
// rules' limits, as testdata/vectors/protocol.txt has them for the C, Go and
// Python tests alike.
func TestJsonlProtocolText(t *testing.T) {
	for _, v := range loadAtLeast(t, "protocol-jsonl", 6) {
		r := &JsonlResult{Lines: v.int(t, "lines"), Blank: v.int(t, "blank"), Valid: v.int(t, "valid"),
			Invalid: v.int(t, "invalid"), Statuses: map[int64]int64{}}
		for _, sc := range v.pairs(t, "statuses") {
			status, err1 := strconv.ParseInt(sc[0], 10, 64)
			count, err2 := strconv.ParseInt(sc[1], 10, 64)
			if err := errors.Join(err1, err2); err != nil {
				t.Fatalf("vector %v: statuses: %v", v, err)
			}
			r.Statuses[status] = count
		}
		for _, lr := range v.pairs(t, "reported") {
			line, err := strconv.ParseInt(lr[0], 10, 64)
			if err != nil {
				t.Fatalf("vector %v: reported: %v", v, err)
			}
			r.Reported = append(r.Reported, JsonlInvalid{Line: line, Reason: lr[1]})
		}
		if got, want := r.Text(), strings.ReplaceAll(v["text"], "+", " "); got != want {
			t.Errorf("%+v.Text() = %q; want %q", *r, got, want)
		}
	}
}

func TestJsonlProtocolLimits(t *testing.T) {
	vectors.Named(t, "protocol-limit", "value", map[string]any{
		"jsonl-max-depth":    JsonlMaxDepth,
		"jsonl-max-reported": JsonlMaxReported,
	})
}

// errAfter is a reader that fails after n bytes.
type errAfter struct {
	data []byte
	n    int
}

func (r *errAfter) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, errors.New("device on fire")
	}
	k := copy(p, r.data[:min(len(r.data), r.n, len(p))])
	r.data, r.n = r.data[k:], r.n-k
	return k, nil
}

func TestJsonlReadErrorSaysHowFar(t *testing.T) {
	data := bytes.Repeat([]byte(`{"status":200}`+"\n"), 10)
	r, err := PureJsonlCount(&errAfter{data, 45})
	if !errors.Is(err, ErrIO) || !strings.Contains(err.Error(), "after 45 bytes") || r == nil || r.Valid != 3 {
		t.Errorf("PureJsonlCount(failing reader) = %+v, %v; want 3 lines counted, ErrIO after 45 bytes", r, err)
	}
}

func TestJsonlDeepNesting(t *testing.T) {
	data := []byte(strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n" + strings.Repeat("[", 100_000) + "\n")
	for name, count := range jsonlCounters {
		r, err := count(data)
		if err != nil || r.Invalid != 2 || r.Reported[0].Reason != JsonlInvalidJSON {
			t.Errorf("%s(deep) = %+v, %v; want 2 invalid-json", name, r, err)
		}
	}
}

func TestJsonlLongLines(t *testing.T) {
	for _, n := range []int{65535, 65536, 65537, 300_000} {
		line := `{"s":"` + strings.Repeat("a", n-19) + `","status":1}`
		data := []byte(line + "\n" + line + "\n")
		for name, count := range jsonlCounters {
			r, err := count(data)
			if err != nil || r.Statuses[1] != 2 {
				t.Errorf("%s(two lines of %d bytes) = %+v, %v; want 2 of status 1", name, n, r, err)
			}
		}
	}
}

// BenchmarkJsonl runs the Go variants over a small generated-like log under
// go test -bench; the suite's numbers come from `roundbench run jsonl`.
func BenchmarkJsonl(b *testing.B) {
	var buf bytes.Buffer
	for i := range 20_000 {
		fmt.Fprintf(&buf, `{"ts":%d,"method":"GET","path":"/items/%d","status":%d,"bytes":%d}`+"\n", 1709251200+i, i%977, []int{200, 404, 500}[i%3], i*7%5000)
	}
	data := buf.Bytes()
	for _, name := range []string{"go", "go-c"} {
		if jsonlCounters[name] == nil {
			continue // go-c: built without cgo
		}
		b.Run("impl="+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				r, err := jsonlCounters[name](data)
				if err != nil || r.Valid != 20_000 {
					b.Fatalf("%s = %+v, %v; want 20000 valid", name, r, err)
				}
			}
		})
	}
}
