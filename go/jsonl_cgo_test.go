//go:build cgo

package roundbench

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
)

// jsonlKernels are the core's kernels, slowest first. Those this CPU runs
// join jsonlCounters (every test runs each); TestJsonlKernelRunsWhereTheCPUCan
// skips the others with the core's reason.
var jsonlKernels = []string{"scan", "sse2", "avx2", "avx512"}

// jsonlKernelFlags is what each x86-64 kernel needs, as /proc/cpuinfo's
// flags name it.
var jsonlKernelFlags = map[string][]string{
	"sse2":   {"sse2"},
	"avx2":   {"avx2"},
	"avx512": {"avx512f", "avx512bw", "bmi1", "bmi2"},
}

func init() {
	jsonlCounters["go-c"] = JsonlCountBuffer
	jsonlFileCounters["JsonlCountFile"] = JsonlCountFile
	for _, k := range jsonlKernels {
		if JsonlSetKernel(k) != nil {
			continue
		}
		jsonlCounters["go-c/"+k] = func(b []byte) (*JsonlResult, error) {
			if err := JsonlSetKernel(k); err != nil {
				return nil, err
			}
			defer JsonlSetKernel("")
			return JsonlCountBuffer(b)
		}
	}
	JsonlSetKernel("")
}

// cpuFlags is /proc/cpuinfo's flags; nil where there is none.
func cpuFlags() map[string]bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, flags, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "flags" {
			set := map[string]bool{}
			for _, f := range strings.Fields(flags) {
				set[f] = true
			}
			return set
		}
	}
	return nil
}

// Each kernel runs here, or the core says what it needs: on x86-64 Linux a
// kernel the CPU's flags allow must run (a refusal fails), and one they do
// not allow is skipped with the core's reason.
func TestJsonlKernelRunsWhereTheCPUCan(t *testing.T) {
	var flags map[string]bool
	if runtime.GOARCH == "amd64" {
		flags = cpuFlags()
	}
	for _, k := range jsonlKernels {
		t.Run(k, func(t *testing.T) {
			err := JsonlSetKernel(k)
			JsonlSetKernel("")
			if need, ok := jsonlKernelFlags[k]; ok && flags != nil {
				has := true
				for _, f := range need {
					has = has && flags[f]
				}
				if has != (err == nil) {
					t.Fatalf("JsonlSetKernel(%q) = %v; this CPU's flags have %v: %v", k, err, need, has)
				}
			}
			if err != nil {
				if !strings.Contains(err.Error(), "needs") {
					t.Fatalf("JsonlSetKernel(%q) = %v; want the reason (what it needs)", k, err)
				}
				t.Skipf("kernel %s does not run here: %v", k, err)
			}
			if jsonlCounters["go-c/"+k] == nil {
				t.Fatalf("kernel %s runs but is not among the tests' counters", k)
			}
		})
	}
}

func TestJsonlKernel(t *testing.T) {
	if _, ok := jsonlCounters["go-c/scan"]; !ok {
		t.Fatal("the scan kernel runs everywhere, but JsonlSetKernel refused it")
	}
	// auto takes the fastest kernel this CPU runs: the last one.
	fastest := ""
	for _, k := range jsonlKernels {
		if jsonlCounters["go-c/"+k] != nil {
			fastest = k
		}
	}
	k, err := JsonlKernel()
	if err != nil || k != fastest {
		t.Fatalf("JsonlKernel() = %q, %v; want %q, the fastest this CPU runs", k, err, fastest)
	}
	var e *Error
	if err := JsonlSetKernel("bogus"); !errors.As(err, &e) || e.Kind != ErrArg {
		t.Fatalf("JsonlSetKernel(bogus) = %v; want an ErrArg", err)
	}
	t.Setenv("ROUNDBENCH_JSONL_KERNEL", "bogus")
	if _, err := JsonlKernel(); !errors.As(err, &e) || e.Kind != ErrArg || !strings.Contains(err.Error(), "ROUNDBENCH_JSONL_KERNEL") {
		t.Fatalf("JsonlKernel() under a bad $ROUNDBENCH_JSONL_KERNEL = %v; want an ErrArg naming it", err)
	}
	if _, err := JsonlCountBuffer([]byte("{\"status\":200}\n")); !errors.As(err, &e) || e.Kind != ErrArg {
		t.Fatalf("a count under a bad $ROUNDBENCH_JSONL_KERNEL = %v; want an ErrArg", err)
	}
	t.Setenv("ROUNDBENCH_JSONL_KERNEL", "scan")
	if k, err := JsonlKernel(); k != "scan" || err != nil {
		t.Fatalf("JsonlKernel() under ROUNDBENCH_JSONL_KERNEL=scan = %q, %v", k, err)
	}
}
