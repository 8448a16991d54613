package harness

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"roundbench/go/internal/vectors"
)

// The child protocol as testdata/vectors/protocol.txt holds it, which the C
// and Python tests read too: this harness's exit statuses, numbers, result
// lines, environment variables and limits. Round jsonl's result text and
// limits are the roundbench package's (go/jsonl_test.go) and the jsonl
// child's (go/cmd/rb-go/jsonl).

func TestProtocolExitStatuses(t *testing.T) {
	exits := map[string]any{"ok": ExitOK, "usage": ExitUsage, "wrong": ExitWrong, "cannot": ExitCannot, "failed": ExitFailed}
	if others := vectors.Named(t, "protocol-exit", "code", exits); len(others) > 0 {
		t.Errorf("protocol-exit %v: the Go harness has no such status", others)
	}
}

func TestProtocolNumbers(t *testing.T) {
	for _, v := range vectors.AtLeast(t, "protocol-number", 25) {
		if got, want := format(v.Float(t, "value")), v.Str(t, "text"); got != want {
			t.Errorf("format(%s) = %s; want %s", v["value"], got, want)
		}
	}
}

func TestProtocolLines(t *testing.T) {
	for _, v := range vectors.AtLeast(t, "protocol-line", 5) {
		argv := []string{v.Str(t, "round"), v.Str(t, "impl")}
		if p := v.Str(t, "params"); p != "-" {
			argv = append(argv, strings.Split(p, "/")...)
		}
		a, err := Parse("rb-go-test", argv)
		if err != nil {
			t.Fatal(err)
		}
		var metrics []Metric
		if m := v.Str(t, "metrics"); m != "-" {
			for _, vu := range strings.Split(m, ",") {
				value, unit, _ := strings.Cut(vu, ":")
				x, err := strconv.ParseFloat(value, 64)
				if err != nil {
					t.Fatalf("vector %v: metric %s: %v", v, vu, err)
				}
				metrics = append(metrics, Metric{x, unit})
				a.units = append(a.units, unit)
			}
		}
		got := line(a, v.Int(t, "iters"), v.Float(t, "ns"), metrics)
		if want := strings.ReplaceAll(v.Str(t, "line"), "+", " "); got != want {
			t.Errorf("line(%v) = %q; want %q", argv, got, want)
		}
	}
}

func TestProtocolEnvironment(t *testing.T) {
	envs := map[string]any{
		"jsonl-file":        EnvJsonlFile,
		"jsonl-warmup-file": EnvJsonlWarmupFile,
		"aspects-ephemeris": EnvAspectsEphemeris,
		"aspects-events":    EnvAspectsEvents,
		"jsonl-expect":      EnvJsonlExpect,
		"aspects-expect":    EnvAspectsExpect,
	}
	if others := vectors.Named(t, "protocol-env", "var", envs); len(others) > 0 {
		t.Errorf("protocol-env %v: the Go harness has no such variable", others)
	}
}

func TestProtocolValues(t *testing.T) {
	vs := vectors.AtLeast(t, "protocol-values", 1)
	if len(vs) != 1 {
		t.Fatalf("protocol-values: %d vectors; want one", len(vs))
	}
	if got, want := EnvValues, vs[0].Str(t, "var"); got != want {
		t.Errorf("EnvValues = %s; want %s", got, want)
	}
	if got, want := int64(MaxValues), vs[0].Int(t, "max"); got != want {
		t.Errorf("MaxValues = %d; want %d", got, want)
	}
	for _, c := range []struct {
		env  string
		want int
		ok   bool
	}{{"", 1, true}, {"3", 3, true}, {"100", 100, true}, {"0", 0, false}, {"101", 0, false}, {"x", 0, false}} {
		t.Setenv(EnvValues, c.env)
		got, err := valuesWanted()
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("valuesWanted() with %s=%q = %d, %v; want %d (ok %v)", EnvValues, c.env, got, err, c.want, c.ok)
		}
	}
}

func TestProtocolExpectPath(t *testing.T) {
	const env = "RBT_PROTOCOL_EXPECT"
	for _, v := range vectors.AtLeast(t, "protocol-expect", 3) {
		switch val := v.Str(t, "var"); val {
		case "unset":
			t.Setenv(env, "") // restored after the test
			os.Unsetenv(env)
		case "-":
			t.Setenv(env, "")
		default:
			t.Setenv(env, val)
		}
		input, want := v.Str(t, "input"), v.Str(t, "path")
		got, ok := ExpectPath(env, input)
		if want == "-" && ok || want != "-" && (!ok || got != want) {
			t.Errorf("ExpectPath(%s=%s, %s) = %q, %v; want %s", env, v.Str(t, "var"), input, got, ok, want)
		}
	}
}

func TestProtocolLimits(t *testing.T) {
	vectors.Named(t, "protocol-limit", "value", map[string]any{
		"warmup-ns":    warmUpTime.Nanoseconds(),
		"warmup-calls": warmUpCalls,
		"calibrate-ns": calibrateTime.Nanoseconds(),
	})
}
