// Package roundbench binds the roundbench C core (csrc/) for Go and holds
// the pure-Go version of every round, so that each round can be run as the
// core through cgo (Loop, FfiNoop, ...) and in Go alone (PureLoop,
// PureNoop, ...), and the two compared with the same protocol.
//
// The crossing is cgo.go, the only file that imports "C"; no C type appears
// in the exported API. Errors from the core come back as *Error values.
//
// The core's C files are compiled into this package through the symbolic
// links core_*.c, roundbench.h and internal.h, which point into csrc/. The
// go command hashes the files of a package's own directory, so through the
// links an edit under csrc/ always reaches the Go build (it would not notice
// a header or library outside the directory; see TestCoreLinks).
package roundbench
