//go:build cgo

package main

// A program that imports no C package links statically even when cgo is
// on; importing runtime/cgo is what a program using cgo anywhere gets: the
// C runtime, dynamic linking against libc and the cgo start-up path.
import _ "runtime/cgo"
