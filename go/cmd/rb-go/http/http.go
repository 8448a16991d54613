// Command rb-go-http holds the http round's Go servers: `rb-go-http
// http-serve IMPL port=P [key=value...]` serves until SIGTERM, and
// `rb-go-http --list` lists its entries (go/internal/harness). The round's
// driver (python/roundbench/rounds/http/) starts it, waits for `listening
// port=P`, loads it with a separate load generator and stops it; the
// driver, not this program, prints the result line. Only this program
// links net/http, which would add megabytes to any other Go child's peak
// RSS.
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func main() { harness.Main() }

// go is net/http's server; GOMAXPROCS comes from the driver's environment,
// and header_timeout_ms=T (10 s by default) is its ReadHeaderTimeout.
func init() {
	harness.RegisterHelper("http-serve", "go", serveGo)
}

// newHelloMux is the go variant: net/http's ServeMux with the round's one
// route, written as a Go user would.
func newHelloMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte(roundbench.HTTPHello))
	})
	return mux
}

func serveGo(a *harness.Args) {
	port := a.Int("port", 0, 0, 65535)
	ln, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	harness.Must(err)
	timeout := time.Duration(a.Int("header_timeout_ms", 10000, 1, 3600000)) * time.Millisecond
	srv := &http.Server{Handler: newHelloMux(), ReadHeaderTimeout: timeout}
	serveUntilSignal(ln, srv.Serve, srv.Shutdown)
}

// serveUntilSignal is every Go server's life under the driver: serve ln,
// print the start line, and on SIGTERM or SIGINT shut down within 5 s and
// print the stop line; a serve error is a failed run.
func serveUntilSignal(ln net.Listener, serve func(net.Listener) error, shutdown func(context.Context) error) {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- serve(ln) }()
	// scan: allow print: the driver's start line, before any load
	fmt.Printf("listening port=%d\n", ln.Addr().(*net.TCPAddr).Port)
	select {
	case <-stop:
	case err := <-done:
		harness.Exit(harness.ExitFailed, "serve: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	harness.Must(shutdown(ctx))
	// scan: allow print: the driver's stop line, after the load
	fmt.Println("stopped")
}
