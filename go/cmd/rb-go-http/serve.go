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

// The http round's servers. The round's driver
// (python/roundbench/rounds/http.py) starts `rb-go http-serve IMPL port=P
// [threads=N]`, waits for `listening port=P`, loads it with a separate load
// generator and stops it with SIGTERM; it, not this program, prints the
// result line. GOMAXPROCS comes from the driver's environment. go-c also
// takes header_timeout_ms=T (the core's header timeout).
func init() {
	rounds["http-serve"] = map[string]variant{
		"go":   serveGo,
		"go-c": serveGoC,
	}
}

func serveGo(a *harness.Args) {
	port := a.Int("port", 0, 0, 65535)
	ln, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	harness.Must(err)
	srv := &http.Server{Handler: roundbench.NewHelloMux(), ReadHeaderTimeout: 10 * time.Second}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Printf("listening port=%d\n", ln.Addr().(*net.TCPAddr).Port)
	select {
	case <-stop:
	case err := <-done:
		harness.Exit(harness.ExitFailed, "serve: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	harness.Must(srv.Shutdown(ctx))
	fmt.Println("stopped")
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
	fmt.Printf("listening port=%d\n", srv.Port())
	srv.Wait(-1)
	st := srv.Stats()
	fmt.Printf("stopped requests=%d bad=%d timeouts=%d open=%d\n", st.Requests, st.BadRequests, st.Timeouts, st.Open)
}
