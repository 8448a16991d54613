package roundbench

import "testing"

// HelloCore answers as the core's own handler does (the shared request
// vectors reach it through the core's server in http_cgo_test.go).
func TestHelloCore(t *testing.T) {
	for _, c := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/", 200, HTTPHello},
		{"HEAD", "/", 200, HTTPHello},
		{"POST", "/", 405, ""},
		{"GET", "/x", 404, ""},
		{"GET", "", 404, ""},
	} {
		buf := make([]byte, 64)
		status, n := HelloCore([]byte(c.method), []byte(c.path), buf)
		if status != c.status || string(buf[:n]) != c.body {
			t.Errorf("HelloCore(%s %q) = %d %q; want %d %q", c.method, c.path, status, buf[:n], c.status, c.body)
		}
	}
}
