package roundbench

import "time"

// HTTPHello is the body every server of the http round answers GET / with.
const HTTPHello = "Hello, World!"

// HTTPHandler answers one request for the core's server (HTTPServer):
// method and path are views of the server's buffer, valid only during the
// call; the body is written into buf; it returns the status and the body's
// length. It is called from the core's worker threads, several at once.
type HTTPHandler func(method, path, buf []byte) (status, n int)

// HTTPConfig configures the core's server; zero fields take the core's
// defaults (127.0.0.1, a free port, 1 thread, 10 s header timeout, 8 KiB
// heads).
type HTTPConfig struct {
	Host          string
	Port          int
	Threads       int
	HeaderTimeout time.Duration
	MaxHead       int
}

func (c HTTPConfig) host() string {
	if c.Host == "" {
		return "127.0.0.1"
	}
	return c.Host
}

// HTTPStats are the core server's counters.
type HTTPStats struct {
	Requests, BadRequests, Timeouts, Accepted, Open int64
}

// HelloCore is the go-c variant's handler: what rb_http_hello_handler does,
// in Go, called back from the core for every request. The statuses are
// numbers, not net/http's names: importing net/http here would put it into
// every program that uses this package (every Go child of the suite).
func HelloCore(method, path, buf []byte) (int, int) {
	if string(method) != "GET" && string(method) != "HEAD" {
		return 405, 0 // Method Not Allowed
	}
	if len(path) != 1 || path[0] != '/' {
		return 404, 0 // Not Found
	}
	return 200, copy(buf, HTTPHello)
}
