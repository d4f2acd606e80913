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

func openStore(t testing.TB) *tinystore.Store {
	t.Helper()
	store, err := tinystore.Open(t.TempDir())
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return store
}

func TestHoldGivesIncreasingFencesWithTheirTextForm(t *testing.T) {
	store := openStore(t)
	summaries := store.Locks("summaries", locks.TTL(15*time.Second))
	ctx := context.Background()
	var last locks.Fence
	for i := 0; i < 5; i++ {
		err := summaries.Hold(ctx, 42, func(ctx context.Context, lease *locks.Lease) error {
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
			if !lease.Held() {
				t.Errorf("lease not held inside Hold: %v", lease.Err())
			}
			return nil
		})
		if err != nil {
			t.Fatalf("hold: %v", err)
		}
	}
	if last.Epoch == 0 || last.Count != 5 {
		t.Errorf("after five holds the fence is %#v; want the store's epoch and count 5", last)
	}
}

func TestHoldReturnsTheFunctionsErrorAndReleases(t *testing.T) {
	store := openStore(t)
	summaries := store.Locks("summaries")
	ctx := context.Background()
	mine := errors.New("mine")
	var held *locks.Lease
	err := summaries.Hold(ctx, "chat-1", func(ctx context.Context, lease *locks.Lease) error {
		held = lease
		return mine
	})
	if !errors.Is(err, mine) {
		t.Fatalf("Hold returned %v; want the function's error", err)
	}
	if held.Held() {
		t.Fatal("the lease is still held after Hold returned")
	}
	select {
	case <-held.Done():
	default:
		t.Fatal("Done is not closed after Hold returned")
	}
	lease, ok, err := summaries.TryAcquire(ctx, "chat-1")
	if err != nil || !ok {
		t.Fatalf("TryAcquire after Hold: ok=%v err=%v; want the key free", ok, err)
	}
	_ = lease.Release(ctx)
}
