package redisguard_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/redisguard"
	"tinystore.dev/go/tinystore"
)

// Given the lease itself, a refusal is told to its store, which counts it
// per group; given the fence alone, it is told to nobody.
func TestGivenTheLeaseARefusalIsToldToItsStore(t *testing.T) {
	ctx := context.Background()
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
}
