package tinystore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// Hold a chat's key, and keep its fence as 40 digits beside the write it
// guards.
func Example() {
	dir, err := os.MkdirTemp("", "tinystore-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	store, err := tinystore.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	summaries := store.Locks("summaries", locks.TTL(15*time.Second))
	err = summaries.Hold(context.Background(), 42, func(ctx context.Context, lease *locks.Lease) error {
		fence := fmt.Sprintf("%040s", lease.Fence)
		fmt.Println(lease.Key(), len(fence), lease.Fence.Count)
		return nil
	})
	fmt.Println(err)
	// Output:
	// 42 40 1
	// <nil>
}

// A semaphore lets three holders in at once; its permits have no fence.
func ExampleStore_Semaphore() {
	store, done := exampleStore()
	defer done()

	exports := store.Semaphore("exports", 3)
	ctx := context.Background()
	for i := 1; i <= 4; i++ {
		_, ok, err := exports.TryAcquire(ctx, "tenant-1")
		fmt.Println(i, ok, err)
	}
	// Output:
	// 1 true <nil>
	// 2 true <nil>
	// 3 true <nil>
	// 4 false <nil>
}

// exampleStore opens a store in a new directory; done closes and removes it.
func exampleStore() (store *tinystore.Store, done func()) {
	dir, err := os.MkdirTemp("", "tinystore-example")
	if err != nil {
		log.Fatal(err)
	}
	if store, err = tinystore.Open(dir); err != nil {
		log.Fatal(err)
	}
	return store, func() { _ = store.Close(); _ = os.RemoveAll(dir) }
}

// Lead an election, and keep the term as 40 digits beside the writes the
// leader makes.
func ExampleStore_Election() {
	dir, err := os.MkdirTemp("", "tinystore-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	store, err := tinystore.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	election := store.Election("scheduler", locks.TTL(15*time.Second))
	err = election.Lead(context.Background(), "worker-7", func(ctx context.Context, l *locks.Leadership) error {
		term := fmt.Sprintf("%040s", l.Fence)
		leader, err := election.Leader(ctx)
		fmt.Println(l.Value, len(term), leader.Value == l.Value, err)
		return nil
	})
	fmt.Println(err)
	// Output:
	// worker-7 40 true <nil>
	// <nil>
}

// Readers share a document's key (and take no fence); a writer holds it
// alone, with a fence.
func ExampleStore_RWLocks() {
	store, done := exampleStore()
	defer done()

	docs := store.RWLocks("docs")
	ctx := context.Background()
	err := docs.HoldRead(ctx, "readme", func(ctx context.Context, p *locks.Permit) error {
		other, shared, _ := docs.TryAcquireRead(ctx, "readme")
		_, alone, _ := docs.TryAcquireWrite(ctx, "readme")
		fmt.Println("another reader:", shared, "a writer:", alone)
		return other.Release(ctx)
	})
	fmt.Println(err)
	err = docs.HoldWrite(ctx, "readme", func(ctx context.Context, l *locks.Lease) error {
		fmt.Println("writing with fence count", l.Fence.Count)
		return nil
	})
	fmt.Println(err)
	// Output:
	// another reader: true a writer: false
	// <nil>
	// writing with fence count 1
	// <nil>
}

// Hold two accounts at once, whatever order other callers name them in.
func ExampleStore_Locks_holdAll() {
	store, done := exampleStore()
	defer done()

	accounts := store.Locks("accounts")
	err := accounts.HoldAll(context.Background(), []any{"bob", "alice"}, func(ctx context.Context, leases []*locks.Lease) error {
		for _, l := range leases {
			fmt.Println(l.Key(), l.Fence.Count)
		}
		return nil
	}, locks.Wait(5*time.Second))
	fmt.Println(err)
	// Output:
	// bob 2
	// alice 1
	// <nil>
}
