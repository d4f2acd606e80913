package dynamoguard_test

// The DynamoDB guard when the answer to its transaction is lost and the
// SDK makes it again, on moto's server through a proxy that forwards the
// first TransactWriteItems, waits for moto's answer, lets another writer
// in if the test says so, then closes the connection without a byte of
// that answer. The SDK sees the connection closed, and retries.
//
// Moto does not answer a retry with the same ClientRequestToken from the
// first attempt's outcome: the retry is judged again. A write that landed
// and was then overtaken is cancelled on its retry, and a refusal retried
// is refused again; the guard says unavailable for both and tells the
// lease's store nothing; a refusal is told only when no answer was lost.

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"tinystore.dev/go/dynamoguard"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// losingProxy is a loopback proxy in front of moto at upstream (a URL)
// that loses moto's answer to the first TransactWriteItems: it forwards
// the request, waits for the answer's first bytes (moto has decided by
// then), runs between, and closes the connection unanswered. Every other
// request and answer goes through as it is. It returns the proxy's URL
// and whether it lost an answer.
func losingProxy(t *testing.T, upstream string, between func()) (string, func() bool) {
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
	target := []byte("DynamoDB_20120810.TransactWriteItems")
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
							if bytes.Contains(buf[:n], target) && lostOne.CompareAndSwap(false, true) {
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
						return // moto closed it, or the client did
					}
				}
			}()
		}
	}()
	return "http://" + listener.Addr().String(), lostOne.Load
}

func unavailable(t *testing.T, err error) {
	t.Helper()
	var e *locks.Error
	if !errors.As(err, &e) || e.Code != locks.CodeUnavailable || errors.Is(err, locks.ErrStale) || !strings.Contains(e.Message, "may have been written") {
		t.Fatalf("got %v; want unavailable, the write in doubt", err)
	}
}

func TestALostAnswerRetriedIsAcceptedOrInDoubtNeverStale(t *testing.T) {
	ctx := context.Background()
	d := newDB(t)
	upstream := endpoint(t)
	store, err := tinystore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	chats := store.Locks("chats")
	// The older lease runs out rather than being released: Go tells the
	// refusals of a released lease only if a guard saw it before
	// (locks.Fenced).
	older, err := chats.Acquire(ctx, "42", locks.TTL(20*time.Millisecond), locks.NoRenew())
	if err != nil {
		t.Fatal(err)
	}
	<-older.Done()
	newer, err := chats.Acquire(ctx, "42")
	if err != nil {
		t.Fatal(err)
	}
	defer newer.Release(ctx)
	put := func(client *dynamodb.Client, resource, id, summary string, under locks.Fenced) error {
		return dynamoguard.PutItem(ctx, client, resource, d.put(id, summary), under, dynamoguard.Register(d.register))
	}
	counts := func() []tinystore.RefusedStatus {
		t.Helper()
		status, err := store.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return status.LateWritesRefused
	}

	// Accepted, its answer lost: the retry carries the same fence, which
	// is accepted again.
	proxy, lost := losingProxy(t, upstream, func() {})
	if err := put(clientAt(proxy), "chats/alone", "alone", "by older", older); err != nil {
		t.Fatal(err)
	}
	if !lost() || d.summary("alone") != "by older" {
		t.Fatalf("lost %v, summary %q", lost(), d.summary("alone"))
	}

	// Accepted, its answer lost, overtaken before the retry: the older
	// write landed, so it may not be called stale.
	overtaking := make(chan error, 1)
	proxy, _ = losingProxy(t, upstream, func() {
		overtaking <- put(d.client, "chats/overtaken", "overtaken-newer", "by newer", newer.Fence)
	})
	unavailable(t, put(clientAt(proxy), "chats/overtaken", "overtaken", "by older", older))
	if err := <-overtaking; err != nil {
		t.Fatalf("the newer writer: %v", err)
	}
	if got := d.summary("overtaken"); got != "by older" {
		t.Fatalf("the older write landed before the newer, yet reads %q", got)
	}
	if got := d.summary("overtaken-newer"); got != "by newer" {
		t.Fatalf("the newer write reads %q", got)
	}
	if got := counts(); len(got) != 0 {
		t.Fatalf("late writes refused: %v; want none", got)
	}

	// Refused, its answer lost, refused again on the retry: in doubt the
	// same, for the guard cannot tell it from the case above.
	if err := put(d.client, "chats/refused", "refused-newer", "by newer", newer); err != nil {
		t.Fatal(err)
	}
	proxy, lost = losingProxy(t, upstream, func() {})
	unavailable(t, put(clientAt(proxy), "chats/refused", "refused", "by older", older))
	if !lost() || d.summary("refused") != "none" {
		t.Fatalf("lost %v, summary %q", lost(), d.summary("refused"))
	}
	if got := counts(); len(got) != 0 {
		t.Fatalf("late writes refused: %v; want none", got)
	}

	// The same refusal with its answer kept is stale, and told: the one
	// refusal the store counts, so that neither case above was told.
	stale(t, put(d.client, "chats/refused", "refused", "by older", older), "chats/refused", older.Fence, newer.Fence)
	want := tinystore.RefusedStatus{Name: "chats", Kind: "lock", Refused: 1}
	if got := counts(); len(got) != 1 || got[0] != want {
		t.Fatalf("late writes refused: %v; want %v", got, want)
	}
}
