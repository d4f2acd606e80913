package tinystore_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// With renewing off and a short TTL, the lease runs out while fn runs: the
// ctx given to fn is cancelled, with ErrLeaseLost as its cause, and Hold
// returns ErrLeaseLost.
func TestHoldCancelsItsContextWhenTheLeaseIsLost(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		summaries := store.Locks("summaries", locks.TTL(50*time.Millisecond), locks.NoRenew())
		var cause error
		err := summaries.Hold(bg, "chat-1", func(ctx context.Context, lease *locks.Lease) error {
			within(t, ctx.Done(), "the ctx of fn being cancelled")
			within(t, lease.Done(), "lease.Done closing")
			cause = context.Cause(ctx)
			if lease.Held() {
				t.Error("the lease says it is held after it was lost")
			}
			if err := lease.Renew(ctx); err == nil {
				t.Error("Renew of a lost lease succeeded")
			}
			return nil
		})
		if !errors.Is(err, locks.ErrLeaseLost) {
			t.Errorf("Hold returned %v; want ErrLeaseLost", err)
		}
		if !errors.Is(cause, locks.ErrLeaseLost) {
			t.Errorf("the ctx's cause is %v; want ErrLeaseLost", cause)
		}
	})
}

// The lease is renewed in the background: it outlives many TTLs.
func TestALeaseIsRenewedWhileHeld(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		summaries := store.Locks("summaries", locks.TTL(300*time.Millisecond))
		err := summaries.Hold(bg, "chat-1", func(ctx context.Context, lease *locks.Lease) error {
			time.Sleep(1200 * time.Millisecond)
			if err := lease.Err(); err != nil {
				t.Errorf("the lease was lost while renewing: %v", err)
			}
			return ctx.Err()
		})
		if err != nil {
			t.Fatalf("hold: %v", err)
		}
	})
}

func TestClosingTheStoreLosesLeasesAndFailsWaiters(t *testing.T) {
	store, err := tinystore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	summaries := store.Locks("summaries")
	lease, err := summaries.Acquire(bg, 1)
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() {
		_, err := summaries.Acquire(bg, 1)
		waited <- err
	}()
	untilWaiting(t, store, "summaries", "1", 1)
	if err := store.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	within(t, lease.Done(), "the lease's Done closing when the store closed")
	if err := <-waited; !errors.Is(err, locks.ErrClosed) {
		t.Errorf("the waiter got %v; want ErrClosed", err)
	}
	if err := lease.Err(); err == nil {
		t.Error("the lease has no error after its store closed")
	}
	if _, err := summaries.Acquire(bg, 2); !errors.Is(err, locks.ErrClosed) {
		t.Errorf("acquire after close: %v; want ErrClosed", err)
	}
	if err := store.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	if _, err := store.Locks("later").Acquire(bg, 1); !errors.Is(err, locks.ErrClosed) {
		t.Errorf("a group made after Close: %v; want ErrClosed", err)
	}
}

// A lease dropped without Release is released once the garbage collector
// finds it: the cleanup is a safety net, never the way to let go.
func TestAForgottenLeaseIsReleasedByItsCleanup(t *testing.T) {
	store := openStore(t)
	summaries := store.Locks("summaries")
	func() {
		if _, err := summaries.Acquire(bg, "forgotten"); err != nil {
			t.Fatal(err)
		}
	}()
	for i := 0; i < 200; i++ {
		runtime.GC()
		if lease, ok, err := summaries.TryAcquire(bg, "forgotten"); err != nil {
			t.Fatal(err)
		} else if ok {
			_ = lease.Release(bg)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the forgotten lease was never released")
}

// With renewing off, manual Renew keeps a lease past many TTLs; once it
// stops, the lease runs out.
func TestManualRenewKeepsALeaseWithRenewingOff(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		lease, err := store.Locks("summaries", locks.NoRenew(), locks.TTL(300*time.Millisecond)).Acquire(bg, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 12; i++ {
			time.Sleep(50 * time.Millisecond)
			if err := lease.Renew(bg); err != nil {
				t.Fatalf("renew %d: %v", i+1, err)
			}
		}
		within(t, lease.Done(), "the lease running out once renewing stopped")
		if err := lease.Release(bg); !errors.Is(err, locks.ErrLeaseLost) {
			t.Fatalf("release of a lease that ran out: %v; want ErrLeaseLost", err)
		}
	})
}

// Through a server, a lease is lost when the connection breaks: killing
// the server cancels the ctx Hold gave fn.
func TestHoldCancelsItsContextWhenTheServerDies(t *testing.T) {
	srv := serve(t)
	store := connect(t, srv)
	err := store.Locks("summaries").Hold(bg, "chat-1", func(ctx context.Context, lease *locks.Lease) error {
		if err := srv.process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		within(t, ctx.Done(), "the ctx of fn being cancelled when the server died")
		within(t, lease.Done(), "lease.Done closing when the server died")
		if lease.Held() {
			t.Error("the lease says it is held after its server died")
		}
		return nil
	})
	if err == nil {
		t.Fatal("Hold returned nil after its server died during fn")
	}
	if !errors.Is(err, locks.ErrLeaseLost) {
		t.Errorf("Hold returned %v; want ErrLeaseLost", err)
	}
}

// A store closed while fn runs (its owner's Close, a client's Close, or its
// server shutting down on SIGTERM) cancels fn's ctx with ErrClosed as its
// cause, and Hold returns ErrClosed: when fn returns nil, and when fn
// returns the cancellation of its ctx (the loss is reported, not
// context.Canceled).
func TestAStoreClosedDuringHoldIsErrClosed(t *testing.T) {
	ways := []struct {
		name string
		open func(t *testing.T) (*tinystore.Store, func())
	}{
		{"embedded", func(t *testing.T) (*tinystore.Store, func()) {
			store := openStore(t)
			return store, func() { _ = store.Close() }
		}},
		{"client closed", func(t *testing.T) (*tinystore.Store, func()) {
			store := connect(t, serve(t))
			return store, func() { _ = store.Close() }
		}},
		{"server shut down", func(t *testing.T) (*tinystore.Store, func()) {
			srv := serve(t)
			return connect(t, srv), func() { _, _ = srv.stop() }
		}},
	}
	for _, way := range ways {
		for _, returnsCtxErr := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, fn returns ctx.Err %v", way.name, returnsCtxErr), func(t *testing.T) {
				store, closeStore := way.open(t)
				err := store.Locks("summaries").Hold(bg, "chat-1", func(ctx context.Context, lease *locks.Lease) error {
					closeStore()
					within(t, ctx.Done(), "the ctx of fn being cancelled when the store closed")
					if cause := context.Cause(ctx); !errors.Is(cause, tinystore.ErrClosed) {
						t.Errorf("the ctx's cause is %v; want ErrClosed", cause)
					}
					if err := lease.Err(); !errors.Is(err, tinystore.ErrClosed) {
						t.Errorf("lease.Err() is %v; want ErrClosed", err)
					}
					if returnsCtxErr {
						return ctx.Err()
					}
					return nil
				})
				if !errors.Is(err, tinystore.ErrClosed) {
					t.Errorf("Hold returned %v; want ErrClosed", err)
				}
			})
		}
	}
}
