package tinystoretest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
	"tinystore.dev/go/tinystoretest"
)

// The refusal of every store not made for tests, word for word (the
// core's).
const refusal = "this store is not a test store: advance and expire work only on a store " +
	"made by tinystore's test kit, or served with `tinystore serve --testing`"

// within bounds a wait for a signal the kit's own calls already sent, so
// that a bug fails the test rather than hanging it; nothing here sleeps.
const within = 10 * time.Second

// lost waits for held's loss (Done closed) and checks it is an
// ErrLeaseLost error.
func lost(t *testing.T, what string, held locks.Holding) {
	t.Helper()
	select {
	case <-held.Done():
	case <-time.After(within):
		t.Fatalf("%s was not told it lost its lease within %v", what, within)
	}
	if err := held.Err(); !errors.Is(err, tinystore.ErrLeaseLost) {
		t.Fatalf("%s: Err() = %v, want an ErrLeaseLost error", what, err)
	}
}

// closedNow reports whether ch is closed already, without waiting.
func closedNow(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// kits runs f on an embedded and on a served kit.
func kits(t *testing.T, f func(t *testing.T, kit *tinystoretest.Kit)) {
	t.Run("embedded", func(t *testing.T) { f(t, tinystoretest.New(t)) })
	t.Run("served", func(t *testing.T) { f(t, tinystoretest.Served(t)) })
}

// waitingOn waits until someone waits for a key of store.
func waitingOn(t *testing.T, store *tinystore.Store) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st, err := store.Status(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Waiting) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nobody waited within %v", within)
		}
	}
}

func TestExpireTellsTheHolderAndAWaiterGetsALargerFence(t *testing.T) {
	kits(t, func(t *testing.T, kit *tinystoretest.Kit) {
		ctx := t.Context()
		jobs := kit.Store().Locks("jobs")
		type inside struct {
			lease *locks.Lease
			ctx   context.Context
		}
		in := make(chan inside, 1)
		held := make(chan error, 1)
		go func() {
			held <- jobs.Hold(ctx, "report", func(ctx context.Context, lease *locks.Lease) error {
				in <- inside{lease, ctx}
				<-ctx.Done()
				return ctx.Err()
			})
		}()
		a := <-in
		granted := make(chan *locks.Lease, 1)
		go func() {
			b, err := jobs.Acquire(ctx, "report")
			if err != nil {
				t.Error(err)
			}
			granted <- b
		}()
		waitingOn(t, kit.Store())

		kit.Expire(a.lease)
		if !closedNow(a.lease.Done()) {
			t.Fatal("Expire returned before the lease's Done was closed")
		}
		if a.ctx.Err() == nil {
			t.Fatal("Expire returned before the Hold's ctx was cancelled")
		}
		cause := context.Cause(a.ctx)
		if !errors.Is(cause, tinystore.ErrLeaseLost) || !strings.Contains(cause.Error(), "the test kit expired it") {
			t.Fatalf("the Hold's ctx was cancelled with %v", cause)
		}
		if err := a.lease.Err(); !errors.Is(err, tinystore.ErrLeaseLost) {
			t.Fatalf("Err() = %v", err)
		}
		if a.lease.Held() {
			t.Fatal("still held after Expire")
		}
		if err := <-held; !errors.Is(err, tinystore.ErrLeaseLost) {
			t.Fatalf("Hold returned %v, want ErrLeaseLost", err)
		}
		b := <-granted
		if b == nil {
			t.FailNow()
		}
		if !a.lease.Fence.Less(b.Fence) {
			t.Fatalf("the waiter's fence %s is not larger than %s", b.Fence, a.lease.Fence)
		}
		again := tinystoretest.Expire(ctx, a.lease)
		if !errors.Is(again, tinystore.ErrLeaseLost) {
			t.Fatalf("Expire of a lost lease: %v, want ErrLeaseLost", again)
		}
		if err := b.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if err := tinystoretest.Expire(ctx, b); !errors.Is(err, tinystore.ErrLeaseLost) {
			t.Fatalf("Expire of a released lease: %v, want ErrLeaseLost", err)
		}
	})
}

func TestAdvanceRunsOutExactlyTheLeasesWhoseTTLPassed(t *testing.T) {
	kits(t, func(t *testing.T, kit *tinystoretest.Kit) {
		ctx := t.Context()
		jobs := kit.Store().Locks("jobs")
		acquire := func(key string, opts ...locks.Option) *locks.Lease {
			t.Helper()
			l, err := jobs.Acquire(ctx, key, opts...)
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
		short := acquire("short", locks.TTL(10*time.Second), locks.NoRenew())
		long := acquire("long", locks.TTL(60*time.Second), locks.NoRenew())
		renewing := acquire("renewing", locks.TTL(30*time.Second))

		kit.Advance(9 * time.Second)
		if !short.Held() || !long.Held() || !renewing.Held() {
			t.Fatal("a lease ran out before its TTL passed")
		}
		kit.Advance(2 * time.Second)
		lost(t, "the 10 s lease after 11 s", short)
		if !long.Held() || !renewing.Held() {
			t.Fatal("the 60 s or the renewing 30 s lease ran out after 11 s")
		}
		kit.Advance(30 * time.Second)
		lost(t, "the renewing 30 s lease after 30 s at once", renewing)
		if !long.Held() {
			t.Fatal("the 60 s lease ran out after 41 s")
		}
		kit.Advance(20 * time.Second)
		lost(t, "the 60 s lease after 61 s", long)
		next, ok, err := jobs.TryAcquire(ctx, "long")
		if err != nil || !ok {
			t.Fatalf("TryAcquire after the lease ran out: %v %v", ok, err)
		}
		if !long.Fence.Less(next.Fence) {
			t.Fatalf("the next fence %s is not larger than %s", next.Fence, long.Fence)
		}
		if err := tinystoretest.Advance(ctx, kit.Store(), -time.Second); !errors.Is(err, tinystore.ErrInvalid) {
			t.Fatalf("Advance by a negative duration: %v, want ErrInvalid", err)
		}
	})
}

func TestExpireKeyEndsEveryHolderOfAKeyAndCountsThem(t *testing.T) {
	kits(t, func(t *testing.T, kit *tinystoretest.Kit) {
		ctx := t.Context()
		slots := kit.Store().Semaphore("slots", 3)
		permit := func(key string) *locks.Permit {
			t.Helper()
			p, err := slots.Acquire(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		p1, p2, other := permit("gpu"), permit("gpu"), permit("cpu")
		if n := kit.ExpireKey("slots", "gpu"); n != 2 {
			t.Fatalf("ExpireKey ended %d, want 2", n)
		}
		lost(t, "the first gpu permit", p1)
		lost(t, "the second gpu permit", p2)
		if !other.Held() {
			t.Fatal("the cpu permit was expired too")
		}
		if n := kit.ExpireKey("slots", "gpu"); n != 0 {
			t.Fatalf("ExpireKey again ended %d, want 0", n)
		}

		// A key as package locks takes it: 42 and "42" are one key.
		chats := kit.Store().Locks("chats")
		chat, err := chats.Acquire(ctx, 42)
		if err != nil {
			t.Fatal(err)
		}
		if n := kit.ExpireKey("chats", 42); n != 1 {
			t.Fatalf("ExpireKey(chats, 42) ended %d, want 1", n)
		}
		lost(t, "chat 42", chat)

		_, err = tinystoretest.ExpireKey(ctx, kit.Store(), "no spaces", "gpu")
		if !errors.Is(err, tinystore.ErrInvalid) {
			t.Fatalf("a bad name: %v, want ErrInvalid", err)
		}
		_, err = tinystoretest.ExpireKey(ctx, kit.Store(), "slots", struct{}{})
		if !errors.Is(err, tinystore.ErrInvalid) {
			t.Fatalf("a key of no key type: %v, want ErrInvalid", err)
		}
	})
}

func TestAPermitAndALeadershipExpireToo(t *testing.T) {
	kits(t, func(t *testing.T, kit *tinystoretest.Kit) {
		ctx := t.Context()
		permit, err := kit.Store().RWLocks("docs").AcquireRead(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if err := tinystoretest.Expire(ctx, permit); err != nil {
			t.Fatal(err)
		}
		if !closedNow(permit.Done()) || permit.Held() {
			t.Fatal("the read permit is still held after Expire")
		}

		election := kit.Store().Election("primary")
		first, err := election.Campaign(ctx, "node-1")
		if err != nil {
			t.Fatal(err)
		}
		kit.Expire(first)
		if !closedNow(first.Done()) || !errors.Is(first.Err(), tinystore.ErrLeaseLost) {
			t.Fatalf("the leadership after Expire: %v", first.Err())
		}
		second, err := election.Campaign(ctx, "node-2")
		if err != nil {
			t.Fatal(err)
		}
		if !first.Fence.Less(second.Fence) {
			t.Fatalf("the new term %s is not larger than %s", second.Fence, first.Fence)
		}
		leader, err := election.Leader(ctx)
		if err != nil || leader == nil || leader.Value != "node-2" {
			t.Fatalf("the leader after the first was expired: %v %v", leader, err)
		}
	})
}

func TestExpireReachesAHolderOnAnotherConnection(t *testing.T) {
	ctx := t.Context()
	kit := tinystoretest.Served(t)
	if !strings.HasPrefix(kit.Address(), "unix:") {
		t.Fatalf("Address() = %q", kit.Address())
	}
	other, err := tinystore.Connect(kit.Address())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	a, err := other.Locks("jobs").Acquire(ctx, "report")
	if err != nil {
		t.Fatal(err)
	}
	kit.Expire(a)
	if !closedNow(a.Done()) || !errors.Is(a.Err(), tinystore.ErrLeaseLost) {
		t.Fatalf("the other connection's lease after Expire: %v", a.Err())
	}
	b, err := kit.Store().Locks("jobs").Acquire(ctx, "report")
	if err != nil {
		t.Fatal(err)
	}
	if !a.Fence.Less(b.Fence) {
		t.Fatalf("%s is not larger than %s", b.Fence, a.Fence)
	}
	if err := a.Release(ctx); !errors.Is(err, tinystore.ErrLeaseLost) {
		t.Fatalf("releasing the expired lease: %v, want ErrLeaseLost", err)
	}

	// The functions work on any connection to a test store.
	c, err := other.Locks("jobs").Acquire(ctx, "c", locks.TTL(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := tinystoretest.Advance(ctx, other, 6*time.Second); err != nil {
		t.Fatal(err)
	}
	lost(t, "the 5 s lease after 6 s", c)
	if !b.Held() {
		t.Fatal("a 15 s lease ran out after 6 s")
	}
	if n, err := tinystoretest.ExpireKey(ctx, other, "jobs", "report"); err != nil || n != 1 {
		t.Fatalf("ExpireKey over the other connection: %d %v, want 1", n, err)
	}
	lost(t, "the kit's own lease", b)
	st, err := other.Status(ctx)
	if err != nil || !st.Testing {
		t.Fatalf("the served kit's status: Testing %v (%v)", st != nil && st.Testing, err)
	}
}

func TestStatusSaysATestStore(t *testing.T) {
	kits(t, func(t *testing.T, kit *tinystoretest.Kit) {
		st, err := kit.Store().Status(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !st.Testing {
			t.Fatal("a kit's store: Status().Testing is false")
		}
	})
}

func TestCloseRemovesTheDirectoryAndClosesTheStore(t *testing.T) {
	kits(t, func(t *testing.T, kit *tinystoretest.Kit) {
		held, err := kit.Store().Locks("jobs").Acquire(t.Context(), "a")
		if err != nil {
			t.Fatal(err)
		}
		if err := kit.Close(); err != nil {
			t.Fatal(err)
		}
		if err := kit.Close(); err != nil {
			t.Fatalf("a second Close: %v", err)
		}
		assertGone(t, kit.Dir())
		select {
		case <-held.Done():
		case <-time.After(within):
			t.Fatal("a lease of a closed kit was not told")
		}
		_, err = kit.Store().Locks("jobs").Acquire(t.Context(), "b")
		if !errors.Is(err, tinystore.ErrClosed) {
			t.Fatalf("an acquire on a closed kit: %v, want ErrClosed", err)
		}
	})
}
