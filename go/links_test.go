package roundbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCoreLinks checks that every C source and header of the core reaches
// this package through a link in its own directory. The go command only
// hashes files in the package directory, so a core file outside it would
// compile once and then go stale silently; `make links` repairs this.
func TestCoreLinks(t *testing.T) {
	sources, _ := filepath.Glob("../csrc/*.c")
	headers, _ := filepath.Glob("../csrc/*.h")
	if len(sources) == 0 {
		t.Fatal("no ../csrc/*.c found")
	}
	check := func(target, link string) {
		got, err := os.Readlink(link)
		if err != nil {
			t.Errorf("%s: %v (run `make links`)", link, err)
			return
		}
		if got != target {
			t.Errorf("%s -> %s; want -> %s", link, got, target)
		}
	}
	for _, src := range sources {
		check(src, "core_"+filepath.Base(src))
	}
	for _, h := range headers {
		check(h, filepath.Base(h))
	}
	links, _ := filepath.Glob("core_*.c")
	for _, l := range links {
		if _, err := os.Stat(l); err != nil {
			t.Errorf("%s points to a missing file: %v", l, err)
		}
		if !strings.HasPrefix(l, "core_") {
			t.Errorf("unexpected C file %s", l)
		}
	}
}
