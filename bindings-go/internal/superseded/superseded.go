// Package superseded is what the guards' lost-answer tests set up alike:
// a store with one key's two leases in turn, the older one run out and
// the newer one held, whose fence is larger (a holder that paused past
// its lease, and the one after it); the late writes the store counts;
// and the check that an error leaves a write in doubt. Tests only: the
// packaged module leaves it out (mk/go-dist.sh).
package superseded

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// Leases are key "42" of the locks "chats" in Store, held twice in turn.
type Leases struct {
	Store *tinystore.Store
	Older *locks.Lease
	Newer *locks.Lease
}

// Open opens a store in a temporary folder and takes the key twice: the
// older lease runs out rather than being released (Go tells the refusals
// of a released lease only if a guard saw it before: locks.Fenced). The
// newer lease is released, and the store closed, when the test ends.
func Open(t testing.TB) Leases {
	t.Helper()
	ctx := context.Background()
	store, err := tinystore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	chats := store.Locks("chats")
	older, err := chats.Acquire(ctx, "42", locks.TTL(20*time.Millisecond), locks.NoRenew())
	if err != nil {
		t.Fatal(err)
	}
	<-older.Done()
	newer, err := chats.Acquire(ctx, "42")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { newer.Release(ctx) })
	return Leases{Store: store, Older: older, Newer: newer}
}

// Refused is the late writes the store counts as refused, per group.
func (l Leases) Refused(t testing.TB) []tinystore.RefusedStatus {
	t.Helper()
	status, err := l.Store.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return status.LateWritesRefused
}

// InDoubt fails the test unless err is unavailable with the write in
// doubt ("may have been written"), and not stale.
func InDoubt(t testing.TB, err error) {
	t.Helper()
	var e *locks.Error
	if !errors.As(err, &e) || e.Code != locks.CodeUnavailable || errors.Is(err, locks.ErrStale) || !strings.Contains(e.Message, "may have been written") {
		t.Fatalf("got %v; want unavailable, the write in doubt", err)
	}
}
