// Package argsweep holds a Go child program's argument handling to the
// child protocol (testdata/vectors/protocol.txt): every wrong argument ends
// the child with the usage status and one line on stderr, before any work,
// with nothing on stdout and nothing written. Each program under
// go/cmd/rb-go has a test that calls it:
//
//	func TestMain(m *testing.M) { argsweep.Main(m, main) }
//	func TestWrongArguments(t *testing.T) { argsweep.Run(t) }
//
// The test binary runs itself as the child (Main), so the sweep covers the
// program's own registry and the parameters its variants read, under the
// same -race and cgocheck builds as the rest of the tests.
package argsweep

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"roundbench/go/internal/harness"
	"roundbench/go/internal/vectors"
)

// childEnv holds the child's arguments, as JSON, when the test binary is
// to run as the program.
const childEnv = "RB_ARGSWEEP_ARGS"

// Wrong are the values every integer parameter refuses: not a number, none,
// and one beyond int64.
var Wrong = []string{"x", "", "99999999999999999999"}

// Main runs the program (main) when the test binary was started as its
// child, and the tests otherwise.
func Main(m *testing.M, main func()) {
	if v, ok := os.LookupEnv(childEnv); ok {
		var args []string
		if err := json.Unmarshal([]byte(v), &args); err != nil {
			panic(err)
		}
		os.Args = append([]string{os.Args[0]}, args...)
		main()
		os.Exit(harness.ExitOK)
	}
	os.Exit(m.Run())
}

// Case is one wrong argument list and what the line must name.
type Case struct {
	Args  []string
	Names string
}

// Cases are the wrong argument lists for a program whose --list printed
// rows (ROUND VARIANT UNIT...): the generic ones, and for every variant of
// a round with protocol-param vectors each wrong value of each parameter.
func Cases(t *testing.T, rows [][]string) []Case {
	params := map[string][]string{}
	for _, v := range vectors.AtLeast(t, "protocol-param", 1) {
		params[v.Str(t, "round")] = append(params[v.Str(t, "round")], v.Str(t, "key"))
	}
	round, impl := rows[0][0], rows[0][1]
	out := []Case{
		{nil, "usage"},
		{[]string{round}, "usage"},
		{[]string{"no-such-round", impl}, "no-such-round"},
		{[]string{round, "no-such-variant"}, "no-such-variant"},
		{[]string{round, impl, "n"}, `"n"`},
		{[]string{round, impl, "=3"}, `"=3"`},
		{[]string{"--list", "extra"}, "--list"},
	}
	for _, r := range rows {
		if len(r) < 3 {
			continue // a helper (http-serve): not a variant, no parameters of its own
		}
		for _, key := range params[r[0]] {
			for _, w := range Wrong {
				out = append(out, Case{[]string{r[0], r[1], key + "=" + w}, key + "=" + w})
			}
		}
	}
	return out
}

// Run gives the test binary's program every case of Cases and checks each
// outcome.
func Run(t *testing.T) {
	var list bytes.Buffer
	harness.List(&list)
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSpace(list.String()), "\n") {
		rows = append(rows, strings.Fields(line))
	}
	if len(rows) == 0 || len(rows[0]) < 2 {
		t.Fatalf("the program lists no variant: %q", list.String())
	}
	for _, c := range Cases(t, rows) {
		c := c
		t.Run(strings.Join(c.Args, " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr, left := child(t, c.Args)
			if code != harness.ExitUsage {
				t.Errorf("exit %d, want %d (usage); stderr %q", code, harness.ExitUsage, stderr)
			}
			if lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n"); len(lines) != 1 || lines[0] == "" {
				t.Errorf("want one line on stderr, got %q", stderr)
			}
			if !strings.Contains(stderr, c.Names) {
				t.Errorf("stderr %q does not name %s", stderr, c.Names)
			}
			if stdout != "" {
				t.Errorf("printed on stdout: %q", stdout)
			}
			if len(left) != 0 {
				t.Errorf("wrote %v into its folder", left)
			}
		})
	}
}

// child runs the test binary as the program with args in a folder of its
// own: the exit status, stdout, stderr and what it left in the folder.
func child(t *testing.T, args []string) (int, string, string, []string) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), childEnv+"="+string(raw))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	return code, stdout.String(), stderr.String(), left
}
