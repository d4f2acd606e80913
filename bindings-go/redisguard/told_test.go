package redisguard_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/redisguard"
	"tinystore.dev/go/tinystore"
)

// checks records the guard checks an Observer is told of, on redis.
type checks struct {
	mu   sync.Mutex
	seen []string
}

func (c *checks) Wait(context.Context, locks.Place) func(locks.Fence, error) {
	return func(locks.Fence, error) {}
}

func (c *checks) Hold(ctx context.Context, _ locks.Place, _ locks.Fence) (context.Context, func(error)) {
	return ctx, func(error) {}
}

func (c *checks) GuardCheck(_ context.Context, resource string, fence locks.Fence, backend string) func(error) {
	return func(err error) {
		outcome := "accepted"
		if errors.Is(err, locks.ErrStale) {
			outcome = "stale"
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.seen = append(c.seen, backend+" "+resource+" "+fence.String()+" "+outcome)
	}
}

// Given the lease itself, a refusal is told to its store, which counts it
// per group; given the fence alone, it is told to nobody. Either way the
// process's Observer (tinystoreotel's spans) sees each check on redis.
func TestGivenTheLeaseARefusalIsToldToItsStore(t *testing.T) {
	ctx := context.Background()
	seen := &checks{}
	locks.SetObserver(seen)
	t.Cleanup(func() { locks.SetObserver(nil) })
	rdb, k := client(t), key(t)
	store, err := tinystore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	chats := store.Locks("chats")
	old, err := chats.Acquire(ctx, "42", locks.TTL(20*time.Millisecond), locks.NoRenew())
	if err != nil {
		t.Fatal(err)
	}
	<-old.Done() // it ran out
	fresh, err := chats.Acquire(ctx, "42")
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Release(ctx)
	if err := redisguard.Set(ctx, rdb, k, "new", fresh); err != nil {
		t.Fatal(err)
	}
	if err := redisguard.HSet(ctx, rdb, k, map[string]string{"f": "late"}, old); !errors.Is(err, tinystore.ErrStale) {
		t.Fatalf("a late HSet given the lease: %v; want stale", err)
	}
	if err := redisguard.Del(ctx, rdb, k, old.Fence); !errors.Is(err, tinystore.ErrStale) {
		t.Fatalf("a late Del given the fence: %v; want stale", err)
	}
	status, err := store.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []tinystore.RefusedStatus{{Name: "chats", Kind: "lock", Refused: 1}}
	if len(status.LateWritesRefused) != 1 || status.LateWritesRefused[0] != want[0] {
		t.Fatalf("late writes refused: %v; want %v", status.LateWritesRefused, want)
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	wantSeen := []string{
		"redis " + k + " " + fresh.Fence.String() + " accepted",
		"redis " + k + " " + old.Fence.String() + " stale",
		"redis " + k + " " + old.Fence.String() + " stale",
	}
	if !slices.Equal(seen.seen, wantSeen) {
		t.Fatalf("checks seen: %q; want %q", seen.seen, wantSeen)
	}
}
