// Package harness is the Go side of the measurement protocol, for the Go
// child runners (go/cmd/rb-go/<round>, one program per round, the http
// round's servers included). One process runs one (round, variant, size):
// it builds its inputs (untimed), warms up, times the work with the
// monotonic clock, verifies the result and prints one line in the Go
// benchmark format. The parent adds peak RSS and CPU time from wait4. The C
// (csrc/runner/harness.c) and Python (python/roundbench/measure/harness.py)
// children follow the same rules, exit statuses and output.
package harness

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// Exit statuses shared by the C, Go and Python child runners
// (testdata/vectors/protocol.txt, protocol-exit, holds all three to them).
const (
	ExitOK     = 0
	ExitUsage  = 2 // bad arguments: the message names which
	ExitWrong  = 3 // the work ran but its result is wrong
	ExitCannot = 4 // this variant cannot run here: stderr says why
	ExitFailed = 5 // the work returned an error
)

// The environment variables in which the parent names a round's input
// files, the same for every language's child (protocol.txt, protocol-env).
const (
	EnvJsonlFile        = "ROUNDBENCH_JSONL_FILE"
	EnvJsonlWarmupFile  = "ROUNDBENCH_JSONL_WARMUP_FILE"
	EnvAspectsEphemeris = "ROUNDBENCH_ASPECTS_EPHEMERIS"
	EnvAspectsEvents    = "ROUNDBENCH_ASPECTS_EVENTS"
	// The file holding the expected result of a round's input
	// (ExpectPath): set empty for the user's own input, which has none.
	EnvJsonlExpect   = "ROUNDBENCH_JSONL_EXPECT"
	EnvAspectsExpect = "ROUNDBENCH_ASPECTS_EXPECT"
)

// The environment variable that asks a child for several values, and the
// most it may ask (protocol.txt, protocol-values): Main runs the variant
// that many times in the one process, each run printing its own line.
const (
	EnvValues = "ROUNDBENCH_VALUES"
	MaxValues = 100
)

// valuesWanted is $ROUNDBENCH_VALUES: 1 when unset or empty, an error
// naming it when it is not an integer from 1 to MaxValues.
func valuesWanted() (int, error) {
	s := os.Getenv(EnvValues)
	if s == "" {
		return 1, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 || v > MaxValues {
		return 0, fmt.Errorf("%s=%s: want an integer from 1 to %d", EnvValues, s, MaxValues)
	}
	return v, nil
}

// The warm-up's and the calibration's limits, the C and Python harnesses'
// too (protocol.txt, protocol-limit): WarmUp calls its work until
// warmUpTime has passed, at most warmUpCalls times; Calibrated grows its
// count until one timing lasts calibrateTime.
const (
	warmUpTime    = 50 * time.Millisecond
	warmUpCalls   = 1000
	calibrateTime = 100 * time.Millisecond
)

// Args are a child's key=value parameters, in command-line order (the order
// is kept in the benchmark name), and the units its variant declared.
type Args struct {
	Round, Impl string
	Keys, Vals  []string
	units       []string
}

// Parse reads ROUND IMPL key=value... for program.
func Parse(program string, argv []string) (*Args, error) {
	if len(argv) < 2 {
		return nil, fmt.Errorf("usage: %s ROUND IMPL [key=value...] | %s --list", program, program)
	}
	a := &Args{Round: argv[0], Impl: argv[1]}
	for _, kv := range argv[2:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%s: bad parameter %q (want key=value)", a.Round, kv)
		}
		a.Keys = append(a.Keys, k)
		a.Vals = append(a.Vals, v)
	}
	return a, nil
}

// Int returns parameter key (def when absent), checked to lie in [lo, hi];
// a bad value ends the child with ExitUsage and a message naming the key.
func (a *Args) Int(key string, def, lo, hi int64) int64 {
	for i, k := range a.Keys {
		if k != key {
			continue
		}
		v, err := strconv.ParseInt(a.Vals[i], 10, 64)
		if err != nil {
			Exit(ExitUsage, "%s: %s=%s is not an integer", a.Round, key, a.Vals[i])
		}
		if v < lo || v > hi {
			Exit(ExitUsage, "%s: %s=%d is out of range [%d, %d]", a.Round, key, v, lo, hi)
		}
		return v
	}
	return def
}

// Get returns string parameter key, or def when absent.
func (a *Args) Get(key, def string) string {
	for i, k := range a.Keys {
		if k == key {
			return a.Vals[i]
		}
	}
	return def
}

// Name is the benchmark name: Benchmark<Round>/impl=<impl>/<k>=<v>...
func (a *Args) Name() string {
	var b strings.Builder
	b.WriteString("Benchmark" + strings.ToUpper(a.Round[:1]) + a.Round[1:] + "/impl=" + a.Impl)
	for i, k := range a.Keys {
		b.WriteString("/" + k + "=" + a.Vals[i])
	}
	return b.String()
}

// Metric is one extra value of a result line.
type Metric struct {
	Value float64
	Unit  string
}

// format is how a result line prints a number (protocol.txt,
// protocol-number): large values in plain digits, the rest with 6
// significant digits, as the C and Python harnesses print them.
func format(x float64) string {
	if math.Abs(x) >= 1e5 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// Emit prints the result line. A metric whose unit the variant did not
// declare (Register) ends the child with ExitUsage instead: the suite
// reads the declarations (--list), so a unit printed but not declared is a
// bug in the variant.
func Emit(a *Args, iters int64, nsPerOp float64, metrics ...Metric) {
	for _, m := range metrics {
		if !contains(a.units, m.Unit) {
			Exit(ExitUsage, "%s %s: unit %q is not declared for this variant (declared: %s)",
				a.Round, a.Impl, m.Unit, strings.Join(a.units, " "))
		}
	}
	fmt.Fprintln(os.Stdout, line(a, iters, nsPerOp, metrics))
}

// line is the result line without its newline (protocol.txt,
// protocol-line); Emit checks its units first.
func line(a *Args, iters int64, nsPerOp float64, metrics []Metric) string {
	fields := []string{a.Name(), strconv.FormatInt(iters, 10), format(nsPerOp), "ns/op"}
	for _, m := range metrics {
		fields = append(fields, format(m.Value), m.Unit)
	}
	return strings.Join(fields, " ")
}

// Result prints `result: text`, the value the parent compares across variants.
func Result(format string, args ...any) {
	fmt.Fprintf(os.Stdout, "result: "+format+"\n", args...)
}

// ResultUnchecked is Result for an input with no expected result (the
// user's own): it also prints `fact: result TEXT`, which the parent keeps in
// the result file, so that it holds what each variant found (the runner
// holds the variants to each other; the report shows the reference's).
func ResultUnchecked(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	fmt.Fprintf(os.Stdout, "result: %s\nfact: result %s\n", text, text)
}

// ExpectPath says where the expected result of the input at input is: the
// file that the environment variable env names when it is set, else
// INPUT.expect beside the input (a generated input run by hand). ok is
// false when env is set empty: the input is the user's own and has no
// expected result (print the result with ResultUnchecked). The C and
// Python harnesses have the same rule.
func ExpectPath(env, input string) (path string, ok bool) {
	named, set := os.LookupEnv(env)
	if !set {
		return input + ".expect", true
	}
	return named, named != ""
}

// Exit prints a message to stderr and ends the child with status code.
func Exit(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(code)
}

// Check ends the child with ExitWrong when got != want.
func Check(what string, got, want int64) {
	if got != want {
		Exit(ExitWrong, "wrong result: %s = %d; want %d", what, got, want)
	}
}

// CheckString ends the child with ExitWrong when got != want.
func CheckString(what, got, want string) {
	if got != want {
		Exit(ExitWrong, "wrong result: %s = %q; want %q", what, got, want)
	}
}

// ordered are the types Min and Max take.
type ordered interface {
	~int | ~int64 | ~float64
}

// Min and Max are the min and max builtins for two values: the builtins
// are Go 1.21's, and the runners build with Go 1.19 and later
// (roundbench.runtimes.gotoolchains).
func Min[T ordered](x, y T) T {
	if y < x {
		return y
	}
	return x
}

// Max: see Min.
func Max[T ordered](x, y T) T {
	if y > x {
		return y
	}
	return x
}

// Must ends the child with ExitFailed when err is not nil.
func Must(err error) {
	if err != nil {
		Exit(ExitFailed, "%v", err)
	}
}

// Timed runs fn and returns its wall time.
func Timed(fn func()) time.Duration {
	t0 := time.Now()
	fn()
	return time.Since(t0)
}

// ProcBytes reads a "Key:   123 kB" line of a /proc file (e.g.
// "/proc/self/status", "VmHWM") in bytes, or -1 when the file or the key is
// absent. The rounds that measure memory from inside (sleep, chain) read
// their baselines with it.
func ProcBytes(path, key string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, key+":") {
			if fields := strings.Fields(line[len(key)+1:]); len(fields) > 0 {
				if v, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
					return v * 1024
				}
			}
		}
	}
	return -1
}

// WarmUp calls fn until at least 50 ms have passed (at most 1000 calls), so
// that the timed run starts with the code, data and the core's clock speed
// where a steady state puts them. Same rule as the C and Python harnesses.
func WarmUp(fn func()) {
	t0 := time.Now()
	for i := 0; i < warmUpCalls && time.Since(t0) < warmUpTime; i++ {
		fn()
	}
}

// Calibrated grows count until one timing of op(count) lasts at least
// 100 ms, then takes the best of three of op and of empty (interleaved) and
// returns (op - empty) / count in ns, and the count: the cost of one
// operation with the loop's own cost removed. Same rule as the C and Python
// harnesses.
func Calibrated(op, empty func(count int64) time.Duration) (float64, int64) {
	count := int64(1000)
	for {
		t := op(count)
		if t >= calibrateTime {
			break
		}
		grow := 100.0
		if t > 0 {
			grow = 1.2 * float64(calibrateTime) / float64(t)
		}
		count = int64(float64(count) * math.Min(100, math.Max(1.5, grow)))
	}
	bestOp, bestEmpty := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for i := 0; i < 3; i++ {
		if t := op(count); t < bestOp {
			bestOp = t
		}
		if t := empty(count); t < bestEmpty {
			bestEmpty = t
		}
	}
	return float64(bestOp-bestEmpty) / float64(count), count
}
