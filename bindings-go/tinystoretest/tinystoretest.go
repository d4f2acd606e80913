// Package tinystoretest is tinystore's test kit: a store whose time the
// test controls, so that a test of your own code can make a holder's lease
// run out on purpose, with no sleep, and check that the late holder's
// write is refused.
//
//	func TestLateWriteIsRefused(t *testing.T) {
//		kit := tinystoretest.New(t) // closed and removed when the test ends
//		jobs := kit.Store().Locks("jobs")
//		a, _ := jobs.Acquire(t.Context(), "report")
//		kit.Expire(a) // as if A paused past its TTL: a.Done() is closed
//		b, _ := jobs.Acquire(t.Context(), "report")
//		// b.Fence is larger than a.Fence: a guard refuses A's write now
//		kit.Advance(time.Minute) // B ran out too
//	}
//
// New makes an embedded store, Served one that this process serves on a
// Unix socket (Address), whose Store is connected to it, so a loss
// travels the wire as in production. Store gives the same *tinystore.Store
// your code takes. Each kit's store lives in a directory of its own,
// removed by t.Cleanup however the test ends.
//
// The controls work only on a store the kit made, or on a server started
// with `tinystore serve --testing` (Advance, Expire and ExpireKey, the
// forms that return errors, take any store); every other store refuses
// them with tinystore.ErrInvalid, "this store is not a test store: ...",
// and its leases stay held, so a store that does real work cannot be
// expired by accident. Status(ctx).Testing tells a test store.
//
// What advance and expire do is tinystore's Rust core's
// (tinystore::testing); this package converts Go values and maps errors.
package tinystoretest

import (
	"context"
	"testing"
	"time"

	"tinystore.dev/go/internal/handles"
	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// Kit is a test store: a new store in a temporary directory whose time
// the test controls. Its methods fail the test (t.Fatal) on an error, so
// call them from the test's own goroutine, as t.Fatal requires; elsewhere
// use the functions Advance, Expire and ExpireKey on Store(). Safe for
// concurrent use otherwise.
type Kit struct {
	t     testing.TB
	n     *native.TestStore
	store *tinystore.Store
}

// New makes an embedded test store: this process owns it. The test fails
// (t.Fatal) when it cannot be made; t.Cleanup closes it and removes its
// directory when the test ends, passed or failed.
func New(t testing.TB) *Kit {
	t.Helper()
	return start(t, false)
}

// Served makes a test store served by this process on its Unix socket, as
// `tinystore serve --testing` serves, and connects Store to it: a lease's
// loss travels the wire as in production, and other processes (or
// tinystore.Connect) reach it at Address. Failed and cleaned up as New.
func Served(t testing.TB) *Kit {
	t.Helper()
	return start(t, true)
}

func start(t testing.TB, served bool) *Kit {
	t.Helper()
	n, err := native.StartTestStore(served)
	if err != nil {
		t.Fatalf("tinystoretest: cannot make a test store: %v", err)
	}
	s, err := n.Store()
	if err != nil {
		_ = n.Close()
		t.Fatalf("tinystoretest: cannot make a test store: %v", err)
	}
	k := &Kit{t: t, n: n, store: handles.NewStore(s).(*tinystore.Store)}
	t.Cleanup(func() {
		if err := k.Close(); err != nil {
			t.Errorf("tinystoretest: closing the test store in %s: %v", k.Dir(), err)
		}
	})
	return k
}

// Store is the test store: make groups, acquire and campaign through it,
// and hand it to the code under test. Closed with the kit.
func (k *Kit) Store() *tinystore.Store { return k.store }

// Dir is the store's directory, removed when the kit is closed.
func (k *Kit) Dir() string { return k.n.Dir }

// Address is where other processes connect to a served kit
// ("unix:PATH", for tinystore.Connect); "" for an embedded one.
func (k *Kit) Address() string { return k.n.Address }

// Advance moves the store's time forward d at once: every lease whose TTL
// runs out within ends as a lease that ran out does (its holder is told,
// the next waiter is granted with a larger fence), renewing ones too
// (nothing renewed them meanwhile). Waits keep the caller's time. The
// test fails on an error.
func (k *Kit) Advance(d time.Duration) {
	k.t.Helper()
	if err := Advance(context.Background(), k.store, d); err != nil {
		k.t.Fatalf("tinystoretest: Advance(%v): %v", d, err)
	}
}

// Expire ends held (a *locks.Lease, *locks.Permit or *locks.Leadership of
// this kit's store, or of any connection to a served kit) as if its
// holder had paused past its TTL, and returns once its holder was told:
// held.Done() is closed, held.Err() is an ErrLeaseLost error, and the ctx
// a Hold gave its function is cancelled with that error as its cause. The
// next waiter is granted with a larger fence. The test fails on an error
// (held no longer held, among others).
func (k *Kit) Expire(held locks.Holding) {
	k.t.Helper()
	if err := Expire(context.Background(), held); err != nil {
		k.t.Fatalf("tinystoretest: Expire: %v", err)
	}
}

// ExpireKey ends, as Expire does, every lease held on key (a key as
// package locks takes it) of the groups called name (its lock group,
// semaphore and read-write locks; not an election's), and returns how
// many. The test fails on an error (a bad name or key, among others).
func (k *Kit) ExpireKey(name string, key any) int {
	k.t.Helper()
	n, err := ExpireKey(context.Background(), k.store, name, key)
	if err != nil {
		k.t.Fatalf("tinystoretest: ExpireKey(%q, %v): %v", name, key, err)
	}
	return n
}

// Close closes the store (its holders are told, its waiters fail with
// ErrClosed), stops its server when served, and removes its directory.
// Idempotent; t.Cleanup calls it.
func (k *Kit) Close() error {
	closed := k.store.Close()
	removed := k.n.Close()
	if closed != nil {
		return closed
	}
	return removed
}

// Advance moves the time of store forward d at once, as Kit.Advance does.
// It fails with ErrInvalid ("this store is not a test store: ...") unless
// store is a test store: a kit's, or one connected to `tinystore serve
// --testing`. ctx is checked first; on a connected store the call then
// waits for the reply.
func Advance(ctx context.Context, store *tinystore.Store, d time.Duration) error {
	n, err := nativeStore(store)
	if err != nil {
		return err
	}
	if d < 0 {
		return native.Invalid("Advance by " + d.String() + ": time only moves forward")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return n.Advance(d)
}

// Expire ends held as Kit.Expire does and returns once its holder was
// told, or when ctx is done first (ctx.Err(): the lease was ended all the
// same). It fails with ErrLeaseLost when held was no longer held, with
// ErrInvalid unless its store is a test store (then held stays held).
func Expire(ctx context.Context, held locks.Holding) error {
	h := handles.Held(held)
	if h == nil {
		return native.Invalid("Expire of a nil lease, permit or leadership")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return h.Expire(ctx.Done(), ctx.Err)
}

// ExpireKey ends, as Expire does, every lease held on key of the groups
// called name in store, and returns how many. It fails with ErrInvalid
// for a bad name or key, or unless store is a test store. ctx is checked
// first; on a connected store the call then waits for the reply.
func ExpireKey(ctx context.Context, store *tinystore.Store, name string, key any) (int, error) {
	n, err := nativeStore(store)
	if err != nil {
		return 0, err
	}
	text, err := handles.KeyText(key)
	if err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return n.ExpireKey(name, text)
}

func nativeStore(store *tinystore.Store) (*native.Store, error) {
	n := handles.Store(store)
	if n == nil {
		return nil, native.Invalid("a nil *tinystore.Store")
	}
	return n, nil
}
