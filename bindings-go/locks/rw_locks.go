package locks

import (
	"context"
)

// RWLocks is a group of read-write locks, one per key: readers share a
// key, each with a *Permit (no fence); a writer holds it alone, with a
// *Lease and its Fence. First come first served: a waiting writer holds
// back the readers that came after it, so writers never starve. Apart from
// the lock group and semaphore of the same name. Safe for concurrent use;
// keys are as for Locks.
//
//	docs := store.RWLocks("docs")
//	err := docs.HoldRead(ctx, docID, func(ctx context.Context, p *locks.Permit) error { ... })
//	err = docs.HoldWrite(ctx, docID, func(ctx context.Context, l *locks.Lease) error { ... })
type RWLocks struct {
	read, write group
}

// AcquireRead waits first come first served to read key: shared with
// other readers, after every writer that came first. It ends as
// Locks.Acquire does (the Wait option, ctx); giving up never leaves the
// permit held.
func (rw *RWLocks) AcquireRead(ctx context.Context, key any, opts ...Option) (*Permit, error) {
	h, err := rw.read.acquire(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	return &Permit{holding{h}}, nil
}

// AcquireWrite waits first come first served to write key: alone, with a
// fence. It ends as Locks.Acquire does.
func (rw *RWLocks) AcquireWrite(ctx context.Context, key any, opts ...Option) (*Lease, error) {
	h, err := rw.write.acquire(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	return lease(h), nil
}

// TryAcquireRead reads key if no writer holds it or waits for it now: ok
// is false otherwise.
func (rw *RWLocks) TryAcquireRead(ctx context.Context, key any, opts ...Option) (permit *Permit, ok bool, err error) {
	h, err := rw.read.tryAcquire(ctx, key, opts)
	if err != nil || h == nil {
		return nil, false, err
	}
	return &Permit{holding{h}}, true, nil
}

// TryAcquireWrite writes key if nobody holds it or waits for it now: ok is
// false otherwise.
func (rw *RWLocks) TryAcquireWrite(ctx context.Context, key any, opts ...Option) (held *Lease, ok bool, err error) {
	h, err := rw.write.tryAcquire(ctx, key, opts)
	if err != nil || h == nil {
		return nil, false, err
	}
	return lease(h), true, nil
}

// HoldRead reads key (as AcquireRead), runs fn with the permit, and
// releases it however fn ends, as Locks.Hold does.
func (rw *RWLocks) HoldRead(ctx context.Context, key any, fn func(ctx context.Context, permit *Permit) error, opts ...Option) error {
	permit, err := rw.AcquireRead(ctx, key, opts...)
	if err != nil {
		return err
	}
	return hold(ctx, "rwlock", permit.holding, permit, fn)
}

// HoldWrite writes key (as AcquireWrite), runs fn with the lease, and
// releases it however fn ends, as Locks.Hold does.
func (rw *RWLocks) HoldWrite(ctx context.Context, key any, fn func(ctx context.Context, lease *Lease) error, opts ...Option) error {
	lease, err := rw.AcquireWrite(ctx, key, opts...)
	if err != nil {
		return err
	}
	return hold(ctx, "rwlock", lease.holding, lease, fn)
}

// Close frees the group's native handles; leases it gave stay held, and
// later calls fail with ErrClosed. Idempotent.
func (rw *RWLocks) Close() {
	rw.read.Close()
	rw.write.Close()
}
