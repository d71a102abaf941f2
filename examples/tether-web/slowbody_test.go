package main

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestSlowBodyTimesOut: a client that sends a POST's headers and then its
// body a byte at a time (the slow-POST attack, "R-U-Dead-Yet", OWASP's
// Slow HTTP test cases) must lose its connection once the body timeout
// passes, whether or not it holds the token: each such client would
// otherwise keep a connection and a goroutine as long as it likes.
func TestSlowBodyTimesOut(t *testing.T) {
	const timeout = time.Second
	ts := startServer(t, `{"capabilities":{"tools":true}}`+"\n", nil, func(o *options) { o.bodyTimeout = timeout })
	host := strings.TrimPrefix(ts.url, "http://")
	cookie := ts.guard.cookieName() + "=" + ts.guard.token
	for _, c := range []struct{ name, auth string }{
		{"without the token", ""},
		{"with the token and secret", "Cookie: " + cookie + "\r\n" + pageSecretHeader + ": " + ts.secret + "\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", host)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST /api/prompt HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n%s\r\n", host, ts.url, c.auth)
			closed := make(chan time.Duration, 1)
			start := time.Now()
			go func() {
				_, _ = io.Copy(io.Discard, conn) // until the server closes
				closed <- time.Since(start)
			}()
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			deadline := time.After(45 * time.Second) // generous: the machine may be loaded
			for {
				select {
				case took := <-closed:
					if took < timeout/2 {
						t.Fatalf("closed after %v, before the body timeout: not the timeout at work", took)
					}
					t.Logf("the server closed the connection after %v", took)
					return
				case <-tick.C:
					_, _ = conn.Write([]byte(" ")) // one byte of body; JSON allows leading space
				case <-deadline:
					t.Fatal("the server still held the connection after 45 s of a body trickled a byte at a time")
				}
			}
		})
	}
}
