package tinystore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// Elections: Campaign and Lead on an embedded store, the next campaigner
// leading with a larger term, Leader, Observe seeing every change in order
// (closed with its ctx), ctx cancelled when the store closes during Lead,
// and two processes campaigning through a server.

func TestLeadGivesALeadershipWithItsTerm(t *testing.T) {
	store := openStore(t)
	election := store.Election("scheduler")
	if l, err := election.Leader(bg); err != nil || l != nil {
		t.Fatalf("Leader before anyone leads = %v, %v", l, err)
	}
	var term locks.Fence
	err := election.Lead(bg, "worker-7", func(ctx context.Context, l *locks.Leadership) error {
		term = l.Fence
		if l.Value != "worker-7" || l.Name() != "scheduler" || !l.Held() || l.Err() != nil {
			return fmt.Errorf("the leadership is %v, held %v, err %v", l, l.Held(), l.Err())
		}
		now, err := election.Leader(ctx)
		if err != nil || now == nil || *now != (locks.Leader{Value: "worker-7", Fence: l.Fence}) {
			return fmt.Errorf("Leader while leading = %v, %v", now, err)
		}
		// An election and a lock group of one name are apart.
		lease, err := store.Locks("scheduler").Acquire(ctx, "k")
		if err != nil || !l.Fence.Less(lease.Fence) {
			return fmt.Errorf("the lock of the same name: %v, %v", lease, err)
		}
		return lease.Release(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	if term == (locks.Fence{}) {
		t.Fatal("no term")
	}
	if l, err := election.Leader(bg); err != nil || l != nil {
		t.Fatalf("Leader after Lead = %v, %v", l, err)
	}
}

func TestSecondCampaignerWaitsAndLeadsWithALargerTerm(t *testing.T) {
	leadersInTurn(t, openStore(t).Election("line"))
}

// leadersInTurn: a leads; b waits in line until a resigns, then leads with
// a larger term; an observer sees nobody, a, b, nobody; resigning twice is
// fine.
func leadersInTurn(t *testing.T, election *locks.Election) {
	t.Helper()
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	changes, err := election.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l := next(t, changes); l != nil {
		t.Fatalf("first change %v; want nobody", l)
	}
	a, err := election.Campaign(bg, "a")
	if err != nil {
		t.Fatal(err)
	}
	if l := next(t, changes); l == nil || *l != (locks.Leader{Value: "a", Fence: a.Fence}) {
		t.Fatalf("the observer saw %v; want a", l)
	}
	got := make(chan *locks.Leadership, 1)
	go func() {
		b, err := election.Campaign(bg, "b")
		if err != nil {
			t.Error(err)
		}
		got <- b
	}()
	select {
	case <-got:
		t.Fatal("b leads while a leads")
	case <-time.After(200 * time.Millisecond):
	}
	if err := a.Resign(bg); err != nil {
		t.Fatal(err)
	}
	if err := a.Resign(bg); err != nil {
		t.Fatalf("a second resign: %v", err)
	}
	within(t, a.Done(), "a's Done after it resigned")
	var b *locks.Leadership
	select {
	case b = <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("b did not lead once a resigned")
	}
	if b == nil || !a.Fence.Less(b.Fence) {
		t.Fatalf("b's term %v is not larger than a's %v", b, a.Fence)
	}
	if l, _ := election.Leader(bg); l == nil || *l != (locks.Leader{Value: "b", Fence: b.Fence}) {
		t.Fatalf("Leader = %v; want b", l)
	}
	if l := next(t, changes); l == nil || *l != (locks.Leader{Value: "b", Fence: b.Fence}) {
		t.Fatalf("the observer saw %v; want b", l)
	}
	if err := b.Resign(bg); err != nil {
		t.Fatal(err)
	}
	if l := next(t, changes); l != nil {
		t.Fatalf("after b resigned the observer saw %v; want nobody", l)
	}
}

func TestACampaignGivenUpByItsCtxNeverLeads(t *testing.T) {
	election := openStore(t).Election("given-up")
	a, err := election.Campaign(bg, "a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(bg, 30*time.Millisecond)
	defer cancel()
	if b, err := election.Campaign(ctx, "b"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a campaign whose ctx ran out = %v, %v", b, err)
	}
	if _, err := election.Campaign(bg, "c", locks.Wait(20*time.Millisecond)); !errors.Is(err, locks.ErrTimeout) {
		t.Fatalf("a campaign whose Wait ran out: %v", err)
	}
	if err := a.Resign(bg); err != nil {
		t.Fatal(err)
	}
	if l, err := election.Leader(bg); err != nil || l != nil {
		t.Fatalf("after a resigned with nobody in line, Leader = %v, %v", l, err)
	}
}

// next is the next change on changes, within a few seconds.
func next(t *testing.T, changes <-chan *locks.Leader) *locks.Leader {
	t.Helper()
	select {
	case l, ok := <-changes:
		if !ok {
			t.Fatal("the observer's channel closed")
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no change came")
		return nil
	}
}

func TestObserveSeesEveryChangeInOrderAndClosesWithItsCtx(t *testing.T) {
	store := openStore(t)
	election := store.Election("watched")
	ctx, cancel := context.WithCancel(bg)
	changes, err := election.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, err := election.Campaign(bg, "a")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *locks.Leadership, 1)
	go func() {
		b, _ := election.Campaign(bg, "b")
		got <- b
	}()
	untilWaiting(t, store, "watched", "", 1)
	if err := a.Resign(bg); err != nil {
		t.Fatal(err)
	}
	b := <-got
	if err := b.Resign(bg); err != nil {
		t.Fatal(err)
	}
	want := []*locks.Leader{nil, {Value: "a", Fence: a.Fence}, {Value: "b", Fence: b.Fence}, nil}
	for i, w := range want {
		l := next(t, changes)
		if (l == nil) != (w == nil) || (l != nil && *l != *w) {
			t.Fatalf("change %d is %v; want %v", i, l, w)
		}
	}
	cancel()
	select {
	case l, ok := <-changes:
		if ok {
			t.Fatalf("a change after the ctx was cancelled: %v", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the channel was not closed when the ctx was cancelled")
	}
	if _, err := election.Observe(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Observe with a done ctx: %v", err)
	}
}

func TestLeadershipLostWhenTheStoreClosesDuringLead(t *testing.T) {
	store, err := tinystore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	election := store.Election("closing")
	changes, err := election.Observe(bg)
	if err != nil {
		t.Fatal(err)
	}
	if l := next(t, changes); l != nil {
		t.Fatalf("first change %v; want nobody", l)
	}
	var cause error
	err = election.Lead(bg, "a", func(ctx context.Context, l *locks.Leadership) error {
		if got := next(t, changes); got == nil || got.Value != "a" {
			return fmt.Errorf("the observer saw %v; want a", got)
		}
		go func() {
			time.Sleep(20 * time.Millisecond)
			_ = store.Close()
		}()
		<-ctx.Done()
		cause = context.Cause(ctx)
		return ctx.Err()
	})
	if !errors.Is(err, locks.ErrClosed) || !errors.Is(cause, locks.ErrClosed) {
		t.Fatalf("Lead = %v with ctx cause %v; want ErrClosed for both", err, cause)
	}
	select {
	case l, ok := <-changes:
		if ok {
			t.Fatalf("a change after the store closed: %v", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the observer's channel was not closed with the store")
	}
	if _, err := election.Campaign(bg, "b"); !errors.Is(err, locks.ErrClosed) {
		t.Fatalf("a campaign after close: %v", err)
	}
}

func TestBadValueAndNameAreInvalid(t *testing.T) {
	store := openStore(t)
	if _, err := store.Election("e").Campaign(bg, strings.Repeat("x", 1025)); !errors.Is(err, locks.ErrInvalid) || !strings.Contains(err.Error(), "1025") {
		t.Fatalf("a 1025-byte value: %v", err)
	}
	if _, err := store.Election("no spaces").Leader(bg); !errors.Is(err, locks.ErrInvalid) {
		t.Fatalf("a bad name: %v", err)
	}
	if _, err := store.Election("no spaces").Observe(bg); !errors.Is(err, locks.ErrInvalid) {
		t.Fatalf("observing a bad name: %v", err)
	}
}

// helperLeader leads "jobs" with a 500ms TTL through the served store
// TS_DIR, says "leading TERM", waits for a line on stdin (the test stops
// it with SIGSTOP meanwhile), and says how its Lead ended.
func helperLeader() int {
	store, err := tinystore.Open(os.Getenv("TS_DIR"))
	if err != nil {
		fmt.Println("open:", err)
		return 1
	}
	defer store.Close()
	err = store.Election("jobs", locks.TTL(500*time.Millisecond)).Lead(bg, "p1", func(ctx context.Context, l *locks.Leadership) error {
		fmt.Println("leading", l.Fence)
		_, _ = os.Stdin.Read(make([]byte, 64))
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
		return nil
	})
	fmt.Println("lead:", err)
	return 0
}

func TestTwoProcessesCampaignThroughTheServer(t *testing.T) {
	s := serve(t)
	leader := helper(t, "leader", "TS_DIR="+s.dir)
	first, err := locks.ParseFence(leader.expect(t, "leading "))
	if err != nil {
		t.Fatal(err)
	}
	store, err := tinystore.Open(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	election := store.Election("jobs", locks.Wait(20*time.Second))
	changes, err := election.Observe(bg)
	if err != nil {
		t.Fatal(err)
	}
	if l := next(t, changes); l == nil || l.Value != "p1" || l.Fence != first {
		t.Fatalf("the observer first saw %v; want p1", l)
	}
	_ = leader.cmd.Process.Signal(syscall.SIGSTOP) // past its TTL: no renewals
	err = election.Lead(bg, "p2", func(ctx context.Context, mine *locks.Leadership) error {
		if !first.Less(mine.Fence) {
			return fmt.Errorf("p2's term %v is not larger than p1's %v", mine.Fence, first)
		}
		if l := next(t, changes); l == nil || l.Value != "p2" {
			return fmt.Errorf("the observer saw %v; want p2", l)
		}
		return nil
	})
	_ = leader.cmd.Process.Signal(syscall.SIGCONT)
	if err != nil {
		t.Fatal(err)
	}
	if l := next(t, changes); l != nil {
		t.Fatalf("after p2 resigned the observer saw %v; want nobody", l)
	}
	_, _ = leader.stdin.Write([]byte("go\n"))
	if got := leader.expect(t, "lead: "); !strings.Contains(got, "lease_lost") {
		t.Fatalf("the stopped leader's Lead ended with %q; want lease_lost", got)
	}
}

// Through a server, a leader whose connection breaks is told: killing the
// server cancels the ctx Lead gave fn, Lead returns ErrLeaseLost, and an
// observer's channel on that connection is closed.
func TestALeaderWhoseServerIsKilledIsTold(t *testing.T) {
	srv := serve(t)
	election := connect(t, srv).Election("jobs")
	changes, err := election.Observe(bg)
	if err != nil {
		t.Fatal(err)
	}
	if l := next(t, changes); l != nil {
		t.Fatalf("first change %v; want nobody", l)
	}
	err = election.Lead(bg, "a", func(ctx context.Context, l *locks.Leadership) error {
		if got := next(t, changes); got == nil || got.Value != "a" {
			return fmt.Errorf("the observer saw %v; want a", got)
		}
		if err := srv.process.Signal(syscall.SIGKILL); err != nil {
			return err
		}
		within(t, ctx.Done(), "the ctx of fn being cancelled when the server died")
		within(t, l.Done(), "l.Done closing when the server died")
		return nil
	})
	if !errors.Is(err, locks.ErrLeaseLost) {
		t.Fatalf("Lead returned %v; want ErrLeaseLost", err)
	}
	select {
	case l, ok := <-changes:
		if ok {
			t.Fatalf("a change after the server died: %v", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the observer's channel was not closed when the server died")
	}
}

// A leadership too runs out at MaxHold though it is renewed: Lead's fn is
// stopped and Lead returns ErrLeaseLost naming max_hold; the next
// campaigner leads with a larger term.
func TestALeadershipEndsAtMaxHold(t *testing.T) {
	store := openStore(t)
	election := store.Election("capped", locks.TTL(100*time.Millisecond), locks.MaxHold(300*time.Millisecond))
	var term locks.Fence
	err := election.Lead(bg, "worker-1", func(ctx context.Context, l *locks.Leadership) error {
		term = l.Fence
		<-ctx.Done()
		return ctx.Err()
	})
	if !errors.Is(err, locks.ErrLeaseLost) || !strings.Contains(err.Error(), "max_hold") {
		t.Fatalf("Lead returned %v; want ErrLeaseLost naming max_hold", err)
	}
	next, err := election.Campaign(bg, "worker-2", locks.Wait(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer next.Resign(bg)
	if !term.Less(next.Fence) {
		t.Fatalf("the next term %v is not above %v", next.Fence, term)
	}
}
