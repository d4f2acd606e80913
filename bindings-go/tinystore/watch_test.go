package tinystore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
	"tinystore.dev/go/tinystoretest"
)

// Watching a key or a group (Watch, WatchAll) on an embedded store, one
// served on a socket by the test kit, and a `tinystore serve --testing`
// process: a lock group's events in the store's order (a grant with its
// fence and data, the queue's length, a release, a loss by expiry), a
// key's watch seeing only its key, semaphores and read-write locks, a
// watcher that never reads told it lagged while the holds go on, ctx
// cancel closing the channel, and a bad key is ErrInvalid.

// watchStores runs test on each kind of test store.
func watchStores(t *testing.T, kinds []string, test func(t *testing.T, store *tinystore.Store)) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			switch kind {
			case "embedded":
				test(t, tinystoretest.New(t).Store())
			case "served":
				test(t, tinystoretest.Served(t).Store())
			default:
				test(t, connect(t, serve(t, "--testing")))
			}
		})
	}
}

// holder is the data a lease carries when its holder sets none.
func holder(t *testing.T) string {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// readEvents gives the next n events of events, failing the test when
// the channel closes or nothing comes in a generous time.
func readEvents(t *testing.T, events <-chan locks.WatchEvent, n int) []locks.WatchEvent {
	t.Helper()
	var got []locks.WatchEvent
	for len(got) < n {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatalf("the watch ended after %d events: %v", len(got), got)
			}
			got = append(got, e)
		case <-time.After(20 * time.Second):
			t.Fatalf("no event after %d: %v", len(got), got)
		}
	}
	return got
}

// show is an event as text, its fence as decimal.
func show(e locks.WatchEvent) string {
	fence := "-"
	if e.Fence != nil {
		fence = e.Fence.String()
	}
	return fmt.Sprintf("%s %q %s data=%q cause=%q length=%d missed=%d", e.Kind, e.Key, fence, e.Data, e.Cause, e.Length, e.Missed)
}

func showAll(events []locks.WatchEvent) string {
	var lines []string
	for _, e := range events {
		lines = append(lines, show(e))
	}
	return strings.Join(lines, "\n")
}

func fenceOf(f locks.Fence) *locks.Fence { return &f }

func TestWatchSeesGrantsQueueReleasesAndLossesInOrder(t *testing.T) {
	watchStores(t, []string{"embedded", "served", "process"}, func(t *testing.T, store *tinystore.Store) {
		me := holder(t)
		jobs := store.Locks("jobs")
		every, err := jobs.WatchAll(bg)
		if err != nil {
			t.Fatal(err)
		}
		onlyB, err := jobs.Watch(bg, "b")
		if err != nil {
			t.Fatal(err)
		}
		first, err := jobs.Acquire(bg, "a", locks.Data("web-1"))
		if err != nil {
			t.Fatal(err)
		}
		waiting := make(chan *locks.Lease, 1)
		go func() {
			l, err := jobs.Acquire(bg, "a")
			if err != nil {
				t.Error(err)
			}
			waiting <- l
		}()
		untilWaiting(t, store, "jobs", "a", 1)
		if err := first.Release(bg); err != nil {
			t.Fatal(err)
		}
		second := <-waiting
		other, err := jobs.Acquire(bg, "b")
		if err != nil {
			t.Fatal(err)
		}
		if err := tinystoretest.Expire(bg, second); err != nil {
			t.Fatal(err)
		}
		if err := other.Release(bg); err != nil {
			t.Fatal(err)
		}
		want := []locks.WatchEvent{
			{Kind: locks.WatchGranted, Key: "a", Fence: fenceOf(first.Fence), Data: "web-1"},
			{Kind: locks.WatchQueue, Key: "a", Length: 1},
			{Kind: locks.WatchReleased, Key: "a", Fence: fenceOf(first.Fence)},
			{Kind: locks.WatchGranted, Key: "a", Fence: fenceOf(second.Fence), Data: me},
			{Kind: locks.WatchQueue, Key: "a", Length: 0},
			{Kind: locks.WatchGranted, Key: "b", Fence: fenceOf(other.Fence), Data: me},
			{Kind: locks.WatchLost, Key: "a", Fence: fenceOf(second.Fence), Cause: "expired"},
			{Kind: locks.WatchReleased, Key: "b", Fence: fenceOf(other.Fence)},
		}
		if got := showAll(readEvents(t, every, 8)); got != showAll(want) {
			t.Fatalf("the group's watch saw:\n%s\nwant:\n%s", got, showAll(want))
		}
		// A key's watch sees its key only: the first event it reads is b's.
		if got := showAll(readEvents(t, onlyB, 2)); got != showAll(want[5:6])+"\n"+showAll(want[7:]) {
			t.Fatalf("b's watch saw:\n%s", got)
		}
	})
}

func TestWatchSemaphoresAndRWLocks(t *testing.T) {
	watchStores(t, []string{"embedded", "served"}, func(t *testing.T, store *tinystore.Store) {
		me := holder(t)
		slots := store.Semaphore("slots", 2)
		rw := store.RWLocks("doc")
		permits, err := slots.Watch(bg, "s")
		if err != nil {
			t.Fatal(err)
		}
		docs, err := rw.WatchAll(bg)
		if err != nil {
			t.Fatal(err)
		}
		permit, err := slots.Acquire(bg, "s", locks.Weight(2), locks.Data(""))
		if err != nil {
			t.Fatal(err)
		}
		_ = permit.Release(bg)
		read, err := rw.AcquireRead(bg, "d")
		if err != nil {
			t.Fatal(err)
		}
		_ = read.Release(bg)
		write, err := rw.AcquireWrite(bg, "d")
		if err != nil {
			t.Fatal(err)
		}
		_ = write.Release(bg)
		// A permit and a read lease have no fence; empty data is none.
		want := []locks.WatchEvent{{Kind: locks.WatchGranted, Key: "s"}, {Kind: locks.WatchReleased, Key: "s"}}
		if got := showAll(readEvents(t, permits, 2)); got != showAll(want) {
			t.Fatalf("the semaphore's watch saw:\n%s", got)
		}
		want = []locks.WatchEvent{
			{Kind: locks.WatchGranted, Key: "d", Data: me},
			{Kind: locks.WatchReleased, Key: "d"},
			{Kind: locks.WatchGranted, Key: "d", Fence: fenceOf(write.Fence), Data: me},
			{Kind: locks.WatchReleased, Key: "d", Fence: fenceOf(write.Fence)},
		}
		if got := showAll(readEvents(t, docs, 4)); got != showAll(want) {
			t.Fatalf("the read-write locks' watch saw:\n%s\nwant:\n%s", got, showAll(want))
		}
	})
}

func TestWatcherThatNeverReadsIsToldItLaggedAndGoesOn(t *testing.T) {
	watchStores(t, []string{"embedded", "served"}, func(t *testing.T, store *tinystore.Store) {
		busy := store.Locks("busy")
		slow, err := busy.WatchAll(bg)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 * 1024 { // 6,144 events, none read: the holds go on
			lease, err := busy.Acquire(bg, "k")
			if err != nil {
				t.Fatal(err)
			}
			if err := lease.Release(bg); err != nil {
				t.Fatal(err)
			}
		}
		// Told it lagged (before the newest events it kept, or after the
		// oldest, as the store keeps them), then it goes on.
		missed, kept := 0, 0
		var last *locks.Lease
		for {
			e := readEvents(t, slow, 1)[0]
			switch {
			case e.Kind == locks.WatchLagged:
				if e.Missed <= 0 || e.Key != "" {
					t.Fatalf("a lagged event: %s", show(e))
				}
				missed += e.Missed
				if last == nil {
					if last, err = busy.Acquire(bg, "k", locks.Data("after")); err != nil {
						t.Fatal(err)
					}
				}
			case last != nil && e.Kind == locks.WatchGranted && e.Fence != nil && *e.Fence == last.Fence:
				if e.Data != "after" {
					t.Fatalf("the grant after lagging: %s", show(e))
				}
				if missed <= 0 || missed >= 2*3*1024 || kept == 0 {
					t.Fatalf("missed %d, kept %d", missed, kept)
				}
				return
			default:
				if kept++; kept > 2*1024 {
					t.Fatalf("no lagged event, or nothing after it, in %d events", kept)
				}
			}
		}
	})
}

func TestWatchEndsWithItsCtx(t *testing.T) {
	watchStores(t, []string{"embedded", "served"}, func(t *testing.T, store *tinystore.Store) {
		quiet := store.Locks("quiet")
		ctx, cancel := context.WithCancel(bg)
		events, err := quiet.Watch(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		ended := make(chan struct{})
		go func() {
			for range events {
			}
			close(ended)
		}()
		cancel()
		within(t, ended, "the channel's close after cancel")
		// A done ctx starts nothing.
		if _, err := quiet.WatchAll(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("WatchAll with a done ctx: %v", err)
		}
		// A watcher that stops reading and cancels does not hold the
		// store back: others still acquire, and a new watch sees them.
		ctx2, cancel2 := context.WithCancel(bg)
		_, err = quiet.WatchAll(ctx2)
		if err != nil {
			t.Fatal(err)
		}
		again, err := quiet.WatchAll(bg)
		if err != nil {
			t.Fatal(err)
		}
		lease, err := quiet.Acquire(bg, "k")
		if err != nil {
			t.Fatal(err)
		}
		cancel2()
		if e := readEvents(t, again, 1)[0]; e.Kind != locks.WatchGranted || *e.Fence != lease.Fence {
			t.Fatalf("a new watch saw %s", show(e))
		}
		_ = lease.Release(bg)
	})
}

func TestWatchABadKeyIsInvalid(t *testing.T) {
	watchStores(t, []string{"embedded", "served"}, func(t *testing.T, store *tinystore.Store) {
		bad := store.Locks("bad")
		for _, key := range []any{"", strings.Repeat("x", 1025), 1.5} {
			if _, err := bad.Watch(bg, key); !errors.Is(err, locks.ErrInvalid) {
				t.Fatalf("Watch(%v): %v, want ErrInvalid", key, err)
			}
		}
		if _, err := store.Locks("").WatchAll(bg); !errors.Is(err, locks.ErrInvalid) {
			t.Fatalf("WatchAll of a bad name: %v", err)
		}
	})
}
