//go:build cgo

package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

// go-c is the core's server answering through the Go handler
// roundbench.HelloCore; it also takes threads=N and header_timeout_ms=T
// (the core's header timeout).
func init() {
	harness.RegisterHelper("http-serve", "go-c", serveGoC)
}

func serveGoC(a *harness.Args) {
	cfg := roundbench.HTTPConfig{
		Port:          int(a.Int("port", 0, 0, 65535)),
		Threads:       int(a.Int("threads", 1, 1, 256)),
		HeaderTimeout: time.Duration(a.Int("header_timeout_ms", 10000, 1, 3600000)) * time.Millisecond,
	}
	srv, err := roundbench.NewHTTPServer(cfg, roundbench.HelloCore)
	harness.Must(err)
	defer srv.Close()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		srv.Stop()
	}()
	harness.Must(srv.Start())
	// scan: allow print: the driver's start line, before any load
	fmt.Printf("listening port=%d\n", srv.Port())
	srv.Wait(-1)
	st := srv.Stats()
	// scan: allow print: the driver's stop line, after the load
	fmt.Printf("stopped requests=%d bad=%d timeouts=%d open=%d\n", st.Requests, st.BadRequests, st.Timeouts, st.Open)
}
