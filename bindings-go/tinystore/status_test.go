package tinystore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// Status shows a holder with its fence, then a waiter, then nothing once
// both let go; embedded and through a server.
func TestStatusShowsAHolderThenAWaiterThenNothing(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		jobs := store.Locks("jobs", locks.TTL(30*time.Second))
		before, err := store.Status(bg)
		if err != nil {
			t.Fatal(err)
		}
		if len(before.Held) != 0 || len(before.Waiting) != 0 || before.HeldTotal != 0 {
			t.Fatalf("a new store's status shows %+v", before)
		}
		holder, err := jobs.Acquire(bg, "k")
		if err != nil {
			t.Fatal(err)
		}
		st, err := store.Status(bg)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Held) != 1 || st.HeldTotal != 1 {
			t.Fatalf("held %+v; want the one lease", st.Held)
		}
		h := st.Held[0]
		if h.Name != "jobs" || h.Key != "k" || h.Fence == nil || *h.Fence != holder.Fence {
			t.Fatalf("held %+v; want jobs/k with fence %v", h, holder.Fence)
		}
		if h.Kind != "lock" || h.Mode != "" || h.Weight != 1 {
			t.Fatalf("held %+v; want a lock's lease of weight 1, no mode", h)
		}
		// Renewing: the store itself renews an embedded holder's lease; a
		// served one is renewed by its client.
		if h.TTL != 30*time.Second || h.Left <= 0 || h.Left > h.TTL || h.Leader != "" {
			t.Fatalf("held %+v; want a 30s TTL, time left, no leader", h)
		}
		if st.LastFence == nil || *st.LastFence != holder.Fence || st.Epoch != holder.Fence.Epoch {
			t.Fatalf("last fence %v and epoch %d; want %v", st.LastFence, st.Epoch, holder.Fence)
		}

		got := make(chan *locks.Lease, 1)
		go func() {
			lease, err := jobs.Acquire(bg, "k")
			if err != nil {
				t.Error(err)
			}
			got <- lease
		}()
		untilWaiting(t, store, "jobs", "k", 1)
		st, err = store.Status(bg)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Waiting) != 1 || st.WaitingTotal != 1 {
			t.Fatalf("waiting %+v; want one on jobs/k", st.Waiting)
		}
		// How long the first waited is the store's to say: only its
		// bounds are checked.
		waiting := st.Waiting[0]
		waited := waiting.Waited
		waiting.Waited = 0
		if waiting != (tinystore.WaitingStatus{Name: "jobs", Key: "k", Kind: "lock", Waiters: 1}) || waited < 0 || waited > time.Minute {
			t.Fatalf("waiting %+v (waited %v); want one on jobs/k", st.Waiting[0], waited)
		}
		if len(st.LongestWaits) != 1 || st.LongestWaits[0].Key != "k" || st.LongestWaits[0].Waited < waited {
			t.Fatalf("longest waits %+v; want jobs/k, waited at least %v", st.LongestWaits, waited)
		}

		if err := holder.Release(bg); err != nil {
			t.Fatal(err)
		}
		second := <-got
		if second == nil {
			t.Fatal("the waiter got no lease")
		}
		if err := second.Release(bg); err != nil {
			t.Fatal(err)
		}
		after, err := store.Status(bg)
		if err != nil {
			t.Fatal(err)
		}
		if len(after.Held) != 0 || len(after.Waiting) != 0 || after.HeldTotal != 0 || after.WaitingTotal != 0 {
			t.Fatalf("after release the status shows %+v", after)
		}
	})
}

// A permit has no fence; a leadership shows its term and value; each
// shows its kind.
func TestStatusOfPermitsAndLeaders(t *testing.T) {
	store := openStore(t)
	permit, err := store.Semaphore("exports", 2).Acquire(bg, "k")
	if err != nil {
		t.Fatal(err)
	}
	defer permit.Release(bg)
	leadership, err := store.Election("scheduler").Campaign(bg, "worker-7")
	if err != nil {
		t.Fatal(err)
	}
	defer leadership.Resign(bg)
	st, err := store.Status(bg)
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]tinystore.HeldStatus{}
	for _, h := range st.Held {
		shown[h.Name+"/"+h.Key] = h
	}
	if p := shown["exports/k"]; p.Fence != nil || p.Kind != "semaphore" || p.Weight != 1 {
		t.Errorf("a permit shows %+v; want a semaphore's, of weight 1, without fence", p)
	}
	l := shown["scheduler/"]
	if l.Fence == nil || *l.Fence != leadership.Fence || l.Leader != "worker-7" || l.Kind != "election" {
		t.Errorf("the leadership shows %+v; want term %v and value worker-7", l, leadership.Fence)
	}
}

// StatusPage picks a page; the totals and More tell what it leaves out.
func TestStatusPages(t *testing.T) {
	store := openStore(t)
	many := store.Locks("many")
	for _, k := range []string{"k0", "k1", "k2", "k3", "k4"} {
		lease, err := many.Acquire(bg, k)
		if err != nil {
			t.Fatal(err)
		}
		defer lease.Release(bg)
	}
	st, err := store.Status(bg, tinystore.StatusPage(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Held) != 2 || st.Held[0].Key != "k1" || st.Held[1].Key != "k2" || st.HeldTotal != 5 || !st.More {
		t.Fatalf("page (1, 2) shows %+v", st)
	}
	if _, err := store.Status(bg, tinystore.StatusPage(0, 0)); !errors.Is(err, locks.ErrInvalid) {
		t.Fatalf("a limit of 0: %v; want ErrInvalid", err)
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := store.Status(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("status with a done ctx: %v; want context.Canceled", err)
	}
}
