package tinystore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// heldOn is the keys of group name that st shows held.
func heldOn(st *tinystore.Status, name string) []string {
	var keys []string
	for _, h := range st.Held {
		if h.Name == name {
			keys = append(keys, h.Key)
		}
	}
	return keys
}

// untilHeld returns once store's status shows exactly keys held in the
// group name; it fails the test after a generous deadline.
func untilHeld(t *testing.T, store *tinystore.Store, name string, keys ...string) {
	t.Helper()
	untilStatus(t, store, func(st *tinystore.Status) (bool, string) {
		held := heldOn(st, name)
		return slices.Equal(held, keys), fmt.Sprintf("%v never shown held in %s; the status shows %v", keys, name, held)
	})
}

// AcquireAll waiting for a taken key, its ctx cancelled: it returns the
// cancellation and leaves none of the keys it had taken held.
func TestAcquireAllGivenUpByCtxLeavesNoneHeld(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		accounts := store.Locks("accounts")
		holder, err := accounts.Acquire(bg, "b")
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Release(bg)
		ctx, cancel := context.WithCancel(bg)
		ended := make(chan error, 1)
		go func() {
			leases, err := accounts.AcquireAll(ctx, []any{"c", "b", "a"})
			if leases != nil {
				t.Errorf("AcquireAll gave %v after its ctx was cancelled", leases)
			}
			ended <- err
		}()
		untilWaiting(t, store, "accounts", "b", 1) // holding "a", waiting for "b"
		cancel()
		select {
		case err := <-ended:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("AcquireAll ended with %v; want context.Canceled", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("AcquireAll did not end after its ctx was cancelled")
		}
		// Over a connection the server hears of the give-up's release
		// after AcquireAll returned: wait for the store to show it.
		untilHeld(t, store, "accounts", "b")
		if _, ok, err := accounts.TryAcquire(bg, "a"); !ok || err != nil {
			t.Fatalf("a after the give-up: ok=%v err=%v", ok, err)
		}
	})
}

// HoldAll's fn is stopped when one of its leases is lost (here by
// MaxHold): fn's ctx is cancelled with ErrLeaseLost as its cause, HoldAll
// returns ErrLeaseLost, and every key is free afterwards.
func TestHoldAllStopsFnOnALoss(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		accounts := store.Locks("accounts", locks.TTL(100*time.Millisecond))
		var cause error
		var fences []locks.Fence
		err := accounts.HoldAll(bg, []any{2, "1"}, func(ctx context.Context, leases []*locks.Lease) error {
			for _, l := range leases {
				fences = append(fences, l.Fence)
			}
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Second):
				return errors.New("fn was not stopped")
			}
			cause = context.Cause(ctx)
			return ctx.Err()
		}, locks.MaxHold(300*time.Millisecond))
		if !errors.Is(err, locks.ErrLeaseLost) {
			t.Fatalf("HoldAll returned %v; want ErrLeaseLost", err)
		}
		if !errors.Is(cause, locks.ErrLeaseLost) {
			t.Fatalf("fn's ctx was cancelled with cause %v; want ErrLeaseLost", cause)
		}
		if len(fences) != 2 || fences[0] == fences[1] {
			t.Fatalf("fences %v; want one per key, each its own", fences)
		}
		for _, key := range []string{"1", "2"} {
			lease, ok, err := accounts.TryAcquire(bg, key)
			if !ok || err != nil {
				t.Fatalf("%s after the hold: ok=%v err=%v", key, ok, err)
			}
			_ = lease.Release(bg)
		}
	})
}

// HoldAll's fn's own error stands; the keys are released.
func TestHoldAllReturnsFnsErrorAndReleases(t *testing.T) {
	store := openStore(t)
	accounts := store.Locks("accounts")
	own := errors.New("own")
	err := accounts.HoldAll(bg, []any{"x", "y"}, func(ctx context.Context, leases []*locks.Lease) error {
		if leases[0].Key() != "x" || leases[1].Key() != "y" {
			t.Errorf("leases %v; want x then y", leases)
		}
		return own
	})
	if !errors.Is(err, own) {
		t.Fatalf("HoldAll returned %v; want fn's error", err)
	}
	untilHeld(t, store, "accounts")
	if _, err := accounts.AcquireAll(bg, []any{"x", 1.5}); !errors.Is(err, locks.ErrInvalid) {
		t.Fatalf("a float key: %v; want ErrInvalid", err)
	}
}

// Callers taking overlapping sets of keys in random orders all finish:
// no deadlock, whatever order each names them in.
func TestHoldAllOverlappingSetsInRandomOrdersNeverDeadlock(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		accounts := store.Locks("accounts")
		keys := []any{"a", "b", "c", "d", "e"}
		done := make(chan struct{})
		go func() {
			defer close(done)
			hammer(t, 6, 15, func() error {
				set := append([]any(nil), keys...)
				rand.Shuffle(len(set), func(i, j int) { set[i], set[j] = set[j], set[i] })
				set = set[:2+rand.IntN(3)]
				return accounts.HoldAll(bg, set, func(ctx context.Context, leases []*locks.Lease) error {
					if len(leases) != len(set) {
						return errors.New("a lease is missing")
					}
					return nil
				})
			})
		}()
		within(t, done, "every HoldAll ending")
	})
}
