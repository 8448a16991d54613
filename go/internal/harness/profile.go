package harness

import "os"

// EnvCPUProfile names a file that Main writes a CPU profile of the run to,
// for the PGO profiles (scripts/pgo-profiles.sh). Only a program built with
// -tags ProfileTag can: runtime/pprof would add some 380 KB to every
// runner, and a Go binary's pages weigh on its peak RSS (the Makefile's
// GO_RUNNERS says why), so the runners the suite measures leave it out and
// refuse the variable rather than ignore it.
const EnvCPUProfile = "ROUNDBENCH_GO_CPUPROFILE"

// ProfileTag is the build tag that adds the CPU profile (cpuprofile.go;
// the build table's GO_PROFILE_TAG).
const ProfileTag = "rbprofile"

// startProfile starts a CPU profile into path and returns what stops it;
// nil in a build without ProfileTag.
var startProfile func(path string) (stop func() error, err error)

// profiled runs run, writing a CPU profile of it to the file EnvCPUProfile
// names when it is set.
func profiled(program string, run func()) {
	path := os.Getenv(EnvCPUProfile)
	if path == "" {
		run()
		return
	}
	if startProfile == nil {
		Exit(ExitUsage, "%s: %s is set, but this %s was built without -tags %s, which the profile needs (scripts/pgo-profiles.sh builds one)",
			program, EnvCPUProfile, program, ProfileTag)
	}
	stop, err := startProfile(path)
	if err != nil {
		Exit(ExitFailed, "%s: %s: %v", program, EnvCPUProfile, err)
	}
	run()
	if err := stop(); err != nil {
		Exit(ExitFailed, "%s: %s: %v", program, EnvCPUProfile, err)
	}
}
