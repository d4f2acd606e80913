// Package losingproxy is the proxy the guards' lost-answer tests put in
// front of a real server (moto, fake-gcs-server, Azurite): it loses the
// server's answer to one request after the server has acted on it, or
// answers that request itself (a 429) without passing it on. A module of
// its own, needed by those tests only (never shipped).
package losingproxy

import (
	"bytes"
	"net"
	"net/url"
	"strconv"
	"strings"
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
	return start(t, upstream, lose, between, nil)
}

// Answering starts a proxy like Start's that keeps the first request
// whose bytes pick matches from the server instead: it reads the request
// whole, runs between, gives the client answer (an HTTP answer's bytes)
// and closes the connection, as a server that refused it (a 429) would.
// It returns the proxy's URL and whether it answered a request yet.
func Answering(t testing.TB, upstream string, pick func(request []byte) bool, between func(), answer []byte) (string, func() bool) {
	t.Helper()
	return start(t, upstream, pick, between, answer)
}

func start(t testing.TB, upstream string, lose func(request []byte) bool, between func(), answer []byte) (string, func() bool) {
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
								if answer != nil {
									refuse(down, append([]byte(nil), buf[:n]...), func() { once.Do(between) }, answer)
									upc.Close() // ends the answers' loop
									return
								}
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

// refuse reads the rest of the request that request begins (its headers
// and a body of its Content-Length, or a chunked body's last chunk) from
// down, runs between and writes answer.
func refuse(down net.Conn, request []byte, between func(), answer []byte) {
	buf := make([]byte, 64*1024)
	for !whole(request) {
		n, err := down.Read(buf)
		request = append(request, buf[:n]...)
		if err != nil {
			return
		}
	}
	between()
	_, _ = down.Write(answer) // a client gone finds no answer, as it would
}

// whole reports whether request holds a whole HTTP request.
func whole(request []byte) bool {
	head, body, found := bytes.Cut(request, []byte("\r\n\r\n"))
	if !found {
		return false
	}
	for _, line := range bytes.Split(head, []byte("\r\n"))[1:] {
		name, value, _ := bytes.Cut(line, []byte(":"))
		switch strings.ToLower(strings.TrimSpace(string(name))) {
		case "transfer-encoding":
			if strings.EqualFold(strings.TrimSpace(string(value)), "chunked") {
				return bytes.HasPrefix(body, []byte("0\r\n\r\n")) || bytes.Contains(body, []byte("\r\n0\r\n\r\n"))
			}
		case "content-length":
			length, err := strconv.Atoi(strings.TrimSpace(string(value)))
			return err != nil || len(body) >= length
		}
	}
	return true
}
