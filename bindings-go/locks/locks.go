package locks

import (
	"context"

	"tinystore.dev/go/internal/native"
)

// Locks is a group of exclusive locks, one per key, whose leases carry
// fences. Safe for concurrent use. A key is a string, an integer (42 and
// "42" are the same key), []byte or a fmt.Stringer; anything else is an
// ErrInvalid error.
type Locks struct {
	group
}

func lease(h *native.Held) *Lease {
	return &Lease{Fence: Fence{Epoch: h.Epoch, Count: h.Count}, holding: holding{h}}
}

// Acquire waits first come first served for key and holds it, until the
// Wait option runs out (ErrTimeout) or ctx is done (an error wrapping
// ctx.Err()); giving up never leaves the lease held. The lease is renewed
// every TTL/3 until released, unless NoRenew is set.
func (l *Locks) Acquire(ctx context.Context, key any, opts ...Option) (*Lease, error) {
	h, err := l.acquire(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	return lease(h), nil
}

// TryAcquire holds key if it is free now: ok is false when it is taken.
func (l *Locks) TryAcquire(ctx context.Context, key any, opts ...Option) (held *Lease, ok bool, err error) {
	h, err := l.tryAcquire(ctx, key, opts)
	if err != nil || h == nil {
		return nil, false, err
	}
	return lease(h), true, nil
}

// Hold acquires key (as Acquire), runs fn with the lease, and releases it
// however fn ends. The ctx given to fn is cancelled when the lease is lost;
// its context.Cause is then the ErrClosed (the store closed) or
// ErrLeaseLost (it ran out, the connection broke) error. Hold returns fn's
// error; else, when the lease was lost before fn ended, that ErrClosed or
// ErrLeaseLost error (also when fn returned the ctx's cancellation); else
// nil.
func (l *Locks) Hold(ctx context.Context, key any, fn func(ctx context.Context, lease *Lease) error, opts ...Option) error {
	lease, err := l.Acquire(ctx, key, opts...)
	if err != nil {
		return err
	}
	return hold(ctx, "lock", lease.holding, lease, fn)
}
