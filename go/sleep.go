package roundbench

import (
	"sync"
	"sync/atomic"
	"time"
)

// SleepMaxN is the most tasks one sleep run accepts (RB_SLEEP_MAX_N).
const SleepMaxN = 100_000_000

// SleepStats is what one run of the sleep round measured; the core's
// rb_sleep_stats, field for field.
type SleepStats struct {
	N          int64 // tasks created
	SetupNs    int64 // from the first creation until all N were live
	RunNs      int64 // from the common start until the last task woke
	OverheadNs int64 // RunNs minus the wait
	PeakLive   int64 // the most tasks live at once (must equal N)
	Completed  int64 // tasks that finished their wait (must equal N)
	Early      int64 // tasks that woke before the deadline (must be 0)
}

// checkSleepArgs validates n and wait for Sleep and PureSleep alike.
func checkSleepArgs(fn string, n int64, wait time.Duration) error {
	if n < 0 {
		return argError(fn, "n", ErrArg, "must be >= 0, not %d", n)
	}
	if n > SleepMaxN {
		return argError(fn, "n", ErrOverflow, "too many tasks: %d > SleepMaxN (%d)", n, int64(SleepMaxN))
	}
	if wait < 0 {
		return argError(fn, "wait", ErrArg, "must be >= 0, not %v", wait)
	}
	return nil
}

// PureSleep runs the sleep round on goroutines: n goroutines count
// themselves live and block on a common start; once all are live the start
// is taken and each time.Sleeps until start + wait; a WaitGroup waits for
// the last. No goroutine is left running when it returns.
func PureSleep(n int64, wait time.Duration) (SleepStats, error) {
	if err := checkSleepArgs("PureSleep", n, wait); err != nil {
		return SleepStats{}, err
	}
	var live, peak, completed, early atomic.Int64
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	var deadline time.Time // written before close(start), read after
	ready.Add(int(n))
	done.Add(int(n))
	t0 := time.Now()
	for i := int64(0); i < n; i++ {
		go func() {
			defer done.Done()
			l := live.Add(1)
			for p := peak.Load(); l > p && !peak.CompareAndSwap(p, l); p = peak.Load() {
			}
			ready.Done()
			<-start
			time.Sleep(time.Until(deadline))
			if time.Now().Before(deadline) {
				early.Add(1)
			}
			live.Add(-1)
			completed.Add(1)
		}()
	}
	ready.Wait()
	begin := time.Now()
	deadline = begin.Add(wait)
	close(start)
	done.Wait()
	end := time.Now()
	s := SleepStats{N: n, PeakLive: peak.Load(), Completed: completed.Load(), Early: early.Load()}
	if n == 0 {
		s.SetupNs = end.Sub(t0).Nanoseconds()
		return s, nil
	}
	s.SetupNs = begin.Sub(t0).Nanoseconds()
	s.RunNs = end.Sub(begin).Nanoseconds()
	s.OverheadNs = s.RunNs - wait.Nanoseconds()
	return s, nil
}
