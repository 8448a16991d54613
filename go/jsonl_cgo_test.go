//go:build cgo

package roundbench

import (
	"errors"
	"strings"
	"testing"
)

func init() {
	jsonlCounters["go-c"] = JsonlCountBytes
	jsonlFileCounters["JsonlCountFile"] = JsonlCountFile
	for _, k := range []string{"scan", "sse2", "avx2"} {
		if SetJsonlKernel(k) != nil {
			continue
		}
		jsonlCounters["go-c/"+k] = func(b []byte) (*JsonlResult, error) {
			if err := SetJsonlKernel(k); err != nil {
				return nil, err
			}
			defer SetJsonlKernel("")
			return JsonlCountBytes(b)
		}
	}
	SetJsonlKernel("")
}

func TestJsonlKernel(t *testing.T) {
	if _, ok := jsonlCounters["go-c/scan"]; !ok {
		t.Fatal("the scan kernel runs everywhere, but SetJsonlKernel refused it")
	}
	k, err := JsonlKernel()
	if err != nil || k == "auto" || jsonlCounters["go-c/"+k] == nil {
		t.Fatalf("JsonlKernel() = %q, %v; want a kernel this CPU runs", k, err)
	}
	var e *Error
	if err := SetJsonlKernel("bogus"); !errors.As(err, &e) || e.Kind != ErrArg {
		t.Fatalf("SetJsonlKernel(bogus) = %v; want an ErrArg", err)
	}
	t.Setenv("ROUNDBENCH_JSONL_KERNEL", "bogus")
	if _, err := JsonlKernel(); !errors.As(err, &e) || e.Kind != ErrArg || !strings.Contains(err.Error(), "ROUNDBENCH_JSONL_KERNEL") {
		t.Fatalf("JsonlKernel() under a bad $ROUNDBENCH_JSONL_KERNEL = %v; want an ErrArg naming it", err)
	}
	if _, err := JsonlCountBytes([]byte("{\"status\":200}\n")); !errors.As(err, &e) || e.Kind != ErrArg {
		t.Fatalf("a count under a bad $ROUNDBENCH_JSONL_KERNEL = %v; want an ErrArg", err)
	}
	t.Setenv("ROUNDBENCH_JSONL_KERNEL", "scan")
	if k, err := JsonlKernel(); k != "scan" || err != nil {
		t.Fatalf("JsonlKernel() under ROUNDBENCH_JSONL_KERNEL=scan = %q, %v", k, err)
	}
}
