package roundbench

import (
	"errors"
	"os"
	"runtime"
	"testing"
	"time"
)

// testWait keeps the tests short: they check what happened, not how fast.
const testWait = 5 * time.Millisecond

// sleepers are the round's Go-side implementations; sleep_cgo_test.go adds
// the core's.
var sleepers = map[string]func(int64, time.Duration) (SleepStats, error){
	"PureSleep": PureSleep,
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// settledGoroutines waits (briefly) for exiting goroutines to be gone and
// returns how many are left.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 100 && n > want; i++ {
		time.Sleep(time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

func TestSleepVectors(t *testing.T) {
	for _, v := range loadVectors(t, "sleep") {
		n := v.int(t, "n")
		for name, f := range sleepers {
			fds, gs := openFDs(t), runtime.NumGoroutine()
			s, err := f(n, testWait)
			if err != nil {
				t.Fatalf("%s(%d) error %v", name, n, err)
			}
			if s.N != n || s.PeakLive != n || s.Completed != n || s.Early != 0 {
				t.Errorf("%s(%d) = %+v; want N = PeakLive = Completed = %d, Early = 0", name, n, s, n)
			}
			if n > 0 && (s.RunNs < testWait.Nanoseconds() || s.OverheadNs != s.RunNs-testWait.Nanoseconds()) {
				t.Errorf("%s(%d): RunNs %d does not cover the wait, or OverheadNs %d is not RunNs - wait", name, n, s.RunNs, s.OverheadNs)
			}
			if got := settledGoroutines(gs); got > gs {
				t.Errorf("%s(%d) left %d goroutines running; had %d", name, n, got, gs)
			}
			if got := openFDs(t); got != fds {
				t.Errorf("%s(%d): %d open files after; %d before", name, n, got, fds)
			}
		}
	}
}

func TestSleepErrors(t *testing.T) {
	for _, v := range loadVectors(t, "sleep-error") {
		n := v.int(t, "n")
		want := v.errKind(t)
		for name, f := range sleepers {
			var e *Error
			if _, err := f(n, testWait); !errors.Is(err, want) || !errors.As(err, &e) || e.Arg != "n" {
				t.Errorf("%s(%d) error = %v; want %v naming n", name, n, err, want)
			}
		}
	}
	for name, f := range sleepers {
		if _, err := f(3, -time.Second); !errors.Is(err, ErrArg) {
			t.Errorf("%s(3, -1s) error = %v; want ErrArg", name, err)
		}
	}
}

// BenchmarkSleep runs the sleep round with a short wait under Go's own
// harness: what it shows is the cost of N tasks beyond the wait.
func BenchmarkSleep(b *testing.B) {
	const n, wait = 100_000, 10 * time.Millisecond
	for name, f := range sleepers {
		b.Run("impl="+name, func(b *testing.B) {
			var over int64
			for b.Loop() {
				s, err := f(n, wait)
				if err != nil || s.Completed != n || s.PeakLive != n {
					b.Fatalf("%s(%d) = %+v, %v", name, n, s, err)
				}
				over += s.OverheadNs
			}
			b.ReportMetric(float64(over)/float64(b.N), "overhead-ns")
		})
	}
}
