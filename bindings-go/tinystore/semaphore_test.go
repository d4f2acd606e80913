package tinystore_test

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"testing"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

func TestASemaphoreAllowsItsLimitOfHolders(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		exports := store.Semaphore("exports", 3)
		var permits []*locks.Permit
		for i := 0; i < 3; i++ {
			permit, ok, err := exports.TryAcquire(bg, "tenant-1")
			if err != nil || !ok {
				t.Fatalf("permit %d: ok=%v err=%v", i+1, ok, err)
			}
			permits = append(permits, permit)
		}
		if _, ok, err := exports.TryAcquire(bg, "tenant-1"); ok || err != nil {
			t.Fatalf("a fourth permit: ok=%v err=%v; want none", ok, err)
		}
		if _, ok, _ := exports.TryAcquire(bg, "tenant-2"); !ok {
			t.Fatal("another key's permit was refused")
		}
		if err := permits[0].Release(bg); err != nil {
			t.Fatal(err)
		}
		again, ok, err := exports.TryAcquire(bg, "tenant-1")
		if err != nil || !ok {
			t.Fatalf("a permit after one was released: ok=%v err=%v", ok, err)
		}
		_ = again.Release(bg)
	})
}

func TestSemaphoreHoldNeverPassesTheLimit(t *testing.T) {
	backends(t, func(t *testing.T, store *tinystore.Store) {
		exports := store.Semaphore("exports", 3)
		var room occupancy
		hammer(t, 12, 20, func() error {
			return exports.Hold(bg, "tenant", func(ctx context.Context, permit *locks.Permit) error {
				room.visit(runtime.Gosched)
				return nil
			})
		})
		if room.most > 3 || room.most < 1 {
			t.Fatalf("%d holders at once; the limit is 3", room.most)
		}
	})
}

func TestAPermitHasNoFence(t *testing.T) {
	if _, ok := reflect.TypeOf(locks.Permit{}).FieldByName("Fence"); ok {
		t.Fatal("locks.Permit has a Fence field")
	}
	if _, ok := reflect.TypeOf(locks.Lease{}).FieldByName("Fence"); !ok {
		t.Fatal("locks.Lease has no Fence field")
	}
}

func TestASemaphoreKeyKeepsItsLimitWhileHeld(t *testing.T) {
	store := openStore(t)
	permit, err := store.Semaphore("exports", 3).Acquire(bg, "k")
	if err != nil {
		t.Fatal(err)
	}
	defer permit.Release(bg)
	_, err = store.Semaphore("exports", 2).Acquire(bg, "k")
	if !errors.Is(err, locks.ErrInvalid) {
		t.Fatalf("another limit for a held key: %v; want ErrInvalid", err)
	}
}
