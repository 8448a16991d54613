package roundbench

import (
	"errors"
	"fmt"
)

// Error kinds, for errors.Is: they mirror the core's rb_status codes.
var (
	ErrArg         = errors.New("argument out of range")
	ErrOverflow    = errors.New("overflow")
	ErrNoMem       = errors.New("out of memory")
	ErrIO          = errors.New("input/output error")
	ErrType        = errors.New("wrong type")
	ErrInterrupted = errors.New("interrupted")
)

// Error is a failure reported by the core, or found in Go before calling it.
type Error struct {
	Func string // the Go function, e.g. "Loop"
	Arg  string // the argument that was wrong, or ""
	Msg  string // what was wrong with it
	Pos  int64  // a position where it applies, or -1
	Kind error  // one of the Err* kinds
}

func (e *Error) Error() string {
	if e.Arg != "" {
		return fmt.Sprintf("roundbench.%s: argument %s: %s", e.Func, e.Arg, e.Msg)
	}
	return fmt.Sprintf("roundbench.%s: %s", e.Func, e.Msg)
}

// Unwrap lets errors.Is(err, ErrArg) and friends work.
func (e *Error) Unwrap() error { return e.Kind }

// argError is the error for a bad argument found before calling C.
func argError(fn, arg string, kind error, format string, a ...any) error {
	return &Error{Func: fn, Arg: arg, Msg: fmt.Sprintf(format, a...), Pos: -1, Kind: kind}
}
