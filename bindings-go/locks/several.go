package locks

import (
	"context"
	"sync"
	"sync/atomic"
)

// MaxKeysAtOnce is the most keys one AcquireAll or HoldAll may name.
const MaxKeysAtOnce = 1024

// AcquireAll holds every key of keys or none: a lease each, in the order of
// keys, each with its own fence. The keys are taken in one order for every
// caller, so callers naming overlapping keys in any order never deadlock.
// The Wait option covers all the keys together (then ErrTimeout); an
// error, a timeout or ctx done (an error wrapping ctx.Err()) leaves none
// held. ErrInvalid on no key, more than MaxKeysAtOnce, or a key named
// twice.
func (l *Locks) AcquireAll(ctx context.Context, keys []any, opts ...Option) ([]*Lease, error) {
	if l.err != nil {
		return nil, l.err
	}
	texts := make([]string, len(keys))
	for i, key := range keys {
		text, err := keyText(key)
		if err != nil {
			return nil, err
		}
		texts[i] = text
	}
	held, err := l.g.AcquireAll(ctx, texts, gather(opts...))
	if err != nil {
		return nil, err
	}
	leases := make([]*Lease, len(held))
	for i, h := range held {
		leases[i] = lease(h)
	}
	return leases, nil
}

// HoldAll acquires every key of keys (as AcquireAll), runs fn with the
// leases (in the order of keys), and releases them all however fn ends.
// The ctx given to fn is cancelled when any of the leases is lost, with
// that loss's ErrClosed or ErrLeaseLost error as its context.Cause; HoldAll
// returns as Locks.Hold does, the first loss standing for all.
func (l *Locks) HoldAll(ctx context.Context, keys []any, fn func(ctx context.Context, leases []*Lease) error, opts ...Option) error {
	leases, err := l.AcquireAll(ctx, keys, opts...)
	if err != nil {
		return err
	}
	return holdAll(ctx, leases, fn)
}

// holdAll runs fn with leases under a ctx cancelled at the first loss of
// any of them, then ends the hold of each, as hold does for one: the
// first error of their ends (in the order of leases) is what the hold
// adds to fn's outcome.
func holdAll(ctx context.Context, leases []*Lease, fn func(context.Context, []*Lease) error) (err error) {
	fnCtx, cancel := context.WithCancelCause(ctx)
	var lost atomic.Value // the reason fnCtx was cancelled with for the first loss
	var first sync.Once
	for _, l := range leases {
		h := l.h
		h.OnLost(func() {
			if reason := h.LostReason(); reason != nil {
				first.Do(func() {
					lost.Store(reason)
					cancel(reason)
				})
			}
		})
	}
	bodyOK, cancelledByLoss := false, false
	defer func() {
		cancel(nil)
		replaced := false
		for _, l := range leases { // every lease is released, whatever the others' ends say
			if ended := l.h.EndHold(bodyOK, cancelledByLoss); ended != nil && !replaced {
				err, replaced = ended, true
			}
		}
	}()
	err = fn(fnCtx, leases)
	bodyOK = err == nil
	cancelledByLoss = !bodyOK && byLoss(err, fnCtx, lost.Load())
	return err
}
