// Package locks holds tinystore's groups of locks, semaphores and
// read-write locks, and elections; what holding a key gives (a *Lease with
// a Fence, or a *Permit without one); the options TTL, Wait, NoRenew,
// MaxHold and Weight; and the errors.
//
// A store (package tinystore) gives the groups:
//
//	summaries := store.Locks("summaries", locks.TTL(15*time.Second))
//	err = summaries.Hold(ctx, chatID, func(ctx context.Context, lease *locks.Lease) error {
//		fence := fmt.Sprintf("%040s", lease.Fence) // 40 digits, ordered as text
//		...
//	})
//
// The ctx given to the function is cancelled when the lease is lost (it ran
// out while renewing was off or the process stalled, the store closed, the
// connection broke). Waiting ends when the caller's ctx is done, and never
// leaves a lease held.
//
// Every semantic lives in tinystore's Rust core; this package converts Go
// values and maps errors.
package locks
