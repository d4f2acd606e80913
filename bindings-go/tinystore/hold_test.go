package tinystore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

func TestHoldGivesIncreasingFencesWithTheirTextForm(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		summaries := store.Locks("summaries", locks.TTL(15*time.Second))
		var last locks.Fence
		for i := 0; i < 5; i++ {
			err := summaries.Hold(bg, 42, func(ctx context.Context, lease *locks.Lease) error {
				if !last.Less(lease.Fence) {
					t.Errorf("fence %v is not above the previous %v", lease.Fence, last)
				}
				last = lease.Fence
				text := fmt.Sprintf("%040s", lease.Fence)
				if len(text) != 40 || text != fmt.Sprintf("%040d", lease.Fence) {
					t.Errorf("%%040s gave %q, %%040d gave %q", text, fmt.Sprintf("%040d", lease.Fence))
				}
				parsed, err := locks.ParseFence(text)
				if err != nil || parsed != lease.Fence {
					t.Errorf("ParseFence(%q) = %v, %v; want %v", text, parsed, err, lease.Fence)
				}
				if !lease.Held() || lease.Err() != nil {
					t.Errorf("lease not held inside Hold: %v", lease.Err())
				}
				if lease.Key() != "42" || lease.Name() != "summaries" {
					t.Errorf("lease names %s/%s; want summaries/42", lease.Name(), lease.Key())
				}
				return nil
			})
			if err != nil {
				t.Fatalf("hold: %v", err)
			}
		}
		if last.Epoch == 0 {
			t.Errorf("the fence %#v has no epoch", last)
		}
	})
}

func TestHoldReturnsTheFunctionsErrorAndReleases(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		summaries := store.Locks("summaries")
		mine := errors.New("mine")
		var held *locks.Lease
		err := summaries.Hold(bg, "chat-1", func(ctx context.Context, lease *locks.Lease) error {
			held = lease
			return mine
		})
		if !errors.Is(err, mine) {
			t.Fatalf("Hold returned %v; want the function's error", err)
		}
		if held.Held() {
			t.Fatal("the lease is still held after Hold returned")
		}
		within(t, held.Done(), "Done closing after Hold returned")
		if err := held.Renew(bg); !errors.Is(err, locks.ErrLeaseLost) {
			t.Errorf("Renew after Hold returned %v; want ErrLeaseLost", err)
		}
		if err := held.Release(bg); err != nil {
			t.Errorf("a second Release returned %v; want nil", err)
		}
		lease, ok, err := summaries.TryAcquire(bg, "chat-1")
		if err != nil || !ok {
			t.Fatalf("TryAcquire after Hold: ok=%v err=%v; want the key free", ok, err)
		}
		if err := lease.Release(bg); err != nil {
			t.Fatalf("release: %v", err)
		}
	})
}

func TestHoldReleasesWhenTheFunctionPanics(t *testing.T) {
	store := openStore(t)
	summaries := store.Locks("summaries")
	func() {
		defer func() {
			if recover() != "boom" {
				t.Error("the panic did not go on past Hold")
			}
		}()
		_ = summaries.Hold(bg, 7, func(ctx context.Context, lease *locks.Lease) error { panic("boom") })
	}()
	_, ok, err := summaries.TryAcquire(bg, 7)
	if err != nil || !ok {
		t.Fatalf("after a panic in Hold the key is not free: ok=%v err=%v", ok, err)
	}
}

func TestAcquireRenewReleaseAndTryAcquire(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		summaries := store.Locks("summaries", locks.TTL(200*time.Millisecond))
		lease, err := summaries.Acquire(bg, "chat-9")
		if err != nil {
			t.Fatalf("acquire: %v", err)
		}
		if _, ok, err := summaries.TryAcquire(bg, "chat-9"); ok || err != nil {
			t.Fatalf("TryAcquire of a held key: ok=%v err=%v; want not ok", ok, err)
		}
		if err := lease.Renew(bg); err != nil {
			t.Fatalf("renew: %v", err)
		}
		if err := lease.Release(bg); err != nil {
			t.Fatalf("release: %v", err)
		}
		within(t, lease.Done(), "Done closing on Release")
		next, ok, err := summaries.TryAcquire(bg, "chat-9")
		if err != nil || !ok {
			t.Fatalf("TryAcquire after release: ok=%v err=%v", ok, err)
		}
		if !lease.Fence.Less(next.Fence) {
			t.Errorf("the next lease's fence %v is not above %v", next.Fence, lease.Fence)
		}
		_ = next.Release(bg)
	})
}

// The caller's own ctx cancelled while fn runs is fn's business: Hold
// returns what fn returned (here the cancellation), not a loss, and
// releases the lease.
func TestHoldReturnsTheCallersCancellationAsTheFunctionsError(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		summaries := store.Locks("summaries")
		ctx, cancel := context.WithCancel(bg)
		err := summaries.Hold(ctx, "chat-1", func(ctx context.Context, lease *locks.Lease) error {
			cancel()
			<-ctx.Done()
			if lease.Err() != nil {
				t.Errorf("the lease was lost when the caller cancelled: %v", lease.Err())
			}
			return ctx.Err()
		})
		if !errors.Is(err, context.Canceled) || errors.Is(err, locks.ErrLeaseLost) {
			t.Fatalf("Hold returned %v; want context.Canceled", err)
		}
		lease, ok, err := summaries.TryAcquire(bg, "chat-1")
		if err != nil || !ok {
			t.Fatalf("TryAcquire after Hold: ok=%v err=%v; want the key free", ok, err)
		}
		_ = lease.Release(bg)
	})
}

// A lease fn released itself was not lost: Hold returns fn's nil, and fn's
// ctx is not cancelled.
func TestHoldWhoseFunctionReleasedTheLeaseReturnsNil(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		err := store.Locks("summaries").Hold(bg, "chat-1", func(ctx context.Context, lease *locks.Lease) error {
			if err := lease.Release(ctx); err != nil {
				t.Errorf("release inside fn: %v", err)
			}
			within(t, lease.Done(), "Done closing on a release inside fn")
			if ctx.Err() != nil {
				t.Errorf("fn's ctx was cancelled by its own release: %v", context.Cause(ctx))
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Hold returned %v; want nil", err)
		}
	})
}
