package tinystore_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

func TestWaitRunsOutWithErrTimeout(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		summaries := store.Locks("summaries")
		lease, err := summaries.Acquire(bg, 5)
		if err != nil {
			t.Fatal(err)
		}
		defer lease.Release(bg)
		_, err = summaries.Acquire(bg, 5, locks.Wait(30*time.Millisecond))
		if !errors.Is(err, locks.ErrTimeout) {
			t.Fatalf("acquire of a held key with Wait: %v; want ErrTimeout", err)
		}
		err = summaries.Hold(bg, 5, func(context.Context, *locks.Lease) error {
			t.Error("fn ran without the lease")
			return nil
		}, locks.Wait(10*time.Millisecond))
		if !errors.Is(err, locks.ErrTimeout) {
			t.Fatalf("hold of a held key with Wait: %v; want ErrTimeout", err)
		}
	})
}

// A waiter (in Acquire or in Hold) whose ctx is cancelled gives up; no
// lease is left held, even when the cancel and the grant cross. Every round ends with the key free.
func TestCancellingAWaitLeaksNoLease(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		summaries := store.Locks("summaries")
		for round := 0; round < 100; round++ {
			holder, err := summaries.Acquire(bg, "k")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(bg)
			got := make(chan error, 1)
			go func() {
				if round%4 >= 2 { // through Hold, which waits as Acquire does
					got <- summaries.Hold(ctx, "k", func(context.Context, *locks.Lease) error { return nil })
					return
				}
				lease, err := summaries.Acquire(ctx, "k")
				if err == nil {
					err = lease.Release(bg)
				}
				got <- err
			}()
			// Release and cancel at about the same time, in either order.
			pause := time.Duration(rand.IntN(300)) * time.Microsecond
			if round%2 == 0 {
				time.Sleep(pause)
				cancel()
				_ = holder.Release(bg)
			} else {
				_ = holder.Release(bg)
				time.Sleep(pause)
				cancel()
			}
			if err := <-got; err != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("round %d: the waiter got %v", round, err)
			}
			// A leaked lease would be renewed for ever: the key would never come free.
			free, err := summaries.Acquire(bg, "k", locks.Wait(5*time.Second))
			if err != nil {
				t.Fatalf("round %d: the key did not come free after the waiter gave up: %v", round, err)
			}
			_ = free.Release(bg)
		}
	})
}

func TestACancelledContextStopsAWaitAtOnce(t *testing.T) {
	store := openStore(t)
	summaries := store.Locks("summaries")
	lease, err := summaries.Acquire(bg, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release(bg)
	ctx, cancel := context.WithTimeout(bg, 20*time.Millisecond)
	defer cancel()
	_, err = summaries.Acquire(ctx, 1)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire past the ctx's deadline: %v; want context.DeadlineExceeded", err)
	}
	done, stop := context.WithCancel(bg)
	stop()
	if _, err := summaries.Acquire(done, 2); !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire with a done ctx: %v; want context.Canceled", err)
	}
}

// Many goroutines at once on one key: never two holders, and the fences
// grow in the order the holders enter.
func TestManyGoroutinesNeverHoldAKeyTogether(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		summaries := store.Locks("summaries")
		var room occupancy
		var mu sync.Mutex
		var last locks.Fence
		hammer(t, 16, 40, func() error {
			return summaries.Hold(bg, "shared", func(ctx context.Context, lease *locks.Lease) error {
				room.visit(func() {
					mu.Lock()
					defer mu.Unlock()
					if !last.Less(lease.Fence) {
						t.Errorf("fence %v entered after %v", lease.Fence, last)
					}
					last = lease.Fence
					runtime.Gosched()
				})
				return nil
			})
		})
		if room.most != 1 {
			t.Fatalf("%d holders at once", room.most)
		}
	})
}

// Many goroutines at once, each giving up its wait at a random moment:
// every acquire ends with a lease or the ctx's error, never two holders,
// and the key is free at the end.
func TestManyWaitersGivingUpAtRandomLeaveTheKeyFree(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		summaries := store.Locks("summaries")
		var room occupancy
		hammer(t, 8, 40, func() error {
			ctx, cancel := context.WithTimeout(bg, time.Duration(rand.IntN(20000))*time.Microsecond)
			defer cancel()
			lease, err := summaries.Acquire(ctx, "contended")
			if errors.Is(err, context.DeadlineExceeded) {
				return nil
			}
			if err != nil {
				return err
			}
			room.visit(func() { time.Sleep(100 * time.Microsecond) })
			return lease.Release(bg)
		})
		if room.most > 1 {
			t.Fatalf("%d holders at once", room.most)
		}
		free, err := summaries.Acquire(bg, "contended", locks.Wait(5*time.Second))
		if err != nil {
			t.Fatalf("the key did not come free: %v", err)
		}
		_ = free.Release(bg)
	})
}

// Closing a group does not wait for its waiters; they go on waiting, and
// later calls on the group fail with ErrClosed.
func TestClosingAGroupDoesNotWaitForItsWaiters(t *testing.T) {
	store := openStore(t)
	summaries := store.Locks("summaries")
	holder, err := summaries.Acquire(bg, 1)
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan error, 1)
	go func() {
		lease, err := summaries.Acquire(bg, 1)
		if err == nil {
			err = lease.Release(bg)
		}
		waiting <- err
	}()
	untilWaiting(t, store, "summaries", "1", 1)
	closed := make(chan struct{})
	go func() { summaries.Close(); close(closed) }()
	within(t, closed, "Close returning while a waiter waits")
	if _, err := summaries.Acquire(bg, 2); !errors.Is(err, locks.ErrClosed) {
		t.Errorf("acquire on a closed group: %v; want ErrClosed", err)
	}
	_ = holder.Release(bg)
	if err := <-waiting; err != nil {
		t.Fatalf("the waiter: %v", err)
	}
}
