//go:build go1.26

// From Go 1.26, which fasthttp's go.mod declares.

package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"time"

	"github.com/valyala/fasthttp"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

// go-fasthttp is github.com/valyala/fasthttp's server; GOMAXPROCS comes
// from the driver's environment, and header_timeout_ms=T bounds how long a
// request may take to arrive (the round's slow client gets 408).
func init() {
	harness.RegisterHelper("http-serve", "go-fasthttp", serveFasthttp)
}

// fastHello is the go-fasthttp variant's handler, written as a fasthttp
// user would: no router for one route, the path and method checked as the
// go variant's ServeMux does (404 before 405).
func fastHello(ctx *fasthttp.RequestCtx) {
	if string(ctx.Path()) != "/" {
		ctx.SetStatusCode(fasthttp.StatusNotFound)
		return
	}
	if !ctx.IsGet() && !ctx.IsHead() {
		ctx.SetStatusCode(fasthttp.StatusMethodNotAllowed)
		return
	}
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.SetBodyString(roundbench.HTTPHello)
}

// fastError answers a request fasthttp could not read. Its default handler
// matches the error's own type, but a head that times out arrives wrapped
// ("error when reading request headers: ..."), so the default answers a
// slow client 400; errors.As finds the timeout and answers 408, the status
// RFC 9110 (section 15.5.9) gives it. The rest is as the default does.
func fastError(ctx *fasthttp.RequestCtx, err error) {
	var small *fasthttp.ErrSmallBuffer
	var nerr net.Error
	switch {
	case errors.As(err, &small):
		ctx.Error("Too big request header", fasthttp.StatusRequestHeaderFieldsTooLarge)
	case errors.As(err, &nerr) && nerr.Timeout():
		ctx.Error("Request timeout", fasthttp.StatusRequestTimeout)
	default:
		ctx.Error("Error when parsing request", fasthttp.StatusBadRequest)
	}
}

func serveFasthttp(a *harness.Args) {
	port := a.Int("port", 0, 0, 65535)
	timeout := time.Duration(a.Int("header_timeout_ms", 10000, 1, 3600000)) * time.Millisecond
	ln, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	harness.Must(err)
	srv := &fasthttp.Server{
		Handler: fastHello,
		// The request (a head, here) must arrive within this; fasthttp
		// then answers 408 and closes. An idle keep-alive connection is
		// closed after it too (IdleTimeout defaults to ReadTimeout). A
		// head larger than ReadBufferSize (fasthttp's 4 KiB default) is
		// answered 431.
		ReadTimeout:  timeout,
		ErrorHandler: fastError,
		// fasthttp logs every connection that ends in an error (each
		// dropped client of the stress: a thousand lines); the driver
		// reads the server's stderr only when it stops it, so the pipe
		// would fill and stall the server. The round keeps no logs.
		// scan: allow print: a logger that writes to io.Discard, so nothing is printed
		Logger: log.New(io.Discard, "", 0),
	}
	serveUntilSignal(ln, srv.Serve, srv.ShutdownWithContext)
}
