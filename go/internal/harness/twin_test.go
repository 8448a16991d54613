package harness

import (
	"bytes"
	"runtime/debug"
	"testing"
)

// settings is a build's settings as debug.ReadBuildInfo gives them.
func settings(kv ...string) []debug.BuildSetting {
	var s []debug.BuildSetting
	for i := 0; i < len(kv); i += 2 {
		s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
	}
	return s
}

func TestKindOfReadsTheBuildSettings(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []debug.BuildSetting
		want buildKind
	}{
		{"plain", settings("-compiler", "gc", "CGO_ENABLED", "1", "GOAMD64", "v1"), buildKind{}},
		// TUNE=1 builds the round's own runner at v3: no twin without the tag.
		{"tuned plain", settings("GOAMD64", "v3"), buildKind{suffix: "v3"}},
		{"pgo off", settings("-pgo", "off", "-tags", TwinTag, "GOAMD64", "v1"), buildKind{twin: true}},
		{"pgo", settings("-pgo", "/src/go/pgo/loop.pgo", "-tags", TwinTag, "GOAMD64", "v1"), buildKind{true, "pgo"}},
		{"v3", settings("-tags", "x,"+TwinTag, "GOAMD64", "v3"), buildKind{true, "v3"}},
		{"both", settings("GOAMD64", "v3", "-tags", TwinTag, "-pgo", "loop.pgo"), buildKind{true, "pgo-v3"}},
		{"other tag", settings("-tags", "netlib", "-pgo", "loop.pgo"), buildKind{suffix: "pgo"}},
		{"arm64", settings("-tags", TwinTag, "GOARM64", "v8.0"), buildKind{twin: true}},
	} {
		if got := kindOf(c.in); got != c.want {
			t.Errorf("%s: kindOf(%v) = %+v; want %+v", c.name, c.in, got, c.want)
		}
	}
}

// withTwins runs f on an empty registry and no twins, and puts the
// program's back.
func withTwins(t *testing.T, f func()) {
	t.Helper()
	saved := twins
	twins = nil
	defer func() { twins = saved }()
	withRegistry(t, f)
}

func TestATwinBuildListsOnlyItsTwins(t *testing.T) {
	run := func(*Args) {}
	for _, c := range []struct {
		kind buildKind
		want string
	}{
		{buildKind{}, "loop go ns/iter\nloop go-c ns/iter\nloop-serve go\ntemps go ns/elem\n"},
		{buildKind{suffix: "v3"}, "loop go ns/iter\nloop go-c ns/iter\nloop-serve go\ntemps go ns/elem\n"},
		{buildKind{true, "pgo"}, "loop go-pgo ns/iter\ntemps go-pgo ns/elem\n"},
		{buildKind{true, "v3"}, "loop go-v3 ns/iter\ntemps go-v3 ns/elem\n"},
		{buildKind{true, "pgo-v3"}, "loop go-pgo-v3 ns/iter\ntemps go-pgo-v3 ns/elem\n"},
		{buildKind{twin: true}, ""},
	} {
		withTwins(t, func() {
			Register("loop", "go", run, "ns/iter")
			Register("loop", "go-c", run, "ns/iter")
			RegisterHelper("loop-serve", "go", run)
			Register("temps", "go", run, "ns/elem")
			Twin("loop", "go")
			Twin("temps", "go")
			why := forBuild(c.kind)
			if (why != "") != (c.kind.twin && c.kind.suffix == "") {
				t.Errorf("forBuild(%+v) says %q", c.kind, why)
			}
			var out bytes.Buffer
			List(&out)
			if out.String() != c.want {
				t.Errorf("List() in build %+v =\n%s\nwant\n%s", c.kind, out.String(), c.want)
			}
		})
	}
}

func TestTwinRefusesBadDeclarations(t *testing.T) {
	run := func(*Args) {}
	for name, f := range map[string]func(){
		"calls the core": func() { Twin("loop", "go-c") },
		"twice":          func() { Twin("loop", "go"); Twin("loop", "go") },
		"unregistered": func() {
			Register("loop", "go", run)
			Twin("loop", "go-unroll")
			forBuild(buildKind{true, "pgo"})
		},
		"helper": func() {
			RegisterHelper("matmul", "blas-info", run)
			Twin("matmul", "blas-info")
			forBuild(buildKind{true, "v3"})
		},
	} {
		withTwins(t, func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: declared without a panic", name)
				}
			}()
			f()
		})
	}
}

func TestTwinOfNamesOnlyTwins(t *testing.T) {
	withTwins(t, func() {
		Twin("loop", "go")
		for impl, want := range map[string]string{
			"go-pgo": "go", "go-v3": "go", "go-pgo-v3": "go",
			"go": "", "go-c": "", "go-pgo-x": "", "go-v5": "", "go-": "",
		} {
			base, ok := twinOf("loop", impl)
			if base != want || ok != (want != "") {
				t.Errorf("twinOf(loop, %s) = %q, %v; want %q", impl, base, ok, want)
			}
		}
		if _, ok := twinOf("temps", "go-pgo"); ok {
			t.Errorf("twinOf(temps, go-pgo) found a twin of a round that declares none")
		}
	})
}
