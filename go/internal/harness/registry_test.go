package harness

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// withRegistry runs f on an empty registry and puts the program's back.
func withRegistry(t *testing.T, f func()) {
	t.Helper()
	saved := registry
	registry = map[string]map[string]entry{}
	defer func() { registry = saved }()
	f()
}

func TestListSortsAndShowsUnits(t *testing.T) {
	withRegistry(t, func() {
		run := func(*Args) {}
		Register("loop", "go-c", run, "ns/iter")
		Register("loop", "go", run, "ns/iter")
		Register("chain", "go", run, "setup-ns", "B/task")
		RegisterHelper("http-serve", "go", run)
		RegisterHelper("matmul", "blas-info", run)
		var out bytes.Buffer
		List(&out)
		want := "chain go setup-ns B/task\nhttp-serve go\nloop go ns/iter\nloop go-c ns/iter\n"
		if out.String() != want {
			t.Errorf("List() =\n%s\nwant\n%s", out.String(), want)
		}
	})
}

func TestRegisterRefusesBadDeclarations(t *testing.T) {
	for name, f := range map[string]func(){
		"twice":        func() { Register("loop", "go", nil); Register("loop", "go", nil) },
		"ns/op":        func() { Register("loop", "go", nil, "ns/op") },
		"peak-B":       func() { Register("loop", "go", nil, "peak-B") },
		"blank unit":   func() { Register("loop", "go", nil, "ns per op") },
		"blank name":   func() { Register("loop", "go c", nil) },
		"empty round":  func() { Register("", "go", nil) },
		"helper twice": func() { Register("loop", "go", nil); RegisterHelper("loop", "go", nil) },
	} {
		withRegistry(t, func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered without a panic", name)
				}
			}()
			f()
		})
	}
}

// emitChildEnv makes the test binary, run again by
// TestEmitRefusesUndeclaredUnit, emit one line with the unit it names.
const emitChildEnv = "HARNESS_TEST_EMIT_UNIT"

func TestEmitRefusesUndeclaredUnit(t *testing.T) {
	if unit := os.Getenv(emitChildEnv); unit != "" {
		a := &Args{Round: "loop", Impl: "go", units: []string{"ns/iter"}}
		Emit(a, 1, 100, Metric{Value: 1, Unit: "ns/iter"}, Metric{Value: 2, Unit: unit})
		os.Exit(0)
	}
	emit := func(unit string) (string, string, int) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEmitRefusesUndeclaredUnit$")
		cmd.Env = append(os.Environ(), emitChildEnv+"="+unit)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
	}
	out, errText, code := emit("MB/s")
	if code != ExitUsage || out != "" || !strings.Contains(errText, `"MB/s"`) || !strings.Contains(errText, "loop go") {
		t.Errorf("Emit(undeclared MB/s) = exit %d, stdout %q, stderr %q; want exit %d naming MB/s and loop go, nothing printed",
			code, out, errText, ExitUsage)
	}
	// The same child with a declared unit prints its line.
	out, errText, code = emit("ns/iter")
	if code != 0 || !strings.HasPrefix(out, "BenchmarkLoop/impl=go 1 100 ns/op 1 ns/iter 2 ns/iter") {
		t.Errorf("Emit(declared units) = exit %d, stdout %q, stderr %q", code, out, errText)
	}
}

func TestGetReadsAStringParameter(t *testing.T) {
	a, err := Parse("rb-go-aspects", []string{"aspects", "go", "events=277", "combo=Sun-0-Moon"})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Get("combo", "x"); got != "Sun-0-Moon" {
		t.Errorf("Get(combo) = %q; want Sun-0-Moon", got)
	}
	if got := a.Get("test", "1"); got != "1" {
		t.Errorf("Get(test) = %q; want the default 1", got)
	}
}
