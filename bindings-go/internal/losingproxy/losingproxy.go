// Package losingproxy is the proxy the guards' lost-answer tests put in
// front of a real server (moto, fake-gcs-server, Azurite): it loses the
// server's answer to one request after the server has acted on it. A
// module of its own, needed by those tests only (never shipped).
package losingproxy

import (
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
)

// Start starts a loopback proxy in front of upstream (a URL) that loses
// the answer to the first request whose bytes lose matches: it forwards
// the request, waits for the answer's first bytes (the server has acted
// by then), runs between, and closes the connection without a byte of
// that answer. Every other request and answer goes through as it is. It
// returns the proxy's URL and whether it lost an answer; the proxy stops
// listening when the test ends.
func Start(t testing.TB, upstream string, lose func(request []byte) bool, between func()) (string, func() bool) {
	t.Helper()
	up, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { listener.Close() })
	var lostOne atomic.Bool
	var once sync.Once
	go func() {
		for {
			down, err := listener.Accept()
			if err != nil {
				return
			}
			go func() {
				defer down.Close()
				upc, err := net.Dial("tcp", up.Host)
				if err != nil {
					return
				}
				defer upc.Close()
				var losing atomic.Bool
				go func() {
					buf := make([]byte, 64*1024)
					for {
						n, err := down.Read(buf)
						if n > 0 {
							if lose(buf[:n]) && lostOne.CompareAndSwap(false, true) {
								losing.Store(true)
							}
							if _, werr := upc.Write(buf[:n]); werr != nil {
								return
							}
						}
						if err != nil {
							return
						}
					}
				}()
				buf := make([]byte, 64*1024)
				for {
					n, err := upc.Read(buf)
					if n > 0 {
						if losing.Load() {
							once.Do(between)
							return // the answer is lost with its connection
						}
						if _, werr := down.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return // the server closed it, or the client did
					}
				}
			}()
		}
	}()
	return "http://" + listener.Addr().String(), lostOne.Load
}
