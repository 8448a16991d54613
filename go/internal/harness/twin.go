package harness

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Build twins: a round's directory built again by the standard toolchain
// with its own speed options, profile-guided optimisation (-pgo=FILE) or a
// higher GOAMD64 level, and otherwise as the round's own runner, into a
// program of its own (the build table's GO_BUILD_RUNNERS). Such a build is
// tagged TwinTag, and it lists and runs only the twins of the variants its
// round names with Twin, each named after what the program's own build
// information says: go-pgo for go in a PGO build, go-v3 in a GOAMD64=v3
// build, go-pgo-v3 in both. A twin's name is therefore its check: no binary
// whose build information lacks the profile or the level can list or run
// it. A build without the tag (the round's own runner, TUNE=1's GOAMD64=v3
// included) lists no twins.

// TwinTag is the build tag that marks a twin build (the build table's
// GO_TWIN_TAG).
const TwinTag = "rbtwin"

// twin is a variant that has build twins: round and its base variant.
type twin struct{ round, base string }

var twins []twin

// Twin declares that variant base of round, a pure-Go variant registered
// by the same program, has build twins. Call it from a round file's init.
func Twin(round, base string) {
	if callsCore(base) {
		panic(fmt.Sprintf("harness: %s %s: a variant that calls the C core has no build twins (PGO and GOAMD64 shape Go code, not the core's C)", round, base))
	}
	for _, t := range twins {
		if t == (twin{round, base}) {
			panic(fmt.Sprintf("harness: %s %s declared a twin twice", round, base))
		}
	}
	twins = append(twins, twin{round, base})
}

// buildKind is what a program's build settings say of it: whether it is a
// twin build (tagged TwinTag), and the suffix its twins carry ("pgo",
// "v3", "pgo-v3"; "" when the build has neither option).
type buildKind struct {
	twin   bool
	suffix string
}

// kindOf reads a build's settings (debug.BuildInfo.Settings): the tag in
// -tags, a profile in -pgo (absent, or "off", when none was used), and
// GOAMD64 above v1 (set on amd64 only).
func kindOf(settings []debug.BuildSetting) buildKind {
	var k buildKind
	var parts []string
	for _, s := range settings {
		switch s.Key {
		case "-tags":
			k.twin = contains(strings.Split(s.Value, ","), TwinTag)
		case "-pgo":
			if s.Value != "" && s.Value != "off" {
				parts = append([]string{"pgo"}, parts...)
			}
		case "GOAMD64":
			if s.Value != "" && s.Value != "v1" {
				parts = append(parts, s.Value)
			}
		}
	}
	k.suffix = strings.Join(parts, "-")
	return k
}

// thisBuild is this program's own kind, from the build information the go
// command records in it.
func thisBuild() buildKind {
	if info, ok := debug.ReadBuildInfo(); ok {
		return kindOf(info.Settings)
	}
	return buildKind{}
}

// twinName is the name of base's twin in a build with suffix: go-pgo.
func twinName(base, suffix string) string { return base + "-" + suffix }

// twinRegistry is the registry a twin build lists and runs: each declared
// twin under its build's name, nothing else. A twin whose base is not
// registered is a bug in the round's files.
func twinRegistry(reg map[string]map[string]entry, declared []twin, suffix string) map[string]map[string]entry {
	out := map[string]map[string]entry{}
	if suffix == "" {
		return out
	}
	for _, t := range declared {
		e, ok := reg[t.round][t.base]
		if !ok || e.helper {
			panic(fmt.Sprintf("harness: %s %s has a twin but is no registered variant of this program", t.round, t.base))
		}
		if out[t.round] == nil {
			out[t.round] = map[string]entry{}
		}
		out[t.round][twinName(t.base, suffix)] = e
	}
	return out
}

// twinOf says whether impl names a twin of a variant of round declared
// with Twin (go-pgo, go-v3, go-pgo-v3 for go), and of which.
func twinOf(round, impl string) (string, bool) {
	for _, t := range twins {
		if t.round != round || !strings.HasPrefix(impl, t.base+"-") {
			continue
		}
		words := strings.Split(impl[len(t.base)+1:], "-")
		for _, w := range words {
			if w != "pgo" && !(len(w) == 2 && w[0] == 'v' && w[1] >= '2' && w[1] <= '4') {
				return "", false
			}
		}
		return t.base, true
	}
	return "", false
}

// forBuild puts the twin build's registry in the program's place; a plain
// build keeps its own. It says why a twin build has nothing to run, or "".
func forBuild(k buildKind) string {
	if !k.twin {
		return ""
	}
	registry = twinRegistry(registry, twins, k.suffix)
	if k.suffix == "" {
		return fmt.Sprintf("built with -tags %s, but its build information shows neither a -pgo profile nor a GOAMD64 level above v1, so it has no twins", TwinTag)
	}
	return ""
}
