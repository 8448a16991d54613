//go:build rbprofile

package harness

import (
	"os"
	"runtime/pprof"
)

// The CPU profile of a run (EnvCPUProfile), in a build with -tags
// rbprofile (ProfileTag) only: profile.go says why.
func init() {
	startProfile = func(path string) (func() error, error) {
		f, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		return func() error {
			pprof.StopCPUProfile()
			return f.Close()
		}, nil
	}
}
