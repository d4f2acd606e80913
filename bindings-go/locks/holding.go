package locks

import (
	"context"
	"errors"
	"sync/atomic"

	"tinystore.dev/go/internal/native"
)

// Holding is what holding a key or leading gives: a *Lease, a *Permit or
// a *Leadership, the only types that implement it (it has a method of
// this package's own). The test kit's Expire (package tinystoretest)
// takes one.
type Holding interface {
	// Name is the group's or election's name.
	Name() string
	// Held reports whether it is still held.
	Held() bool
	// Err is nil while it is held, and then why it is not.
	Err() error
	// Done is closed when it is lost or given back.
	Done() <-chan struct{}
	// Renew extends it by its TTL from now.
	Renew(ctx context.Context) error
	nativeHeld() *native.Held
}

// holding is what a Lease and a Permit share: the held key and how to let
// it go.
type holding struct {
	h *native.Held
}

func (h holding) nativeHeld() *native.Held { return h.h }

// Key is the key held, as text.
func (h holding) Key() string { return h.h.Key }

// Name is the group's name.
func (h holding) Name() string { return h.h.Name }

// Held reports whether it is still held: false once released, run out, or
// lost with its store or connection.
func (h holding) Held() bool { return h.h.Err() == nil }

// Err is nil while it is held, and then why it is not (an ErrLeaseLost or
// ErrClosed error).
func (h holding) Err() error { return h.h.Err() }

// Done is closed when it is lost (it ran out, its store closed, its
// connection broke) or released.
func (h holding) Done() <-chan struct{} { return h.h.Done() }

// Renew extends it by its TTL from now; fails with ErrLeaseLost, changing
// nothing, when it already ran out or was released. ctx is checked first;
// the call itself is not interrupted.
func (h holding) Renew(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return h.h.Renew()
}

// Release releases it and closes Done. Idempotent; fails with ErrLeaseLost
// when it ran out before this first release. It releases even when ctx is
// done already, so that a deferred Release never leaks a lease.
func (h holding) Release(ctx context.Context) error {
	_ = ctx
	return h.h.Release()
}

// hold runs fn with v under a ctx that is cancelled when the lease is lost
// (its cause the core's lost reason), then releases it however fn ends (a
// panic goes on after the release). What it returns is the core's rule
// (end_hold): fn's own error; else, when the lease was lost during fn,
// ErrClosed or ErrLeaseLost, also when fn returned only the cancellation of
// its ctx that the loss caused; else nil.
//
// With an Observer set, the hold is its Hold, for kind's group.
func hold[T any](ctx context.Context, kind string, h holding, v T, fn func(context.Context, T) error) (err error) {
	var observed func(lost error)
	if o := currentObserver(); o != nil {
		ctx, observed = o.Hold(ctx, Place{Kind: kind, Name: h.h.Name, Key: h.h.Key}, heldFence(h.h))
	}
	fnCtx, cancel := context.WithCancelCause(ctx)
	var lost atomic.Value // the reason fnCtx was cancelled with for a loss
	h.h.OnLost(func() {
		if reason := h.h.LostReason(); reason != nil {
			lost.Store(reason)
			cancel(reason)
		}
	})
	bodyOK, cancelledByLoss := false, false
	defer func() {
		cancel(nil)
		ended := h.h.EndHold(bodyOK, cancelledByLoss)
		if ended != nil {
			err = ended
		}
		if observed != nil {
			if reason, ok := lost.Load().(error); ok && ended == nil {
				ended = reason // fn's own error won; the lease was lost all the same
			}
			observed(ended)
		}
	}()
	err = fn(fnCtx, v)
	bodyOK = err == nil
	cancelledByLoss = !bodyOK && byLoss(err, fnCtx, lost.Load())
	return err
}

// byLoss reports whether err is only the cancellation of ctx that the loss
// (reason, the cause ctx was cancelled with; nil if none) caused: ctx.Err()
// or the cause itself, and not the caller's own cancellation, which would
// have come first and be ctx's cause. What that means for the hold is the
// core's to say.
func byLoss(err error, ctx context.Context, reason any) bool {
	if reason == nil || reason != any(context.Cause(ctx)) {
		return false
	}
	cause, _ := reason.(error)
	return errors.Is(err, context.Canceled) || (cause != nil && errors.Is(err, cause))
}
