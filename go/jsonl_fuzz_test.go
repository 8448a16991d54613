//go:build cgo

package roundbench

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"roundbench/go/internal/jsonlvec"
)

// FuzzJsonlLine holds the core to the pure Go rules on arbitrary bytes:
// the input as a whole file (one line or several), and as a line placed
// among flat valid lines at an offset the fuzzer picks (offset % 1024
// bytes in: any position in the index's 64-byte blocks and its groups of
// eight blocks), so that the index, not only the scanner, judges it and
// whatever it carries past the line (string parity, carries) meets the
// lines after it. Every kernel this CPU runs counts each input, and each
// full result (counts, statuses, reported lines and reasons, bytes) must
// equal PureJsonlCount's.
func FuzzJsonlLine(f *testing.F) {
	// The vectors at offsets 37 bytes apart, so that go test's replay
	// alone puts them at many places in a block and a group.
	seeds := 0
	for _, kind := range []string{"line", "doc"} {
		for _, v := range jsonlvec.Read(f, kind) {
			f.Add(v.Payload, uint16(seeds*37%1024))
			seeds++
		}
	}
	for _, s := range []struct {
		line   string
		offset uint16
	}{
		{`{"status":200}`, 63},
		{`{"status":200,"s":"a"}`, 500},
		{`{"a":"x`, 60},                                 // an odd number of quotes: the string runs into the next lines
		{`{"a":"` + strings.Repeat("q", 70) + `"`, 440}, // a string across a block and a group boundary
		{`{"a":"\"","status":7}`, 511},
		{`{"a":"b"` + "\n" + `"c","status":9}`, 31},
		{`{"status":1}` + "\r\n\r\n" + `{"status":2}`, 1},
		{`{"status":-9223372036854775808,"status":123}`, 448},
		{`{"s":"status","status":"x"}`, 7},
		{"\t{\"status\" : 3 }", 64},
	} {
		f.Add([]byte(s.line), s.offset)
	}
	kernels := jsonlRunnableKernels(f)
	f.Fuzz(func(t *testing.T, data []byte, offset uint16) {
		for _, in := range [][]byte{data, jsonlFrame(data, int(offset%1024))} {
			want, err := PureJsonlCount(bytes.NewReader(in))
			if err != nil {
				t.Fatalf("PureJsonlCount(%s): %v", jsonlShow(in), err)
			}
			for _, k := range kernels {
				if err := JsonlSetKernel(k); err != nil {
					t.Fatalf("JsonlSetKernel(%q): %v", k, err)
				}
				got, err := JsonlCountBuffer(in)
				if err != nil {
					t.Fatalf("JsonlCountBuffer(%s) with kernel %s: %v", jsonlShow(in), k, err)
				}
				if d := jsonlDiff(want, got); d != "" {
					t.Fatalf("kernel %s counts %s otherwise than the pure Go rules: %s", k, jsonlShow(in), d)
				}
			}
		}
	})
}

// jsonlRunnableKernels are the kernels this CPU runs, the scanner always
// among them; the kernel goes back to auto after the test.
func jsonlRunnableKernels(f *testing.F) []string {
	var runs []string
	for _, k := range jsonlKernels {
		if err := JsonlSetKernel(k); err != nil {
			f.Logf("kernel %s does not run here: %v", k, err)
			continue
		}
		runs = append(runs, k)
	}
	f.Cleanup(func() { JsonlSetKernel("") })
	if len(runs) == 0 || runs[0] != "scan" {
		f.Fatalf("the kernels that run here are %v; scan runs everywhere", runs)
	}
	return runs
}

// jsonlFiller is a valid line of exactly n bytes (n >= 13) with its
// newline: the flat shape the index takes as it stands.
func jsonlFiller(n int) string {
	if n < 20 {
		return `{"status":` + strings.Repeat("7", n-12) + "}\n"
	}
	return `{"p":"` + strings.Repeat("a", n-20) + `","status":1}` + "\n"
}

// jsonlAfter are the lines after the framed one: flat lines the index
// takes (one with "status" inside a string, where a wrong string parity
// would read a key), and others it hands to the scanner. They cross
// another group of eight blocks, at least.
var jsonlAfter = `{"a":"status","status":3}
{"status":"x"}
{"a":"\"status\":5","status":4}
{"b":"x","c":"status","status":404,"d":"\"}"}
` + jsonlFiller(64) + jsonlFiller(64) + `{"m":"GET","status":200,"p":"/a/b"}
{"m":"GET","status":201,"p":"/x\"y"}
` + jsonlFiller(100) + jsonlFiller(64) + jsonlFiller(64) + jsonlFiller(64) + `{"status":500}
`

// jsonlFrame is data as a line after offset bytes of valid lines (blank
// lines when offset < 13, too short for a valid one), ended by a newline
// and followed by jsonlAfter.
func jsonlFrame(data []byte, offset int) []byte {
	var b bytes.Buffer
	if offset < 13 {
		b.WriteString(strings.Repeat("\n", offset))
	} else {
		for offset-64 >= 13 {
			b.WriteString(jsonlFiller(64))
			offset -= 64
		}
		b.WriteString(jsonlFiller(offset))
	}
	b.Write(data)
	b.WriteByte('\n')
	b.WriteString(jsonlAfter)
	return b.Bytes()
}

// jsonlDiff says how got differs from want, field by field ("" when
// equal).
func jsonlDiff(want, got *JsonlResult) string {
	var d []string
	for _, c := range []struct {
		name      string
		want, got int64
	}{
		{"lines", want.Lines, got.Lines}, {"blank", want.Blank, got.Blank}, {"valid", want.Valid, got.Valid},
		{"invalid", want.Invalid, got.Invalid}, {"bytes", want.Bytes, got.Bytes},
	} {
		if c.want != c.got {
			d = append(d, fmt.Sprintf("%s %d, want %d", c.name, c.got, c.want))
		}
	}
	if !maps.Equal(want.Statuses, got.Statuses) {
		d = append(d, fmt.Sprintf("statuses %v, want %v", got.Statuses, want.Statuses))
	}
	if !slices.Equal(want.Reported, got.Reported) {
		d = append(d, fmt.Sprintf("reported %v, want %v", got.Reported, want.Reported))
	}
	return strings.Join(d, "; ")
}

// jsonlShow is an input for a message: quoted, cut after 300 bytes.
func jsonlShow(b []byte) string {
	if len(b) > 300 {
		return fmt.Sprintf("%q... (%d bytes)", b[:300], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// The frame puts the line at its offset, after lines that count, and the
// lines after it count as they should.
func TestJsonlFrame(t *testing.T) {
	line := []byte(`{"status":42}`)
	alone, _ := PureJsonlCount(strings.NewReader(jsonlAfter))
	for offset := 0; offset < 1024; offset++ {
		b := jsonlFrame(line, offset)
		if string(b[offset:offset+len(line)+1]) != string(line)+"\n" {
			t.Fatalf("jsonlFrame(offset %d) = %q; the line is not at its offset", offset, b)
		}
		r, err := PureJsonlCount(bytes.NewReader(b))
		before, blank := int64(bytes.Count(b[:offset], []byte("\n"))), int64(0)
		if offset < 13 {
			blank = before
		}
		if err != nil || r.Statuses[42] != 1 || r.Invalid != alone.Invalid || r.Blank != alone.Blank+blank ||
			r.Valid != alone.Valid+1+before-blank {
			t.Fatalf("jsonlFrame(offset %d) counts %+v, %v; want the line, %d lines before it (%d blank), and jsonlAfter's %+v",
				offset, r, err, before, blank, alone)
		}
	}
}
