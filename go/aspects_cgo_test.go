//go:build cgo

package roundbench

import (
	"runtime"
	"strings"
	"testing"
)

func init() {
	aspectsImpls = append(aspectsImpls, aspectsImpl{"go-c", func(ephemeris, events, combo string, test int) ([]byte, int, error) {
		data, err := AspectsLoad(ephemeris, events)
		if err != nil {
			return nil, 0, err
		}
		defer data.Close()
		return data.Search(0, data.Events(), combo, test, nil)
	}})
}

func TestAspectsCoreMessages(t *testing.T) {
	// The core's own words, through the one mapper.
	ephemeris, events := syntheticData(t, 3, 2)
	data, err := AspectsLoad(ephemeris, events)
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	const want = "roundbench.Aspects.Search: argument combo: has a bad term 'Moon-45-Sun': the angle must be 0, 60, 90, 120 or 180"
	if _, _, err := data.Search(0, 2, "Moon-45-Sun", 1, nil); err == nil || err.Error() != want {
		t.Errorf("Search(Moon-45-Sun) error = %v; want %q", err, want)
	}
	if _, _, err := data.Search(1, 2, AspectsDefaultCombo, 1, nil); err == nil || !strings.Contains(err.Error(), "argument count: must be in [0, 1], not 2") {
		t.Errorf("Search past the end: error = %v", err)
	}
	if _, err := AspectsLoad(ephemeris+".missing", events); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("AspectsLoad of a missing file: error = %v", err)
	}
	// The warm-up's prefix of the events is that prefix's search.
	head, n, err := data.Search(0, 1, "Moon-0-Sun", 1, []byte("x"))
	if err != nil || n < 0 || head[0] != 'x' {
		t.Errorf("Search(0, 1) appended to dst: %q, %v", head, err)
	}
	data.Close()
	data.Close()
	if _, _, err := data.Search(0, 0, AspectsDefaultCombo, 1, nil); err == nil {
		t.Errorf("Search after Close: no error")
	}
}

func TestAspectsSearchKeepsItsDataAlive(t *testing.T) {
	// A search whose *Aspects is dropped as soon as the call starts, while
	// collections run beside it: the finalizer must not free the tables the
	// core is reading (before runtime.KeepAlive in Search, this crashed in
	// rb_aspects_search within a few rounds).
	ephemeris, events := syntheticData(t, 400, 2000)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	defer func() { close(stop); <-done }()
	for i := 0; i < 50; i++ {
		search := func() (int, error) {
			data, err := AspectsLoad(ephemeris, events)
			if err != nil {
				return 0, err
			}
			_, n, err := data.Search(0, data.Events(), AspectsDefaultCombo, 2, nil)
			return n, err
		}
		if _, err := search(); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
	}
}
