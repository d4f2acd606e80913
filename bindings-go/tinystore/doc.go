// Package tinystore opens tinystore stores: a lock service whose every
// exclusive lease carries a fence, a number larger than every earlier
// lease's, so that a holder that paused past its lease can do no harm.
//
//	store, err := tinystore.Open("data")
//	if err != nil { ... }
//	defer store.Close()
//	summaries := store.Locks("summaries", locks.TTL(15*time.Second))
//	err = summaries.Hold(ctx, chatID, func(ctx context.Context, lease *locks.Lease) error {
//		fence := fmt.Sprintf("%040s", lease.Fence)
//		...
//	})
//
// The groups, leases, fences, options and errors live in package locks.
// The store itself is tinystore's Rust core, linked in through cgo.
package tinystore
