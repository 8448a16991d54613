package roundbench

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestCoreLinks checks that the C files of this directory are exactly the
// core's: every csrc/*.c has its link core_NAME.c and every csrc/*.h its
// link NAME.h, each pointing at that file, and nothing else is here. The go
// command hashes only the files of a package's own directory, so a core
// file reached any other way would compile once and then go stale silently,
// and a C file here that is not the core's would be compiled into the
// package; `make links` repairs the links.
func TestCoreLinks(t *testing.T) {
	sources, _ := filepath.Glob("../csrc/*.c")
	headers, _ := filepath.Glob("../csrc/*.h")
	if len(sources) == 0 || len(headers) == 0 {
		t.Fatalf("no ../csrc/*.c or ../csrc/*.h found (%d sources, %d headers)", len(sources), len(headers))
	}
	want := map[string]string{} // the link's name here -> its target
	for _, src := range sources {
		want["core_"+filepath.Base(src)] = src
	}
	for _, h := range headers {
		want[filepath.Base(h)] = h
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if ext := filepath.Ext(name); ext != ".c" && ext != ".h" {
			continue
		}
		seen[name] = true
		target, ok := want[name]
		switch {
		case !ok:
			t.Errorf("%s is not a link to a file of ../csrc (remove it, or `make links` if it is an old link)", name)
		case e.Type()&fs.ModeSymlink == 0:
			t.Errorf("%s is a file, not a link to %s: a copy goes stale", name, target)
		default:
			got, _ := os.Readlink(name)
			here, err1 := os.Stat(name)
			there, err2 := os.Stat(target)
			if got != target || err1 != nil || err2 != nil || !os.SameFile(here, there) {
				t.Errorf("%s -> %q; want a link to %s (run `make links`)", name, got, target)
			}
		}
	}
	for name, target := range want {
		if !seen[name] {
			t.Errorf("%s has no link %s here (run `make links`)", target, name)
		}
	}
}
