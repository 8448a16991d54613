//go:build cgo

package roundbench

import (
	"bufio"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// roundTrip sends raw on a new connection, half-closes it and returns the
// status and body of the first response.
func roundTrip(t *testing.T, addr string, raw []byte) (int, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp4", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := c.Write(raw); err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).CloseWrite()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func startCore(t *testing.T, h HTTPHandler) *HTTPServer {
	t.Helper()
	srv, err := NewHTTPServer(HTTPConfig{Threads: 2, HeaderTimeout: 300 * time.Millisecond}, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// Every shared vector against the core's server, with the core's C handler
// (c) and with the Go handler called back from C (go-c).
func TestHTTPCoreVectors(t *testing.T) {
	for name, h := range map[string]HTTPHandler{"c": nil, "go-c": HelloCore} {
		srv := startCore(t, h)
		addr := "127.0.0.1:" + strconv.Itoa(srv.Port())
		for _, v := range loadVectors(t, "http") {
			raw, err := hex.DecodeString(v["hex"])
			if err != nil {
				t.Fatal(err)
			}
			status, body := roundTrip(t, addr, raw)
			if want := int(v.int(t, "status")); status != want {
				t.Errorf("%s: %q: status %d; want %d", name, raw, status, want)
			}
			if v["body"] == "hello" && body != HTTPHello {
				t.Errorf("%s: %q: body %q; want %q", name, raw, body, HTTPHello)
			}
		}
		st := srv.Stats()
		if st.Requests == 0 || st.BadRequests == 0 {
			t.Errorf("%s: stats %+v", name, st)
		}
	}
}

func TestHTTPPipelinedAndStop(t *testing.T) {
	srv := startCore(t, HelloCore)
	c, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(srv.Port()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	c.Write([]byte("GET / HTTP/1.1\r\nHost: h\r\n\r\nGET /x HTTP/1.1\r\nHost: h\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n"))
	r := bufio.NewReader(c)
	for i, want := range []int{200, 404, 200} {
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != want {
			t.Errorf("pipelined response %d: %d; want %d", i, resp.StatusCode, want)
		}
	}
	if srv.Wait(10 * time.Millisecond) {
		t.Error("Wait returned true before Stop")
	}
	srv.Stop()
	srv.Stop()
	if !srv.Wait(3 * time.Second) {
		t.Fatal("the workers did not stop")
	}
	if _, err := r.ReadByte(); err != io.EOF {
		t.Errorf("after Stop, read = %v; want EOF", err)
	}
	srv.Close()
	srv.Close() // idempotent
	if srv.Port() != -1 {
		t.Error("Port after Close")
	}
}

func TestHTTPBadConfig(t *testing.T) {
	for _, cfg := range []HTTPConfig{
		{Host: "10.1.2.3"}, {Host: "0.0.0.0"}, {Host: "::1"}, {Host: "nonsense"},
		{Port: -1}, {Port: 70000}, {Threads: 1000}, {MaxHead: 1 << 20}, {HeaderTimeout: -time.Second},
	} {
		srv, err := NewHTTPServer(cfg, nil)
		var e *Error
		if err == nil || !errors.As(err, &e) || !errors.Is(err, ErrArg) {
			t.Errorf("NewHTTPServer(%+v) = %v, %v; want an *Error matching ErrArg", cfg, srv, err)
		}
	}
}
