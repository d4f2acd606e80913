// Package losingproxy is the proxy the guards' lost-answer tests put in
// front of a real server (moto, fake-gcs-server, Azurite): it loses the
// server's answer to one request after the server has acted on it, or
// answers that request itself (a 429) without passing it on, or plays a
// plan of both on the requests it picks in turn. A module of
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
// the request, waits for the final answer's first bytes (the server has
// acted by then; an interim 100 Continue is passed on), runs between, and
// closes the connection without a byte of that answer. Every other request and answer goes through as it is. It
// returns the proxy's URL and whether it lost an answer; the proxy stops
// listening when the test ends.
func Start(t testing.TB, upstream string, lose func(request []byte) bool, between func()) (string, func() bool) {
	t.Helper()
	url, played := Plan(t, upstream, lose, between, [][]byte{nil})
	return url, func() bool { return played() > 0 }
}

// Answering starts a proxy like Start's that keeps the first request
// whose bytes pick matches from the server instead: it reads the request
// whole, runs between, gives the client answer (an HTTP answer's bytes)
// and closes the connection, as a server that refused it (a 429) would.
// It returns the proxy's URL and whether it answered a request yet.
func Answering(t testing.TB, upstream string, pick func(request []byte) bool, between func(), answer []byte) (string, func() bool) {
	t.Helper()
	url, played := Plan(t, upstream, pick, between, [][]byte{answer})
	return url, func() bool { return played() > 0 }
}

// Plan starts a proxy that plays plan on the requests whose bytes pick
// matches, one step each, in turn: nil loses the answer (as Start's
// proxy does), an HTTP answer's bytes keeps the request from the server
// and gives the client those bytes (as Answering's does). between runs at
// the plan's last step; requests picked after it go through. It returns
// the proxy's URL and how many steps were played.
func Plan(t testing.TB, upstream string, pick func(request []byte) bool, between func(), plan [][]byte) (string, func() int) {
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
	var mu sync.Mutex
	played := 0
	// step takes the plan's next step: its answer (nil: lose it), whether
	// it is the last, and whether there was one.
	step := func() ([]byte, bool, bool) {
		mu.Lock()
		defer mu.Unlock()
		if played >= len(plan) {
			return nil, false, false
		}
		played++
		return plan[played-1], played == len(plan), true
	}
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
				var losing, last atomic.Bool
				go func() {
					buf := make([]byte, 64*1024)
					for {
						n, err := down.Read(buf)
						if n > 0 && !losing.Load() && pick(buf[:n]) {
							if answer, isLast, ok := step(); ok {
								last.Store(isLast)
								if answer != nil {
									run := func() {}
									if isLast {
										run = func() { once.Do(between) }
									}
									refuse(down, append([]byte(nil), buf[:n]...), run, answer)
									upc.Close() // ends the answers' loop
									return
								}
								losing.Store(true)
							}
						}
						if n > 0 {
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
						data := buf[:n]
						if losing.Load() {
							// An interim answer (100 Continue, to a client that
							// sent Expect: 100-continue, as azcore does when it
							// makes a request again) comes before the server has
							// the body: passed on, the final answer is lost.
							final := afterInterim(data)
							if _, werr := down.Write(data[:len(data)-len(final)]); werr != nil {
								return
							}
							if len(final) == 0 {
								continue
							}
							if last.Load() {
								once.Do(between)
							}
							return // the answer is lost with its connection
						}
						if _, werr := down.Write(data); werr != nil {
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
	return "http://" + listener.Addr().String(), func() int {
		mu.Lock()
		defer mu.Unlock()
		return played
	}
}

// afterInterim is what follows the whole interim (1xx) answers that data
// begins with: all of data when it begins with none.
func afterInterim(data []byte) []byte {
	for bytes.HasPrefix(data, []byte("HTTP/1.1 1")) {
		_, rest, found := bytes.Cut(data, []byte("\r\n\r\n"))
		if !found {
			return nil // the rest of it comes in the next read
		}
		data = rest
	}
	return data
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
