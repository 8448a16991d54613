package roundbench

import (
	"errors"
	"fmt"
	"syscall"
)

// Error kinds, for errors.Is: they mirror the core's rb_status codes, and
// ErrCore stands for a status this package does not know.
var (
	ErrArg         = errors.New("argument out of range")
	ErrOverflow    = errors.New("overflow")
	ErrNoMem       = errors.New("out of memory")
	ErrIO          = errors.New("input/output error")
	ErrType        = errors.New("wrong type")
	ErrInterrupted = errors.New("interrupted")
	ErrCore        = errors.New("core error")
)

// Error is a failure reported by the core, or by a pure-Go variant that
// checks its arguments as the core does.
type Error struct {
	Func  string        // the Go function, e.g. "Loop"
	Arg   string        // the argument that was wrong, or ""
	Msg   string        // what was wrong, e.g. "must be >= 0, not -1"
	Pos   int64         // a position where it applies, or -1
	Kind  error         // one of the Err* kinds
	Errno syscall.Errno // the failed system call's errno (Kind ErrIO), or 0
}

func (e *Error) Error() string {
	msg := e.Msg
	if e.Errno != 0 {
		msg += ": " + e.Errno.Error()
	}
	if e.Arg != "" {
		return fmt.Sprintf("roundbench.%s: argument %s: %s", e.Func, e.Arg, msg)
	}
	return fmt.Sprintf("roundbench.%s: %s", e.Func, msg)
}

// Unwrap lets errors.Is(err, ErrArg) and friends work, and, for a failed
// system call, errors.Is(err, fs.ErrNotExist) and the like.
func (e *Error) Unwrap() []error {
	if e.Errno != 0 {
		return []error{e.Kind, e.Errno}
	}
	return []error{e.Kind}
}

// argError is the error for a bad argument found in Go.
func argError(fn, arg string, kind error, format string, a ...any) error {
	return &Error{Func: fn, Arg: arg, Msg: fmt.Sprintf(format, a...), Pos: -1, Kind: kind}
}
