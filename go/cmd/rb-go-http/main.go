// Command rb-go-http holds the http round's Go servers: `rb-go-http
// http-serve IMPL port=P [key=value...]` serves until SIGTERM, and
// `rb-go-http --list` lists its entries (see go/internal/harness). The
// round's driver (python/roundbench/rounds/http.py) starts it, waits for
// `listening port=P`, loads it with a separate load generator and stops it;
// the driver, not this program, prints the result line.
//
// The servers are a program apart from rb-go because the go server is
// net/http: linked into rb-go, it would be mapped by every Go child of every
// round and weigh on each one's peak RSS.
package main

import "roundbench/go/internal/harness"

func main() { harness.Main("rb-go-http") }
