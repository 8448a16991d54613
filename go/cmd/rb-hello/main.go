// Command rb-hello is the Go program of round startup: print one line and
// exit. Built with CGO_ENABLED=0 it is variant go (static, no C at all);
// with CGO_ENABLED=1 the file cgo.go links the cgo runtime and it is variant
// go-cgo (dynamic, against libc), the same program otherwise.
package main

import (
	"fmt"
	"os"
)

func main() {
	if _, err := fmt.Println("hello, world"); err != nil {
		os.Exit(1)
	}
}
