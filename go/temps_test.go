package roundbench

import (
	"errors"
	"testing"
)

// tempsImpl is one Go-side implementation of the temps round.
type tempsImpl struct {
	name string
	fn   func([]int64) (int64, error)
}

// tempsImpls are the round's Go-side implementations; temps_cgo_test.go
// adds the core's.
var tempsImpls = []tempsImpl{{"PureTemps", PureTemps}}

func TestTempsVectors(t *testing.T) {
	for _, v := range loadVectors(t, "temps") {
		n, want := v.int(t, "n"), v.int(t, "sum")
		a := make([]int64, n)
		for i := range a {
			a[i] = int64(i)
		}
		for _, m := range tempsImpls {
			if got, err := m.fn(a); err != nil || got != want {
				t.Errorf("%s(arange(%d)) = %d, %v; want %d", m.name, n, got, err, want)
			}
		}
	}
	for _, v := range loadVectors(t, "temps-array") {
		a, want := v.int64s(t, "a"), v.int(t, "sum")
		for _, m := range tempsImpls {
			if got, err := m.fn(a); err != nil || got != want {
				t.Errorf("%s(%v) = %d, %v; want %d", m.name, a, got, err, want)
			}
		}
	}
}

func TestTempsErrors(t *testing.T) {
	for _, v := range loadVectors(t, "temps-error") {
		a, pos := v.int64s(t, "a"), v.int(t, "pos")
		for _, m := range tempsImpls {
			_, err := m.fn(a)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrOverflow) || e.Arg != "a" || e.Pos != pos {
				t.Errorf("%s(%v) = %v; want ErrOverflow naming a at %d", m.name, a, err, pos)
			}
		}
	}
}

func BenchmarkTemps(b *testing.B) {
	a := make([]int64, 1<<20)
	for i := range a {
		a[i] = int64(i)
	}
	want := LoopExpected(int64(len(a)))
	for _, m := range tempsImpls {
		b.Run("impl="+m.name, func(b *testing.B) {
			b.SetBytes(int64(8 * len(a)))
			for b.Loop() {
				if got, err := m.fn(a); err != nil || got != want {
					b.Fatalf("%s = %d, %v; want %d", m.name, got, err, want)
				}
			}
		})
	}
}
